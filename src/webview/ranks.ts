// The per-rank part of a multi-process profile's results: the imbalance line first, then one row a rank (GPU, busy,
// kernel, compute, communication and its share; the rank that computes longest marked), each rank's GPU-to-GPU copy
// pairs, then each benchmark case's compute time per rank with that case's slowest marked; and the whole profile's
// GPU-to-GPU matrix. The numbers and the slowest are the summary's (core), the pairs' wording core's format.
import { gpuEndLabel, gpuMatrix } from '../core/format/index';
import type { PeerCopy, TraceRanks, TraceSummary } from '../core/protocol/traceSummary';
import { percentBar } from './bars';
import { dataTable, h, type Child } from './dom';
import { formatBytes, formatCount, formatNs, formatPercent } from './format';

/** The widest matrix drawn (MI300x8: 8); past it, or when an end is not a known GPU, the pairs as rows. */
const MAX_MATRIX_GPUS = 16;

const slowMark = (): HTMLElement => h('span', { class: 'slowest-mark', title: 'computes longest' }, 'slowest');

export function renderRanks(ranks: TraceRanks): HTMLElement {
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
          ? ['–', '–', '–', '–']
          : [
              formatNs(p.kernelNs),
              formatNs(p.computeNs),
              formatNs(p.communicationNs),
              percentBar(p.communicationPercent),
            ]),
        p.topKernels[0]
          ? h('span', { class: 'kernel-name', title: p.topKernels[0].name }, p.topKernels[0].shortName)
          : '–',
      ],
    };
  });
  const cases = ranks.imbalance.slice(1);
  const pairRows = ranks.processes.flatMap((p) =>
    (p.peerCopies ?? []).map((c, i) => ({
      attrs: {
        class: 'rank-pair',
        'data-rank': p.rank === null ? '' : String(p.rank),
        'data-src': c.srcAgentId,
        'data-dst': c.dstAgentId,
      },
      cells: [
        i === 0 ? (p.rank === null ? `pid ${p.pid ?? '–'}` : `rank ${p.rank}`) : '',
        gpuEndLabel(c.srcGpu, c.srcAgentId),
        gpuEndLabel(c.dstGpu, c.dstAgentId),
        formatCount(c.calls),
        formatBytes(c.bytes),
        formatNs(c.totalNs),
      ],
    })),
  );
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
        'top kernel',
      ],
      rows,
      'rank-table',
    ),
    pairRows.length
      ? dataTable(
          'GPU-to-GPU copies per rank',
          [
            { label: 'rank', key: true },
            { label: 'from', key: true },
            { label: 'to', key: true },
            'copies',
            'bytes',
            'time',
          ],
          pairRows,
          'rank-pairs',
        )
      : null,
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
 * The whole profile's device-to-device copies: a matrix (rows the source GPU, columns the destination; each cell
 * time, and bytes when the trace has them), or one row a pair when an end is not a known GPU or there are many.
 */
export function renderPeerMatrix(pairs: readonly PeerCopy[]): HTMLElement {
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
  return dataTable(
    `${caption}: rows the source GPU, columns the destination`,
    [{ label: 'from \\ to', key: true }, ...m.gpus.map((g) => `GPU ${g}`)],
    m.gpus.map((src) => ({
      attrs: { class: 'peer-row', 'data-gpu': String(src) },
      cells: [`GPU ${src}`, ...m.gpus.map((dst) => cell(m.at(src, dst)))],
    })),
    'peer-matrix',
  );
}

/** Timeline row labels: an agent a rank ran on is named by it ("Agent 5 · rank 3"). */
export function rankOfAgent(s: TraceSummary): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of s.ranks?.processes ?? []) {
    if (p.rank === null) continue;
    for (const id of p.agentIds) out.set(id, out.has(id) ? `${out.get(id)}, ${p.rank}` : `rank ${p.rank}`);
  }
  return out;
}
