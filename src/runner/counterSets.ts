// Which hardware counters rocprofv3 collects for a profile run, per GPU arch, and how they are split into passes
// (rocprofv3 runs the program once per `--pmc` group). Facts and the packing rule: docs/counters.md.
//   roofline        the counters of the roofline formulas (../shared/docs/roofline.md, rocprof-compute's calc_ai);
//   speed-of-light  those of rocprof-compute's block 2 (0200_system_speed_of_light.yaml of the arch);
//   a list          the names given, on any arch.
import { KernelRunnerError } from '../core/errors';
import { type CounterRequest } from '../core/profileOptions';

const SUPPORTED_ARCHS = ['gfx90a', 'gfx942', 'gfx950'] as const;
export type GpuArch = (typeof SUPPORTED_ARCHS)[number];

/** Per hardware block, how many counters one pass may hold: rocprof-compute's perfmon_config (mi_gpu_spec.yaml), the same on the three archs. */
export const BLOCK_LIMITS: Readonly<Record<string, number>> = {
  SQ: 8,
  TA: 2,
  TD: 2,
  TCP: 4,
  TCC: 4,
  CPC: 2,
  CPF: 2,
  SPI: 6,
  GRBM: 2,
  GDS: 4,
};

const VALU_FLOPS = ['F16', 'F32', 'F64'].flatMap((t) =>
  ['ADD', 'MUL', 'FMA', 'TRANS'].map((op) => `SQ_INSTS_VALU_${op}_${t}`),
);

function mfmaTypes(arch: GpuArch): string[] {
  // F8 exists on gfx94x and gfx950, F6F4 on gfx950 only (rocprofiler-sdk counter_defs.yaml)
  const types = ['F16', 'BF16', 'F32', 'F64', 'I8'];
  if (arch !== 'gfx90a') types.push('F8');
  if (arch === 'gfx950') types.push('F6F4');
  return types.map((t) => `SQ_INSTS_VALU_MFMA_MOPS_${t}`);
}

/** HBM traffic: the TCC_EA_* forms on gfx90a (MI200), TCC_EA0_* and TCC_BUBBLE on gfx94x/gfx950. */
function hbmCounters(arch: GpuArch): string[] {
  return arch === 'gfx90a'
    ? ['TCC_EA_RDREQ_sum', 'TCC_EA_RDREQ_32B_sum', 'TCC_EA_WRREQ_sum', 'TCC_EA_WRREQ_64B_sum']
    : ['TCC_BUBBLE_sum', 'TCC_EA0_RDREQ_sum', 'TCC_EA0_RDREQ_32B_sum', 'TCC_EA0_WRREQ_sum', 'TCC_EA0_WRREQ_64B_sum'];
}

const L2_REQUESTS = [
  'TCP_TCC_READ_REQ_sum',
  'TCP_TCC_WRITE_REQ_sum',
  'TCP_TCC_ATOMIC_WITH_RET_REQ_sum',
  'TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum',
];

export function rooflineCounters(arch: GpuArch): string[] {
  return [
    ...VALU_FLOPS,
    ...mfmaTypes(arch),
    'SQ_LDS_IDX_ACTIVE',
    'SQ_LDS_BANK_CONFLICT',
    'TCP_TOTAL_CACHE_ACCESSES_sum',
    ...L2_REQUESTS,
    ...hbmCounters(arch),
  ];
}

/** Block 2 of rocprof-compute (System Speed-of-Light); GRBM_GUI_ACTIVE stands for its GRBM_GUI_ACTIVE_PER_XCD (divided by the XCDs). */
export function speedOfLightCounters(arch: GpuArch): string[] {
  const ea =
    arch === 'gfx90a'
      ? ['TCC_EA_RDREQ_LEVEL_sum', 'TCC_EA_WRREQ_LEVEL_sum']
      : ['TCC_EA0_RDREQ_LEVEL_sum', 'TCC_EA0_WRREQ_LEVEL_sum'];
  return [
    ...rooflineCounters(arch),
    'SQ_INSTS_VALU_INT32',
    'SQ_INSTS_VALU_INT64',
    'SQ_INSTS',
    'SQ_ACTIVE_INST_VALU',
    'SQ_ACTIVE_INST_FLAT',
    'SQ_ACTIVE_INST_MISC',
    'SQ_ACTIVE_INST_SCA',
    'SQ_ACTIVE_INST_VMEM',
    'SQ_THREAD_CYCLES_VALU',
    'SQ_VALU_MFMA_BUSY_CYCLES',
    'SQ_BUSY_CU_CYCLES',
    'SQ_IFETCH',
    'SQ_LEVEL_WAVES',
    'SQ_IFETCH_LEVEL',
    'SQC_DCACHE_HITS',
    'SQC_DCACHE_MISSES',
    'SQC_DCACHE_REQ',
    'SQC_ICACHE_HITS',
    'SQC_ICACHE_MISSES',
    'SQC_ICACHE_REQ',
    'TCC_REQ_sum',
    'TCC_HIT_sum',
    'TCC_MISS_sum',
    ...ea,
    'GRBM_GUI_ACTIVE',
  ];
}

/** The hardware block a counter is counted in (`TCC_HIT_sum` -> TCC, `SQC_*` -> SQ), or null for a name that tells none (a derived metric). */
export function blockOf(counter: string): string | null {
  const prefix = counter.split('_')[0] as string;
  const block = prefix === 'SQC' ? 'SQ' : prefix;
  return block in BLOCK_LIMITS ? block : null;
}

/** An SQ level counter: it needs SQ_ACCUM_PREV_HIRES beside it, alone in its pass (rocprof-compute's perfmon_coalesce). */
function isSqLevel(counter: string): boolean {
  return blockOf(counter) === 'SQ' && counter.includes('LEVEL') && !counter.endsWith('_sum');
}

/**
 * Splits counters into passes: first fit, in the order given, within BLOCK_LIMITS per block; an SQ level counter
 * gets a pass of its own with SQ_ACCUM_PREV_HIRES; a name whose block is unknown (a derived metric such as GPUBusy)
 * gets a pass of its own, since its hardware inputs are not known here.
 */
export function splitIntoPasses(counters: readonly string[]): string[][] {
  const passes: Array<{ counters: string[]; used: Map<string, number>; closed: boolean }> = [];
  const seen = new Set<string>();
  for (const c of counters) {
    if (seen.has(c)) continue;
    seen.add(c);
    if (c === 'SQ_ACCUM_PREV_HIRES') continue; // added beside each level counter
    if (isSqLevel(c)) {
      passes.push({ counters: [c, 'SQ_ACCUM_PREV_HIRES'], used: new Map(), closed: true });
      continue;
    }
    const block = blockOf(c);
    if (block === null) {
      passes.push({ counters: [c], used: new Map(), closed: true });
      continue;
    }
    const limit = BLOCK_LIMITS[block] as number;
    let pass = passes.find((p) => !p.closed && (p.used.get(block) ?? 0) < limit);
    if (!pass) {
      pass = { counters: [], used: new Map(), closed: false };
      passes.push(pass);
    }
    pass.counters.push(c);
    pass.used.set(block, (pass.used.get(block) ?? 0) + 1);
  }
  if (seen.has('SQ_ACCUM_PREV_HIRES') && !passes.some((p) => p.counters.includes('SQ_ACCUM_PREV_HIRES'))) {
    passes.push({ counters: ['SQ_ACCUM_PREV_HIRES'], used: new Map(), closed: true });
  }
  return passes.map((p) => p.counters);
}

/** `gfx942` from rocminfo's agent name; an arch we have no counter table for -> null. */
export function supportedArch(name: string | null | undefined): GpuArch | null {
  const n = (name ?? '').trim().toLowerCase();
  if (n === 'gfx940' || n === 'gfx941') return 'gfx942';
  return (SUPPORTED_ARCHS as readonly string[]).includes(n) ? (n as GpuArch) : null;
}

/** The arch of a GPU by its marketing or GPU MODE name, for when rocminfo cannot be asked. */
export function archOfGpuName(name: string): GpuArch | null {
  const m = /MI\s?(\d{3})([A-Z]?)/i.exec(name);
  if (!m) return null;
  const n = Number(m[1]);
  if (n === 210 || n === 250) return 'gfx90a';
  if (n === 300 || n === 308 || n === 325) return 'gfx942';
  if (n === 350 || n === 355) return 'gfx950';
  return null;
}

export class CounterSetError extends KernelRunnerError {
  override readonly name = 'CounterSetError';
  readonly code = 'RUNNER_COUNTERS';
}

/** The `--pmc` groups for a request on an arch; a preset needs a known arch. */
export function counterPasses(req: CounterRequest, arch: GpuArch | null, gpuLabel: string): string[][] {
  if (req.kind === 'off') return [];
  if (req.kind === 'list') return splitIntoPasses(req.counters);
  if (!arch) {
    throw new CounterSetError(
      `counters=${req.preset} needs the GPU's architecture (gfx90a, gfx942 or gfx950) and this runner could not tell it for ${gpuLabel} ` +
        '(no rocminfo on the node, and the GPU name is not an MI200/MI300/MI350 part): name the counters instead (counters=SQ_WAVES,...)',
    );
  }
  return splitIntoPasses(req.preset === 'roofline' ? rooflineCounters(arch) : speedOfLightCounters(arch));
}
