// Device-to-device copies between two GPUs as people read them: "GPU 0 → GPU 3: 12 copies, 48.0 MiB, 1.20 ms".
// One wording for the CLI and the results and compare webviews. Pure (no Node, no DOM, no imports outside this folder).
import { formatNs } from './durations';
import { formatBytes, formatCount } from './numbers';

/** What the formatters read of a pair (the summary's `PeerCopy`). */
export interface GpuPair {
  srcAgentId: string;
  dstAgentId: string;
  srcGpu: number | null;
  dstGpu: number | null;
  calls: number;
  totalNs: number;
  bytes: number | null;
}

/** One end: `GPU 3`, or the agent's own id when it is not a known GPU. */
export function gpuEndLabel(gpu: number | null, agentId: string): string {
  return gpu === null ? agentId : `GPU ${gpu}`;
}

/** A pair's two ends. */
type GpuEnds = Pick<GpuPair, 'srcAgentId' | 'dstAgentId' | 'srcGpu' | 'dstGpu'>;

/** `GPU 0 → GPU 3`. */
export function gpuPairLabel(p: GpuEnds): string {
  return `${gpuEndLabel(p.srcGpu, p.srcAgentId)} → ${gpuEndLabel(p.dstGpu, p.dstAgentId)}`;
}

/** `GPU 0 → GPU 3: 12 copies, 48.0 MiB, 1.20 ms` (no bytes when the trace has none: CSV). */
export function peerCopyText(p: GpuPair): string {
  const bytes = p.bytes === null ? '' : `, ${formatBytes(p.bytes)}`;
  return `${gpuPairLabel(p)}: ${formatCount(p.calls)} cop${p.calls === 1 ? 'y' : 'ies'}${bytes}, ${formatNs(p.totalNs)}`;
}

/**
 * The GPU-to-GPU matrix of `pairs` when every end is a known GPU: the GPUs in order (sources and destinations) and
 * each pair by `<source>,<destination>`; null when some end is not a GPU, or past `maxGpus` (a list reads better).
 */
export function gpuMatrix<P extends GpuPair>(
  pairs: readonly P[],
  maxGpus: number,
): { gpus: number[]; at: (src: number, dst: number) => P | undefined } | null {
  const gpus = new Set<number>();
  const byPair = new Map<string, P>();
  for (const p of pairs) {
    if (p.srcGpu === null || p.dstGpu === null) return null;
    gpus.add(p.srcGpu);
    gpus.add(p.dstGpu);
    byPair.set(`${p.srcGpu},${p.dstGpu}`, p);
  }
  if (gpus.size === 0 || gpus.size > maxGpus || byPair.size < pairs.length) return null;
  return { gpus: [...gpus].sort((a, b) => a - b), at: (src, dst) => byPair.get(`${src},${dst}`) };
}

/** What the comparison's formatters read of a pair on both sides (the comparison's `PeerCopyDelta`). */
export interface GpuPairChange extends GpuEnds {
  a: { totalNs: number } | null;
  b: { totalNs: number } | null;
}

/** `new` (in B only), `gone` (in A only), '' (on both sides). */
export function pairChangeMark(p: GpuPairChange): '' | 'new' | 'gone' {
  return p.a === null ? 'new' : p.b === null ? 'gone' : '';
}

export interface PairChangesCut<P> {
  /** The first pairs, as the comparison orders them (biggest change first). */
  shown: P[];
  /** The pairs left out and their time on each side; null when none is. */
  more: { pairs: number; aNs: number; bNs: number } | null;
  /** Every pair's time on each side, its change and b / a (null when A copied nothing). */
  total: { aNs: number; bNs: number; deltaNs: number; ratio: number | null };
}

/** The first `max` pair changes, and what the rest and all of them took on each side. */
export function cutPairChanges<P extends GpuPairChange>(pairs: readonly P[], max: number): PairChangesCut<P> {
  const sum = (ps: readonly P[], s: 'a' | 'b'): number => ps.reduce((n, p) => n + (p[s]?.totalNs ?? 0), 0);
  const rest = pairs.slice(max);
  const aNs = sum(pairs, 'a');
  const bNs = sum(pairs, 'b');
  return {
    shown: pairs.slice(0, max),
    more: rest.length ? { pairs: rest.length, aNs: sum(rest, 'a'), bNs: sum(rest, 'b') } : null,
    total: { aNs, bNs, deltaNs: bNs - aNs, ratio: aNs > 0 ? bNs / aNs : null },
  };
}

/** `41 more pairs: A 8.20 µs, B 8.00 µs` (`A 0 ns`: the pairs left out are B's only). */
export function morePairsText(more: NonNullable<PairChangesCut<unknown>['more']>): string {
  const ns = (v: number): string => (v === 0 ? '0 ns' : formatNs(v));
  return `${formatCount(more.pairs)} more pair${more.pairs === 1 ? '' : 's'}: A ${ns(more.aNs)}, B ${ns(more.bNs)}`;
}

/** The widest GPU-to-GPU matrix the CLI and the webview draw (MI300x8: 8); past it a list of pairs reads better. */
export const MAX_MATRIX_GPUS = 16;

/** What the per-rank decisions read of a rank (the summary's `TraceRank`). */
export interface RankGpus {
  rank: number | null;
  device: number | null;
  agentIds: readonly string[];
  peerCopies?: readonly GpuPair[];
}

/**
 * Each GPU driven by one rank alone, its only GPU: GPU → rank (the matrix names it, `GPU 3 · rank 3`). A GPU two
 * ranks share, or one of a rank that drives several, is left out: the name would be half true.
 */
export function rankOfGpu(processes: readonly RankGpus[]): Map<number, number> {
  const ranks = new Map<number, RankGpus[]>();
  for (const p of processes)
    if (p.rank !== null && p.device !== null) ranks.set(p.device, [...(ranks.get(p.device) ?? []), p]);
  const out = new Map<number, number>();
  for (const [gpu, on] of ranks) if (on.length === 1 && on[0]!.agentIds.length <= 1) out.set(gpu, on[0]!.rank!);
  return out;
}

/** `GPU 3 · rank 3` for a GPU `rankOfGpu` names, else `GPU 3`. */
export function gpuRankLabel(gpu: number, rankOf: ReadonlyMap<number, number>): string {
  const rank = rankOf.get(gpu);
  return rank === undefined ? `GPU ${gpu}` : `GPU ${gpu} · rank ${rank}`;
}

/**
 * Whether the ranks' own GPU-to-GPU pairs say something the whole profile's matrix of `pairs` does not. They do
 * not when the matrix is drawn, every rank's GPU is known and its only one, and each pair of the matrix is exactly
 * one rank's own pair from that rank's GPU (calls, time and bytes equal): each rank's pairs are then its GPU's row
 * of the matrix, which `rankOfGpu` names. A rank driving several GPUs, a rank on an unknown GPU, two ranks on one
 * GPU, a launcher's copies, a copy pulled from another GPU, or no matrix (too many GPUs, an end not a known GPU):
 * they do. False without any rank pair.
 */
export function rankPairsBeyondMatrix(processes: readonly RankGpus[], pairs: readonly GpuPair[]): boolean {
  const withPairs = processes.filter((p) => (p.peerCopies?.length ?? 0) > 0);
  if (withPairs.length === 0) return false;
  if (!gpuMatrix(pairs, MAX_MATRIX_GPUS)) return true;
  if (processes.some((p) => p.rank !== null && (p.device === null || p.agentIds.length > 1))) return true;
  const owner = rankOfGpu(processes);
  const whole = new Map(pairs.map((p) => [`${p.srcGpu},${p.dstGpu}`, p]));
  let matched = 0;
  for (const p of withPairs) {
    if (p.rank === null || p.device === null || owner.get(p.device) !== p.rank) return true;
    for (const c of p.peerCopies ?? []) {
      const w = whole.get(`${c.srcGpu},${c.dstGpu}`);
      if (c.srcGpu !== p.device || !w || w.calls !== c.calls || w.totalNs !== c.totalNs || w.bytes !== c.bytes)
        return true;
      matched++;
    }
  }
  return matched !== pairs.length;
}
