// Saves the profile archives of a result into a folder, one file per profiled run, never replacing a file:
// `<submission stem>-<yyyymmdd-hhmmss>-<run key>.zip`, with `-2`, `-3`, ... when that name is taken.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ProfileResult, ResultEvent } from '../../core/protocol/api';
import type { RunnerClient } from '../../core/client/index';

export interface SavedTrace {
  run: string;
  path: string;
  bytes: number;
}

function stamp(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}${p(date.getMonth() + 1)}${p(date.getDate())}-${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}`;
}

function safe(part: string): string {
  return part.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '') || 'submission';
}

/** Tries `base.zip`, `base-2.zip`, ... until `write` succeeds without EEXIST. */
async function firstFreeName(dir: string, base: string, write: (file: string) => Promise<number>): Promise<SavedTrace & { run: '' }> {
  for (let n = 1; n < 1000; n++) {
    const file = path.join(dir, `${base}${n === 1 ? '' : `-${n}`}.zip`);
    try {
      return { run: '', path: file, bytes: await write(file) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  throw new Error(`no free file name for ${base}.zip in ${dir}`);
}

export async function saveTraces(
  result: ResultEvent,
  opts: { client: RunnerClient; outDir: string; fileName: string; jobId?: number; signal?: AbortSignal; now?: Date },
): Promise<SavedTrace[]> {
  const profiled: Array<[string, ProfileResult]> = [];
  for (const full of result.results) {
    for (const [key, run] of Object.entries(full.runs)) if (run.profile) profiled.push([key, run.profile]);
  }
  if (profiled.length === 0) return [];
  await mkdir(opts.outDir, { recursive: true });
  const stem = safe(path.basename(opts.fileName, path.extname(opts.fileName)));
  const when = stamp(opts.now ?? new Date());
  const saved: SavedTrace[] = [];
  for (const [key, profile] of profiled) {
    const base = `${stem}-${when}-${safe(key)}`;
    let write: ((file: string) => Promise<number>) | undefined;
    if (profile.trace) {
      const bytes = Buffer.from(profile.trace, 'base64');
      write = async (file) => {
        await writeFile(file, bytes, { flag: 'wx' });
        return bytes.length;
      };
    } else if (profile.download_url) {
      const url = profile.download_url;
      write = async (file) => (await opts.client.downloadArtifact({ url }, file, { signal: opts.signal })).bytes;
    } else if (profile.artifact && opts.jobId !== undefined) {
      const ref = { jobId: opts.jobId, name: profile.artifact };
      write = async (file) => (await opts.client.downloadArtifact(ref, file, { signal: opts.signal })).bytes;
    }
    if (!write) continue;
    const file = await firstFreeName(opts.outDir, base, write);
    saved.push({ ...file, run: key });
  }
  return saved;
}
