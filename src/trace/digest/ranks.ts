// The digest's per-rank lines of a multi-process profile: the imbalance line, then one line a rank (the slowest
// first, so that a tight budget keeps it), cut to the level's cap.
import type { DigestRank, DigestRanks } from '../../core/protocol/profileDigest';
import type { TraceRanks } from '../../core/protocol/traceSummary';
import type { DigestCaps } from './caps';
import { cutList } from './lists';

export function ranksOf(ranks: TraceRanks, caps: DigestCaps): DigestRanks {
  const slowest = ranks.imbalance[0]?.slowestRank ?? null;
  const slowIn = new Map<number, number>();
  for (const c of ranks.imbalance.slice(1)) slowIn.set(c.slowestRank, (slowIn.get(c.slowestRank) ?? 0) + 1);
  const rows: DigestRank[] = ranks.processes.map((p) => ({
    rank: p.rank,
    pid: p.pid,
    device: p.device,
    busyNs: p.busyNs,
    kernelNs: p.kernelNs,
    computeNs: p.computeNs,
    communicationNs: p.communicationNs,
    communicationPercent: Math.round(p.communicationPercent * 10) / 10,
    topKernel: p.topKernels[0]?.shortName ?? null,
    slowestCases: p.rank === null ? 0 : (slowIn.get(p.rank) ?? 0),
  }));
  const ordered = [
    ...rows.filter((r) => r.rank !== null && r.rank === slowest),
    ...rows.filter((r) => r.rank === null || r.rank !== slowest),
  ];
  const total = rows.reduce((n, r) => n + r.kernelNs, 0);
  return {
    imbalance: ranks.imbalanceLine,
    from: ranks.from,
    ranks: cutList(ordered, caps.ranks, ordered.length, (kept) =>
      total > 0 ? (100 * (total - kept.reduce((n, r) => n + r.kernelNs, 0))) / total : null,
    ),
  };
}
