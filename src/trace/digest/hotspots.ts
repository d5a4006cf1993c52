// The digest's PC-sampling hot spots: per sampled kernel its share of the samples, its stall reasons, its hottest
// source lines and instructions, each list cut at the budget's level with a `+N more` entry. From the summary's
// hot spots (src/trace/pcSampling), which keep the top lines and instructions of each kernel. A multi-process
// profile adds the slowest rank's own hot spots, its lists cut at the same level.
import type {
  DigestHotspotKernel,
  DigestHotspots,
  DigestList,
  DigestRankHotspots,
} from '../../core/protocol/profileDigest';
import type { KernelHotspots, PcHotspots } from '../../core/protocol/pcSampling';
import { cutList } from './lists';
import { roundPercent } from './precision';

interface HotspotCaps {
  kernels: number;
  stalls: number;
  lines: number;
  instructions: number;
}

const caps = (kernels: number, stalls: number, lines: number, instructions: number): HotspotCaps => ({
  kernels,
  stalls,
  lines,
  instructions,
});

/** One per level of CAP_LEVELS (caps.ts), generous to bare. */
const HOTSPOT_CAPS: readonly HotspotCaps[] = [
  caps(10, 5, 6, 6),
  caps(6, 4, 4, 4),
  caps(4, 3, 3, 3),
  caps(3, 2, 2, 2),
  caps(2, 2, 1, 1),
  caps(1, 1, 1, 1),
  caps(1, 1, 1, 0),
];

/** A source path as its last two parts: the folder says which file of that name, the rest is the build machine's. */
function shortFile(file: string): string {
  const parts = file.split(/[\\/]/).filter(Boolean);
  return parts.length <= 2 ? file : `…/${parts.slice(-2).join('/')}`;
}

/** A name -> samples tally as reasons by share of `total`, the most first. */
function stallsOf(tally: Record<string, number>, total: number, cap: number): DigestHotspotKernel['stalls'] {
  const rows = Object.entries(tally)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([reason, samples]) => ({ reason, samples, percent: roundPercent(total > 0 ? (100 * samples) / total : 0) }));
  const kept = (k: readonly { samples: number }[]) =>
    total > 0 ? (100 * (total - k.reduce((n, r) => n + r.samples, 0))) / total : null;
  return cutList(rows, cap, rows.length, kept).map((r) => ('more' in r ? r : { reason: r.reason, percent: r.percent }));
}

function kernelOf(k: KernelHotspots, c: HotspotCaps): DigestHotspotKernel {
  const restOf = (shares: readonly { share: number }[]) =>
    100 * Math.max(0, 1 - shares.reduce((n, x) => n + x.share, 0));
  const lines = k.lines.map((l) => ({ file: shortFile(l.file), line: l.line, share: l.share }));
  const instructions = k.instructions.map((i) => ({
    text: i.text,
    line: i.file !== null && i.line !== null ? `${shortFile(i.file)}:${i.line}` : null,
    share: i.share,
  }));
  const asPercent = <T extends { share: number }>(row: T) => {
    const { share, ...rest } = row;
    return { ...rest, percent: roundPercent(100 * share) };
  };
  return {
    kernel: k.shortName,
    samples: k.samples,
    percent: roundPercent(100 * k.share),
    issuedPercent: k.issued === null || k.samples === 0 ? null : roundPercent((100 * k.issued) / k.samples),
    stalls: stallsOf(k.stalls, k.samples, c.stalls),
    lines: cutList(lines, c.lines, Math.max(k.linesTotal, lines.length), restOf).map((r) =>
      'more' in r ? r : asPercent(r),
    ),
    withoutLinePercent: k.samples > 0 ? roundPercent((100 * k.withoutLine) / k.samples) : 0,
    instructions: cutList(instructions, c.instructions, Math.max(k.instructionsTotal, instructions.length), restOf).map(
      (r) => ('more' in r ? r : asPercent(r)),
    ),
  };
}

function kernelsOf(kernels: readonly KernelHotspots[], c: HotspotCaps): DigestList<DigestHotspotKernel> {
  const rows = kernels.map((k) => kernelOf(k, c));
  return cutList(rows, c.kernels, rows.length, (kept) => Math.max(0, 100 - kept.reduce((n, k) => n + k.percent, 0)));
}

/** The hot spots of the rank `slowestRank` (the summary's `ranks.imbalance[0].slowestRank`), when it was sampled. */
function slowestRankOf(hot: PcHotspots, slowestRank: number | null, c: HotspotCaps): DigestRankHotspots | null {
  if (slowestRank === null || (hot.processes?.length ?? 0) < 2) return null;
  const own = hot.processes?.find((p) => p.rank === slowestRank);
  if (!own) return null;
  return { rank: slowestRank, pid: own.pid, samples: own.samples, kernels: kernelsOf(own.kernels, c) };
}

export function hotspotsOf(
  hot: PcHotspots | undefined,
  level: number,
  slowestRank: number | null = null,
): DigestHotspots | null {
  if (!hot) return null;
  const c = HOTSPOT_CAPS[Math.min(level, HOTSPOT_CAPS.length - 1)]!;
  const slowest = slowestRankOf(hot, slowestRank, c);
  return {
    method: hot.method,
    samples: hot.samples,
    interval: hot.interval === null ? null : `${hot.interval} ${hot.intervalUnit ?? ''}`.trim(),
    kernels: kernelsOf(hot.kernels, c),
    ...(slowest ? { slowestRank: slowest } : {}),
  };
}
