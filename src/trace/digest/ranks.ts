// The digest's per-rank lines of a multi-process profile: the imbalance line, then one line a rank (the slowest
// first, so that a tight budget keeps it), and the ranks' GPU-to-GPU copy pairs (the longest first), each cut to
// the level's cap.
import type { DigestPeerCopy, DigestRank, DigestRanks } from '../../core/protocol/profileDigest';
import type { TraceRanks } from '../../core/protocol/traceSummary';
import type { DigestCaps } from './caps';
import { cutList } from './lists';

/** A copy's end as the digest names it: `GPU 3`, or the agent id when it is not a known GPU. */
export const gpuEnd = (gpu: number | null, agent: string): string => (gpu === null ? agent : `GPU ${gpu}`);

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
  const pairs: DigestPeerCopy[] = ranks.processes
    .flatMap((p) =>
      (p.peerCopies ?? []).map((c) => ({
        rank: p.rank,
        from: gpuEnd(c.srcGpu, c.srcAgentId),
        to: gpuEnd(c.dstGpu, c.dstAgentId),
        calls: c.calls,
        totalNs: c.totalNs,
        bytes: c.bytes,
      })),
    )
    .sort((a, b) => b.totalNs - a.totalNs);
  const pairNs = pairs.reduce((n, c) => n + c.totalNs, 0);
  return {
    imbalance: ranks.imbalanceLine,
    from: ranks.from,
    ranks: cutList(ordered, caps.ranks, ordered.length, (kept) =>
      total > 0 ? (100 * (total - kept.reduce((n, r) => n + r.kernelNs, 0))) / total : null,
    ),
    ...(pairs.length > 0
      ? {
          peerCopies: cutList(pairs, caps.peerCopies, pairs.length, (kept) =>
            pairNs > 0 ? (100 * (pairNs - kept.reduce((n, c) => n + c.totalNs, 0))) / pairNs : null,
          ),
        }
      : {}),
  };
}
