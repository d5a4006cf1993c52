// Words for PC-sampling names (rocprofiler-sdk's enum names without their prefix, src/core/protocol/pcSampling.ts).

/** `WAITCNT` -> `waitcnt`, `ALU_DEPENDENCY` -> `alu dependency`. */
export function stallLabel(reason: string): string {
  return reason.toLowerCase().replace(/_/g, ' ');
}

/** What the rank choice reads of one process's hot spots (PcHotspots.processes[]). */
interface SampledProcess {
  rank: number | null;
  pid: number | null;
  host: string | null;
}

/**
 * The choices of a multi-process profile's hot spots, one per process in the summary's order: `rank 3`, marked
 * `rank 3 (slowest)` for the rank the summary's imbalance names (`ranks.imbalance[0].slowestRank`), `pid 3011` for a
 * process without a rank (`pid 3011 on node-b` when the processes ran on more than one host).
 */
export function processChoices<P extends SampledProcess>(
  processes: readonly P[],
  slowestRank: number | null,
): Array<{ name: string; label: string; slowest: boolean; process: P }> {
  const hosts = new Set(processes.map((p) => p.host));
  return processes.map((p) => {
    const slowest = p.rank !== null && p.rank === slowestRank;
    const where = hosts.size > 1 && p.host !== null ? ` on ${p.host}` : '';
    const name = p.rank !== null ? `rank ${p.rank}` : p.pid !== null ? `pid ${p.pid}${where}` : `a process${where}`;
    return { name, label: slowest ? `${name} (slowest)` : name, slowest, process: p };
  });
}
