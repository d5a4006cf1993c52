// hotspotsPath: a PC-sample CSV, a rocprofv3 JSON output, a folder or a profile zip -> PcHotspots. Files are grouped
// by run (classify.ts's output sets): each run's samples are told per kernel through that run's kernel trace.
// A run written in both CSV and JSON (`--output-format csv json`) is read once: from the JSON, which carries each
// sample's code object offset, unless it is too large to parse whole.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { PcHotspots, PcSamplingUnit, ProcessHotspots } from '../../core/protocol/pcSampling';
import type { ProcessManifest } from '../../core/protocol/processManifest';
import { readHead, setKeyOf } from '../classify';
import { Columns, readCsvHeader } from '../csvFile';
import { CsvFormatError } from '../csvScanner';
import { TraceInputError } from '../errors';
import { isManifestPath, ProcessGroups, readManifest } from '../processes';
import {
  isZip,
  listFolder,
  listSingleFile,
  listZip,
  ZipLimitError,
  type FileSource,
  type SourceSet,
  type ZipLimits,
} from '../sources';
import { nonRegularKind } from '../regularFile';
import { HotspotAggregator } from './aggregate';
import {
  newPcCsvProblems,
  pcCsvWarnings,
  pcSamplingMethodOf,
  readPcSamplingCsv,
  type PcCsvParallel,
} from './csvReader';
import { defaultMinBytes, defaultThreads, workerEntry, type ParallelRun } from '../parallelKernelTrace';
import { MAX_DISPATCHES, readDispatchNames } from './dispatchNames';
import { isRocprofv3Json, MAX_PC_JSON_BYTES, readPcSamplingJson } from './jsonReader';

const PC_LOOKED_FOR =
  'PC samples (*_pc_sampling_host_trap.csv, *_pc_sampling_stochastic.csv, rocprofv3 *_results.json), in a folder or a zip';

export interface HotspotsOptions {
  /** Lines and instructions kept per kernel (default: all). */
  top?: number;
  interval?: number | null;
  intervalUnit?: PcSamplingUnit | null;
  zip?: Partial<ZipLimits>;
  /** The runner's process manifest, already read (else one among the files is). */
  manifest?: ProcessManifest | null;
  /**
   * A large CSV on disk is read in parts (pcSampleParts.ts) by `threads` threads: this one and threads - 1 workers
   * (default KERNEL_RUNNER_TRACE_THREADS, else the cores, at most 4; 0: in one pass), from `minBytes` (default
   * KERNEL_RUNNER_TRACE_MIN_BYTES, else 48 MiB), in parts of `partBytes` (default as for a kernel trace).
   */
  parallel?: {
    threads?: number;
    minBytes?: number;
    partBytes?: number;
    /** The worker to start (default: parallelKernelTrace.ts's workerEntry(); null: the parts are scanned here). */
    worker?: { script: string; evaluated: boolean } | null;
    onRun?: (run: ParallelRun) => void;
  };
}

function parallelOptions(o: HotspotsOptions['parallel']): PcCsvParallel | null {
  const threads = o?.threads ?? defaultThreads();
  if (threads <= 0) return null;
  return {
    threads,
    minBytes: o?.minBytes ?? defaultMinBytes(),
    partBytes: o?.partBytes,
    worker: o?.worker === undefined ? workerEntry() : o.worker,
    onRun: o?.onRun,
  };
}

type Role = { kind: 'pc_csv' } | { kind: 'pc_json' } | { kind: 'kernel_trace' } | null;

async function roleOf(file: FileSource): Promise<Role> {
  const lower = file.path.toLowerCase();
  if (file.size === 0) return null;
  if (lower.endsWith('.json'))
    return isRocprofv3Json((await readHead(file, 4096)).toString('utf8')) ? { kind: 'pc_json' } : null;
  if (!lower.endsWith('.csv')) return null;
  let header: string[] | null;
  try {
    header = await readCsvHeader(file);
  } catch {
    return null;
  }
  if (!header) return null;
  const c = new Columns(header);
  if (pcSamplingMethodOf(c) !== null) return { kind: 'pc_csv' };
  if (c.has('Kernel_Name') && c.has('Dispatch_Id') && c.has('Start_Timestamp')) return { kind: 'kernel_trace' };
  return null;
}

interface Run {
  csv: FileSource[];
  json: FileSource[];
  kernels: FileSource[];
  pid: number | null;
  host: string | null;
}

/** Processes in rank order, then those without a rank by host and pid. */
export function byRankHostPid(a: ProcessHotspots, b: ProcessHotspots): number {
  return (
    (a.rank ?? Infinity) - (b.rank ?? Infinity) ||
    (a.host ?? '').localeCompare(b.host ?? '') ||
    (a.pid ?? 0) - (b.pid ?? 0)
  );
}

/** The hot spots of the PC samples among `files`; null when none of them holds any. */
export async function hotspotsOfFiles(
  files: readonly FileSource[],
  options: HotspotsOptions = {},
): Promise<PcHotspots | null> {
  const runs = new Map<string, Run>();
  let manifest: ProcessManifest | null = options.manifest ?? null;
  const manifestWarnings: string[] = [];
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    if (isManifestPath(file.path)) {
      const read = await readManifest(file);
      if (typeof read === 'string') manifestWarnings.push(`${read}; processes are told apart by their file names`);
      else manifest = read;
      continue;
    }
    const role = await roleOf(file);
    if (!role) continue;
    const { key, pid, host } = setKeyOf(file.path);
    let run = runs.get(key);
    if (!run) {
      run = { csv: [], json: [], kernels: [], pid, host };
      runs.set(key, run);
    }
    if (role.kind === 'pc_csv') run.csv.push(file);
    else if (role.kind === 'pc_json') run.json.push(file);
    else run.kernels.push(file);
  }
  const parallel = parallelOptions(options.parallel);
  const build = { top: options.top, interval: options.interval, intervalUnit: options.intervalUnit };
  const agg = new HotspotAggregator();
  if (!(await readRuns(runs.values(), agg, parallel))) return null;
  agg.warnings.push(...manifestWarnings);
  const hot = agg.build(build);

  // a multi-process profile: each process's runs read again on their own, as a one-process read of its files
  const groups = new ProcessGroups(manifest);
  const byProcess = new Map<string, { rank: number | null; pid: number | null; host: string | null; runs: Run[] }>();
  for (const [setKey, run] of runs) {
    if (run.csv.length === 0 && run.json.length === 0) continue;
    const paths = [...run.csv, ...run.json, ...run.kernels].map((f) => f.path);
    const { key, pid, listed } = groups.identify(setKey, run, paths);
    const p = byProcess.get(key) ?? { rank: listed?.rank ?? null, pid, host: run.host, runs: [] };
    p.runs.push(run);
    byProcess.set(key, p);
  }
  if (byProcess.size < 2) return hot;
  const processes: ProcessHotspots[] = [];
  for (const p of byProcess.values()) {
    const own = new HotspotAggregator();
    if (!(await readRuns(p.runs, own, parallel))) continue;
    const h = own.build(build);
    processes.push({ rank: p.rank, pid: p.pid, host: p.host, samples: h.samples, kernels: h.kernels });
  }
  processes.sort(byRankHostPid);
  return { ...hot, processes };
}

/** Reads the PC samples of `runs` into `agg` (each run's samples named through its own kernel trace); false when none. */
async function readRuns(runs: Iterable<Run>, agg: HotspotAggregator, parallel: PcCsvParallel | null): Promise<boolean> {
  let found = false;
  for (const run of runs) {
    if (run.csv.length === 0 && run.json.length === 0) continue;
    let fromJson = false;
    for (const file of run.json) {
      if (file.size > MAX_PC_JSON_BYTES) {
        agg.warnings.push(
          `${file.path}: JSON output of ${(file.size / 2 ** 20).toFixed(0)} MiB, over the ${MAX_PC_JSON_BYTES / 2 ** 20} MiB parsed whole: its PC samples were not read${run.csv.length ? ' (the CSV ones were)' : ''}`,
        );
        continue;
      }
      try {
        const res = readPcSamplingJson((await file.readAll()).toString('utf8'), file.path, agg);
        if (res.samples > 0) fromJson = true;
      } catch (err) {
        agg.warnings.push(`${file.path}: unreadable JSON (${(err as Error).message}): its PC samples were not read`);
      }
    }
    if (fromJson) {
      found = true;
      for (const file of run.csv)
        agg.warnings.push(`${file.path}: not read, its samples were read from the same run's JSON output`);
      continue;
    }
    if (run.csv.length === 0) continue;
    let names: Map<number, string> | null = null;
    if (run.kernels.length > 0) {
      try {
        const d = await readDispatchNames(run.kernels);
        names = d.names;
        if (d.dropped > 0)
          agg.warnings.push(
            `more than ${MAX_DISPATCHES} dispatches in ${run.kernels[0]?.path}: samples of the ${d.dropped} past them are named by dispatch id`,
          );
      } catch (err) {
        agg.warnings.push(
          `${run.kernels[0]?.path}: kernel names not read (${(err as Error).message}): samples are named by dispatch id`,
        );
      }
    }
    agg.useDispatchNames(names);
    for (const file of run.csv) {
      const problems = newPcCsvProblems();
      try {
        await readPcSamplingCsv(file, agg, problems, parallel);
        found = true;
      } catch (err) {
        const why = err instanceof CsvFormatError ? `malformed CSV: ${err.message}` : (err as Error).message;
        agg.warnings.push(
          problems.rowsRead > 0
            ? `${file.path}: ${why}; the ${problems.rowsRead} row(s) before it were read, the rest of the file was not`
            : `${file.path}: ${why}: not read`,
        );
        if (problems.rowsRead > 0) found = true;
      }
      agg.warnings.push(...pcCsvWarnings(file.path, problems));
    }
  }
  return found;
}

/** The hot spots of a path (file, folder or zip); a TraceInputError when it holds no PC samples. */
export async function hotspotsPath(path: string, options: HotspotsOptions = {}): Promise<PcHotspots> {
  const abs = resolve(path);
  let st;
  try {
    st = await stat(abs);
  } catch {
    throw new TraceInputError(`${path}: no such file or directory (expected ${PC_LOOKED_FOR})`, path);
  }
  const kind = nonRegularKind(st);
  if (kind)
    throw new TraceInputError(
      `${path}: ${kind}, not a file or a folder: refused, reading it could block forever`,
      path,
    );
  let set: SourceSet;
  if (st.isDirectory()) set = await listFolder(abs);
  else if (await isZip(abs)) {
    try {
      set = await listZip(abs, options.zip);
    } catch (err) {
      throw new TraceInputError(
        `${path}: ${err instanceof ZipLimitError ? err.message : `unreadable zip (${(err as Error).message})`}`,
        path,
      );
    }
  } else set = await listSingleFile(abs, st.size);
  try {
    const hot = await hotspotsOfFiles(set.files, options);
    if (!hot) throw new TraceInputError(`${path}: no PC samples found (looked for ${PC_LOOKED_FOR})`, path);
    return hot;
  } finally {
    await set.close();
  }
}
