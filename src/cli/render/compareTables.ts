// Text tables for a TraceComparison (the `kernel-runner compare A B` output).
import {
  cutPairChanges,
  formatBytes,
  formatChange,
  formatNs as formatNsCore,
  formatRatio,
  formatSignedNs,
  gpuPairLabel,
  morePairsText,
  pairChangeMark,
} from '../../core/format/index';
import type { AmountDelta, KernelDelta, PeerCopyDelta, TraceComparison } from '../../core/protocol/traceComparison';
import type { CaseTimingChange } from '../../trace/significance';
import { tableLines as table } from './table';
import { formatBound, formatMetric } from './rooflineTable';

export interface CompareRenderOptions {
  /** Kernel rows shown, overall and per range, and GPU-to-GPU pairs (default 15). */
  top?: number;
  color?: boolean;
  nameWidth?: number;
}

const CLI = { align: true, missing: '-' } as const;
const ns = (v: number | null | undefined): string => formatNsCore(v, CLI);

function cut(s: string, width: number): string {
  return s.length <= width ? s : `${s.slice(0, width - 1)}…`;
}

const MATCH_MARK: Record<KernelDelta['match'], string> = {
  exact: '',
  'short-name': '≈',
  'a-only': 'gone',
  'b-only': 'new',
};

function kernelRows(rows: KernelDelta[], width: number): string[][] {
  return rows.map((k) => [
    cut(k.shortName || k.name, width),
    MATCH_MARK[k.match],
    k.a ? String(k.a.calls) : '-',
    k.b ? String(k.b.calls) : '-',
    ns(k.a?.totalNs),
    ns(k.b?.totalNs),
    formatSignedNs(k.deltaTotalNs, CLI),
    formatRatio(k.ratio, CLI),
    ns(k.a?.avgNs),
    ns(k.b?.avgNs),
    k.change ? formatChange(k.change, CLI) : '',
  ]);
}

const KERNEL_HEADER = [
  'Kernel',
  '',
  'A calls',
  'B calls',
  'A total',
  'B total',
  'Δ total',
  'B/A',
  'A avg',
  'B avg',
  'Avg change [99% interval]',
];
const KERNEL_ALIGN = ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'] as const;
const RANK_ALIGN = ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'] as const;

function amountLine(label: string, d: AmountDelta): string {
  return `${label}: A ${ns(d.a)}, B ${ns(d.b)}, change ${formatSignedNs(d.deltaNs, CLI)} (${formatRatio(d.ratio, CLI)})`;
}

export function renderComparison(c: TraceComparison, opts: CompareRenderOptions = {}): string {
  const top = opts.top ?? 15;
  const width = opts.nameWidth ?? 48;
  const h = (s: string): string => (opts.color ? `\x1b[1m${s}\x1b[22m` : s);
  const out: string[] = [];
  out.push(h(`Compare A: ${c.a.label}`));
  out.push(h(`   with B: ${c.b.label}`));
  out.push(
    `A: ${c.a.calls} dispatches of ${c.a.distinct} kernels; B: ${c.b.calls} dispatches of ${c.b.distinct} kernels`,
  );
  out.push(amountLine('Kernel time', c.kernelTime));
  if (c.kernelTimeChange) out.push(`Kernel time change [99% interval]: ${formatChange(c.kernelTimeChange, CLI)}`);
  out.push(amountLine('GPU busy', c.busy));
  out.push(amountLine('GPU wall span', c.wall));
  if (c.imbalance) {
    out.push(`Load imbalance A: ${c.imbalance.a ?? '- (one process)'}`);
    out.push(`Load imbalance B: ${c.imbalance.b ?? '- (one process)'}`);
  }
  if (c.ranks?.length) {
    out.push('');
    out.push(h('Ranks, paired by rank number (* computes longest on that side)'));
    const mark = (on: boolean): string => (on ? ' *' : '');
    const rows = c.ranks.map((r) => [
      String(r.rank),
      `${ns(r.compute.a)}${mark(r.slowest.a)}`,
      `${ns(r.compute.b)}${mark(r.slowest.b)}`,
      formatSignedNs(r.compute.deltaNs, CLI),
      formatRatio(r.compute.ratio, CLI),
      ns(r.communication.a),
      ns(r.communication.b),
      ns(r.busy.a),
      ns(r.busy.b),
    ]);
    out.push(
      ...table(
        ['Rank', 'A compute', 'B compute', 'Δ compute', 'B/A', 'A comm', 'B comm', 'A busy', 'B busy'],
        rows,
        RANK_ALIGN,
      ).map((l) => `  ${l}`),
    );
  }

  if (c.peerCopies?.length) out.push('', ...peerCopyLines(c.peerCopies, top, h));

  if (c.kernels.length) {
    out.push('');
    out.push(h(`Kernels, biggest change first${c.kernels.length > top ? ` (${top} of ${c.kernels.length})` : ''}`));
    out.push(...table(KERNEL_HEADER, kernelRows(c.kernels.slice(0, top), width), KERNEL_ALIGN).map((l) => `  ${l}`));
    const added = c.kernels.filter((k) => k.match === 'b-only').length;
    const gone = c.kernels.filter((k) => k.match === 'a-only').length;
    const short = c.kernels.filter((k) => k.match === 'short-name').length;
    const notes = [
      added ? `${added} new in B` : '',
      gone ? `${gone} gone from A` : '',
      short ? `${short} paired by base name (≈: the full names differ, e.g. template arguments)` : '',
    ].filter(Boolean);
    if (notes.length) out.push(`  ${notes.join('; ')}.`);
  }

  if (c.roofline?.length) {
    out.push('');
    out.push(
      h(
        `Roofline points (HBM intensity, FP32 roof)${c.roofline.length > top ? ` (${top} of ${c.roofline.length})` : ''}`,
      ),
    );
    const rows = c.roofline
      .slice(0, top)
      .map((r) => [
        cut(r.shortName, width),
        formatBound(r.a),
        formatMetric(r.a?.aiHbm),
        formatMetric(r.a?.gflopsPerSecond),
        formatBound(r.b),
        formatMetric(r.b?.aiHbm),
        formatMetric(r.b?.gflopsPerSecond),
      ]);
    out.push(
      ...table(['Kernel', 'A bound', 'A AI', 'A GFLOP/s', 'B bound', 'B AI', 'B GFLOP/s'], rows, [
        'l',
        'l',
        'r',
        'r',
        'l',
        'r',
        'r',
      ]).map((l) => `  ${l}`),
    );
  }

  if (c.ranges) {
    out.push('');
    out.push(h('rocTX ranges (kernel time launched inside each)'));
    const rows = c.ranges.map((r) => [
      cut(r.name, width),
      r.a ? String(r.a.kernelCalls) : '-',
      r.b ? String(r.b.kernelCalls) : '-',
      ns(r.a?.kernelNs),
      ns(r.b?.kernelNs),
      formatSignedNs(r.a && r.b ? r.deltaKernelNs : r.a ? -r.a.kernelNs : (r.b?.kernelNs ?? null), CLI),
      formatRatio(r.kernelRatio, CLI),
      !r.a ? 'new' : !r.b ? 'gone' : r.a.kernelCalls > 0 && r.b.kernelCalls > 0 ? formatChange(r.change, CLI) : '',
    ]);
    out.push(
      ...table(
        ['Range', 'A kernels', 'B kernels', 'A kernel time', 'B kernel time', 'Δ', 'B/A', 'Change [99% interval]'],
        rows,
        ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
      ).map((l) => `  ${l}`),
    );
    for (const r of c.ranges) {
      if (!r.kernels.length || !(r.a && r.b)) continue;
      out.push('');
      out.push(`  ${h(`Range ${cut(r.name, 100)}`)}`);
      out.push(
        ...table(KERNEL_HEADER, kernelRows(r.kernels.slice(0, top), width), KERNEL_ALIGN).map((l) => `    ${l}`),
      );
    }
    const by = [c.rangeAttribution.a, c.rangeAttribution.b];
    out.push(
      '',
      'Changes are judged from the per-dispatch spread (10 dispatches a side at least; a range only when its kernels ran nowhere else): "no change detected" means the 99% interval holds 0.',
    );
    if (by.includes('gpu-overlap'))
      out.push(
        '',
        'Note: a side without an API trace put kernels in ranges by GPU time, which misses kernels that ran after their range closed.',
      );
  }
  return `${out.join('\n')}\n`;
}

/** The GPU-to-GPU copy pairs of both sides, biggest change of time first; sizes only when a side recorded any. */
function peerCopyLines(pairs: PeerCopyDelta[], top: number, h: (s: string) => string): string[] {
  const cut = cutPairChanges(pairs, top);
  const bytes = pairs.some((p) => p.a?.bytes != null || p.b?.bytes != null);
  const size = (s: PeerCopyDelta['a']): string[] => (bytes ? [s?.bytes == null ? '-' : formatBytes(s.bytes)] : []);
  const rows = cut.shown.map((p) => [
    gpuPairLabel(p),
    pairChangeMark(p),
    p.a ? String(p.a.calls) : '-',
    p.b ? String(p.b.calls) : '-',
    ...size(p.a),
    ...size(p.b),
    ns(p.a?.totalNs),
    ns(p.b?.totalNs),
    formatSignedNs(p.deltaTotalNs, CLI),
    formatRatio(p.ratio, CLI),
  ]);
  const header = ['Pair', '', 'A copies', 'B copies', ...(bytes ? ['A bytes', 'B bytes'] : [])];
  const columns = [...header, 'A time', 'B time', 'Δ time', 'B/A'];
  const t = cut.total;
  return [
    h(`GPU-to-GPU copies, biggest change first${cut.more ? ` (${top} of ${pairs.length} pairs)` : ''}`),
    amountLine('  All pairs', { a: t.aNs, b: t.bNs, deltaNs: t.deltaNs, ratio: t.ratio }),
    ...table(
      columns,
      rows,
      columns.map((_, i) => (i < 2 ? 'l' : 'r')),
    ).map((l) => `  ${l}`),
    ...(cut.more ? [`  ${morePairsText(cut.more)}`] : []),
  ];
}

/** The evaluator's per-case timings of two results (what ranks), each change with its interval and verdict. */
export function renderTimingChanges(
  cases: CaseTimingChange[],
  opts: { a: string; b: string; color?: boolean },
): string {
  const h = (s: string): string => (opts.color ? `\x1b[1m${s}\x1b[22m` : s);
  const out = [h(`Evaluator timings, A: ${opts.a}`), h(`              with B: ${opts.b}`)];
  if (cases.length === 0)
    return `${[...out, 'No benchmark cases with timings in A (run with --mode benchmark or leaderboard).'].join('\n')}\n`;
  const rows = cases.map((c) => [
    cut(c.spec, 48),
    ns(c.change.aNs),
    ns(c.change.bNs),
    formatRatio(c.change.ratio, CLI),
    formatChange(c.change, CLI),
  ]);
  out.push(
    ...table(['Case', 'A mean', 'B mean', 'B/A', 'Change [99% interval]'], rows, ['l', 'r', 'r', 'r', 'l']).map(
      (l) => `  ${l}`,
    ),
  );
  out.push(
    'Welch\'s t-test on each case\'s mean, std and runs: "no change detected" means the 99% interval of the change holds 0.',
  );
  return `${out.join('\n')}\n`;
}
