// The GPU's clocks, CU counts and partitioning, read from `rocminfo` and `amd-smi static --json` on the node that
// runs the profile, written beside the counters as `sysinfo.csv` with rocprof-compute's column names (its
// workload folders' sysinfo.csv), so that spec peaks are computed from it as rocprof-compute computes them
// (../shared/docs/roofline.md). How rocprof-compute fills each column (src/utils/specs.py, soc_base.py
// populate_mspec, mi_gpu_spec.yaml @ ROCm/rocm-systems 1b1610fc) is what is done here; docs/counters.md lists it.
// A tool that is missing or fails leaves its columns empty and the `sources` column says so: never a failure.
import { stripAnsi } from '../core/noise/ansi';

export interface GpuSysinfo {
  gpu_model: string | null;
  gpu_arch: string | null;
  gpu_chip_id: string | null;
  gpu_l1: string | null;
  gpu_l2: string | null;
  cu_per_gpu: string | null;
  simd_per_cu: string | null;
  se_per_gpu: string | null;
  wave_size: string | null;
  workgroup_max_size: string | null;
  max_waves_per_cu: string | null;
  max_sclk: string | null;
  max_mclk: string | null;
  cur_sclk: string | null;
  cur_mclk: string | null;
  compute_partition: string | null;
  memory_partition: string | null;
  num_xcd: string | null;
  total_l2_chan: string | null;
  lds_banks_per_cu: string | null;
  num_hbm_channels: string | null;
  /** What each tool gave: `rocminfo: read; amd-smi: not found`. */
  sources: string;
}

export const SYSINFO_COLUMNS: ReadonlyArray<keyof GpuSysinfo> = [
  'gpu_model',
  'gpu_arch',
  'gpu_chip_id',
  'gpu_l1',
  'gpu_l2',
  'cu_per_gpu',
  'simd_per_cu',
  'se_per_gpu',
  'wave_size',
  'workgroup_max_size',
  'max_waves_per_cu',
  'max_sclk',
  'max_mclk',
  'cur_sclk',
  'cur_mclk',
  'compute_partition',
  'memory_partition',
  'num_xcd',
  'total_l2_chan',
  'lds_banks_per_cu',
  'num_hbm_channels',
  'sources',
];

export interface RocminfoGpu {
  name: string | null;
  marketingName: string | null;
  chipId: string | null;
  l1Kb: string | null;
  l2Kb: string | null;
  maxClockMhz: string | null;
  computeUnits: string | null;
  simdsPerCu: string | null;
  shaderEngines: string | null;
  wavefrontSize: string | null;
  workgroupMaxSize: string | null;
  maxWavesPerCu: string | null;
}

/** The leading integer of a rocminfo value: `64(0x40)` -> `64`, `4096(0x1000) KB` -> `4096`. */
function leadingInt(v: string | undefined): string | null {
  const m = /^\s*(\d+)/.exec(v ?? '');
  return m ? (m[1] as string) : null;
}

/** `rocminfo` output -> its GPU agents (Device Type: GPU), in agent order. ANSI colour is tolerated. */
export function parseRocminfoGpus(text: string): RocminfoGpu[] {
  const gpus: RocminfoGpu[] = [];
  let fields: Map<string, string> | null = null;
  let inIsa = false;
  const close = () => {
    if (fields?.get('Device Type') !== 'GPU') return;
    const f = fields;
    gpus.push({
      name: f.get('Name') ?? null,
      marketingName: f.get('Marketing Name') ?? null,
      chipId: leadingInt(f.get('Chip ID')),
      l1Kb: leadingInt(f.get('L1')),
      l2Kb: leadingInt(f.get('L2')),
      maxClockMhz: leadingInt(f.get('Max Clock Freq. (MHz)')),
      computeUnits: leadingInt(f.get('Compute Unit')),
      simdsPerCu: leadingInt(f.get('SIMDs per CU')),
      shaderEngines: leadingInt(f.get('Shader Engines')),
      wavefrontSize: leadingInt(f.get('Wavefront Size')),
      workgroupMaxSize: leadingInt(f.get('Workgroup Max Size')),
      maxWavesPerCu: leadingInt(f.get('Max Waves Per CU')),
    });
  };
  for (const raw of stripAnsi(text).split(/\r?\n/)) {
    if (/^\s*Agent \d+\s*$/.test(raw)) {
      close();
      fields = new Map();
      inIsa = false;
      continue;
    }
    if (!fields) continue;
    // the ISA section repeats `Name:` (amdgcn-amd-amdhsa--gfx942...): the agent's own fields come first
    if (/^\s*ISA Info:/.test(raw)) inIsa = true;
    if (inIsa) continue;
    const m = /^\s*([^:]+?):\s*(.*?)\s*$/.exec(raw);
    if (!m) continue;
    const key = m[1] as string;
    if (!fields.has(key)) fields.set(key, m[2] as string);
  }
  close();
  return gpus;
}

export interface AmdSmiGpu {
  /** Highest memory clock level, MHz. */
  maxMclk: string | null;
  /** Highest system (engine) clock level, MHz. */
  maxSclk: string | null;
  computePartition: string | null;
  memoryPartition: string | null;
}

function mhz(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string') {
    const m = /^\s*(\d+(?:\.\d+)?)/.exec(v);
    if (m) return Number(m[1]);
  }
  if (v && typeof v === 'object' && 'value' in v) return mhz((v as { value: unknown }).value);
  return null;
}

/** The highest of `frequency_levels` (`{"Level 0": "900 MHz", ...}`), as rocprof-compute takes the highest level. */
function topLevel(levels: unknown): string | null {
  if (!levels || typeof levels !== 'object') return null;
  const values = Object.values(levels as Record<string, unknown>)
    .map(mhz)
    .filter((n): n is number => n !== null && n > 0);
  return values.length ? String(Math.max(...values)) : null;
}

/** The first string value under a key of this name anywhere in `v` (partition keys moved between amd-smi versions). */
function findKey(v: unknown, names: readonly string[], depth = 0): string | null {
  if (!v || typeof v !== 'object' || depth > 6) return null;
  for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
    if (names.includes(k.toLowerCase()) && typeof val === 'string' && val.trim() && !/^n\/a$/i.test(val.trim()))
      return val.trim();
  }
  for (const val of Object.values(v as Record<string, unknown>)) {
    const found = findKey(val, names, depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * `amd-smi static --json` -> per GPU, in order: `{"gpu_data": [...]}` from amd-smi 26, a bare list before
 * (rocprof-compute reads both). Text that is not such JSON -> [].
 */
export function parseAmdSmiStatic(text: string): AmdSmiGpu[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return [];
  }
  const list = Array.isArray(doc)
    ? doc
    : doc && typeof doc === 'object' && Array.isArray((doc as { gpu_data?: unknown }).gpu_data)
      ? (doc as { gpu_data: unknown[] }).gpu_data
      : [];
  return list.map((g) => {
    const clock = (g && typeof g === 'object' ? (g as { clock?: unknown }).clock : undefined) as
      Record<string, { frequency_levels?: unknown }> | undefined;
    return {
      maxMclk: topLevel(clock?.mem?.frequency_levels),
      maxSclk: topLevel(clock?.sys?.frequency_levels),
      computePartition: findKey(g, ['compute_partition', 'accelerator_partition']),
      memoryPartition: findKey(g, ['memory_partition']),
    };
  });
}

/** Chip IDs -> rocprof-compute's gpu_model (mi_gpu_spec.yaml: physical and virtual ids). */
const MODEL_OF_CHIP: Record<string, string> = {
  '29711': 'MI210',
  '29708': 'MI250',
  '29704': 'MI250X',
  '29856': 'MI300A_A1',
  '29876': 'MI300A_A1',
  '29857': 'MI300X_A1',
  '29877': 'MI300X_A1',
  '29865': 'MI300XHF',
  '29885': 'MI300XHF',
  '29858': 'MI308X',
  '29878': 'MI308X',
  '29864': 'MI308XHF',
  '29884': 'MI308XHF',
  '29861': 'MI325X',
  '29881': 'MI325X',
  '30112': 'MI350',
  '30128': 'MI350',
  '30115': 'MI355',
  '30131': 'MI355',
  '30114': 'MI358',
  '30130': 'MI358',
};

/** XCDs per compute partition, per model (mi_gpu_spec.yaml `num_xcds`); gfx90a parts have one. */
const XCDS: Record<string, Record<string, number>> = {
  MI300A_A1: { spx: 6, tpx: 2, cpx: 1 },
  MI308X: { spx: 4, dpx: 2, cpx: 1 },
  MI308XHF: { spx: 4, dpx: 2, cpx: 1 },
};
const XCDS_8: Record<string, number> = { spx: 8, dpx: 4, qpx: 2, cpx: 1 };

/** L2 channels per XCD (`_l2_banks` in rocprof-compute's soc_<arch>.py); LDS banks per CU are 32 on all three. */
const L2_BANKS: Record<string, number> = { gfx90a: 32, gfx942: 16, gfx950: 16 };

function numXcd(arch: string | null, model: string | null, partition: string | null): number | null {
  if (arch === 'gfx90a') return 1;
  if (!model) return null;
  const table = XCDS[model] ?? (model.startsWith('MI3') ? XCDS_8 : null);
  // rocprof-compute applies SPX when amd-smi does not tell the partition
  return table?.[(partition ?? 'SPX').toLowerCase()] ?? null;
}

export interface ToolOutput {
  /** stdout, or null when the tool is not there or failed. */
  text: string | null;
  /** `read`, `not found`, `failed (exit 2)` ... */
  status: string;
}

/** Both tools' outputs -> the sysinfo row of GPU `index` (its place among the GPU agents; 0 when not known). */
export function buildSysinfo(rocminfo: ToolOutput, amdSmi: ToolOutput, index = 0): GpuSysinfo {
  const gpus = rocminfo.text ? parseRocminfoGpus(rocminfo.text) : [];
  const r = gpus[index] ?? gpus[0] ?? null;
  const smis = amdSmi.text ? parseAmdSmiStatic(amdSmi.text) : [];
  const s = smis[index] ?? smis[0] ?? null;
  const arch = r?.name && /^gfx[0-9a-z]+$/i.test(r.name) ? r.name.toLowerCase() : null;
  const model = r?.chipId ? (MODEL_OF_CHIP[r.chipId] ?? null) : null;
  const computePartition = s?.computePartition ?? null;
  const memoryPartition = s?.memoryPartition ?? null;
  const xcd = numXcd(arch, model, computePartition);
  const banks = arch ? L2_BANKS[arch] : undefined;
  const totalL2 = xcd !== null && banks !== undefined ? xcd * banks : null;
  // specs.py get_hbm_channels: 128 on an NPS memory partition (/4 for NPS4, /8 for NPS8), else the L2 channels
  let hbm: number | null = null;
  if (memoryPartition && /^nps/i.test(memoryPartition)) {
    hbm = 128 / (/^nps4$/i.test(memoryPartition) ? 4 : /^nps8$/i.test(memoryPartition) ? 8 : 1);
  } else if (totalL2 !== null) hbm = totalL2;
  const maxSclk = r?.maxClockMhz ?? null;
  const maxMclk = s?.maxMclk ?? null;
  const detail = (tool: string, out: ToolOutput, got: boolean) =>
    `${tool}: ${out.status === 'read' && !got ? 'read, no GPU found in its output' : out.status}`;
  const unknown = !r && !s;
  return {
    gpu_model: model,
    gpu_arch: arch,
    gpu_chip_id: r?.chipId ?? null,
    gpu_l1: r?.l1Kb ?? null,
    gpu_l2: r?.l2Kb ?? null,
    cu_per_gpu: r?.computeUnits ?? null,
    simd_per_cu: r?.simdsPerCu ?? null,
    se_per_gpu: r?.shaderEngines ?? null,
    wave_size: r?.wavefrontSize ?? null,
    workgroup_max_size: r?.workgroupMaxSize ?? null,
    max_waves_per_cu: r?.maxWavesPerCu ?? null,
    max_sclk: maxSclk,
    max_mclk: maxMclk,
    // rocprof-compute writes the max clocks here too ("all max, all the time")
    cur_sclk: maxSclk,
    cur_mclk: maxMclk,
    compute_partition: computePartition,
    memory_partition: memoryPartition,
    num_xcd: xcd === null ? null : String(xcd),
    total_l2_chan: totalL2 === null ? null : String(totalL2),
    lds_banks_per_cu: arch && arch in L2_BANKS ? '32' : null,
    num_hbm_channels: hbm === null ? null : String(hbm),
    sources: `${unknown ? 'unknown: ' : ''}${detail('rocminfo', rocminfo, r !== null)}; ${detail('amd-smi', amdSmi, s !== null)}`,
  };
}

function csvCell(v: string | null): string {
  if (v === null) return '';
  return /[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** sysinfo.csv: a header of rocprof-compute's column names and one row; unknown values are empty cells. */
export function sysinfoCsv(info: GpuSysinfo): string {
  return `${SYSINFO_COLUMNS.join(',')}\n${SYSINFO_COLUMNS.map((c) => csvCell(info[c])).join(',')}\n`;
}
