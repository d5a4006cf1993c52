// What each input file is: by its content (CSV header names, SQLite magic, JSON head) with the file name as a
// hint, and which output set (one profiled process) it belongs to: `DIR/<prefix>_<kind>.<ext>`, where the
// prefix is `<pid>` (GPU MODE, ROCm 6.2 default) and DIR may be `<hostname>/` (ROCm >= 6.3 default).
import { Columns, readCsvHeader } from './csvFile';
import { MAX_WIDE_FIELDS, isRocprofComputeWide, isWideHeadColumn } from './counters/pmcPerfWide';

/** The columns the other readers take (the scanner's default). */
const DEFAULT_MAX_FIELDS = 256;
import type { FileSource } from './sources';

export type StatsOf = 'kernel' | 'api' | 'copy' | 'marker';

export type Classified =
  | {
      kind: 'kernel_trace' | 'memory_copy_trace' | 'api_trace' | 'agent_info' | 'counter_collection' | 'pc_sampling';
      columns: Columns;
    }
  | { kind: 'stats'; statsOf: StatsOf; family: string | null; columns: Columns }
  | { kind: 'pmc_perf'; columns: Columns }
  /** One counter pass of a rocprof-compute workload (SQ_IFETCH_LEVEL.csv, ...): counters of pmc_perf.csv's dispatches. */
  | { kind: 'workload_pass'; columns: Columns }
  | { kind: 'workload_info'; file: 'sysinfo' | 'roofline' | 'profiling_config' }
  | { kind: 'rocpd' }
  | { kind: 'v1_json' }
  | { kind: 'skip'; reason: string };

export interface SetKey {
  key: string;
  dir: string;
  prefix: string;
  pid: number | null;
  host: string | null;
}

const ROCPROFV3_KINDS = [
  'kernel_trace',
  'memory_copy_trace',
  'memory_allocation_trace',
  'scratch_memory_trace',
  'hip_api_trace',
  'hsa_api_trace',
  'marker_api_trace',
  'rccl_api_trace',
  'rocdecode_api_trace',
  'rocjpeg_api_trace',
  'counter_collection',
  'agent_info',
  'kernel_stats',
  'hip_api_stats',
  'hip_stats',
  'hsa_api_stats',
  'hsa_stats',
  'memory_copy_stats',
  'marker_api_stats',
  'rccl_api_stats',
  'domain_stats',
  'results',
  'hip_trace',
  'hsa_trace',
  'marker_trace',
  'rccl_trace',
  'pc_sampling_host_trap',
  'pc_sampling_stochastic',
];
const KIND_RE = new RegExp(`^(.*?)[-._]?(?:${ROCPROFV3_KINDS.join('|')})$`);
const V1_RE = /^(.*?)[-._]?results$/;
const V1_STATS_SUFFIX = /\.(?:stats|copy_stats|hip_stats|hsa_stats|sysinfo)$/;

/**
 * The files rocprof-compute's profile mode writes in a workload folder: one run of the program per counter pass,
 * the passes' dispatches the same ones (pmc_perf.csv joins them, timestamps.csv is the kernel-trace pass).
 */
const WORKLOAD_FILE_RE =
  /^(?:pmc_perf(?:_\d+)?\.csv|timestamps\.csv|SQ_[A-Z0-9_]+\.csv|pmc_dispatch_info\.csv|sysinfo\.csv|roofline\.csv|profiling_config\.yaml)$/;

export function setKeyOf(path: string): SetKey {
  const slash = path.lastIndexOf('/');
  const dir = slash >= 0 ? path.slice(0, slash) : '';
  const base = slash >= 0 ? path.slice(slash + 1) : path;
  // a workload folder is one set: its passes are one run's dispatches, counted once
  if (WORKLOAD_FILE_RE.test(base))
    return { key: `${dir}/rocprof-compute`, dir, prefix: 'rocprof-compute', pid: null, host: null };
  // rocprof v1 names a run's stats after its `-o <name>.csv` (`results_3.stats.csv` beside `results_3.json`)
  const stem = base.replace(/\.[^.]+$/, '').replace(V1_STATS_SUFFIX, '');
  const m = V1_RE.exec(stem) ?? KIND_RE.exec(stem);
  const prefix = m ? (m[1] as string) : stem;
  const pid = /^\d+$/.test(prefix) ? Number(prefix) : null;
  const host = pid !== null && dir !== '' ? (dir.split('/').pop() as string) : null;
  return { key: `${dir}/${prefix}`, dir, prefix, pid, host };
}

/** The stats kind from the end of the file name, after any prefix (`run1-kernel_stats.csv`, `results.stats.csv`). */
function statsKindFromName(base: string): { statsOf: StatsOf; family: string | null } | null {
  const b = base.toLowerCase();
  if (/kernel_stats\.csv$/.test(b)) return { statsOf: 'kernel', family: null };
  if (/(hip_api_stats|hip_stats)\.csv$/.test(b)) return { statsOf: 'api', family: 'HIP' };
  if (/(hsa_api_stats|hsa_stats)\.csv$/.test(b)) return { statsOf: 'api', family: 'HSA' };
  if (/rccl_api_stats\.csv$/.test(b)) return { statsOf: 'api', family: 'RCCL' };
  if (/copy_stats\.csv$/.test(b)) return { statsOf: 'copy', family: null };
  if (/marker_api_stats\.csv$/.test(b)) return { statsOf: 'marker', family: null };
  // legacy v1: `results.stats.csv`, or `<name>.stats.csv` after `-o <name>.csv`
  if (/(^|\.)stats\.csv$/.test(b)) return { statsOf: 'kernel', family: null };
  return null;
}

export async function readHead(source: FileSource, n: number): Promise<Buffer> {
  const stream = await source.open();
  const chunks: Buffer[] = [];
  let got = 0;
  try {
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer);
      got += (chunk as Buffer).length;
      if (got >= n) break;
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks).subarray(0, n);
}

/**
 * A legacy rocprof results.json that holds only what its writer appends after the opening line (sqlitedb.py's
 * label_json: `,{"args":{"name":"GPU0"},"ph":"M",...,"name":"process_name",...}` lines, about 80 bytes each): the
 * `{ "traceEvents":[{}` start and every event are missing, as ROCm 6.0's rocprof left it. Null for other JSON.
 */
function v1JsonFragment(head: string, size: number): string | null {
  const t = head.trimStart();
  if (!t.startsWith(',{') || !/"ph"\s*:\s*"M"/.test(t) || !/"name"\s*:\s*"process_name"/.test(t)) return null;
  const labels = t.split('\n').filter((l) => l.startsWith(',{')).length;
  return `broken rocprof v1 results.json (${size} bytes: ${labels} process label line(s), without the "traceEvents" start or any event; ROCm 6.0's rocprof leaves these): not read; the run's results.csv and stats files hold its data`;
}

export async function classify(source: FileSource): Promise<Classified> {
  const base = source.path.slice(source.path.lastIndexOf('/') + 1);
  const lower = base.toLowerCase();
  if (source.size === 0) return { kind: 'skip', reason: 'empty file' };
  if (lower.endsWith('.pftrace')) {
    return {
      kind: 'skip',
      reason:
        'Perfetto trace: for viewing; statistics come from CSV or rocpd (rocprofv3 shifts overlapping kernels in pftrace)',
    };
  }
  if (/\.o$/.test(lower) || lower.includes('code_object') || lower.endsWith('.hsaco')) {
    return { kind: 'skip', reason: 'GPU code object' };
  }
  if (lower.endsWith('.zip')) return { kind: 'skip', reason: 'zip inside a zip or folder: not opened' };
  if (lower.endsWith('.otf2')) return { kind: 'skip', reason: 'OTF2 trace: not read (use CSV or rocpd output)' };
  if (lower.endsWith('.db') || lower.endsWith('.sqlite') || lower.endsWith('.rpd')) {
    const head = await readHead(source, 16);
    if (head.toString('latin1') !== 'SQLite format 3\u0000') return { kind: 'skip', reason: 'not an SQLite database' };
    // rocprof-compute's `analyze` writes its results (metrics per kernel, not a trace) as rocprof_compute_<hash>.db
    if (/^rocprof_compute_[0-9a-f]+\.db$/.test(lower)) {
      return {
        kind: 'skip',
        reason:
          "rocprof-compute's analysis database (rocprof_compute_<hash>.db, written by rocprof-compute analyze): metrics, not a trace; not read",
      };
    }
    return { kind: 'rocpd' };
  }
  if (lower.endsWith('.json')) {
    const head = (await readHead(source, 4096)).toString('utf8');
    if (/"traceEvents"\s*:/.test(head)) return { kind: 'v1_json' };
    const fragment = v1JsonFragment(head, source.size);
    if (fragment) return { kind: 'skip', reason: fragment };
    return {
      kind: 'skip',
      reason: 'JSON that is not a rocprof v1 chrome trace (rocprofv3 JSON is not read: use its CSV or rocpd output)',
    };
  }
  // rocprof-compute workload folders: the GPU's description and peaks beside pmc_perf.csv (src/trace/counters/)
  if (lower === 'profiling_config.yaml') return { kind: 'workload_info', file: 'profiling_config' };
  if (lower === 'sysinfo.csv') return { kind: 'workload_info', file: 'sysinfo' };
  if (lower === 'roofline.csv') return { kind: 'workload_info', file: 'roofline' };
  if (!lower.endsWith('.csv')) return { kind: 'skip', reason: 'not a rocprof output file' };

  let header: string[] | null;
  try {
    // rocprof-compute's wide pmc_perf.csv has a column per counter and channel: thousands (whatever the file is named)
    header = await readCsvHeader(source, MAX_WIDE_FIELDS);
  } catch (err) {
    return { kind: 'skip', reason: `unreadable CSV: ${(err as Error).message}` };
  }
  if (!header || header.length === 0) return { kind: 'skip', reason: 'CSV without a header' };
  const c = new Columns(header);
  if (c.has('Name') && c.has('Calls') && c.has('TotalDurationNs')) {
    if (/domain_stats\.csv$/.test(lower))
      return { kind: 'skip', reason: 'per-domain totals: not needed (the per-call stats and traces are read)' };
    const k = statsKindFromName(base);
    if (!k) {
      const other = /([a-z]+(?:_[a-z]+)*)_stats\.csv$/.exec(lower);
      if (other) return { kind: 'skip', reason: `${other[1]} stats: not summarised` };
      return {
        kind: 'skip',
        reason:
          'stats CSV whose kind (kernel, hip_api, memory_copy, ...) the file name does not tell: name it <prefix>kernel_stats.csv, ...hip_api_stats.csv, ...memory_copy_stats.csv',
      };
    }
    return { kind: 'stats', ...k, columns: c };
  }
  // rocprof-compute on a rocpd profile writes pmc_perf.csv in the long counter_collection layout: read as one
  const wide = !(c.has('Counter_Name') && c.has('Counter_Value') && c.has('Kernel_Name'));
  if (/pmc_perf/.test(lower) && wide) {
    if (/^pmc_perf_\d+\.csv$/.test(lower)) {
      return {
        kind: 'skip',
        reason:
          "rocprof-compute's pmc_perf table: another format, not read (one counter pass; pmc_perf.csv, the passes merged, is read for its counters)",
      };
    }
    if (c.has('Kernel_Name') && c.has('Start_Timestamp') && c.has('End_Timestamp'))
      return { kind: 'pmc_perf', columns: c };
    return { kind: 'skip', reason: "rocprof-compute's pmc_perf table without Kernel_Name and timestamps: not read" };
  }
  if (!wide) return { kind: 'counter_collection', columns: c };
  // a counter pass of a workload folder (its own program run): counters, its dispatches are pmc_perf.csv's; the
  // kernel-trace pass (timestamps.csv, no counters) is read as the kernel trace below
  if (isRocprofComputeWide(header) && header.length > header.filter(isWideHeadColumn).length)
    return { kind: 'workload_pass', columns: c };
  if (header.length > DEFAULT_MAX_FIELDS)
    return { kind: 'skip', reason: `CSV of ${header.length} columns that is not a counter table: not read` };
  if (c.has('Kernel_Name', 'KernelName')) {
    if (c.has('Start_Timestamp', 'BeginNs') && c.has('End_Timestamp', 'EndNs'))
      return { kind: 'kernel_trace', columns: c };
    if (c.has('Stop_Timestamp') && c.has('Operation')) {
      return {
        kind: 'skip',
        reason: 'rocprofv2 HIP activity trace (Stop_Timestamp): another format, not read (use its kernel trace)',
      };
    }
    if (c.has('KernelName'))
      return {
        kind: 'skip',
        reason: 'legacy rocprof v1 counter CSV (rocprof -i) without start/end timestamps: not read',
      };
    return { kind: 'skip', reason: 'kernel CSV without start/end timestamps (a counter run)' };
  }
  if (c.has('Direction') && c.has('Source_Agent_Id') && c.has('Start_Timestamp'))
    return { kind: 'memory_copy_trace', columns: c };
  if (c.has('Function') && c.has('Start_Timestamp') && c.has('End_Timestamp')) return { kind: 'api_trace', columns: c };
  // ROCm 7's scratch memory trace has Allocation_Size too (after Alloc_Flags): Alloc_Flags tells them apart
  if (c.has('Alloc_Flags')) return { kind: 'skip', reason: 'scratch memory trace (Alloc_Flags): not summarised' };
  if (c.has('Allocation_Size')) return { kind: 'skip', reason: 'memory allocation trace: not summarised' };
  if (c.has('Agent_Type') && c.has('Node_Id')) return { kind: 'agent_info', columns: c };
  // PC samples: read for the hot spots (src/trace/pcSampling), not for the summary's tables
  if (c.has('Exec_Mask') && c.has('Dispatch_Id') && c.has('Instruction_Comment'))
    return { kind: 'pc_sampling', columns: c };
  return {
    kind: 'skip',
    reason: `CSV with unrecognised columns (${header.slice(0, 4).join(', ')}${header.length > 4 ? ', ...' : ''})`,
  };
}
