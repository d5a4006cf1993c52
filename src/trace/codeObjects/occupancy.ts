// Occupancy estimate: how many waves of one kernel a SIMD can hold at once, from its register counts and LDS
// (group segment) size, for the CDNA targets the profiler runs on.
//
// Where the figures come from:
// - LLVM AMDGPU backend, llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp (IsaInfo): getMaxWavesPerEU (8 for
//   the gfx90a family, gfx942/gfx950 included; 10 for other gfx9), getEUsPerCU (4 SIMDs a CU before gfx10),
//   getTotalNumVGPRs and getAddressableNumVGPRs (512 with gfx90a instructions: one unified file of ArchVGPRs and
//   AccVGPRs; 256 on gfx908), getVGPRAllocGranule (8 with gfx90a instructions, 4 for wave64 gfx908),
//   getTotalNumSGPRs (800 from gfx8), getOccupancyWithNumSGPRs (gfx8/gfx9: <=80 SGPRs 10 waves, <=88 9,
//   <=100 8, else 7), getMaxWorkGroupsPerCU (multi-wave workgroups: at most 16, the barrier limit, and
//   waves-per-CU / waves-per-workgroup); AMDGPUSubtarget::getOccupancyWithLocalMemSize (workgroups that fit the
//   CU's LDS, times waves per workgroup, divided over the SIMDs, rounded up).
// - The compiler's own figure agrees: clang-19's assembly comment `; Occupancy: N` is what these rules give,
//   checked by test/unit/trace/codeObjects.test.ts on code objects built for gfx942, gfx90a and gfx908.
// - AMD's "GPU specifications" table (ROCm docs, reference/gpu-specs): LDS 64 KiB per CU on MI300X/MI325X
//   (gfx942) and MI250X/MI210 (gfx90a), 160 KiB on MI355X/MI350X (gfx950); VGPR file 512 KiB per CU (4 SIMDs x
//   512 registers x 64 lanes x 4 bytes); SGPR file 12.5 KiB per CU (800 SGPRs a SIMD). One wave may have at
//   most 256 ArchVGPRs and 256 AccVGPRs of the 512 (MI200 ISA guide, section 3.6.4, as LLVM's #85860 quotes it).
// - .vgpr_count in the metadata already counts AGPRs on gfx90a/gfx942 (ArchVGPRs rounded up to 4, then
//   AccVGPRs: LLVM's getTotalNumVGPRs(has90AInsts, NumAGPR, NumVGPR)), so it is the figure the VGPR limit uses.
// Scratch does not limit the estimate (LLVM's getMaxWavesPerEU: "FIXME: Need to take scratch memory into
// account"); neither do the dispatch's real workgroup size when it differs from the one assumed.

export interface TargetLimits {
  /** The processors these limits are for, e.g. gfx942. */
  processors: readonly string[];
  simdsPerCu: number;
  maxWavesPerSimd: number;
  /** Vector registers a SIMD lane has for all its waves (ArchVGPRs and AccVGPRs together where unified). */
  vgprsPerSimd: number;
  vgprGranule: number;
  sgprsPerSimd: number;
  /** [SGPRs, waves]: a wave using at most SGPRs may have this many waves a SIMD; past the last row, `sgprFloor`. */
  sgprSteps: ReadonlyArray<readonly [number, number]>;
  sgprFloor: number;
  ldsBytesPerCu: number;
  maxBarriersPerCu: number;
  wavefrontSize: number;
}

const GFX9_SGPR_STEPS = [
  [80, 10],
  [88, 9],
  [100, 8],
] as const;

const TARGET_LIMITS: readonly TargetLimits[] = [
  {
    processors: ['gfx940', 'gfx941', 'gfx942'],
    simdsPerCu: 4,
    maxWavesPerSimd: 8,
    vgprsPerSimd: 512,
    vgprGranule: 8,
    sgprsPerSimd: 800,
    sgprSteps: GFX9_SGPR_STEPS,
    sgprFloor: 7,
    ldsBytesPerCu: 65536,
    maxBarriersPerCu: 16,
    wavefrontSize: 64,
  },
  {
    processors: ['gfx950'],
    simdsPerCu: 4,
    maxWavesPerSimd: 8,
    vgprsPerSimd: 512,
    vgprGranule: 8,
    sgprsPerSimd: 800,
    sgprSteps: GFX9_SGPR_STEPS,
    sgprFloor: 7,
    ldsBytesPerCu: 163840,
    maxBarriersPerCu: 16,
    wavefrontSize: 64,
  },
  {
    processors: ['gfx90a'],
    simdsPerCu: 4,
    maxWavesPerSimd: 8,
    vgprsPerSimd: 512,
    vgprGranule: 8,
    sgprsPerSimd: 800,
    sgprSteps: GFX9_SGPR_STEPS,
    sgprFloor: 7,
    ldsBytesPerCu: 65536,
    maxBarriersPerCu: 16,
    wavefrontSize: 64,
  },
  {
    processors: ['gfx908'],
    simdsPerCu: 4,
    maxWavesPerSimd: 10,
    vgprsPerSimd: 256,
    vgprGranule: 4,
    sgprsPerSimd: 800,
    sgprSteps: GFX9_SGPR_STEPS,
    sgprFloor: 7,
    ldsBytesPerCu: 65536,
    maxBarriersPerCu: 16,
    wavefrontSize: 64,
  },
];

/** `gfx942` from `amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-` (or from a bare processor name). */
export function processorOf(target: string): string {
  const afterTriple = target.includes('--') ? target.slice(target.lastIndexOf('--') + 2) : target;
  return afterTriple.split(':')[0] ?? afterTriple;
}

export function limitsFor(target: string): TargetLimits | undefined {
  const processor = processorOf(target);
  return TARGET_LIMITS.find((l) => l.processors.includes(processor));
}

type OccupancyLimiter = 'vgpr' | 'sgpr' | 'lds' | 'waves';

export interface OccupancyEstimate {
  /** Waves of this kernel one SIMD can hold at once. */
  wavesPerSimd: number;
  maxWavesPerSimd: number;
  /** What holds it at wavesPerSimd (several when they tie); `waves` when nothing holds it below the maximum. */
  limitedBy: OccupancyLimiter[];
  byVgpr: number;
  bySgpr: number;
  byLds: number;
  /** The workgroup size the LDS limit assumed, and where it came from. */
  workgroupSize: number;
  workgroupSizeFrom: 'reqd_workgroup_size' | 'max_flat_workgroup_size' | 'given';
}

export interface OccupancyInput {
  vgprCount: number;
  sgprCount: number;
  ldsBytes: number;
  workgroupSize: number;
  workgroupSizeFrom: OccupancyEstimate['workgroupSizeFrom'];
}

export function estimateOccupancy(limits: TargetLimits, k: OccupancyInput): OccupancyEstimate {
  const max = limits.maxWavesPerSimd;
  const byVgpr =
    k.vgprCount < limits.vgprGranule
      ? max
      : Math.min(max, Math.max(1, Math.floor(limits.vgprsPerSimd / roundUp(k.vgprCount, limits.vgprGranule))));
  const bySgpr = Math.min(max, limits.sgprSteps.find(([sgprs]) => k.sgprCount <= sgprs)?.[1] ?? limits.sgprFloor);
  const byLds = ldsOccupancy(limits, k.ldsBytes, Math.max(1, k.workgroupSize));
  const wavesPerSimd = Math.min(max, byVgpr, bySgpr, byLds);
  const limitedBy: OccupancyLimiter[] = [];
  if (wavesPerSimd < max) {
    if (byVgpr === wavesPerSimd) limitedBy.push('vgpr');
    if (bySgpr === wavesPerSimd) limitedBy.push('sgpr');
    if (byLds === wavesPerSimd) limitedBy.push('lds');
  } else limitedBy.push('waves');
  return {
    wavesPerSimd,
    maxWavesPerSimd: max,
    limitedBy,
    byVgpr,
    bySgpr,
    byLds,
    workgroupSize: k.workgroupSize,
    workgroupSizeFrom: k.workgroupSizeFrom,
  };
}

function ldsOccupancy(limits: TargetLimits, ldsBytes: number, workgroupSize: number): number {
  const wavesPerGroup = Math.ceil(workgroupSize / limits.wavefrontSize);
  const wavesPerCu = limits.maxWavesPerSimd * limits.simdsPerCu;
  // single-wave workgroups need no barrier, so only the wave slots bound them
  const maxGroups =
    wavesPerGroup === 1 ? wavesPerCu : Math.min(Math.floor(wavesPerCu / wavesPerGroup), limits.maxBarriersPerCu);
  if (maxGroups === 0) return 1;
  const fit = Math.floor(limits.ldsBytesPerCu / Math.max(1, ldsBytes));
  if (fit === 0) return 1;
  const groups = Math.min(maxGroups, fit);
  return Math.min(limits.maxWavesPerSimd, Math.ceil((groups * wavesPerGroup) / limits.simdsPerCu));
}

function roundUp(n: number, granule: number): number {
  return Math.ceil(n / granule) * granule;
}
