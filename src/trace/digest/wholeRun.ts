// The whole run in the digest: GPU busy and idle time, the idle stretches of the busiest GPU (from the summary's
// timeline, at its bucket resolution), copies, and API time with the top calls.
import type { DigestRun } from '../../core/protocol/profileDigest';
import type { TraceSummary } from '../../core/protocol/traceSummary';
import type { DigestCaps } from './caps';
import { cutList } from './lists';

/** The GPU agent with the most kernel time (then busy time); null without one. */
function mainGpu(summary: TraceSummary): TraceSummary['agents'][number] | null {
  const gpus = summary.agents.filter((a) => a.type !== 'CPU' && (a.kernelCalls > 0 || a.busyNs > 0));
  return (
    [...gpus].sort((a, b) => b.kernelNs - a.kernelNs || b.busyNs - a.busyNs || a.id.localeCompare(b.id))[0] ?? null
  );
}

/** Runs of empty buckets of one agent's timeline, longest first (then earliest). */
function idleStretches(summary: TraceSummary, agentId: string): Array<{ offsetNs: number; durationNs: number }> {
  const line = summary.timeline?.agents.find((a) => a.agentId === agentId);
  const bucketNs = summary.timeline?.bucketNs ?? 0;
  if (!line || bucketNs <= 0) return [];
  const out: Array<{ offsetNs: number; durationNs: number }> = [];
  let start = -1;
  line.busyFraction.forEach((f, i) => {
    if (f === 0 && start < 0) start = i;
    if (f !== 0 && start >= 0) {
      out.push({ offsetNs: start * bucketNs, durationNs: (i - start) * bucketNs });
      start = -1;
    }
  });
  if (start >= 0) out.push({ offsetNs: start * bucketNs, durationNs: (line.busyFraction.length - start) * bucketNs });
  return out.sort((a, b) => b.durationNs - a.durationNs || a.offsetNs - b.offsetNs);
}

export function wholeRunOf(summary: TraceSummary, caps: DigestCaps): DigestRun {
  const span = summary.wall?.spanNs ?? null;
  const gpus = summary.agents
    .filter((a) => a.type !== 'CPU' && (a.kernelCalls > 0 || a.busyNs > 0))
    .map((a) => ({
      agentId: a.id,
      kernelCalls: a.kernelCalls,
      kernelNs: a.kernelNs,
      copyNs: a.copyNs,
      busyNs: a.busyNs,
      busyPercent: a.busyPercent,
      idleNs: span !== null && summary.busyCovers === undefined ? Math.max(0, span - a.busyNs) : null,
      exact: a.busyExact,
    }));
  const main = mainGpu(summary);
  let idleGaps: DigestRun['idleGaps'] = null;
  if (main && summary.timeline && summary.busyCovers === undefined) {
    const gaps = idleStretches(summary, main.id);
    const totalNs = gaps.reduce((n, g) => n + g.durationNs, 0);
    idleGaps = {
      bucketNs: summary.timeline.bucketNs,
      count: gaps.length,
      totalNs,
      longest: cutList(gaps, caps.gaps, gaps.length, (kept) =>
        totalNs > 0 ? (100 * (totalNs - kept.reduce((n, g) => n + g.durationNs, 0))) / totalNs : null,
      ),
    };
  }
  const copyTotal = summary.memoryCopies.reduce((n, c) => n + c.totalNs, 0);
  const copies = cutList(
    summary.memoryCopies.map((c) => ({
      direction: c.direction,
      calls: c.calls,
      totalNs: c.totalNs,
      bytes: c.bytes,
      bandwidthGBps: c.bandwidthGBps,
    })),
    caps.copies,
    summary.memoryCopies.length,
    (kept) => (copyTotal > 0 ? (100 * (copyTotal - kept.reduce((n, c) => n + c.totalNs, 0))) / copyTotal : null),
  );
  const apiTotal = summary.apiTotals.totalNs;
  const top = cutList(
    summary.api.map((r) => ({
      name: r.name,
      domain: r.domain,
      calls: r.calls,
      totalNs: r.totalNs,
      avgNs: r.avgNs,
      percent: r.percent,
    })),
    caps.api,
    summary.apiTotals.distinct,
    (kept) => (apiTotal > 0 ? (100 * (apiTotal - kept.reduce((n, r) => n + r.totalNs, 0))) / apiTotal : null),
  );
  return {
    wallNs: span,
    kernels: {
      calls: summary.kernelTotals.calls,
      totalNs: summary.kernelTotals.totalNs,
      distinct: summary.kernelTotals.distinct,
    },
    gpus,
    gpuBusyPercent: main?.busyPercent ?? null,
    idleGaps,
    copies,
    api: { calls: summary.apiTotals.calls, totalNs: apiTotal, distinct: summary.apiTotals.distinct, top },
  };
}
