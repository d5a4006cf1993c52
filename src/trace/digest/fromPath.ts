// `kernel-runner summarize PATH --digest`: summarise a profile, read the code objects it carries, fingerprint the
// files, and build the digest (with a baseline profile's when asked).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ProfileDigest } from '../../core/protocol/profileDigest';
import type { TraceSummary } from '../../core/protocol/traceSummary';
import { loadCodeObjectsPath } from '../codeObjects/read';
import { summarizePath, type SummarizeOptions } from '../summarize';
import { buildDigest, type DigestInput } from './build';

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export function sha256Text(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The configuration as sorted `key: value` pairs and the sha256 of their canonical JSON. */
export function configurationOf(values: Record<string, string | undefined>): {
  sha256: string;
  values: Record<string, string>;
} {
  const kept: Record<string, string> = {};
  for (const key of Object.keys(values).sort()) if (values[key] !== undefined) kept[key] = values[key] as string;
  return { sha256: sha256Text(JSON.stringify(kept)), values: kept };
}

/** Traces up to this size are fingerprinted (profile zips are some MB; hashing a GB-sized CSV would double the digest's time). */
const MAX_HASHED_BYTES = 256 * 1024 * 1024;

/** The trace's name and fingerprint (null for a folder, and for a file over MAX_HASHED_BYTES). */
async function traceIdentity(path: string): Promise<{ file: string; sha256: string | null }> {
  const st = await stat(path);
  return { file: basename(path), sha256: st.isFile() && st.size <= MAX_HASHED_BYTES ? await sha256File(path) : null };
}

/** Code objects of the profile (a zip or a folder: a single trace file has none), and a note when some could not be read. */
async function codeObjectsOf(path: string): Promise<Pick<DigestInput, 'codeObjects' | 'notes'>> {
  const st = await stat(path);
  if (st.isFile() && !/\.zip$/i.test(path)) return { codeObjects: [] };
  try {
    const { objects, skipped } = await loadCodeObjectsPath(path);
    const notes = skipped.map((s) => ({ kind: 'skipped' as const, text: `code object ${s.file}: ${s.reason}` }));
    return { codeObjects: objects.map((o) => o.info), notes };
  } catch (err) {
    return {
      codeObjects: [],
      notes: [{ kind: 'digest', text: `code objects not read: ${err instanceof Error ? err.message : String(err)}` }],
    };
  }
}

export interface DigestPathOptions extends Omit<DigestInput, 'trace' | 'baseline' | 'codeObjects'> {
  summarize?: SummarizeOptions;
  /** A summary already made of `path` (a profile result's): not summarised again. */
  summary?: TraceSummary;
  baselinePath?: string;
  baselineSummary?: TraceSummary;
  baselineEvaluator?: DigestInput['evaluator'];
}

export async function digestPath(path: string, options: DigestPathOptions = {}): Promise<ProfileDigest> {
  const { summarize, summary: given, baselinePath, baselineSummary, baselineEvaluator, ...input } = options;
  const [summary, trace, objects] = await Promise.all([
    given ?? summarizePath(path, summarize),
    traceIdentity(path),
    codeObjectsOf(path),
  ]);
  let baseline: DigestInput['baseline'] = null;
  if (baselinePath) {
    const [bs, bt] = await Promise.all([
      baselineSummary ?? summarizePath(baselinePath, summarize),
      traceIdentity(baselinePath),
    ]);
    baseline = { summary: bs, trace: bt, evaluator: baselineEvaluator ?? null };
  }
  return buildDigest(summary, {
    ...input,
    trace,
    codeObjects: objects.codeObjects,
    notes: [...(input.notes ?? []), ...(objects.notes ?? [])],
    baseline,
  });
}
