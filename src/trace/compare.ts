// Compares two trace summaries: kernels paired by full name, then (template arguments changed) by base name (the
// short name without template arguments) when that pairing is one to one; busy and wall time; per rocTX range when
// both have ranges; per rank and per GPU-to-GPU copy pair of a multi-GPU profile.
import type {
  KernelDelta,
  KernelSide,
  RangeDelta,
  RooflineDelta,
  RooflinePoint,
  TraceComparison,
  RankDelta,
} from '../core/protocol/traceComparison';
import type { RooflineKernel } from '../core/protocol/roofline';
import type { TraceRank, TraceSummary } from '../core/protocol/traceSummary';
import { comparePeerCopies } from './comparePeerCopies';
import { shortKernelName } from './shortName';
import { judgeDispatches, judgeTotals, type DispatchPart } from './significance';

interface NamedKernel {
  name: string;
  shortName: string;
  calls: number;
  totalNs: number;
  /** Per-dispatch spread: when known, a pair's change is judged from it. */
  stddevNs?: number | null;
}

const side = (k: NamedKernel): KernelSide => ({
  calls: k.calls,
  totalNs: k.totalNs,
  avgNs: k.calls > 0 ? k.totalNs / k.calls : 0,
});

function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  return a !== null && a !== undefined && b !== null && b !== undefined && a > 0 ? b / a : null;
}

function delta(
  a: KernelSide | null,
  b: KernelSide | null,
  row: Omit<KernelDelta, 'a' | 'b' | 'deltaTotalNs' | 'deltaAvgNs' | 'ratio'>,
  ka?: NamedKernel,
  kb?: NamedKernel,
): KernelDelta {
  const spread = (k: NamedKernel, s: KernelSide) => ({ avgNs: s.avgNs, stddevNs: k.stddevNs ?? null, calls: s.calls });
  return {
    ...row,
    a,
    b,
    deltaTotalNs: (b?.totalNs ?? 0) - (a?.totalNs ?? 0),
    deltaAvgNs: a && b ? b.avgNs - a.avgNs : null,
    ratio: a && b ? ratio(a.totalNs, b.totalNs) : null,
    ...(a && b && ka && kb ? { change: judgeDispatches(spread(ka, a), spread(kb, b)) } : {}),
  };
}

/** Kernel rows of two sides, paired; biggest absolute change first. */
export function compareKernels(as: NamedKernel[], bs: NamedKernel[]): KernelDelta[] {
  const out: KernelDelta[] = [];
  const bByName = new Map(bs.map((k) => [k.name, k]));
  const aLeft: NamedKernel[] = [];
  const paired = new Set<string>();
  for (const a of as) {
    const b = bByName.get(a.name);
    if (b) {
      paired.add(b.name);
      out.push(delta(side(a), side(b), { name: b.name, shortName: b.shortName, match: 'exact', aName: null }, a, b));
    } else {
      aLeft.push(a);
    }
  }
  const bLeft = bs.filter((b) => !paired.has(b.name));
  const byShort = (ks: NamedKernel[]): Map<string, NamedKernel[]> => {
    const m = new Map<string, NamedKernel[]>();
    for (const k of ks) m.set(baseName(k.shortName), [...(m.get(baseName(k.shortName)) ?? []), k]);
    return m;
  };
  const aShort = byShort(aLeft);
  const bShort = byShort(bLeft);
  const shortPaired = new Set<NamedKernel>();
  for (const [short, aks] of aShort) {
    const bks = bShort.get(short);
    // only a one-to-one base name pairs: with several candidates a side, which is which is a guess
    if (aks.length !== 1 || bks?.length !== 1) continue;
    const a = aks[0] as NamedKernel;
    const b = bks[0] as NamedKernel;
    shortPaired.add(a).add(b);
    out.push(
      delta(side(a), side(b), { name: b.name, shortName: b.shortName, match: 'short-name', aName: a.name }, a, b),
    );
  }
  for (const a of aLeft)
    if (!shortPaired.has(a))
      out.push(delta(side(a), null, { name: a.name, shortName: a.shortName, match: 'a-only', aName: null }));
  for (const b of bLeft)
    if (!shortPaired.has(b))
      out.push(delta(null, side(b), { name: b.name, shortName: b.shortName, match: 'b-only', aName: null }));
  return out.sort((x, y) => Math.abs(y.deltaTotalNs) - Math.abs(x.deltaTotalNs) || x.name.localeCompare(y.name));
}

/** The short name without its template arguments: `gemm<float, 2>` → `gemm`, `ck_tile::kentry<1, …>` → `ck_tile::kentry`. */
function baseName(shortName: string): string {
  return shortName.replace(/<.*$/s, '') || shortName;
}

function gpuBusy(s: TraceSummary): number | null {
  const gpus = s.agents.filter((a) => a.type !== 'CPU' && (a.kernelCalls > 0 || a.busyNs > 0));
  return gpus.length ? gpus.reduce((n, a) => n + a.busyNs, 0) : null;
}

function amount(a: number | null, b: number | null) {
  return { a, b, deltaNs: a !== null && b !== null ? b - a : null, ratio: ratio(a, b) };
}

/**
 * A range's kernels as parts of its kernel time with their per-dispatch spread: known when each kernel's dispatches
 * all ran in this range (the whole-run row's spread is then the range's); null otherwise.
 */
export function rangeParts(s: TraceSummary, rangeName: string): DispatchPart[] | null {
  const marker = s.markers.find((m) => m.name === rangeName);
  if (!marker) return null;
  const rows = new Map(s.kernels.map((k) => [k.name, k]));
  const parts: DispatchPart[] = [];
  for (const k of marker.kernels) {
    const row = rows.get(k.name);
    if (!row || row.calls !== k.calls) return null;
    parts.push({ calls: row.calls, avgNs: row.avgNs, stddevNs: row.stddevNs });
  }
  return parts;
}

/** The whole run's kernels as parts of its kernel time, when the summary lists every kernel. */
export function runParts(s: TraceSummary): DispatchPart[] | null {
  return s.kernels.length === s.kernelTotals.distinct
    ? s.kernels.map((k) => ({ calls: k.calls, avgNs: k.avgNs, stddevNs: k.stddevNs }))
    : null;
}

function compareRanges(a: TraceSummary, b: TraceSummary): RangeDelta[] | null {
  if (a.markers.length === 0 || b.markers.length === 0) return null;
  const rowsOf = (s: TraceSummary) => new Map(s.kernels.map((k) => [k.name, k]));
  const rows = new Map([
    [a, rowsOf(a)],
    [b, rowsOf(b)],
  ]);
  // a kernel's spread is the range's only when all its dispatches ran in the range
  const kernelsOf = (m: TraceSummary['markers'][number], s: TraceSummary): NamedKernel[] =>
    m.kernels.map((k) => {
      const row = rows.get(s)?.get(k.name);
      return {
        name: k.name,
        shortName: shortKernelName(k.name),
        calls: k.calls,
        totalNs: k.totalNs,
        ...(row && row.calls === k.calls ? { stddevNs: row.stddevNs } : {}),
      };
    });
  const sideOf = (m: TraceSummary['markers'][number]) => ({
    calls: m.calls,
    totalNs: m.totalNs,
    kernelNs: m.kernels.reduce((n, k) => n + k.totalNs, 0),
    kernelCalls: m.kernels.reduce((n, k) => n + k.calls, 0),
  });
  const bByName = new Map(b.markers.map((m) => [m.name, m]));
  const names = [...new Set([...a.markers.map((m) => m.name), ...b.markers.map((m) => m.name)])];
  const aByName = new Map(a.markers.map((m) => [m.name, m]));
  return names.map((name) => {
    const ma = aByName.get(name);
    const mb = bByName.get(name);
    const sa = ma ? sideOf(ma) : null;
    const sb = mb ? sideOf(mb) : null;
    return {
      name,
      a: sa,
      b: sb,
      deltaKernelNs: (sb?.kernelNs ?? 0) - (sa?.kernelNs ?? 0),
      kernelRatio: sa && sb ? ratio(sa.kernelNs, sb.kernelNs) : null,
      deltaTotalNs: (sb?.totalNs ?? 0) - (sa?.totalNs ?? 0),
      kernels: compareKernels(ma ? kernelsOf(ma, a) : [], mb ? kernelsOf(mb, b) : []),
      ...(sa && sb ? { change: judgeTotals(rangeParts(a, name), rangeParts(b, name)) } : {}),
    };
  });
}

const point = (k: RooflineKernel): RooflinePoint => ({
  dispatches: k.dispatches,
  durationNs: k.durationNs,
  aiHbm: k.aiHbm,
  gflopsPerSecond: k.gflopsPerSecond,
  bound: k.bound,
  percentOfRoof: k.percentOfRoof,
});

/** Both sides' roofline points per kernel, paired as the kernel rows are; in the order of the biggest time change. */
export function compareRooflines(a: RooflineKernel[], b: RooflineKernel[]): RooflineDelta[] {
  const named = (ks: RooflineKernel[]): NamedKernel[] =>
    ks.map((k) => ({
      name: k.name,
      shortName: shortKernelName(k.name),
      calls: k.dispatches,
      totalNs: (k.durationNs ?? 0) * k.dispatches,
    }));
  const aByName = new Map(a.map((k) => [k.name, k]));
  const bByName = new Map(b.map((k) => [k.name, k]));
  return compareKernels(named(a), named(b)).map((d) => {
    const ka = d.match === 'b-only' ? undefined : aByName.get(d.aName ?? d.name);
    const kb = d.match === 'a-only' ? undefined : bByName.get(d.name);
    return { name: d.name, shortName: d.shortName, aName: d.aName, a: ka ? point(ka) : null, b: kb ? point(kb) : null };
  });
}

export function compareSummaries(
  a: TraceSummary,
  b: TraceSummary,
  labels: { a: string; b: string } = { a: 'A', b: 'B' },
): TraceComparison {
  const totals = (s: TraceSummary, label: string) => ({ label, ...s.kernelTotals });
  return {
    a: totals(a, labels.a),
    b: totals(b, labels.b),
    kernels: compareKernels(a.kernels, b.kernels),
    kernelTime: amount(a.kernelTotals.totalNs, b.kernelTotals.totalNs),
    kernelTimeChange: judgeTotals(runParts(a), runParts(b)),
    busy: amount(gpuBusy(a), gpuBusy(b)),
    wall: amount(a.wall?.spanNs ?? null, b.wall?.spanNs ?? null),
    ranges: compareRanges(a, b),
    rangeAttribution: { a: a.rangeAttribution?.by ?? null, b: b.rangeAttribution?.by ?? null },
    ...(a.roofline || b.roofline
      ? { roofline: compareRooflines(a.roofline?.kernels ?? [], b.roofline?.kernels ?? []) }
      : {}),
    ...(a.ranks || b.ranks
      ? {
          ranks: compareRanks(a, b),
          imbalance: { a: a.ranks?.imbalanceLine ?? null, b: b.ranks?.imbalanceLine ?? null },
        }
      : {}),
    ...(a.peerCopies?.length || b.peerCopies?.length
      ? { peerCopies: comparePeerCopies(a.peerCopies ?? [], b.peerCopies ?? []) }
      : {}),
  };
}

/** The ranks of two multi-process profiles paired by rank number (processes without GPU work left out). */
function compareRanks(a: TraceSummary, b: TraceSummary): RankDelta[] {
  const of = (s: TraceSummary) =>
    new Map((s.ranks?.processes ?? []).flatMap((p) => (p.rank === null ? [] : [[p.rank, p] as const])));
  const ra = of(a);
  const rb = of(b);
  const slowA = a.ranks?.imbalance[0]?.slowestRank ?? null;
  const slowB = b.ranks?.imbalance[0]?.slowestRank ?? null;
  return [...new Set([...ra.keys(), ...rb.keys()])]
    .sort((x, y) => x - y)
    .map((rank) => {
      const pa = ra.get(rank);
      const pb = rb.get(rank);
      const side = (f: (p: TraceRank) => number) => amount(pa ? f(pa) : null, pb ? f(pb) : null);
      return {
        rank,
        aPid: pa?.pid ?? null,
        bPid: pb?.pid ?? null,
        aDevice: pa?.device ?? null,
        bDevice: pb?.device ?? null,
        kernel: side((p) => p.kernelNs),
        compute: side((p) => p.computeNs),
        communication: side((p) => p.communicationNs),
        busy: side((p) => p.busyNs),
        slowest: { a: pa !== undefined && slowA === rank, b: pb !== undefined && slowB === rank },
      };
    });
}
