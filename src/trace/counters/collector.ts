// The counters of a profile as summarize collects them (every set's dispatches in one table, scoped per process;
// the first counter file of the profile and of each process; the rocprof-compute workload files beside them), and
// the roofline and speed-of-light derived from them: the whole profile's and each rank's.
import type { TraceRank, TraceRanks, TraceSummary } from '../../core/protocol/traceSummary';
import type { TraceAccumulator } from '../accumulator';
import type { DispatchScopes } from '../dispatchScopes';
import type { ProfiledProcess } from '../processes';
import type { FileSource } from '../sources';
import { tableOfScopes, type CounterTable, type CounterTableBuilder } from './counterTable';
import { deriveRoofline } from './derive';
import { readOutputFormat, readRooflineCsv, readSysinfo } from './workloadFiles';

/** Per-dispatch counters of every set, for the roofline (src/trace/counters/). */
export interface CounterCollector {
  table: CounterTableBuilder;
  /** The first counter file read: its path and layout. */
  source: CounterSourceFile | null;
  /** Per dispatch scope (a process), the first counter file read of it. */
  sourceOf: Map<number, CounterSourceFile>;
  sysinfo: FileSource | null;
  roofline: FileSource | null;
  profilingConfig: FileSource | null;
  /** rocprof-compute's workload files seen anywhere in the profile (sysinfo.csv may sit at its root, above pass_<n>/). */
  workload: Array<{ file: FileSource; slot: 'sysinfo' | 'roofline' | 'profilingConfig'; name: string }>;
  /** Passes (pass_<n>) whose counters were read. */
  passesRead: Set<string>;
  /** Range of each counter dispatch by scope and Dispatch_Id, when the run has ranges. */
  rangeOf: Map<number, Map<number, string>>;
  /** The processes' dispatch scopes (dispatchScopes.ts), and the one of the set being read. */
  scopes: DispatchScopes;
  scope: number;
}

export interface CounterSourceFile {
  format: string;
  path: string;
}

/** `file` is the first counter file of the profile, and of each of `scopes` that had none. */
export function noteCounterSource(counters: CounterCollector, file: CounterSourceFile, scopes: Iterable<number>): void {
  counters.source ??= file;
  for (const scope of scopes) if (!counters.sourceOf.has(scope)) counters.sourceOf.set(scope, file);
}
/** The roofline side files (sysinfo.csv, roofline.csv, profiling_config), each read once; one unreadable is a warning. */
export class SideFiles {
  private readonly read = new Map<string, Promise<unknown>>();

  constructor(private readonly warnings: string[]) {}

  of<T>(file: FileSource | null, reader: (f: FileSource) => Promise<T>): Promise<T | null> {
    if (!file) return Promise.resolve(null);
    let got = this.read.get(file.path) as Promise<T | null> | undefined;
    if (!got) {
      got = reader(file).catch((err: unknown) => {
        this.warnings.push(`${file.path}: unreadable (${(err as Error).message}); the roofline goes without it`);
        return null;
      });
      this.read.set(file.path, got);
    }
    return got;
  }
}

/** The roofline and speed-of-light of `table`'s dispatches, read from `source` with the workload files `picked`. */
async function rooflineOf(
  table: CounterTable,
  source: CounterSourceFile,
  picked: WorkloadPicks,
  summary: TraceSummary,
  sides: SideFiles,
  rangeOf: CounterCollector['rangeOf'],
): Promise<ReturnType<typeof deriveRoofline>> {
  const sysinfo = await sides.of(picked.sysinfo, readSysinfo);
  const rooflineRow = await sides.of(picked.roofline, (f) => readRooflineCsv(f));
  const layout = await sides.of(picked.profilingConfig, readOutputFormat);
  const format =
    source.format === 'rocprof-compute-long'
      ? layout === 'rocpd'
        ? 'rocprof-compute-rocpd'
        : 'counter-collection'
      : source.format;
  const gpu = summary.agents.find((a) => a.type === 'GPU' && a.name && /^gfx/i.test(a.name));
  return deriveRoofline({
    table,
    source: { format, path: source.path },
    arch: gpu?.name ?? null,
    sysinfo,
    rooflineRow,
    rangeOf,
  });
}

/** The summary's roofline and speed-of-light from the counters read. */
export async function addRoofline(
  summary: TraceSummary,
  counters: CounterCollector,
  table: CounterTable,
  sides: SideFiles,
): Promise<void> {
  const picked = { sysinfo: counters.sysinfo, roofline: counters.roofline, profilingConfig: counters.profilingConfig };
  const source = counters.source as CounterSourceFile;
  if (picked.roofline && !(await sides.of(picked.roofline, (f) => readRooflineCsv(f))))
    summary.warnings.push(`${picked.roofline.path}: no row for device 0; spec peaks used`);
  const derived = await rooflineOf(table, source, picked, summary, sides, counters.rangeOf);
  summary.roofline = derived.roofline;
  summary.speedOfLight = derived.speedOfLight;
}

/**
 * Each rank's roofline: the dispatches of its process's dispatch scopes alone (dispatchScopes.ts: the one identity
 * by which every pass's counters joined it), derived as a one-process read of its own files derives them (its
 * first counter file, the workload files nearest it). A rank whose scope holds another rank's dispatches too (a
 * database of several processes whose counters do not name their pid) has none: its counters cannot be told apart.
 */
export async function addRankRooflines(
  summary: TraceSummary,
  ranks: TraceRanks,
  processOf: ReadonlyMap<TraceRank, ProfiledProcess>,
  counters: CounterCollector,
  table: CounterTable,
  sides: SideFiles,
): Promise<void> {
  const ranked = ranks.processes.filter((r) => r.rank !== null && processOf.has(r));
  const holders = new Map<number, number>();
  for (const r of ranked)
    for (const scope of (processOf.get(r) as ProfiledProcess).scopes) holders.set(scope, (holders.get(scope) ?? 0) + 1);
  for (const r of ranked) {
    const scopes = (processOf.get(r) as ProfiledProcess).scopes;
    if ([...scopes].some((scope) => holders.get(scope) !== 1)) continue;
    const source = [...scopes].flatMap((scope) => counters.sourceOf.get(scope) ?? [])[0];
    if (!source) continue;
    const own = tableOfScopes(table, scopes);
    if (own.names.length === 0 || own.columns.size === 0) continue;
    const picked = nearestWorkload(counters, source.path);
    r.roofline = (await rooflineOf(own, source, picked, summary, sides, counters.rangeOf)).roofline;
  }
}

/**
 * The workload files rocprof-compute and our runner write beside the counters: per kind, the one nearest the
 * counters (their folder, else the closest folder above it, as the runner's sysinfo.csv at the root of
 * pass_<n>/), the others skipped.
 */
export function pickWorkloadFiles(counters: CounterCollector, acc: TraceAccumulator): void {
  if (!counters.source) {
    for (const w of counters.workload)
      acc.skipped.push({
        path: w.file.path,
        reason:
          'rocprof-compute workload file without counters (pmc_perf.csv or a counter collection) beside it: not used',
      });
    return;
  }
  const picked = nearestWorkload(counters, counters.source.path);
  for (const slot of WORKLOAD_SLOTS) {
    const nearest = counters.workload.find((w) => w.file === picked[slot]);
    if (!nearest) continue;
    counters[slot] = nearest.file;
    acc.sources.push({
      path: nearest.file.path,
      format: 'rocprof-compute',
      kind: nearest.name,
      variant: 'workload',
      rows: 0,
      pid: null,
      host: null,
    });
    for (const w of counters.workload)
      if (w.slot === slot && w !== nearest)
        acc.skipped.push({ path: w.file.path, reason: `a second ${w.name} file (${nearest.file.path} is used)` });
  }
}

const WORKLOAD_SLOTS = ['sysinfo', 'roofline', 'profilingConfig'] as const;
type WorkloadPicks = Record<(typeof WORKLOAD_SLOTS)[number], FileSource | null>;

/** Per kind, the workload file nearest the counter file at `counterPath`: its folder, else the closest above it. */
function nearestWorkload(counters: CounterCollector, counterPath: string): WorkloadPicks {
  const dirOf = (path: string): string => path.slice(0, Math.max(0, path.lastIndexOf('/')));
  const at = dirOf(counterPath);
  const above = (dir: string): boolean => dir === '' || at === dir || at.startsWith(`${dir}/`);
  const picked: WorkloadPicks = { sysinfo: null, roofline: null, profilingConfig: null };
  for (const slot of WORKLOAD_SLOTS) {
    const nearest = counters.workload
      .filter((w) => w.slot === slot)
      .sort((a, b) => {
        const da = dirOf(a.file.path);
        const db = dirOf(b.file.path);
        return Number(above(db)) - Number(above(da)) || db.length - da.length;
      })[0];
    picked[slot] = nearest?.file ?? null;
  }
  return picked;
}
