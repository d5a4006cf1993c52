// The per-rank part of a multi-process profile's results: the imbalance line first, then one row a rank (GPU, busy,
// kernel, compute, communication and its share, its GPU-to-GPU copies out; the rank that computes longest marked),
// each rank's GPU-to-GPU copy pairs when they say more than the matrix, then each benchmark case's compute time per
// rank with that case's slowest marked; and the whole profile's GPU-to-GPU matrix, its GPUs named by their rank.
// The numbers, the slowest and whether the pairs are shown are core's (the summary, core/format); this renders.
import {
  gpuEndLabel,
  gpuMatrix,
  gpuRankLabel,
  MAX_MATRIX_GPUS,
  rankOfGpu,
  rankPairsBeyondMatrix,
} from '../core/format/index';
import type { PeerCopy, TraceRank, TraceRanks } from '../core/protocol/traceSummary';
import { percentBar } from './bars';
import { dataTable, h, type Child, type TableRow } from './dom';
import { formatBytes, formatCount, formatNs, formatPercent } from './format';

/** Rank pairs shown at once, the longest; the rest behind a "N more pairs" disclosure. */
const PAIRS_SHOWN = 16;

const slowMark = (): HTMLElement => h('span', { class: 'slowest-mark', title: 'computes longest' }, 'slowest');

/** A rank's GPU-to-GPU copies out: time, and bytes when the trace has them. */
function copiesOut(p: TraceRank): Child {
  const out = p.peerCopiesOut;
  if (!out) return '–';
  return h(
    'span',
    { class: 'copies-out', title: `${formatCount(out.calls)} copies to other GPUs` },
    formatNs(out.totalNs),
    ...(out.bytes === null ? [] : [h('br', {}), formatBytes(out.bytes)]),
  );
}

/**
 * `pairs`: the whole profile's (`TraceSummary.peerCopies`), for the choice of showing each rank's own (only when they
 * say something the matrix does not: core's `rankPairsBeyondMatrix`).
 */
export function renderRanks(ranks: TraceRanks, pairs: readonly PeerCopy[] = []): HTMLElement {
  const slowest = ranks.imbalance[0]?.slowestRank ?? null;
  const ranked = ranks.processes.filter((p) => p.rank !== null);
  const rows = ranks.processes.map((p) => {
    const slow = p.rank !== null && p.rank === slowest;
    // a launcher (the evaluator that spawns the ranks): no numbers to show
    const idle = p.rank === null && p.kernelCalls === 0;
    const rankCell: Child[] = [p.rank === null ? 'no GPU work' : `rank ${p.rank}`];
    if (slow) rankCell.push(' ', slowMark());
    return {
      attrs: {
        class: slow ? 'rank-row slowest' : 'rank-row',
        'data-rank': p.rank === null ? '' : String(p.rank),
        'data-pid': p.pid === null ? '' : String(p.pid),
      },
      cells: [
        h('span', { class: 'rank-name' }, ...rankCell),
        p.device === null ? '–' : `GPU ${p.device}`,
        p.rank === null ? '–' : `${formatNs(p.busyNs)} (${formatPercent(p.busyPercent)})`,
        ...(idle
          ? ['–', '–', '–', '–', '–']
          : [
              formatNs(p.kernelNs),
              formatNs(p.computeNs),
              formatNs(p.communicationNs),
              percentBar(p.communicationPercent),
              copiesOut(p),
            ]),
        p.topKernels[0]
          ? h('span', { class: 'kernel-name', title: p.topKernels[0].name }, p.topKernels[0].shortName)
          : '–',
      ],
    };
  });
  const cases = ranks.imbalance.slice(1);
  return h(
    'section',
    { class: 'ranks', 'aria-label': 'Ranks' },
    h('p', { class: 'imbalance-line', role: 'note' }, ranks.imbalanceLine),
    dataTable(
      `Ranks (${formatCount(ranked.length)} with GPU work${ranks.from === 'manifest' ? ", from the runner's process list" : ''})`,
      [
        { label: 'rank', key: true },
        'device',
        'busy (of wall)',
        'kernel',
        { label: 'compute', key: true },
        { label: 'communication', key: true },
        'comm share',
        'copies out',
        'top kernel',
      ],
      rows,
      'rank-table',
    ),
    rankPairsBeyondMatrix(ranks.processes, pairs) ? renderRankPairs(ranks) : null,
    cases.length
      ? dataTable(
          'Compute time per case and rank',
          [
            { label: 'case', key: true },
            { label: 'slowest', key: true },
            'over median',
            ...ranked.map((r) => `rank ${r.rank}`),
          ],
          cases.map((c) => ({
            attrs: { class: 'rank-case', 'data-case': c.name ?? '' },
            cells: [
              h('span', { title: c.name ?? '' }, c.name ?? ''),
              `rank ${c.slowestRank}`,
              `+${formatPercent(c.overMedianPercent)}`,
              ...ranked.map((r) => {
                const own = r.cases.find((x) => x.name === c.name);
                if (!own || own.kernelNs === 0) return '–';
                return r.rank === c.slowestRank
                  ? h('span', { class: 'case-slowest' }, formatNs(own.computeNs), ' ', slowMark())
                  : formatNs(own.computeNs);
              }),
            ],
          })),
          'rank-cases',
        )
      : null,
  );
}

/**
 * Each rank's GPU-to-GPU pairs, in rank order; past PAIRS_SHOWN pairs the longest PAIRS_SHOWN by time, the others in
 * a closed `<details>` (a native disclosure: the keyboard opens it, no script).
 */
function renderRankPairs(ranks: TraceRanks): HTMLElement {
  const all = ranks.processes.flatMap((p) => (p.peerCopies ?? []).map((c) => ({ p, c })));
  const long = all.length > PAIRS_SHOWN;
  const ordered = long ? [...all].sort((a, b) => b.c.totalNs - a.c.totalNs) : all;
  const row = ({ p, c }: { p: TraceRank; c: PeerCopy }): TableRow => ({
    attrs: {
      class: 'rank-pair',
      'data-rank': p.rank === null ? '' : String(p.rank),
      'data-src': c.srcAgentId,
      'data-dst': c.dstAgentId,
    },
    cells: [
      p.rank === null ? `pid ${p.pid ?? '–'}` : `rank ${p.rank}`,
      gpuEndLabel(c.srcGpu, c.srcAgentId),
      gpuEndLabel(c.dstGpu, c.dstAgentId),
      formatCount(c.calls),
      formatBytes(c.bytes),
      formatNs(c.totalNs),
    ],
  });
  const columns = [
    { label: 'rank', key: true },
    { label: 'from', key: true },
    { label: 'to', key: true },
    'copies',
    'bytes',
    'time',
  ];
  const shown = ordered.slice(0, PAIRS_SHOWN);
  const rest = ordered.slice(PAIRS_SHOWN);
  return h(
    'div',
    { class: 'rank-pairs-part' },
    dataTable(
      long
        ? `GPU-to-GPU copies per rank (the ${PAIRS_SHOWN} longest of ${formatCount(all.length)})`
        : 'GPU-to-GPU copies per rank',
      columns,
      shown.map(row),
      'rank-pairs',
    ),
    rest.length
      ? h(
          'details',
          { class: 'rank-pairs-more' },
          h('summary', {}, `${formatCount(rest.length)} more pair${rest.length === 1 ? '' : 's'}`),
          dataTable('GPU-to-GPU copies per rank (the others)', columns, rest.map(row), 'rank-pairs rank-pairs-rest'),
        )
      : null,
  );
}

/**
 * The whole profile's device-to-device copies: a matrix (rows the source GPU, columns the destination; each cell
 * time, and bytes when the trace has them), or one row a pair when an end is not a known GPU or there are many.
 */
export function renderPeerMatrix(pairs: readonly PeerCopy[], ranks?: TraceRanks): HTMLElement {
  const calls = pairs.reduce((n, p) => n + p.calls, 0);
  const caption = `GPU-to-GPU copies (${formatCount(calls)} in ${formatCount(pairs.length)} pairs)`;
  const m = gpuMatrix(pairs, MAX_MATRIX_GPUS);
  if (!m)
    return dataTable(
      caption,
      [{ label: 'from', key: true }, { label: 'to', key: true }, 'copies', 'bytes', 'time'],
      pairs.map((c) => [
        gpuEndLabel(c.srcGpu, c.srcAgentId),
        gpuEndLabel(c.dstGpu, c.dstAgentId),
        formatCount(c.calls),
        formatBytes(c.bytes),
        formatNs(c.totalNs),
      ]),
      'peer-copies',
    );
  const cell = (p: PeerCopy | undefined): Child =>
    p
      ? h(
          'span',
          { class: 'peer-cell', title: `${formatCount(p.calls)} copies` },
          formatNs(p.totalNs),
          ...(p.bytes === null ? [] : [h('br', {}), formatBytes(p.bytes)]),
        )
      : '–';
  const rankOf = rankOfGpu(ranks?.processes ?? []);
  const gpu = (g: number): string => gpuRankLabel(g, rankOf);
  return dataTable(
    `${caption}: rows the source GPU, columns the destination`,
    [{ label: 'from \\ to', key: true }, ...m.gpus.map(gpu)],
    m.gpus.map((src) => ({
      attrs: { class: 'peer-row', 'data-gpu': String(src) },
      cells: [gpu(src), ...m.gpus.map((dst) => cell(m.at(src, dst)))],
    })),
    'peer-matrix',
  );
}
