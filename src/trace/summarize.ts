// summarizePath: zip, folder, rocpd .db or a single CSV/JSON → one TraceSummary.
//
// Files are grouped into output sets (one profiled process each, see classify.ts). Per set: a rocpd database
// wins over CSVs of the same run (it has copy sizes and agent details); traces win over stats files, which are
// then used to cross-check our totals (`checks`); a stats file alone is used as the data.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { StatsOf } from './classify';
import type { TraceRank, TraceRanks, TraceSummary } from '../core/protocol/traceSummary';
import { TraceAccumulator } from './accumulator';
import type { BusyOptions, BusyTracker } from './busy';
import { buildSummary, type BuildOptions } from './buildSummary';
import { classify, setKeyOf, type Classified, type SetKey } from './classify';
import type { Columns } from './csvFile';
import { CsvFormatError } from './csvScanner';
import { mergeStats, statsFromTotals } from './durationStats';
import { LOOKED_FOR, TraceInputError } from './errors';
import { NotV1TraceError, readV1Json } from './readers/legacyV1';
import { readCounterCollection } from './readers/counterCollection';
import type { ParallelOptions, ParallelRun } from './parallelKernelTrace';
import { NotRocpdError, readRocpd, type DbProcess } from './readers/rocpd';
import {
  SetAgents,
  apiVariant,
  copyVariant,
  kernelVariant,
  readAgentInfo,
  readApiTrace,
  readKernelTrace,
  readMemoryCopyTrace,
  readStatsFile,
  type CsvReadContext,
  type RowProblems,
  type StatsRow,
} from './readers/rocprofv3Csv';
import { attributeCsvRanges } from './readers/rangeCsv';
import { isPseudoKernel } from './pseudoRows';
import {
  isZip,
  listFolder,
  listSingleFile,
  listZip,
  ZipLimitError,
  type FileSource,
  type SourceSet,
  type ZipLimits,
} from './sources';
import { nonRegularKind } from './regularFile';
import { RunTables, normalizeDirection } from './tables';
import {
  ProcessGroups,
  isManifestPath,
  passOfPath,
  readManifest,
  type ProfiledProcess,
  type SetProcess,
} from './processes';
import type { ProcessManifest } from '../core/protocol/processManifest';
import { buildRanks } from './ranks';
import { byRankHostPid, hotspotsOfFiles } from './pcSampling/hotspots';
import type { PcHotspots } from '../core/protocol/pcSampling';

/** Lines and instructions per kernel kept in a summary's hot spots (`kernel-runner hotspots` lists all). */
const SUMMARY_HOTSPOTS_TOP = 10;
import { CounterTableBuilder } from './counters/counterTable';
import { DispatchScopes, type ScopedSet } from './dispatchScopes';
import { countersUsed } from './counters/countersUsed';
import {
  addRankRooflines,
  addRoofline,
  noteCounterSource,
  pickWorkloadFiles,
  SideFiles,
  type CounterCollector,
} from './counters/collector';
import { readWideTable, readWorkloadPasses } from './counters/workloadPasses';

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
  if (kind)
    throw new TraceInputError(
      `${path}: ${kind}, not a file or a folder: refused, reading it could block forever (expected ${LOOKED_FOR})`,
      path,
    );
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

async function summarizeSources(
  path: string,
  set: SourceSet,
  options: SummarizeOptions,
  how: {
    /** rocpd databases of several nodes side by side: each one's agents named by the host it records. */
    dbHostAgents?: boolean;
  } = {},
): Promise<TraceSummary> {
  const acc = new TraceAccumulator(options.busy);
  acc.skipped.push(...set.skipped);

  const sets = new Map<string, PlannedSet>();
  const files = [...set.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  let manifest: ProcessManifest | null = null;
  for (const file of files) {
    if (isManifestPath(file.path)) {
      const read = await readManifest(file);
      if (typeof read === 'string') acc.warnings.push(`${read}; processes are told apart by their file names`);
      else manifest = read;
      acc.skipped.push({ path: file.path, reason: "the runner's list of the profiled processes (used for ranks)" });
      continue;
    }
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

  // rocprofv3 runs the program once per counter group (`--pmc A --pmc B`) into pass_1/, pass_2/, ...: every pass
  // has the whole run's kernels, copies and API calls again, and its own counters of the same dispatches. The
  // timings come from one pass (the first with a kernel trace); the counters of every pass are joined per
  // dispatch (Dispatch_Id and kernel name, as rocprof-compute joins its pmc_perf files).
  const passOf = (s: PlannedSet): string | null => passOfPath(s.key.dir);
  const passNames = [...new Set([...sets.values()].flatMap((s) => passOf(s) ?? []))].sort(
    (a, b) => Number(a.slice(5)) - Number(b.slice(5)),
  );
  let timingPass: string | null = null;
  if (passNames.length > 1) {
    const traced = (name: string): boolean =>
      [...sets.values()].some(
        (s) => passOf(s) === name && s.files.some((p) => p.what.kind === 'kernel_trace' || p.what.kind === 'rocpd'),
      );
    timingPass = passNames.find(traced) ?? (passNames[0] as string);
  }
  const scopedSet = (s: PlannedSet): ScopedSet => ({
    pass: passOf(s),
    host: s.key.host,
    pid: s.key.pid,
    dispatches: s.files.some((p) => DISPATCH_KINDS.has(p.what.kind)),
    timing: timingPass === null || passOf(s) === null || passOf(s) === timingPass,
  });
  const hosts = new Set([...sets.values()].map((s) => s.key.host).filter((h): h is string => h !== null));
  const multiHost = hosts.size > 1;
  const counters: CounterCollector = {
    table: new CounterTableBuilder(),
    source: null,
    sourceOf: new Map(),
    workload: [],
    passesRead: new Set(),
    sysinfo: null,
    roofline: null,
    profilingConfig: null,
    rangeOf: new Map(),
    scopes: new DispatchScopes([...sets.values()].map(scopedSet), manifest, passNames.length),
    scope: 0,
  };
  // the timing pass first: its dispatches are the ones the other passes' counters join
  const ordered = [...sets.values()].sort((a, b) => a.key.key.localeCompare(b.key.key));
  const inTimingPass = (s: PlannedSet): boolean =>
    timingPass === null || passOf(s) === null || passOf(s) === timingPass;
  const groups = new ProcessGroups(manifest);
  const dbHosts = new Set<string>();
  // more than one process: each set's own busy time is kept too (per-rank busy, as a one-process read gives it)
  const perProcess = manifest !== null || ordered.filter(inTimingPass).length > 1;
  for (const s of [...ordered.filter(inTimingPass), ...ordered.filter((s) => !inTimingPass(s))]) {
    const pass = { name: passOf(s), repeatOf: inTimingPass(s) ? null : timingPass };
    const sourcesBefore = acc.sources.length;
    const busy = new Map<string, BusyTracker>();
    acc.trackProcess(perProcess && inTimingPass(s) ? busy : null);
    counters.scope = counters.scopes.ofSet(scopedSet(s));
    counters.table.useScope(counters.scope);
    const prefix =
      multiHost && s.key.host ? `${s.key.host}/` : how.dbHostAgents && s.key.host === null ? hostPrefix : '';
    const read = await readSet(s, acc, prefix, options, counters, pass);
    const outputs = acc.sources.slice(sourcesBefore).map((src) => src.path);
    if (s.key.host === null && s.files.some((f) => f.what.kind === 'rocpd'))
      for (const p of read?.parts?.map((part) => part.process) ?? (read ? [read.process] : []))
        if (p.host !== null) dbHosts.add(p.host);
    // another pass's sets are the same processes run again (their counters are joined above), and a set of no
    // process (a pass's sysinfo.csv) read nothing of one: neither is a process of the profile
    if (!inTimingPass(s) || outputs.length === 0) continue;
    if (read?.parts)
      for (const part of read.parts)
        groups.add(`${s.key.key}\u0000${part.process.pid}`, part.process, part.tables, part.busy, outputs, part.scope);
    else if (read) groups.add(s.key.key, read.process, read.tables, busy, outputs, counters.scope);
  }
  acc.trackProcess(null);
  // the nodes of databases side by side (`-o out_%rank%` on a shared file system) are known once they are read:
  // GPUs of two nodes share agent numbers, so the profile is read again with each database's agents by its host
  if (dbHosts.size > 1 && !how.dbHostAgents)
    return summarizeSources(path, set, options, { ...how, dbHostAgents: true });
  acc.warnings.push(...counters.scopes.warnings);
  pickWorkloadFiles(counters, acc);

  const hotspots = await pcHotspotsOf(sets, acc, manifest);

  if (acc.sources.length === 0) {
    const seen = acc.skipped.length
      ? `; skipped ${acc.skipped.length} file(s): ${acc.skipped
          .slice(0, 3)
          .map((s) => `${s.path} (${s.reason})`)
          .join(', ')}${acc.skipped.length > 3 ? ', ...' : ''}`
      : '';
    throw new TraceInputError(`${path}: no rocprof output found (looked for ${LOOKED_FOR})${seen}`, path);
  }
  const summary = buildSummary(acc, options);
  const processes = groups.all(summary.warnings, timingPass);
  // ranks when the runner listed the processes, or more than one process ran GPU work (a single-GPU job whose
  // evaluator spawned a child has one rank: nothing to balance, nothing to add)
  const processOf = new Map<TraceRank, ProfiledProcess>();
  if (processes.length > 1 || manifest) {
    const ranks = buildRanks(
      processes,
      acc,
      manifest ? 'manifest' : 'files',
      summary.wall?.spanNs ?? null,
      summary.warnings,
      processOf,
    );
    if (manifest || ranks.processes.filter((p) => p.rank !== null).length > 1) summary.ranks = ranks;
  }
  if (hotspots) summary.hotspots = summary.ranks ? withRanksOf(hotspots, summary.ranks) : hotspots;
  if (timingPass !== null)
    summary.passes = {
      count: passNames.length,
      timingsFrom: timingPass,
      counters: passNames.filter((n) => counters.passesRead.has(n)),
    };
  // A collection of none of the counters a roofline or speed-of-light reads (`--pmc SQ_WAVES`) has its counter
  // table and no roofline: every quantity of one would be missing.
  if (counters.table.size > 0 && counters.table.counterCount > 0 && counters.source) {
    const table = counters.table.build();
    const sides = new SideFiles(summary.warnings);
    await addRoofline(summary, counters, table, sides);
    if (summary.ranks) await addRankRooflines(summary, summary.ranks, processOf, counters, table, sides);
  }
  return summary;
}

/**
 * Hot spots per process named by the summary's ranks: without the runner's manifest the PC-sample reader knows a
 * process by its pid and host only, while the ranks also come from folder and file names, recorded environments and
 * GPU order. A process the ranks name keeps its rank; the list stays in rank order.
 */
function withRanksOf(hot: PcHotspots, ranks: TraceRanks): PcHotspots {
  if (!hot.processes) return hot;
  const rankOf = new Map(
    ranks.processes.flatMap((r) => (r.rank === null || r.pid === null ? [] : [[`${r.host}\u0000${r.pid}`, r.rank]])),
  );
  const processes = hot.processes
    .map((p) => (p.rank !== null ? p : { ...p, rank: rankOf.get(`${p.host}\u0000${p.pid}`) ?? null }))
    .sort(byRankHostPid);
  return { ...hot, processes };
}

/** The hot spots of the runs' PC-sample files (with their kernel traces for the names), each listed as a source. */
async function pcHotspotsOf(
  sets: Map<string, PlannedSet>,
  acc: TraceAccumulator,
  manifest: ProcessManifest | null,
): Promise<PcHotspots | null> {
  const all = [...sets.values()].flatMap((s) => s.files);
  if (!all.some((p) => p.what.kind === 'pc_sampling')) return null;
  const files = all.filter((p) => p.what.kind === 'pc_sampling' || p.what.kind === 'kernel_trace').map((p) => p.file);
  const hot = await hotspotsOfFiles(files, { top: SUMMARY_HOTSPOTS_TOP, manifest });
  for (const src of hot?.sources ?? []) {
    const { pid, host } = setKeyOf(src.path);
    acc.sources.push({
      path: src.path,
      format: src.format,
      kind: `pc_sampling_${src.method}`,
      variant: 'rocprofv3',
      rows: src.samples,
      pid,
      host,
    });
  }
  if (hot) acc.warnings.push(...hot.warnings);
  return hot;
}

function workloadOf(p: Planned): CounterCollector['workload'][number] {
  const name = p.what.kind === 'workload_info' ? p.what.file : 'sysinfo';
  return { file: p.file, name, slot: name === 'profiling_config' ? 'profilingConfig' : name };
}

async function readSet(
  s: PlannedSet,
  acc: TraceAccumulator,
  /** Before its agents' names; a function: a database's, chosen by the host it records. */
  agentPrefix: string | ((host: string | null) => string),
  options: SummarizeOptions,
  counters: CounterCollector,
  /** The set's pass folder (pass_<n>), and when it is not the timing pass, the pass the timings come from. */
  pass: { name: string | null; repeatOf: string | null },
): Promise<SetRead | null> {
  const repeat = pass.repeatOf !== null;
  if (repeat) {
    // another pass of the same program: its counters only, everything else is a copy of the timing pass's
    const kept = new Set<Planned['what']['kind']>([
      'counter_collection',
      'pmc_perf',
      'workload_pass',
      'rocpd',
      'workload_info',
      'pc_sampling',
    ]);
    for (const p of s.files) {
      if (!kept.has(p.what.kind))
        acc.skipped.push({
          path: p.file.path,
          reason: `${pass.name}: the same program run again for other counters; kernels, copies, API calls and ranges are from ${pass.repeatOf}`,
        });
    }
    s = { key: s.key, files: s.files.filter((p) => kept.has(p.what.kind)) };
  }
  const tables = new RunTables();
  const csvPrefix = typeof agentPrefix === 'string' ? agentPrefix : '';
  const agents = new SetAgents(acc, csvPrefix);
  const ctx: CsvReadContext = { acc, tables, agents, parallel: options.parallel, onParallelRun: options.onParallelRun };
  const { pid, host } = s.key;
  const source = (
    file: FileSource,
    format: string,
    kind: string,
    variant: string,
    rows: number,
    own?: { pid: number; host: string | null } | null,
  ): void => {
    acc.sources.push({ path: file.path, format, kind, variant, rows, pid: own?.pid ?? pid, host: own?.host ?? host });
  };
  const skip = (file: FileSource, reason: string): void => {
    acc.skipped.push({ path: file.path, reason });
  };
  const of = (kind: Planned['what']['kind']): Planned[] => s.files.filter((p) => p.what.kind === kind);
  const csvOf = (kind: Planned['what']['kind']): Array<{ file: FileSource; columns: Columns }> =>
    s.files.flatMap((p) =>
      p.what.kind === kind && 'columns' in p.what ? [{ file: p.file, columns: p.what.columns }] : [],
    );
  // a run with rocTX ranges: its kernel traces keep each dispatch for the range pass, not read a second time
  if (csvOf('api_trace').some((p) => /marker_api_trace\.csv$/.test(p.file.path))) ctx.dispatchLogs = new Map();

  // 1. a rocpd database stands for the whole run
  // the scope of each process of a database of several whose counters name their pid
  const scopeByPid = new Map<number, number>();
  const scopeOfPid = (pid: number, pids: readonly number[]): number => {
    let scope = scopeByPid.get(pid);
    if (scope === undefined)
      scopeByPid.set(pid, (scope = counters.scopes.ofDatabaseProcess(pass.name, host, pid, pids)));
    return scope;
  };
  let fromDb: string | null = null;
  let dbProcess: SetProcess | null = null;
  const dbParts: NonNullable<SetRead['parts']> = [];
  for (const p of of('rocpd')) {
    if (fromDb) {
      skip(p.file, `a second database for the same run as ${fromDb}`);
      continue;
    }
    const maxDb = options.maxRocpdBytes ?? MAX_ROCPD_BYTES;
    if (p.file.size > maxDb) {
      skip(
        p.file,
        `rocpd database of ${mib(p.file.size)}, over the ${mib(maxDb)} that can be loaded whole: not read; convert it to CSV (rocpd convert -i ${p.file.path.slice(p.file.path.lastIndexOf('/') + 1)} --output-format csv) and summarise that`,
      );
      continue;
    }
    try {
      // another pass's database: its counters into the shared table, its trace into tables nobody reads
      const res = repeat
        ? await readRocpd(
            await p.file.readAll(),
            new TraceAccumulator(options.busy),
            new RunTables(),
            agentPrefix,
            p.file.path,
            { table: counters.table, wanted: countersUsed(), scopeOfPid },
          )
        : await readRocpd(
            await p.file.readAll(),
            acc,
            tables,
            agentPrefix,
            p.file.path,
            {
              table: counters.table,
              wanted: countersUsed(),
              scopeOfPid,
              rangesOf: (scope) => rangesOfScope(counters, scope ?? counters.scope),
            },
            (process) => {
              // a merged database: each process's busy time and tables apart, as its own database would give them
              const busy = new Map<string, BusyTracker>();
              acc.trackProcess(busy);
              const partTables = new RunTables();
              dbParts.push({ tables: partTables, process, busy, scope: counters.scope });
              return partTables;
            },
          );
      if (dbParts.length > 0) acc.trackProcess(null);
      source(p.file, 'rocpd', repeat ? 'counter_pass' : 'database', res.variant, res.rows, res.process);
      dbProcess = res.process;
      for (const part of dbParts) part.scope = scopeByPid.get(part.process.pid) ?? counters.scope;
      if (res.counterRows > 0) {
        const scopes = scopeByPid.size > 0 ? scopeByPid.values() : [counters.scope];
        noteCounterSource(counters, { format: 'rocpd-db', path: p.file.path }, scopes);
        if (pass.name) counters.passesRead.add(pass.name);
      }
      fromDb = p.file.path;
    } catch (err) {
      if (err instanceof NotRocpdError) skip(p.file, err.message);
      else if (err instanceof RangeError || /memory/i.test((err as Error).message)) {
        skip(
          p.file,
          `rocpd database of ${mib(p.file.size)}: not enough memory to load it (${(err as Error).message}); convert it to CSV (rocpd convert) and summarise that`,
        );
      } else skip(p.file, `unreadable database: ${(err as Error).message}`);
    }
  }
  const notePathProcess = (): void => {
    // the `<pid>_` prefix names the process unless a file already did
    if (pid !== null && ![...acc.processes.values()].some((p) => p.pid === pid)) acc.addProcess(pid, host);
  };
  if (fromDb) {
    for (const p of s.files) if (p.what.kind === 'workload_info') counters.workload.push(workloadOf(p));
    for (const p of s.files)
      if (p.what.kind !== 'rocpd' && p.what.kind !== 'workload_info' && p.what.kind !== 'pc_sampling')
        skip(p.file, `same run as ${fromDb} (read from the database)`);
    if (repeat) return null;
    if (dbParts.length > 0) {
      for (const part of dbParts) part.tables.mergeInto(acc.tables);
      return { tables, process: { pid, host }, parts: dbParts };
    }
    tables.mergeInto(acc.tables);
    notePathProcess();
    return { tables, process: dbProcess ?? { pid, host } };
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
      const why =
        err instanceof CsvFormatError ? `malformed CSV: ${err.message}` : `unreadable: ${(err as Error).message}`;
      if (problems.rowsRead === 0) {
        skip(file, why);
      } else {
        partial(problems.rowsRead);
        acc.warnings.push(
          `${file.path}: ${why}; the ${problems.rowsRead} row(s) before it were read, the rest of the file was not`,
        );
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
  // another pass's counter files add counters only: its kernels are the timing pass's
  const have = { kernel: repeat, copy: false, marker: false };
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
      source(
        p.file,
        'rocprofv3-csv',
        'counter_collection',
        timed === null ? 'rocprofv3' : timed ? 'rocm-7.0' : 'rocm-6.x',
        rows,
      );
      if (!kernelsTraced) have.kernel = true;
    };
    await acc.clock.settle(p.file, ['Start_Timestamp']);
    noteCounterSource(
      counters,
      {
        format: /(?:^|\/)pmc_perf\.csv$/.test(p.file.path) ? 'rocprof-compute-long' : 'counter-collection',
        path: p.file.path,
      },
      [counters.scope],
    );
    await guarded(
      p.file,
      async (problems) => {
        const res = await readCounterCollection(p.file, ctx, problems, kernelsTraced, {
          table: counters.table,
          wanted: countersUsed(),
          repeatPass: repeat,
        });
        done(res.rows, res.timed);
        if (pass.name && res.rows > 0) counters.passesRead.add(pass.name);
        if (!kernelsTraced && !res.timed && res.dispatches > 0) {
          acc.warnings.push(
            `${p.file.path}: a counter collection without timestamps (before ROCm 7): kernels have their dispatch counts, not their times`,
          );
        }
      },
      (rows) => done(rows, null),
    );
  }
  // rocprof-compute's wide pmc_perf.csv: the counters, and the kernels when no kernel trace was read
  for (const p of csvOf('pmc_perf')) {
    noteCounterSource(counters, { format: 'rocprof-compute-wide', path: p.file.path }, [counters.scope]);
    await readWideTable(p.file, ctx, have, guarded, {
      table: counters.table,
      dispatches: !repeat,
      onlyNew: false,
      note: (rows) => source(p.file, 'rocprof-compute-csv', 'pmc_perf', 'wide', rows),
    });
  }
  await readWorkloadPasses(csvOf('workload_pass'), ctx, have, guarded, source);
  for (const p of s.files) if (p.what.kind === 'workload_info') counters.workload.push(workloadOf(p));
  if (repeat) {
    tables.mergeInto(acc.tables);
    return null;
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
    const kind = /marker/i.test(base)
      ? 'marker_api_trace'
      : /hsa/i.test(base)
        ? 'hsa_api_trace'
        : /rccl/i.test(base)
          ? 'rccl_api_trace'
          : /hip/i.test(base)
            ? 'hip_api_trace'
            : 'api_trace';
    const markersBefore = tables.markers.size;
    const variant = apiVariant(p.columns);
    const done = (rows: number): void => {
      source(p.file, variant === 'rocprofv2' ? 'rocprofv2-csv' : 'rocprofv3-csv', kind, variant, rows);
      if (tables.markers.size > markersBefore || kind === 'marker_api_trace') have.marker = true;
    };
    await acc.clock.settle(p.file, ['Start_Timestamp']);
    await guarded(
      p.file,
      async (problems) => done(await readApiTrace(p.file, ctx, problems, (pid) => acc.addProcess(pid, s.key.host))),
      done,
    );
  }
  for (const p of of('v1_json')) {
    if (p.file.size > MAX_V1_JSON_BYTES) {
      skip(
        p.file,
        `legacy results.json of ${mib(p.file.size)}, over the ${mib(MAX_V1_JSON_BYTES)} parsed in memory: not read`,
      );
      continue;
    }
    try {
      const res = readV1Json((await p.file.readAll()).toString('utf8'), acc, tables, csvPrefix, v1KernelCsv !== null);
      source(p.file, 'rocprof-v1-json', 'chrome_trace', 'v1', res.rows);
      if (res.skipped > 0)
        acc.warnings.push(`${p.file.path}: ${res.skipped} event(s) without a valid begin/end were skipped`);
      if (v1KernelCsv !== null) {
        const check = compareKernels(v1KernelCsv, p.file.path, res.kernels, tables);
        acc.checks.push(check);
        if (check.mismatches.length > 0) {
          acc.warnings.push(
            `${p.file.path} and ${v1KernelCsv} (one legacy run) disagree on ${check.mismatches.length} kernel(s), e.g. ${check.mismatches[0]}; the kernels are from ${v1KernelCsv}`,
          );
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
      await attributeCsvRanges(
        {
          api: csvOf('api_trace').map((p) => p.file),
          kernels: kernelsTraced ? csvOf('kernel_trace').map((p) => p.file) : [],
          counters: csvOf('counter_collection').map((p) => p.file),
          epochSeconds: acc.clock.use(),
          counterRanges: rangesOfScope(counters, counters.scope),
        },
        tables,
        ctx.dispatchLogs,
      );
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
    const traced =
      p.what.statsOf === 'api'
        ? [...tables.api.values()].some((a) => a.family === p.what.family)
        : have[p.what.statsOf];
    if (traced) {
      if (p.what.statsOf === 'marker') {
        skip(p.file, 'marker stats: the marker trace of the same run was read instead');
        continue;
      }
      acc.checks.push(crossCheck(p.file.path, p.what.statsOf, p.what.family, rows, tables));
      acc.skipped.push({
        path: p.file.path,
        reason: 'stats of a trace that was read: used to cross-check totals (see checks)',
      });
    } else {
      useStats(p.what.statsOf, p.what.family, rows, tables);
      if (p.what.statsOf === 'kernel' && rows.some((r) => r.totalNs > 0)) acc.kernelTimesFromStats = true;
      source(p.file, format, kind, variant, rows.length);
    }
  }
  tables.mergeInto(acc.tables);
  notePathProcess();
  return { tables, process: { pid, host } };
}

const hostPrefix = (host: string | null): string => (host ? `${host}/` : '');

/** The kinds of file that hold a process's dispatches. */
const DISPATCH_KINDS = new Set<Planned['what']['kind']>([
  'kernel_trace',
  'counter_collection',
  'pmc_perf',
  'workload_pass',
  'rocpd',
]);

/** The counter ranges of scope `scope` (the Dispatch_Ids of one process). */
function rangesOfScope(counters: CounterCollector, scope: number): Map<number, string> {
  let ranges = counters.rangeOf.get(scope);
  if (!ranges) counters.rangeOf.set(scope, (ranges = new Map()));
  return ranges;
}

/** A set read (not another pass's repeat): its own tables, and the process it is of. */
interface SetRead {
  tables: RunTables;
  process: SetProcess;
  /** A database of several processes, read per process (its processes' tables, and busy time per agent). */
  parts?: Array<{ tables: RunTables; process: DbProcess; busy: Map<string, BusyTracker>; scope: number }>;
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
    for (const k of tables.kernels.values())
      if (!isPseudoKernel(k.name)) ours.set(kernelKey(k.name), { calls: k.stats.count, total: k.stats.sum });
  } else if (statsOf === 'copy')
    for (const c of tables.copies.values()) ours.set(c.direction, { calls: c.stats.count, total: c.stats.sum });
  else
    for (const a of tables.api.values())
      if (a.family === family) ours.set(a.name, { calls: a.stats.count, total: a.stats.sum });
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
function compareKernels(
  csvPath: string,
  jsonPath: string,
  fromJson: Map<string, { calls: number; totalNs: number }>,
  tables: RunTables,
) {
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
  return {
    what: `kernel calls and totals of ${jsonPath} vs ${csvPath} (one run, read once from the csv)`,
    compared: json.size,
    mismatches,
  };
}
