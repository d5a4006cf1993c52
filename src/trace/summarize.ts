// summarizePath: zip, folder, rocpd .db or a single CSV/JSON → one TraceSummary.
//
// Files are grouped into output sets (one profiled process each, see classify.ts). Per set: a rocpd database
// wins over CSVs of the same run (it has copy sizes and agent details); traces win over stats files, which are
// then used to cross-check our totals (`checks`); a stats file alone is used as the data.
import { open as openFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { StatsOf } from './classify';
import type { TraceSummary } from '../core/protocol/traceSummary';
import { TraceAccumulator } from './accumulator';
import type { BusyOptions } from './busy';
import { buildSummary, type BuildOptions } from './buildSummary';
import { classify, setKeyOf, type Classified, type SetKey } from './classify';
import type { Columns } from './csvFile';
import { CsvFormatError } from './csvScanner';
import { mergeStats, statsFromTotals } from './durationStats';
import { LOOKED_FOR, TraceInputError } from './errors';
import { NotV1TraceError, readV1Json } from './readers/legacyV1';
import { readCounterCollection } from './readers/counterCollection';
import type { ParallelOptions, ParallelRun } from './parallelKernelTrace';
import { NotRocpdError, readRocpd } from './readers/rocpd';
import {
  SetAgents, apiVariant, copyVariant, kernelVariant, readAgentInfo, readApiTrace, readKernelTrace,
  readMemoryCopyTrace, readStatsFile, type CsvReadContext, type RowProblems, type StatsRow,
} from './readers/rocprofv3Csv';
import { attributeCsvRanges } from './readers/rangeCsv';
import { isPseudoKernel } from './pseudoRows';
import { listFolder, listSingleFile, listZip, nonRegularKind, ZipLimitError, type FileSource, type SourceSet, type ZipLimits } from './sources';
import { RunTables, normalizeDirection } from './tables';
import { MAX_ROCPD_BYTES, MAX_V1_JSON_BYTES } from './limits';

export interface SummarizeOptions extends BuildOptions {
  /** Bounded-memory interval merge settings (tests use small windows). */
  busy?: BusyOptions;
  /** Limits on what a zip may unpack to (defaults in sources.ts). */
  zip?: Partial<ZipLimits>;
  /** Largest rocpd database loaded whole (default 1.5 GiB, or a quarter of the machine's memory if less). */
  maxRocpdBytes?: number;
  /** Worker threads for large kernel traces (tests force them on small files). */
  parallel?: ParallelOptions;
  /** Told how each parallel read went. */
  onParallelRun?: (run: ParallelRun) => void;
}

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** A file with rows of which a reader could use none: an error naming the first, not a summary of nothing. */
function noRowReadError(path: string, problems: RowProblems): TraceInputError | null {
  if (problems.rowsRead === 0 || problems.badRows < problems.rowsRead) return null;
  const text = problems.firstBadText ? `: ${problems.firstBadText}` : '';
  return new TraceInputError(
    `${path}: none of its ${problems.rowsRead} row(s) could be read (no valid fields or timestamps in the columns its header names); the first, on line ${problems.firstBadLine ?? '?'}${text}`,
    path,
  );
}

function rowsSkippedWarning(path: string, problems: RowProblems): string {
  const at = problems.firstBadLine !== undefined ? ` (the first on line ${problems.firstBadLine})` : '';
  return `${path}: ${problems.badRows} row(s) without valid fields or timestamps were skipped${at}`;
}

interface Planned {
  file: FileSource;
  what: Exclude<Classified, { kind: 'skip' }>;
}

interface PlannedSet {
  key: SetKey;
  files: Planned[];
}

export async function summarizePath(path: string, options: SummarizeOptions = {}): Promise<TraceSummary> {
  const abs = resolve(path);
  let st;
  try {
    st = await stat(abs);
  } catch {
    throw new TraceInputError(`${path}: no such file or directory (expected ${LOOKED_FOR})`, path);
  }
  const kind = nonRegularKind(st);
  if (kind) throw new TraceInputError(`${path}: ${kind}, not a file or a folder: refused, reading it could block forever (expected ${LOOKED_FOR})`, path);
  let set: SourceSet;
  if (st.isDirectory()) set = await listFolder(abs);
  else if (await isZip(abs)) {
    try {
      set = await listZip(abs, options.zip);
    } catch (err) {
      if (err instanceof ZipLimitError) throw new TraceInputError(`${path}: ${err.message}`, path);
      throw new TraceInputError(`${path}: unreadable zip (${(err as Error).message})`, path);
    }
  } else if (/\.zip$/i.test(abs)) {
    throw new TraceInputError(`${path}: not a zip archive (expected ${LOOKED_FOR})`, path);
  } else set = await listSingleFile(abs, st.size);
  try {
    return await summarizeSources(path, set, options);
  } finally {
    await set.close();
  }
}

async function isZip(path: string): Promise<boolean> {
  const fh = await openFile(path, 'r');
  try {
    const buf = Buffer.alloc(4);
    await fh.read(buf, 0, 4, 0);
    return buf[0] === 0x50 && buf[1] === 0x4b && (buf[2] === 3 || buf[2] === 5) && (buf[3] === 4 || buf[3] === 6);
  } finally {
    await fh.close();
  }
}

async function summarizeSources(path: string, set: SourceSet, options: SummarizeOptions): Promise<TraceSummary> {
  const acc = new TraceAccumulator(options.busy);
  acc.skipped.push(...set.skipped);

  const sets = new Map<string, PlannedSet>();
  const files = [...set.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const file of files) {
    let what: Classified;
    try {
      what = await classify(file);
    } catch (err) {
      what = { kind: 'skip', reason: `unreadable: ${(err as Error).message}` };
    }
    if (what.kind === 'skip') {
      acc.skipped.push({ path: file.path, reason: what.reason });
      continue;
    }
    const key = setKeyOf(file.path);
    let s = sets.get(key.key);
    if (!s) {
      s = { key, files: [] };
      sets.set(key.key, s);
    }
    s.files.push({ file, what });
  }

  // rocprofv3 runs the program once per counter group (`--pmc A --pmc B`) into pass_1/, pass_2/, ...
  const passes = new Set(
    [...sets.values()]
      .filter((s) => s.files.some((p) => p.what.kind === 'counter_collection'))
      .flatMap((s) => /(?:^|\/)(pass_\d+)(?:\/|$)/.exec(s.key.dir)?.[1] ?? []),
  );
  if (passes.size > 1) {
    acc.warnings.push(`${passes.size} counter passes (${[...passes].join(', ')}): each is a separate run of the program, so dispatch counts add up over the passes`);
  }
  const hosts = new Set([...sets.values()].map((s) => s.key.host).filter((h): h is string => h !== null));
  const multiHost = hosts.size > 1;
  for (const s of [...sets.values()].sort((a, b) => a.key.key.localeCompare(b.key.key))) {
    await readSet(s, acc, multiHost && s.key.host ? `${s.key.host}/` : '', options);
  }

  if (acc.sources.length === 0) {
    const seen = acc.skipped.length
      ? `; skipped ${acc.skipped.length} file(s): ${acc.skipped.slice(0, 3).map((s) => `${s.path} (${s.reason})`).join(', ')}${acc.skipped.length > 3 ? ', ...' : ''}`
      : '';
    throw new TraceInputError(`${path}: no rocprof output found (looked for ${LOOKED_FOR})${seen}`, path);
  }
  return buildSummary(acc, options);
}

async function readSet(s: PlannedSet, acc: TraceAccumulator, agentPrefix: string, options: SummarizeOptions): Promise<void> {
  const tables = new RunTables();
  const agents = new SetAgents(acc, agentPrefix);
  const ctx: CsvReadContext = { acc, tables, agents, parallel: options.parallel, onParallelRun: options.onParallelRun };
  const { pid, host } = s.key;
  const source = (file: FileSource, format: string, kind: string, variant: string, rows: number, own?: { pid: number; host: string | null } | null): void => {
    acc.sources.push({ path: file.path, format, kind, variant, rows, pid: own?.pid ?? pid, host: own?.host ?? host });
  };
  const skip = (file: FileSource, reason: string): void => {
    acc.skipped.push({ path: file.path, reason });
  };
  const of = (kind: Planned['what']['kind']): Planned[] => s.files.filter((p) => p.what.kind === kind);
  const csvOf = (kind: Planned['what']['kind']): Array<{ file: FileSource; columns: Columns }> =>
    s.files.flatMap((p) => (p.what.kind === kind && 'columns' in p.what ? [{ file: p.file, columns: p.what.columns }] : []));
  // a run with rocTX ranges: its kernel traces keep each dispatch for the range pass, not read a second time
  if (csvOf('api_trace').some((p) => /marker_api_trace\.csv$/.test(p.file.path))) ctx.dispatchLogs = new Map();

  // 1. a rocpd database stands for the whole run
  let fromDb: string | null = null;
  for (const p of of('rocpd')) {
    if (fromDb) {
      skip(p.file, `a second database for the same run as ${fromDb}`);
      continue;
    }
    const maxDb = options.maxRocpdBytes ?? MAX_ROCPD_BYTES;
    if (p.file.size > maxDb) {
      skip(p.file, `rocpd database of ${mib(p.file.size)}, over the ${mib(maxDb)} that can be loaded whole: not read; convert it to CSV (rocpd convert -i ${p.file.path.slice(p.file.path.lastIndexOf('/') + 1)} --output-format csv) and summarise that`);
      continue;
    }
    try {
      const res = await readRocpd(await p.file.readAll(), acc, tables, agentPrefix, p.file.path);
      source(p.file, 'rocpd', 'database', res.variant, res.rows, res.process);
      fromDb = p.file.path;
    } catch (err) {
      if (err instanceof NotRocpdError) skip(p.file, err.message);
      else if (err instanceof RangeError || /memory/i.test((err as Error).message)) {
        skip(p.file, `rocpd database of ${mib(p.file.size)}: not enough memory to load it (${(err as Error).message}); convert it to CSV (rocpd convert) and summarise that`);
      } else skip(p.file, `unreadable database: ${(err as Error).message}`);
    }
  }
  const notePathProcess = (): void => {
    // the `<pid>_` prefix names the process unless a file already did
    if (pid !== null && ![...acc.processes.values()].some((p) => p.pid === pid)) acc.addProcess(pid, host);
  };
  if (fromDb) {
    for (const p of s.files) if (p.what.kind !== 'rocpd') skip(p.file, `same run as ${fromDb} (read from the database)`);
    tables.mergeInto(acc.tables);
    notePathProcess();
    return;
  }

  /** Runs a reader; a file that breaks half-way keeps the rows read before the break, with a warning. */
  const guarded = async (
    file: FileSource,
    read: (problems: RowProblems) => Promise<void>,
    partial: (rowsRead: number) => void,
  ): Promise<void> => {
    const problems: RowProblems = { rowsRead: 0, badRows: 0 };
    try {
      await read(problems);
    } catch (err) {
      const why = err instanceof CsvFormatError ? `malformed CSV: ${err.message}` : `unreadable: ${(err as Error).message}`;
      if (problems.rowsRead === 0) {
        skip(file, why);
      } else {
        partial(problems.rowsRead);
        acc.warnings.push(`${file.path}: ${why}; the ${problems.rowsRead} row(s) before it were read, the rest of the file was not`);
      }
    }
    const none = noRowReadError(file.path, problems);
    if (none) throw none;
    if (problems.badRows > 0) acc.warnings.push(rowsSkippedWarning(file.path, problems));
  };

  // 2. agent descriptions first: copies are attributed to their GPU end
  for (const p of csvOf('agent_info')) {
    const variant = p.columns.has('Guid') ? 'rocpd-convert' : 'rocprofv3';
    const done = (rows: number): void => source(p.file, 'rocprofv3-csv', 'agent_info', variant, rows);
    await guarded(p.file, async () => done(await readAgentInfo(p.file, agents)), done);
  }
  const have = { kernel: false, copy: false, marker: false };
  let v1KernelCsv: string | null = null;
  for (const p of csvOf('kernel_trace')) {
    const variant = kernelVariant(p.columns);
    const format = variant === 'v1' ? 'rocprof-v1-csv' : variant === 'rocprofv2' ? 'rocprofv2-csv' : 'rocprofv3-csv';
    const done = (rows: number): void => {
      source(p.file, format, 'kernel_trace', variant, rows);
      have.kernel = true;
      if (variant === 'v1') v1KernelCsv = p.file.path;
    };
    await acc.clock.settle(p.file, ['Start_Timestamp', 'BeginNs']);
    await guarded(p.file, async (problems) => done(await readKernelTrace(p.file, ctx, problems)), done);
  }
  // counters of the same run's dispatches; they are the kernel data only when no kernel trace was read
  const kernelsTraced = have.kernel;
  for (const p of csvOf('counter_collection')) {
    const done = (rows: number, timed: boolean | null): void => {
      source(p.file, 'rocprofv3-csv', 'counter_collection', timed === null ? 'rocprofv3' : timed ? 'rocm-7.0' : 'rocm-6.x', rows);
      if (!kernelsTraced) have.kernel = true;
    };
    await acc.clock.settle(p.file, ['Start_Timestamp']);
    await guarded(p.file, async (problems) => {
      const res = await readCounterCollection(p.file, ctx, problems, kernelsTraced);
      done(res.rows, res.timed);
      if (!kernelsTraced && !res.timed && res.dispatches > 0) {
        acc.warnings.push(`${p.file.path}: a counter collection without timestamps (before ROCm 7): kernels have their dispatch counts, not their times`);
      }
    }, (rows) => done(rows, null));
  }
  for (const p of csvOf('memory_copy_trace')) {
    const done = (rows: number): void => {
      source(p.file, 'rocprofv3-csv', 'memory_copy_trace', copyVariant(p.columns), rows);
      have.copy = true;
    };
    await acc.clock.settle(p.file, ['Start_Timestamp']);
    await guarded(p.file, async (problems) => done(await readMemoryCopyTrace(p.file, ctx, problems)), done);
  }
  for (const p of csvOf('api_trace')) {
    const base = p.file.path.slice(p.file.path.lastIndexOf('/') + 1).replace(/\.csv$/i, '');
    const kind = /marker/i.test(base) ? 'marker_api_trace' : /hsa/i.test(base) ? 'hsa_api_trace' : /rccl/i.test(base) ? 'rccl_api_trace' : /hip/i.test(base) ? 'hip_api_trace' : 'api_trace';
    const markersBefore = tables.markers.size;
    const variant = apiVariant(p.columns);
    const done = (rows: number): void => {
      source(p.file, variant === 'rocprofv2' ? 'rocprofv2-csv' : 'rocprofv3-csv', kind, variant, rows);
      if (tables.markers.size > markersBefore || kind === 'marker_api_trace') have.marker = true;
    };
    await acc.clock.settle(p.file, ['Start_Timestamp']);
    await guarded(p.file, async (problems) => done(await readApiTrace(p.file, ctx, problems, (pid) => acc.addProcess(pid, s.key.host))), done);
  }
  for (const p of of('v1_json')) {
    if (p.file.size > MAX_V1_JSON_BYTES) {
      skip(p.file, `legacy results.json of ${mib(p.file.size)}, over the ${mib(MAX_V1_JSON_BYTES)} parsed in memory: not read`);
      continue;
    }
    try {
      const res = readV1Json((await p.file.readAll()).toString('utf8'), acc, tables, agentPrefix, v1KernelCsv !== null);
      source(p.file, 'rocprof-v1-json', 'chrome_trace', 'v1', res.rows);
      if (res.skipped > 0) acc.warnings.push(`${p.file.path}: ${res.skipped} event(s) without a valid begin/end were skipped`);
      if (v1KernelCsv !== null) {
        const check = compareKernels(v1KernelCsv, p.file.path, res.kernels, tables);
        acc.checks.push(check);
        if (check.mismatches.length > 0) {
          acc.warnings.push(`${p.file.path} and ${v1KernelCsv} (one legacy run) disagree on ${check.mismatches.length} kernel(s), e.g. ${check.mismatches[0]}; the kernels are from ${v1KernelCsv}`);
        }
      }
      have.kernel ||= tables.kernels.size > 0;
      have.copy ||= tables.copies.size > 0;
    } catch (err) {
      skip(p.file, err instanceof NotV1TraceError ? err.message : `unreadable: ${(err as Error).message}`);
    }
  }

  // kernels per rocTX range: a second, light pass over the run's API and kernel traces, only when it has markers
  if ((tables.markers.size > 0 || tables.control.pauses > 0) && have.kernel) {
    try {
      await attributeCsvRanges({
        api: csvOf('api_trace').map((p) => p.file),
        kernels: kernelsTraced ? csvOf('kernel_trace').map((p) => p.file) : [],
        counters: csvOf('counter_collection').map((p) => p.file),
        epochSeconds: acc.clock.use(),
      }, tables, ctx.dispatchLogs);
    } catch (err) {
      for (const m of tables.markers.values()) {
        m.kernels.clear();
        m.attribution = null;
      }
      tables.rangeAttribution = null;
      acc.warnings.push(`rocTX ranges: the kernels of each range were not worked out (${(err as Error).message})`);
    }
  }

  // 3. stats files: cross-check against the traces of the same run, or stand in for missing traces
  for (const planned of of('stats')) {
    if (planned.what.kind !== 'stats') continue;
    const p = { file: planned.file, what: planned.what };
    const problems: RowProblems = { rowsRead: 0, badRows: 0 };
    let rows: StatsRow[];
    try {
      rows = await readStatsFile(p.file, problems);
    } catch (err) {
      skip(p.file, `unreadable: ${(err as Error).message}`);
      continue;
    }
    const none = noRowReadError(p.file.path, problems);
    if (none) throw none;
    if (problems.badRows > 0) acc.warnings.push(rowsSkippedWarning(p.file.path, problems));
    const variant = p.what.columns.has('MinNs') ? 'rocprofv3' : 'v1';
    const format = variant === 'v1' ? 'rocprof-v1-stats' : 'rocprofv3-stats';
    const kind = `${p.what.statsOf}_stats`;
    const traced = p.what.statsOf === 'api'
      ? [...tables.api.values()].some((a) => a.family === p.what.family)
      : have[p.what.statsOf];
    if (traced) {
      if (p.what.statsOf === 'marker') {
        skip(p.file, 'marker stats: the marker trace of the same run was read instead');
        continue;
      }
      acc.checks.push(crossCheck(p.file.path, p.what.statsOf, p.what.family, rows, tables));
      acc.skipped.push({ path: p.file.path, reason: 'stats of a trace that was read: used to cross-check totals (see checks)' });
    } else {
      useStats(p.what.statsOf, p.what.family, rows, tables);
      if (p.what.statsOf === 'kernel' && rows.some((r) => r.totalNs > 0)) acc.kernelTimesFromStats = true;
      source(p.file, format, kind, variant, rows.length);
    }
  }
  tables.mergeInto(acc.tables);
  notePathProcess();
}

/** Legacy v1 writes ` [clone .kd]` after kernel names in results.csv but not in its JSON or (with a trace) its stats. */
function kernelKey(name: string): string {
  return name.endsWith(' [clone .kd]') ? name.slice(0, -' [clone .kd]'.length) : name;
}

function statsKey(statsOf: StatsOf, name: string): string {
  return statsOf === 'copy' ? normalizeDirection(name) : statsOf === 'kernel' ? kernelKey(name) : name;
}

function useStats(statsOf: StatsOf, family: string | null, rows: StatsRow[], tables: RunTables): void {
  for (const r of rows) {
    const stats = statsFromTotals(r.calls, r.totalNs, r.minNs, r.maxNs, r.stddevNs);
    if (statsOf === 'kernel') mergeStats(tables.kernel(r.name).stats, stats);
    else if (statsOf === 'copy') mergeStats(tables.copy(normalizeDirection(r.name)).stats, stats);
    else if (statsOf === 'marker') mergeStats(tables.marker(r.name).stats, stats);
    else mergeStats(tables.apiCall(r.name, family === 'HIP' ? null : `${family}_API`).stats, stats);
  }
}

/** Calls and total ns per name from the stats file against what we computed from the trace of the same run. */
function crossCheck(path: string, statsOf: StatsOf, family: string | null, rows: StatsRow[], tables: RunTables) {
  const ours = new Map<string, { calls: number; total: number }>();
  if (statsOf === 'kernel') {
    for (const k of tables.kernels.values()) if (!isPseudoKernel(k.name)) ours.set(kernelKey(k.name), { calls: k.stats.count, total: k.stats.sum });
  }
  else if (statsOf === 'copy') for (const c of tables.copies.values()) ours.set(c.direction, { calls: c.stats.count, total: c.stats.sum });
  else for (const a of tables.api.values()) if (a.family === family) ours.set(a.name, { calls: a.stats.count, total: a.stats.sum });
  const mismatches: string[] = [];
  const seen = new Set<string>();
  for (const r of rows) {
    // pseudo-rows are compared by nobody: a trace may or may not list them
    if (statsOf === 'kernel' && isPseudoKernel(r.name)) continue;
    const key = statsKey(statsOf, r.name);
    seen.add(key);
    const o = ours.get(key);
    if (!o) mismatches.push(`${key}: in the stats file, not in the trace`);
    else if (o.calls !== r.calls || Math.abs(o.total - r.totalNs) > 0.5) {
      mismatches.push(`${key}: trace ${o.calls} calls ${o.total} ns, stats ${r.calls} calls ${r.totalNs} ns`);
    }
  }
  for (const key of ours.keys()) if (!seen.has(key)) mismatches.push(`${key}: in the trace, not in the stats file`);
  return { what: `${statsOf} calls and totals vs ${path}`, compared: rows.length, mismatches };
}

/** A legacy run's results.json kernels (not added) against its results.csv (read). */
function compareKernels(csvPath: string, jsonPath: string, fromJson: Map<string, { calls: number; totalNs: number }>, tables: RunTables) {
  const csv = new Map<string, { calls: number; totalNs: number }>();
  for (const k of tables.kernels.values()) {
    if (isPseudoKernel(k.name)) continue;
    const key = kernelKey(k.name);
    const c = csv.get(key) ?? { calls: 0, totalNs: 0 };
    c.calls += k.stats.count;
    c.totalNs += k.stats.sum;
    csv.set(key, c);
  }
  const json = new Map<string, { calls: number; totalNs: number }>();
  for (const [name, j] of fromJson) {
    if (isPseudoKernel(name)) continue;
    const key = kernelKey(name);
    const c = json.get(key) ?? { calls: 0, totalNs: 0 };
    c.calls += j.calls;
    c.totalNs += j.totalNs;
    json.set(key, c);
  }
  const mismatches: string[] = [];
  for (const [name, j] of json) {
    const k = csv.get(name);
    if (!k) mismatches.push(`${name}: in ${jsonPath}, not in ${csvPath}`);
    else if (k.calls !== j.calls || Math.abs(k.totalNs - j.totalNs) > 0.5) {
      mismatches.push(`${name}: csv ${k.calls} calls ${k.totalNs} ns, json ${j.calls} calls ${j.totalNs} ns`);
    }
  }
  for (const name of csv.keys()) if (!json.has(name)) mismatches.push(`${name}: in ${csvPath}, not in ${jsonPath}`);
  return { what: `kernel calls and totals of ${jsonPath} vs ${csvPath} (one run, read once from the csv)`, compared: json.size, mismatches };
}
