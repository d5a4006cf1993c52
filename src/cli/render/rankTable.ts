// The per-rank part of `kernel-runner summarize` for a multi-process profile: one row a rank (GPU, busy, kernel,
// compute, communication, copies, GPU-to-GPU copies out; the slowest marked), its longest GPU-to-GPU copy pairs when
// they say more than the matrix (core's rankPairsBeyondMatrix, as the webview), then each benchmark case's compute
// time per rank; and the whole profile's GPU-to-GPU matrix, its GPUs named by their rank.
import {
  formatBytes,
  formatNs as formatNsCore,
  formatPercent,
  gpuMatrix,
  gpuRankLabel,
  MAX_MATRIX_GPUS,
  peerCopyText,
  rankOfGpu,
  rankPairsBeyondMatrix,
} from '../../core/format/index';
import type { PeerCopy, TraceRanks } from '../../core/protocol/traceSummary';
import { tableLines as table } from './table';

const CLI = { align: true, missing: '-' } as const;
const ns = (v: number | null): string => formatNsCore(v, CLI);
const pct = (v: number | null): string => formatPercent(v, CLI);
/** Cases shown (the rest are in --json). */
const MAX_CASES = 12;
/** GPU-to-GPU pairs listed per rank, longest first (the rest are in --json). */
const MAX_PAIRS_PER_RANK = 3;
/** Pairs listed when the matrix is not drawn. */
const MAX_PAIRS_LISTED = 24;

/** The imbalance line, for the top of the output. */
export function imbalanceHeading(ranks: TraceRanks): string {
  return `Load imbalance: ${ranks.imbalanceLine}`;
}

/** `pairs`: the whole profile's GPU-to-GPU pairs (`TraceSummary.peerCopies`), for the choice of listing each rank's. */
export function renderRanks(ranks: TraceRanks, pairs: readonly PeerCopy[], h: (s: string) => string): string[] {
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
    ns(p.peerCopiesOut?.totalNs ?? null),
    p.rank === null ? 'no GPU work' : (p.topKernels[0]?.shortName ?? ''),
  ]);
  out.push(
    ...table(
      [
        'Rank',
        'Pid',
        'Device',
        'Busy',
        'of wall',
        'Kernels',
        'Compute',
        'Comm',
        'Comm %',
        'Copies',
        'To GPUs',
        'Top kernel',
      ],
      rows,
      ['l', 'r', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
    ).map((l) => `  ${l}`),
  );
  if (rankPairsBeyondMatrix(ranks.processes, pairs)) out.push(...rankPairs(ranks, h));
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

/** Each rank's device-to-device copies, its longest pairs first: `rank 0  GPU 0 → GPU 3: 12 copies, 48.0 MiB, 1.20 ms`. */
function rankPairs(ranks: TraceRanks, h: (s: string) => string): string[] {
  const withPairs = ranks.processes.filter((p) => (p.peerCopies?.length ?? 0) > 0);
  if (withPairs.length === 0) return [];
  const out = ['', h(`GPU-to-GPU copies per rank (its ${MAX_PAIRS_PER_RANK} longest pairs; --json lists all)`)];
  const rows: string[][] = [];
  for (const p of withPairs) {
    const pairs = [...(p.peerCopies ?? [])].sort((a, b) => b.totalNs - a.totalNs);
    const who = p.rank === null ? `pid ${p.pid ?? '-'}` : `rank ${p.rank}`;
    pairs.slice(0, MAX_PAIRS_PER_RANK).forEach((c, i) => rows.push([i === 0 ? who : '', peerCopyText(c)]));
    if (pairs.length > MAX_PAIRS_PER_RANK) rows.push(['', `(+${pairs.length - MAX_PAIRS_PER_RANK} more pairs)`]);
  }
  out.push(
    ...table(['', ''], rows, ['l', 'l'])
      .slice(1)
      .map((l) => `  ${l}`),
  );
  return out;
}

/**
 * The whole profile's device-to-device copies: a matrix of time (and of bytes when the trace has them), rows the
 * source GPU and columns the destination; a list of pairs when an end is not a known GPU or there are many GPUs.
 */
export function renderPeerMatrix(
  pairs: readonly PeerCopy[],
  ranks: TraceRanks | undefined,
  h: (s: string) => string,
): string[] {
  const m = gpuMatrix(pairs, MAX_MATRIX_GPUS);
  const calls = pairs.reduce((n, p) => n + p.calls, 0);
  const title = `GPU-to-GPU copies (${calls} in ${pairs.length} pair${pairs.length === 1 ? '' : 's'})`;
  if (!m) {
    const listed = [...pairs].sort((a, b) => b.totalNs - a.totalNs).slice(0, MAX_PAIRS_LISTED);
    return [
      h(title),
      ...listed.map((p) => `  ${peerCopyText(p)}`),
      ...(pairs.length > listed.length
        ? [`  (+${pairs.length - listed.length} more pairs: --json lists them all)`]
        : []),
    ];
  }
  const rankOf = rankOfGpu(ranks?.processes ?? []);
  // the rank on the row only: a column as wide as `GPU 3 · rank 3` would double the matrix's width
  const grid = (value: (p: PeerCopy) => string): string[] =>
    table(
      ['from \\ to', ...m.gpus.map((g) => `GPU ${g}`)],
      m.gpus.map((src) => [
        gpuRankLabel(src, rankOf),
        ...m.gpus.map((dst) => {
          const p = m.at(src, dst);
          return p ? value(p) : '-';
        }),
      ]),
      ['l', ...m.gpus.map(() => 'r' as const)],
    ).map((l) => `  ${l}`);
  const out = [h(`${title}: time, rows the source GPU`), ...grid((p) => ns(p.totalNs))];
  if (pairs.every((p) => p.bytes !== null))
    out.push('', h('GPU-to-GPU copies: bytes, rows the source GPU'), ...grid((p) => formatBytes(p.bytes, CLI)));
  return out;
}
