/** What the rank labels read of a rank (the summary's `TraceRank`). */
export interface RankAgents {
  rank: number | null;
  agentIds: readonly string[];
}

/** Agent id → `rank 3` (`rank 3, 5` for a GPU two ranks share): how the busy cards, timeline and busy table name a GPU. */
export function rankOfAgent(processes: readonly RankAgents[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of processes) {
    if (p.rank === null) continue;
    for (const id of p.agentIds) out.set(id, out.has(id) ? `${out.get(id)}, ${p.rank}` : `rank ${p.rank}`);
  }
  return out;
}
