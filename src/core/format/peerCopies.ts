// Device-to-device copies between two GPUs as people read them: "GPU 0 → GPU 3: 12 copies, 48.0 MiB, 1.20 ms".
// One wording for the CLI and the results webview. Pure (no Node, no DOM, no imports outside this folder).
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

/** `GPU 0 → GPU 3`. */
export function gpuPairLabel(p: GpuPair): string {
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
