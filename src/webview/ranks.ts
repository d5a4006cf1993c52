// The per-rank part of a multi-process profile's results: the imbalance line first, then one row a rank (GPU, busy,
// kernel, compute, communication and its share; the rank that computes longest marked), then each benchmark case's
// compute time per rank with that case's slowest marked. The numbers and the slowest are the summary's (core).
import type { TraceRanks, TraceSummary } from '../core/protocol/traceSummary';
import { percentBar } from './bars';
import { dataTable, h, type Child } from './dom';
import { formatCount, formatNs, formatPercent } from './format';

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

/** Timeline row labels: an agent a rank ran on is named by it ("Agent 5 · rank 3"). */
export function rankOfAgent(s: TraceSummary): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of s.ranks?.processes ?? []) {
    if (p.rank === null) continue;
    for (const id of p.agentIds) out.set(id, out.has(id) ? `${out.get(id)}, ${p.rank}` : `rank ${p.rank}`);
  }
  return out;
}
