// Profiled kernels matched to the kernel definitions in a source file (the editor's "⏱ 17.2 µs avg · 150 calls"
// CodeLens). A profiler names a kernel as the compiler emitted it: Itanium-mangled (`_Z10vector_addPfS_S_i`),
// demangled with its template arguments and parameters (`void addition_kernel<float>(float*, int)`), with
// `.kd` or ` [clone .kd]` suffixes, or, for Triton, the plain function name. A source file defines it by its
// bare identifier. The match is on that identifier; every instantiation of a template (or overload) counts
// towards its one definition. When the profile read hardware counters, the lens also says where the definition's
// kernels sit under the roofline (format/roofline.ts). Pure: no vscode, no Node.
import { formatNs } from './format/durations';
import { formatCount } from './format/numbers';
import { roofAtIntensity, type RoofAtIntensity, type RoofPeaks } from './protocol/roofline';
import { formatFlopRate, formatIntensity, roofText } from './format/roofline';
import type { KernelEntryPoint } from './kernelEntryPoints';
import type { TraceRanks } from './protocol/traceSummary';

/**
 * A kernel's counter totals over its dispatches (the summary's roofline means × dispatches), so that kernels and
 * profiles add up: FLOPs, HBM bytes and GPU time of the dispatches the counters were read for.
 */
export interface KernelCounterTotals {
  dispatches: number;
  ns: number;
  flops: number;
  hbmBytes: number;
}

/** What the timing lens needs of a profiled kernel (a subset of the trace summary's kernel row). */
export interface ProfiledKernel {
  name: string;
  calls: number;
  totalNs: number;
  /** When the profile read hardware counters (its `roofline`). */
  counters?: KernelCounterTotals;
  /**
   * A multi-process profile: this kernel's calls and time on each rank that ran it. Only when every rank with GPU
   * work lists it (the summary keeps each rank's top kernels), so that the slowest of them is the slowest of all.
   */
  ranks?: RankShare[];
}

interface RankShare {
  rank: number;
  calls: number;
  totalNs: number;
}

export interface KernelTiming {
  /** The definition's identifier. */
  name: string;
  calls: number;
  totalNs: number;
  avgNs: number;
  /** Profiled names that counted towards it (template instantiations, overloads). */
  profiledNames: string[];
  /** Their counter totals added up, when every one of them has counters. */
  counters?: KernelCounterTotals;
  /** Where the identifier's kernels sit under the roof, all instantiations together (needs counters and peaks). */
  roof?: RoofAtIntensity;
  /** A multi-process profile whose ranks differ in this identifier's average: the rank where it is slowest. */
  slowestRank?: { rank: number; avgNs: number; fastestAvgNs: number };
}

export interface TimedEntryPoint {
  entry: KernelEntryPoint;
  timing: KernelTiming;
}

/**
 * The bare identifier a profiled kernel name defines: `_Z10vector_addPfS_S_i` → `vector_add`,
 * `void ns::addition_kernel<float>(float*, int) [clone .kd]` → `addition_kernel`, `softmax_kernel` → itself.
 * Undefined when nothing identifier-like is left (an empty or unreadable name).
 */
export function kernelIdentifier(profiledName: string): string | undefined {
  let s = profiledName
    .trim()
    .replace(/\s*\[clone [^\]]*\]$/, '')
    .replace(/\.kd$/, '');
  if (s.startsWith('_Z')) return demangledIdentifier(s);
  s = stripTrailingGroup(s.replace(/\s+(const|volatile|&&?)$/, ''), '(', ')');
  // The last scope's name, without its template arguments.
  s = stripTrailingGroup(s, '<', '>');
  const m = /([A-Za-z_$][\w$]*)\s*$/.exec(s);
  return m?.[1];
}

/** The innermost name of an Itanium-mangled symbol (`_ZN2ns6kernelIfEEvPT_` → `kernel`). */
function demangledIdentifier(mangled: string): string | undefined {
  let i = 2;
  let last: string | undefined;
  const readId = (): boolean => {
    const m = /^\d+/.exec(mangled.slice(i));
    if (!m) return false;
    const n = Number(m[0]);
    i += m[0].length;
    if (n <= 0 || i + n > mangled.length) return false;
    last = mangled.slice(i, i + n);
    i += n;
    return true;
  };
  if (mangled[i] === 'N') {
    i++;
    while (mangled[i] === 'K' || mangled[i] === 'V' || mangled[i] === 'r') i++;
    if (mangled.startsWith('St', i)) i += 2;
    while (i < mangled.length && mangled[i] !== 'E' && mangled[i] !== 'I') if (!readId()) break;
  } else {
    readId();
  }
  return last && /^[A-Za-z_$][\w$]*$/.test(last) ? last : undefined;
}

/** Drops a trailing balanced `open…close` group (and what follows it at depth 0 must be nothing). */
function stripTrailingGroup(s: string, open: string, close: string): string {
  const t = s.trimEnd();
  if (!t.endsWith(close)) return t;
  let depth = 0;
  for (let i = t.length - 1; i >= 0; i--) {
    if (t[i] === close) depth++;
    else if (t[i] === open && --depth === 0) return t.slice(0, i).trimEnd();
  }
  return t;
}

/** Counter totals from a summary's roofline kernel (means per dispatch); undefined when a quantity is unknown. */
export function counterTotals(k: {
  dispatches: number;
  durationNs: number | null;
  flops: number | null;
  hbmBytes: number | null;
}): KernelCounterTotals | undefined {
  if (k.dispatches <= 0 || k.durationNs === null || k.flops === null || k.hbmBytes === null) return undefined;
  return {
    dispatches: k.dispatches,
    ns: k.durationNs * k.dispatches,
    flops: k.flops * k.dispatches,
    hbmBytes: k.hbmBytes * k.dispatches,
  };
}

export function addCounterTotals(a: KernelCounterTotals, b: KernelCounterTotals): KernelCounterTotals {
  return {
    dispatches: a.dispatches + b.dispatches,
    ns: a.ns + b.ns,
    flops: a.flops + b.flops,
    hbmBytes: a.hbmBytes + b.hbmBytes,
  };
}

/** The roof over counter totals: intensity and FLOP rate as the roofline's (sum over sum, 0 when the divisor is 0). */
function roofOfTotals(c: KernelCounterTotals, peaks: RoofPeaks): RoofAtIntensity | undefined {
  const aiHbm = c.hbmBytes > 0 ? c.flops / c.hbmBytes : 0;
  const gflopsPerSecond = c.ns > 0 ? c.flops / c.ns : 0;
  return roofAtIntensity({ aiHbm, gflopsPerSecond }, peaks) ?? undefined;
}

/**
 * The profiled kernels grouped by the identifier they define. With the profile's peaks, an identifier whose
 * kernels all have counters gets its place under the roof (its instantiations' FLOPs, bytes and time added up).
 */
export function timingsByIdentifier(kernels: readonly ProfiledKernel[], peaks?: RoofPeaks): Map<string, KernelTiming> {
  const out = new Map<string, KernelTiming>();
  const uncounted = new Set<string>();
  const rankShares = new Map<string, Map<number, RankShare>>();
  const unranked = new Set<string>();
  for (const k of kernels) {
    const id = kernelIdentifier(k.name);
    if (!id || k.calls <= 0) continue;
    if (!k.ranks?.length) unranked.add(id);
    for (const r of k.ranks ?? []) {
      const byRank = rankShares.get(id) ?? new Map<number, RankShare>();
      const m = byRank.get(r.rank) ?? { rank: r.rank, calls: 0, totalNs: 0 };
      m.calls += r.calls;
      m.totalNs += r.totalNs;
      byRank.set(r.rank, m);
      rankShares.set(id, byRank);
    }
    const t = out.get(id) ?? { name: id, calls: 0, totalNs: 0, avgNs: 0, profiledNames: [] };
    t.calls += k.calls;
    t.totalNs += k.totalNs;
    t.avgNs = t.totalNs / t.calls;
    if (!t.profiledNames.includes(k.name)) t.profiledNames.push(k.name);
    if (!k.counters) uncounted.add(id);
    else t.counters = t.counters ? addCounterTotals(t.counters, k.counters) : k.counters;
    out.set(id, t);
  }
  for (const [id, shares] of rankShares) {
    const t = out.get(id);
    const slowest = t && !unranked.has(id) ? slowestRankOf([...shares.values()]) : undefined;
    if (t && slowest) t.slowestRank = slowest;
  }
  for (const [id, t] of out) {
    // a share of the roof over some instantiations only would pass for the whole identifier's: none then
    if (uncounted.has(id)) delete t.counters;
    const roof = peaks && t.counters ? roofOfTotals(t.counters, peaks) : undefined;
    if (roof) t.roof = roof;
  }
  return out;
}

/** Each kernel's calls and time per rank, for the kernels every rank with GPU work lists (see ProfiledKernel.ranks). */
export function addRankShares(byName: Map<string, ProfiledKernel>, ranks: TraceRanks): void {
  const ranked = ranks.processes.filter((p) => p.rank !== null && p.kernelCalls > 0);
  if (ranked.length < 2) return;
  for (const [name, m] of byName) {
    const shares = ranked.flatMap((p) => {
      const k = p.topKernels.find((x) => x.name === name);
      return k ? [{ rank: p.rank!, calls: k.calls, totalNs: k.totalNs }] : [];
    });
    if (shares.length === ranked.length) m.ranks = [...(m.ranks ?? []), ...shares];
  }
}

/** The rank with the highest average, when at least two ranks ran the kernel and their averages differ. */
function slowestRankOf(shares: readonly RankShare[]): KernelTiming['slowestRank'] {
  const avgs = shares.filter((r) => r.calls > 0).map((r) => ({ rank: r.rank, avgNs: r.totalNs / r.calls }));
  if (avgs.length < 2) return undefined;
  avgs.sort((a, b) => b.avgNs - a.avgNs || a.rank - b.rank);
  const slowest = avgs[0]!;
  const fastest = avgs[avgs.length - 1]!;
  // equal to the displayed precision is no difference a person could act on
  if (formatNs(slowest.avgNs) === formatNs(fastest.avgNs)) return undefined;
  return { rank: slowest.rank, avgNs: slowest.avgNs, fastestAvgNs: fastest.avgNs };
}

/**
 * The definitions in a file that the profile timed. `custom_kernel` (a GPU MODE entry point that launches kernels
 * under other names) is never matched. A name defined twice in the file (two `__global__` overloads) gets the
 * timing on each definition.
 */
export function matchKernelTimings(
  entries: readonly KernelEntryPoint[],
  kernels: readonly ProfiledKernel[],
  peaks?: RoofPeaks,
): TimedEntryPoint[] {
  const byId = timingsByIdentifier(kernels, peaks);
  const out: TimedEntryPoint[] = [];
  for (const entry of entries) {
    if (entry.kind === 'custom_kernel') continue;
    const timing = byId.get(entry.name);
    if (timing) out.push({ entry, timing });
  }
  return out;
}

/** The lens's hover line for the roof: "HBM intensity 0.0250 FLOP/B at 100 GFLOP/s under a roof of 133 GFLOP/s." */
export function roofTooltip(t: Pick<KernelTiming, 'counters' | 'roof'>): string {
  if (!t.roof || !t.counters) return '';
  const c = t.counters;
  const ai = c.hbmBytes > 0 ? c.flops / c.hbmBytes : 0;
  const rate = c.ns > 0 ? c.flops / c.ns : 0;
  return `HBM intensity ${formatIntensity(ai)} at ${formatFlopRate(rate)} under a roof of ${formatFlopRate(t.roof.roofGflops)} (${formatCount(c.dispatches)} dispatches with counters).`;
}

/**
 * "⏱ 17.2 µs avg · 150 calls", with counters "⏱ 11.3 µs avg · 150 calls · memory-bound, 71% of HBM roof", and
 * where the ranks of a multi-GPU profile differ "⏱ 11.3 µs avg · 24 calls · slowest rank 3".
 */
export function timingLensTitle(t: Pick<KernelTiming, 'avgNs' | 'calls' | 'roof' | 'slowestRank'>): string {
  const timing = `⏱ ${formatNs(t.avgNs)} avg · ${t.calls.toLocaleString('en-US')} call${t.calls === 1 ? '' : 's'}`;
  const rank = t.slowestRank ? ` · slowest rank ${t.slowestRank.rank}` : '';
  return t.roof ? `${timing}${rank} · ${roofText(t.roof)}` : `${timing}${rank}`;
}

/** The lens's hover line for the ranks: "Slowest on rank 3: 16.9 µs avg, fastest rank 11.3 µs." */
export function rankTooltip(t: Pick<KernelTiming, 'slowestRank'>): string {
  const r = t.slowestRank;
  return r ? `Slowest on rank ${r.rank}: ${formatNs(r.avgNs)} avg, fastest rank ${formatNs(r.fastestAvgNs)}.` : '';
}
