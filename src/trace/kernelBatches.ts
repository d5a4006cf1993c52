// The single-threaded half of reading a kernel trace: KernelRowCollector batches (from this thread or from
// workers) applied to the run's tables and the agents' busy trackers, in file order, exactly as one pass over
// the rows would (same calls in the same order).
import type { AgentState } from './accumulator';
import type { KernelBatch } from './kernelRows';
import type { CsvReadContext, RowProblems } from './readers/rocprofv3Csv';
import { LAUNCH_WIDTH, addLaunch, type KernelAgg } from './tables';

/** What the ids of one collector stand for, and their resolved objects. */
export class BatchSource {
  readonly names: string[] = [];
  readonly agents: string[] = [];
  readonly launches: Float64Array[] = [];
  readonly kernelOf: Array<KernelAgg | undefined> = [];
  readonly agentOf: Array<AgentState | null | undefined> = [];

  /** Takes the batch's new ids; call for every batch of the collector, in the order it made them. */
  learn(b: KernelBatch): void {
    for (const n of b.newNames) this.names.push(n);
    for (const a of b.newAgents) this.agents.push(a);
    for (let at = 0; at < b.newLaunches.length; at += LAUNCH_WIDTH) this.launches.push(b.newLaunches.subarray(at, at + LAUNCH_WIDTH));
  }
}

/**
 * Applies one batch whose source has learnt its ids: each dispatch's duration and busy interval in order, then
 * the batch's launch counts (in their order of first appearance, as one addLaunch per dispatch would keep them).
 */
/** `lineBase`: the file line of the batch's line 1 (a worker counts lines from its part's start). */
export function applyBatch(ctx: CsvReadContext, source: BatchSource, b: KernelBatch, problems: RowProblems, lineBase = 1): void {
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
  const { nameId, agentId, start, end } = b;
  for (let i = 0; i < b.count; i++) {
    const k = kernelOf[nameId[i] as number] ?? kernel(nameId[i] as number);
    // addDuration, written out: a call per dispatch would box its duration
    const st = k.stats;
    const d = (end[i] as number) - (start[i] as number);
    const n = ++st.count;
    st.sum += d;
    if (d < st.min) st.min = d;
    if (d > st.max) st.max = d;
    const delta = d - st.mean;
    st.mean += delta / n;
    st.m2 += delta * (d - st.mean);
  }
  // busy time per run of dispatches on one agent (agents' trackers are independent: same result as row by row)
  for (let i = 0; i < b.count; ) {
    const a = agentId[i] as number;
    let j = i + 1;
    while (j < b.count && agentId[j] === a) j++;
    acc.addKernelRange(a >= 0 ? (agentOf[a] ?? agent(a)) : null, start, end, i, j);
    i = j;
  }
  const l = b.launches;
  for (let i = 0; i < l.length; i += 3) addLaunch(kernel(l[i] as number), launches[l[i + 1] as number] as Float64Array, l[i + 2] as number);
  const ka = b.kernelAgents;
  for (let i = 0; i < ka.length; i += 2) {
    const a = agent(ka[i + 1] as number);
    if (a) kernel(ka[i] as number).agentIds.add(a.id);
  }
  if (b.badRows > 0 && problems.badRows === 0) problems.firstBadLine = lineBase + b.firstBadLine - 1;
  problems.badRows += b.badRows;
}
