// The single-threaded half of reading a kernel trace: KernelRowCollector batches (from this thread or from
// workers) applied to the run's tables and the agents' busy trackers in file order. Busy runs go to the
// trackers in order (the union depends on it); durations are summed as exact moments per kernel over the file
// and become the kernels' stats when the file is done (KernelTraceTotals.finish), so the figures do not depend
// on how the rows were cut into batches.
import type { AgentState } from './accumulator';
import { mergeStats } from './durationStats';
import { ExactMoments, MOMENT_WIDTH } from './exactMoments';
import type { KernelBatch } from './kernelRows';
import type { CsvReadContext, RowProblems } from './readers/rocprofv3Csv';
import { BytesInterner, LAUNCH_WIDTH, addLaunch, type KernelAgg } from './tables';

/** What the ids of one collector stand for, and their resolved objects. */
export class BatchSource {
  readonly names: string[] = [];
  readonly agents: string[] = [];
  readonly launches: Float64Array[] = [];
  readonly kernelOf: Array<KernelAgg | undefined> = [];
  /** Index in the file's DispatchLog names of each name id. */
  readonly logNameOf: Array<number | undefined> = [];
  readonly agentOf: Array<AgentState | null | undefined> = [];

  /** Takes the batch's new ids; call for every batch of the collector, in the order it made them. */
  learn(b: KernelBatch): void {
    for (const n of b.newNames) this.names.push(n);
    for (const a of b.newAgents) this.agents.push(a);
    for (let at = 0; at < b.newLaunches.length; at += LAUNCH_WIDTH)
      this.launches.push(b.newLaunches.subarray(at, at + LAUNCH_WIDTH));
  }
}

/** Every dispatch of a kernel trace as the rocTX range pass needs it: correlation id, kernel name, duration. */
export class DispatchLog {
  /** The batches' own arrays (names turned into indexes of `names`), in file order. */
  readonly chunks: Array<{ corr: Float64Array; name: Int32Array; duration: Float64Array }> = [];
  /** The kernel names the chunks' name indexes stand for (`texts`). */
  readonly names = new BytesInterner();
}

/** The durations of one kernel_trace file per kernel, until the file is read (and its dispatches, when logged). */
export class KernelTraceTotals {
  private readonly moments = new Map<KernelAgg, ExactMoments>();

  constructor(readonly log: DispatchLog | null = null) {}

  of(k: KernelAgg): ExactMoments {
    let m = this.moments.get(k);
    if (!m) {
      m = new ExactMoments();
      this.moments.set(k, m);
    }
    return m;
  }

  /** Adds the file's durations to its kernels' stats (also after a read that failed half-way: those rows count). */
  finish(): void {
    for (const [k, m] of this.moments) mergeStats(k.stats, m.toStats());
    this.moments.clear();
  }
}

/**
 * Applies one batch whose source has learnt its ids: its kernels' moments, its agents' totals, its busy runs in
 * order, then its launch counts (in their order of first appearance, as one addLaunch per dispatch would keep them).
 * `lineBase`: the file line of the batch's line 1 (a worker counts lines from its part's start).
 */
export function applyBatch(
  ctx: CsvReadContext,
  totals: KernelTraceTotals,
  source: BatchSource,
  b: KernelBatch,
  problems: RowProblems,
  lineBase = 1,
): void {
  const { acc, tables, agents } = ctx;
  const { kernelOf, agentOf, launches } = source;
  const kernel = (n: number): KernelAgg => {
    let k = kernelOf[n];
    if (k === undefined) {
      k = tables.kernel(source.names[n] as string);
      kernelOf[n] = k;
    }
    return k;
  };
  const agent = (a: number): AgentState | null => {
    let known = agentOf[a];
    if (known === undefined) {
      known = agents.resolve(source.agents[a] as string);
      agentOf[a] = known;
    }
    return known;
  };
  const m = b.moments;
  for (let o = 0; o < m.length; o += MOMENT_WIDTH) totals.of(kernel(m[o] as number)).addEntry(m, o);
  const log = totals.log;
  const kept = b.dispatches;
  if (log && kept) {
    const { logNameOf } = source;
    const name = kept.name;
    for (let i = 0; i < b.count; i++) {
      const n = name[i] as number;
      name[i] = logNameOf[n] ?? (logNameOf[n] = log.names.idForText(kernel(n).name));
    }
    log.chunks.push(kept);
  }
  const long = b.longDurations;
  for (let i = 0; i < long.length; i += 2) totals.of(kernel(long[i] as number)).addLongSquare(long[i + 1] as number);
  const at = b.agentTotals;
  for (let i = 0; i < at.length; i += 3) {
    const a = agent(at[i] as number);
    if (!a) continue;
    a.kernelCalls += at[i + 1] as number;
    a.kernelNs += at[i + 2] as number;
  }
  if (b.wallStart < acc.wallStart) acc.wallStart = b.wallStart;
  if (b.wallEnd > acc.wallEnd) acc.wallEnd = b.wallEnd;
  // runs of one agent at a time (agents' trackers are independent: the same as run by run)
  const { runAgent, runStart, runEnd, runCount } = b;
  for (let i = 0; i < runCount;) {
    const a = runAgent[i] as number;
    let j = i + 1;
    while (j < runCount && runAgent[j] === a) j++;
    const state = a >= 0 ? (agentOf[a] ?? agent(a)) : null;
    if (state) {
      state.busy.addRange(runStart, runEnd, i, j);
      state.processBusy?.addRange(runStart, runEnd, i, j);
    }
    i = j;
  }
  const l = b.launches;
  for (let i = 0; i < l.length; i += 3) {
    const values = launches[l[i + 1] as number];
    if (values) addLaunch(kernel(l[i] as number), values, l[i + 2] as number);
    else kernel(l[i] as number).launchesTruncated = true; // past the collector's launch ids
  }
  const ka = b.kernelAgents;
  for (let i = 0; i < ka.length; i += 2) {
    const a = agent(ka[i + 1] as number);
    if (a) kernel(ka[i] as number).agentIds.add(a.id);
  }
  if (b.badRows > 0 && problems.badRows === 0) {
    problems.firstBadLine = lineBase + b.firstBadLine - 1;
    problems.firstBadText = b.firstBadText;
  }
  problems.badRows += b.badRows;
}
