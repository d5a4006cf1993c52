// Where a digest's numbers come from: the GPUs and the profiler as the files tell, and fingerprints of the trace,
// the submitted file and the run's configuration (given by the caller; hashing is Node's, see fromPath.ts).
import type { DigestProvenance } from '../../core/protocol/profileDigest';
import type { TraceSummary } from '../../core/protocol/traceSummary';

export interface ProvenanceInput {
  trace: { file: string; sha256: string | null };
  submission?: { file: string; sha256: string } | null;
  configuration?: { sha256: string; values: Record<string, string> } | null;
}

const sorted = (xs: Iterable<string>): string[] => [...new Set(xs)].sort();

export function provenanceOf(summary: TraceSummary, input: ProvenanceInput): DigestProvenance {
  const gpus = summary.agents
    .filter((a) => a.type === 'GPU')
    .map((a) => ({ agentId: a.id, arch: a.name, product: a.productName, cuCount: a.cuCount }));
  const formats = sorted(summary.sources.map((s) => s.format));
  const layouts = sorted(summary.sources.map((s) => s.variant).filter((v) => v !== 'rocprofv3'));
  const rocm = sorted(layouts.flatMap((v) => /^rocm-(\d+(?:\.\d+)*)$/.exec(v)?.[1] ?? []));
  const tool = formats.some((f) => f.startsWith('rocprofv3') || f === 'rocpd')
    ? 'rocprofv3'
    : formats.some((f) => f.startsWith('rocprof-v1'))
      ? 'rocprof'
      : null;
  return {
    gpus,
    profiler: { tool, formats, layouts, rocmFromLayout: rocm.length ? rocm.join(', ') : null },
    trace: input.trace,
    submission: input.submission ?? null,
    configuration: input.configuration ?? null,
  };
}
