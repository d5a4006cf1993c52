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
