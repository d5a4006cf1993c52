// `--baseline OTHER`: the digest's kernels and cases against another profile's, each change with its interval and
// verdict (src/trace/significance.ts). Kernels are paired as `compare` pairs them (full name, else a one-to-one
// base name).
import type {
  DigestBaseline,
  DigestCase,
  DigestEvaluator,
  DigestKernel,
  DigestList,
  DigestPeerCopyChange,
  ProfileDigest,
} from '../../core/protocol/profileDigest';
import type { KernelRow, TraceSummary } from '../../core/protocol/traceSummary';
import { compareKernels, rangeParts, runParts } from '../compare';
import { comparePeerCopies } from '../comparePeerCopies';
import { compareCaseTimings, judgeDispatches, judgeTotals } from '../significance';
import type { DigestCaps } from './caps';
import { cutList, isMore } from './lists';
import { gpuEnd } from './ranks';

export interface BaselineInput {
  summary: TraceSummary;
  trace: { file: string; sha256: string | null };
  evaluator?: DigestEvaluator | null;
}

/** Per kernel of `summary`, the baseline's row it pairs with. */
function pairedRows(base: TraceSummary, summary: TraceSummary): Map<string, KernelRow> {
  const baseByName = new Map(base.kernels.map((k) => [k.name, k]));
  const out = new Map<string, KernelRow>();
  for (const d of compareKernels(base.kernels, summary.kernels)) {
    if (!d.a || !d.b) continue;
    const row = baseByName.get(d.aName ?? d.name);
    if (row) out.set(d.name, row);
  }
  return out;
}

export function applyBaseline(
  digest: ProfileDigest,
  summary: TraceSummary,
  baseline: BaselineInput,
  evaluator: DigestEvaluator | null,
  caps: DigestCaps,
): ProfileDigest {
  const base = baseline.summary;
  const paired = pairedRows(base, summary);
  const rowById = new Map<string, KernelRow>();
  for (const [i, row] of summary.kernels.entries()) rowById.set(`k${i + 1}`, row);
  const kernels = digest.kernels.map((k) => {
    if (isMore(k)) return k;
    const row = rowById.get(k.id) as KernelRow;
    const other = paired.get(row.name) ?? null;
    return { ...k, change: judgeDispatches(other, row) } satisfies DigestKernel;
  });
  const evalChanges =
    evaluator && baseline.evaluator ? compareCaseTimings(baseline.evaluator.benchmarks, evaluator.benchmarks) : [];
  const cases = digest.cases.map((c) => {
    if (isMore(c)) return c;
    const evaluatorChange = evalChanges.find((e) => e.spec !== '' && c.name.includes(e.spec))?.change;
    const baseMarker = base.markers.find((m) => m.name === c.name);
    const thisMarker = summary.markers.find((m) => m.name === c.name);
    // the digest keeps a case's kernels in the summary's order: entry i is the range's kernel i
    const caseKernels = c.kernels.map((ck, i) => {
      const full = thisMarker?.kernels[i];
      if (isMore(ck) || !baseMarker || !full) return ck;
      const row = summary.kernels.find((r) => r.name === full.name);
      const other = row ? paired.get(row.name) : undefined;
      const baseInCase = other ? baseMarker.kernels.find((k) => k.name === other.name) : undefined;
      if (row && other && baseInCase && row.calls === full.calls && other.calls === baseInCase.calls)
        return { ...ck, change: judgeDispatches(other, row) };
      const aMean = baseInCase && baseInCase.calls > 0 ? baseInCase.totalNs / baseInCase.calls : null;
      return {
        ...ck,
        change: { ...judgeTotals(null, null), aNs: aMean, bNs: ck.meanNs, ratio: aMean ? ck.meanNs / aMean : null },
      };
    });
    const aParts = rangeParts(base, c.name);
    const bParts = rangeParts(summary, c.name);
    const change = baseMarker ? judgeTotals(aParts, bParts) : judgeTotals(null, null);
    const withTotals =
      baseMarker && (!aParts || !bParts)
        ? {
            ...change,
            aNs: baseMarker.kernels.reduce((n, k) => n + k.totalNs, 0),
            bNs: c.kernelNs,
            ratio: ratioOf(
              baseMarker.kernels.reduce((n, k) => n + k.totalNs, 0),
              c.kernelNs,
            ),
          }
        : change;
    return {
      ...c,
      kernels: caseKernels,
      change: withTotals,
      ...(evaluatorChange ? { evaluatorChange } : {}),
    } satisfies DigestCase;
  });
  const summaryKernelNames = new Set(summary.kernels.map((k) => k.name));
  const deltas = compareKernels(base.kernels, summary.kernels);
  const section: DigestBaseline = {
    trace: baseline.trace,
    kernelTime: withRatio(
      judgeTotals(runParts(base), runParts(summary)),
      base.kernelTotals.totalNs,
      summary.kernelTotals.totalNs,
    ),
    onlyInBaseline: deltas
      .filter((d) => d.match === 'a-only')
      .map((d) => d.shortName)
      .slice(0, 10),
    onlyInThis: deltas
      .filter((d) => d.match === 'b-only' && summaryKernelNames.has(d.name))
      .map((d) => d.shortName)
      .slice(0, 10),
    ...(base.peerCopies?.length || summary.peerCopies?.length
      ? { peerCopies: peerCopyChanges(base, summary, caps.peerCopies) }
      : {}),
  };
  return { ...digest, kernels, cases, baseline: section };
}

/** The GPU pairs as compare pairs them, the first `cap`; the rest counted with their share of all the change. */
function peerCopyChanges(base: TraceSummary, summary: TraceSummary, cap: number): DigestList<DigestPeerCopyChange> {
  const rows: DigestPeerCopyChange[] = comparePeerCopies(base.peerCopies ?? [], summary.peerCopies ?? []).map((p) => ({
    from: gpuEnd(p.srcGpu, p.srcAgentId),
    to: gpuEnd(p.dstGpu, p.dstAgentId),
    a: p.a,
    b: p.b,
    deltaNs: p.deltaTotalNs,
    ratio: p.ratio,
  }));
  const change = (ps: readonly DigestPeerCopyChange[]): number => ps.reduce((n, p) => n + Math.abs(p.deltaNs), 0);
  const all = change(rows);
  return cutList(rows, cap, rows.length, (kept) => (all > 0 ? (100 * (all - change(kept))) / all : null));
}

function ratioOf(a: number, b: number): number | null {
  return a > 0 ? b / a : null;
}

function withRatio(change: ReturnType<typeof judgeTotals>, aNs: number, bNs: number): ReturnType<typeof judgeTotals> {
  return change.method === 'none' ? { ...change, aNs, bNs, ratio: ratioOf(aNs, bNs) } : change;
}
