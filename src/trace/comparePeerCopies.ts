// The whole profile's GPU-to-GPU copies of two summaries side by side: each (source GPU, destination GPU) pair
// paired by GPU index, so that two runs of one job on the same GPUs pair even when their agent ids differ.
import type { PeerCopyDelta } from '../core/protocol/traceComparison';
import type { PeerCopy } from '../core/protocol/traceSummary';
import { hostOf, naturalCompare } from './peerCopies';

/** One end as it pairs: its host and GPU index, or (not a known GPU) its agent id. */
const endKey = (gpu: number | null, agentId: string): string =>
  gpu === null ? `agent ${agentId}` : `${hostOf(agentId)}GPU ${gpu}`;

const pairKey = (p: PeerCopy): string => `${endKey(p.srcGpu, p.srcAgentId)}\u0000${endKey(p.dstGpu, p.dstAgentId)}`;

const side = (p: PeerCopy | undefined) => (p ? { calls: p.calls, totalNs: p.totalNs, bytes: p.bytes } : null);

/** A GPU index in order, an end that is not a GPU after every GPU. */
const byGpu = (x: number | null, y: number | null): number => (x ?? Infinity) - (y ?? Infinity) || 0;

/** Pairs of both sides; biggest absolute change of time first, then in source and destination order. */
export function comparePeerCopies(as: readonly PeerCopy[], bs: readonly PeerCopy[]): PeerCopyDelta[] {
  const aByKey = new Map(as.map((p) => [pairKey(p), p]));
  const bByKey = new Map(bs.map((p) => [pairKey(p), p]));
  return [...new Set([...aByKey.keys(), ...bByKey.keys()])]
    .map((key) => {
      const pa = aByKey.get(key);
      const pb = bByKey.get(key);
      const named = (pb ?? pa) as PeerCopy;
      return {
        srcAgentId: named.srcAgentId,
        dstAgentId: named.dstAgentId,
        srcGpu: named.srcGpu,
        dstGpu: named.dstGpu,
        a: side(pa),
        b: side(pb),
        deltaTotalNs: (pb?.totalNs ?? 0) - (pa?.totalNs ?? 0),
        ratio: pa && pb && pa.totalNs > 0 ? pb.totalNs / pa.totalNs : null,
      };
    })
    .sort(
      (x, y) =>
        Math.abs(y.deltaTotalNs) - Math.abs(x.deltaTotalNs) ||
        byGpu(x.srcGpu, y.srcGpu) ||
        byGpu(x.dstGpu, y.dstGpu) ||
        naturalCompare(x.srcAgentId, y.srcAgentId) ||
        naturalCompare(x.dstAgentId, y.dstAgentId),
    );
}
