// Device-to-device copies per (source GPU, destination GPU): the summary's GPU-to-GPU matrix and each rank's own
// pairs, from the pairs the readers kept (tables.ts `peerCopies`), each end numbered as the ranks' devices are.
import type { PeerCopy } from '../core/protocol/traceSummary';
import type { TraceAccumulator } from './accumulator';
import type { RunTables } from './tables';

export const naturalCompare = (a: string, b: string): number => a.localeCompare(b, 'en', { numeric: true });

/** `host/` of a multi-host summary's agent id (`host/Agent 4`), '' on one host. */
export const hostOf = (agentId: string): string => agentId.slice(0, agentId.lastIndexOf('/') + 1);

/**
 * An agent's GPU index: its place among its host's GPU agents (typed GPU, or ran kernels: a trace without
 * agent_info), in agent order; null for any other agent.
 */
export function gpuIndexer(acc: TraceAccumulator): (agentId: string) => number | null {
  const byHost = new Map<string, string[]>();
  for (const a of acc.agents.values()) {
    if (a.info.type !== 'GPU' && a.kernelCalls === 0) continue;
    const host = hostOf(a.id);
    byHost.set(host, [...(byHost.get(host) ?? []), a.id]);
  }
  for (const ids of byHost.values()) ids.sort(naturalCompare);
  return (agentId) => {
    const at = byHost.get(hostOf(agentId))?.indexOf(agentId) ?? -1;
    return at >= 0 ? at : null;
  };
}

/** The pairs of `tables`, in source then destination order; bytes only when every copy of the pair had a size. */
export function peerCopyRows(tables: RunTables, gpuOf: (agentId: string) => number | null): PeerCopy[] {
  return [...tables.peerCopies.values()]
    .map((p) => ({
      srcAgentId: p.srcAgent,
      dstAgentId: p.dstAgent,
      srcGpu: gpuOf(p.srcAgent),
      dstGpu: gpuOf(p.dstAgent),
      calls: p.stats.count,
      totalNs: p.stats.sum,
      bytes: p.bytesCalls === p.stats.count && p.stats.count > 0 ? p.bytes : null,
    }))
    .sort((a, b) => naturalCompare(a.srcAgentId, b.srcAgentId) || naturalCompare(a.dstAgentId, b.dstAgentId));
}
