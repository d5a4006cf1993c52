// The profile digest (src/trace/digest) of each trace a run kept, saved beside it as `<trace>.digest.json` (the
// name core/gpumode/traces.ts gives a digest beside a saved zip): what the language model tools answer with.
import { writeFile } from 'node:fs/promises';
import type { ProfileDigest } from '../../core/protocol/profileDigest';
import { errorMessage } from '../../core/errors';
import { configurationOf, digestPath, sha256Text } from '../../trace/digest/index';
import type { ResultView } from '../../webview/protocol';

export interface KeptDigest {
  key: string;
  trace: string;
  digest?: ProfileDigest;
  digestPath?: string;
  error?: string;
}

export function digestFileOf(trace: string): string {
  return trace.replace(/(\.zip)?$/i, '.digest.json');
}

/** One digest per kept profile trace (profiles without a local trace are left out). */
export async function digestKeptProfiles(
  view: ResultView,
  about: { file: string; content?: Uint8Array; target: string; mode: string },
): Promise<KeptDigest[]> {
  const out: KeptDigest[] = [];
  for (const p of view.profiles) {
    if (!p.localPath || p.nsightCompute) continue;
    const entry: KeptDigest = { key: p.key, trace: p.localPath };
    try {
      entry.digest = await digestPath(p.localPath, {
        ...(p.summary ? { summary: p.summary } : {}),
        ...(about.content ? { submission: { file: about.file, sha256: sha256Text(about.content) } } : {}),
        configuration: configurationOf({
          server: about.target,
          mode: about.mode,
          leaderboard: view.leaderboard,
          gpu: view.gpu,
        }),
        links: [{ rel: 'trace', href: p.localPath }],
      });
      const file = digestFileOf(p.localPath);
      await writeFile(file, `${JSON.stringify(entry.digest)}\n`);
      entry.digestPath = file;
    } catch (err) {
      entry.error = errorMessage(err);
    }
    out.push(entry);
  }
  return out;
}
