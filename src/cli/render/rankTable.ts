// The per-rank part of `kernel-runner summarize` for a multi-process profile: one row a rank (GPU, busy, kernel,
// compute, communication, copies; the slowest marked), then each benchmark case's compute time per rank.
import { formatNs as formatNsCore, formatPercent } from '../../core/format/index';
import type { TraceRanks } from '../../core/protocol/traceSummary';
import { tableLines as table } from './table';

const CLI = { align: true, missing: '-' } as const;
const ns = (v: number | null): string => formatNsCore(v, CLI);
const pct = (v: number | null): string => formatPercent(v, CLI);
/** Cases shown (the rest are in --json). */
const MAX_CASES = 12;

/** The imbalance line, for the top of the output. */
export function imbalanceHeading(ranks: TraceRanks): string {
  return `Load imbalance: ${ranks.imbalanceLine}`;
}

export function renderRanks(ranks: TraceRanks, h: (s: string) => string): string[] {
  const out: string[] = [];
  const slowest = ranks.imbalance[0]?.slowestRank ?? null;
  const ranked = ranks.processes.filter((p) => p.rank !== null);
  out.push(
    h(
      `Ranks (${ranked.length} with GPU work${ranks.from === 'manifest' ? ", from the runner's process list" : ''}; * computes longest)`,
    ),
  );
  const rows = ranks.processes.map((p) => [
    p.rank === null ? '-' : `${p.rank}${p.rank === slowest ? ' *' : ''}`,
    p.pid === null ? '-' : String(p.pid),
    p.device === null ? '-' : `GPU ${p.device}`,
    p.rank === null ? '-' : ns(p.busyNs),
    p.rank === null ? '-' : pct(p.busyPercent),
    ns(p.kernelNs),
    ns(p.computeNs),
    ns(p.communicationNs),
    pct(p.communicationPercent),
    ns(p.copyNs),
    p.rank === null ? 'no GPU work' : (p.topKernels[0]?.shortName ?? ''),
  ]);
  out.push(
    ...table(
      ['Rank', 'Pid', 'Device', 'Busy', 'of wall', 'Kernels', 'Compute', 'Comm', 'Comm %', 'Copies', 'Top kernel'],
      rows,
      ['l', 'r', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
    ).map((l) => `  ${l}`),
  );
  const cases = ranks.imbalance.slice(1);
  if (cases.length > 0) {
    out.push('');
    out.push(h('Compute time per case and rank (* slowest)'));
    const shown = cases.slice(0, MAX_CASES);
    const caseRows = shown.map((c) => {
      const cells = ranked.map((r) => {
        const own = r.cases.find((x) => x.name === c.name);
        if (!own || own.kernelNs === 0) return '-';
        return `${ns(own.computeNs)}${r.rank === c.slowestRank ? ' *' : ''}`;
      });
      return [c.name ?? '', ...cells, `+${c.overMedianPercent.toFixed(0)}%`];
    });
    out.push(
      ...table(['Case', ...ranked.map((r) => `rank ${r.rank}`), 'slowest vs median'], caseRows, [
        'l',
        ...ranked.map(() => 'r' as const),
        'r',
      ]).map((l) => `  ${l}`),
    );
    if (cases.length > shown.length) out.push(`  (+${cases.length - shown.length} more cases: --json lists them all)`);
  }
  return out;
}
