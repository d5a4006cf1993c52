// Saves the profile archives of a result, one file per profiled run, never replacing a file, and summarises each
// with the trace toolkit. Names say where a trace came from:
//   <file stem>-<leaderboard>-<gpu>-<submission id | yyyymmdd-hhmmss>-<run key>.zip
// e.g. `submission-amd-fp8-mm-MI300-4211-profile.0.zip`; a taken name gets `-2`, `-3`, ... The secret-seed copy of
// a run (a second result) adds `-secret`, an Nsight Compute report (GPU MODE's NVIDIA GPUs) `-nsight-compute`.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RunnerClient } from '../client/index';
import type { ProfileResult, ResultEvent } from '../protocol/api';
import type { ProfileDigest } from '../protocol/profileDigest';
import type { TraceSummary } from '../protocol/traceSummary';
import { errorMessage } from '../errors';

/**
 * Which profiler made an archive: kernelbot's run_eval sets `rocPROF` (rocprofv3 on AMD GPUs: CSVs, a Perfetto
 * trace, code objects) or `Nsight-Compute` (ncu on NVIDIA GPUs: `profile_data/profile.ncu-rep`, for Nsight Compute).
 * Our runner's archives are rocprof's.
 */
export type ProfilerKind = 'rocprof' | 'nsight-compute';

export function profilerKind(profile: Pick<ProfileResult, 'profiler'>): ProfilerKind {
  return /nsight|ncu/i.test(profile.profiler ?? '') ? 'nsight-compute' : 'rocprof';
}

/** What opens an archive, for messages: a rocprof zip is summarised here; an Nsight Compute report is not. */
export const NSIGHT_COMPUTE_OPENS_WITH =
  'an Nsight Compute report (profile_data/profile.ncu-rep inside): open it with NVIDIA Nsight Compute (ncu-ui), or `ncu --import`';

export interface SavedTrace {
  /** Run key, e.g. `profile.0` (`profile.0-secret` for a secret-seed copy). */
  run: string;
  path: string;
  bytes: number;
  /** rocprof's (summarised, opened in Perfetto; also when absent) or an Nsight Compute report (see NSIGHT_COMPUTE_OPENS_WITH). */
  profiler?: ProfilerKind;
  /** Present when summarising was asked for and worked. */
  summary?: TraceSummary;
  /** Why the summary is missing, when summarising failed. */
  summaryError?: string;
  /** The profile digest, when asked for (`digest`) and made; saved beside the zip as `<name>.digest.json` (digestPath). */
  digest?: ProfileDigest;
  digestPath?: string;
  digestError?: string;
}

export interface TraceNameParts {
  /** The submitted file's name (only its stem is used). */
  fileName: string;
  leaderboard?: string;
  gpu?: string;
  /** Submission (job) id; else a local timestamp from `now`. */
  submissionId?: number;
  now?: Date;
}

export interface SaveTracesOptions extends TraceNameParts {
  outDir: string;
  /** For archives that are not inline (our runner's `download_url` / `artifact`). */
  client?: Pick<RunnerClient, 'downloadArtifact'>;
  signal?: AbortSignal;
  /**
   * Summarises a saved zip whose run came without a summary (the trace toolkit's summarizePath; core does not import
   * the toolkit, the front-end hands it in). A failure is kept in summaryError, not thrown. None: no summaries.
   */
  summarize?: (file: string) => Promise<TraceSummary>;
  /** Makes the profile digest of a saved zip from its summary (src/trace/digest, handed in like `summarize`). */
  digest?: (file: string, summary: TraceSummary) => Promise<ProfileDigest>;
}

function stamp(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}${p(date.getMonth() + 1)}${p(date.getDate())}-${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}`;
}

/** A file-name-safe piece: anything but letters, digits, `.`, `_`, `-` becomes `_`; no leading dots. */
function safeNamePart(part: string, fallback = 'submission'): string {
  return (
    part
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^\.+/, '')
      .slice(0, 80) || fallback
  );
}

/** The name without run key, counter and extension: `<stem>-<leaderboard>-<gpu>-<id|timestamp>`. */
export function traceBaseName(parts: TraceNameParts): string {
  const stem = safeNamePart(path.basename(parts.fileName, path.extname(parts.fileName)));
  const pieces = [stem];
  if (parts.leaderboard) pieces.push(safeNamePart(parts.leaderboard));
  if (parts.gpu) pieces.push(safeNamePart(parts.gpu));
  pieces.push(parts.submissionId !== undefined ? String(parts.submissionId) : stamp(parts.now ?? new Date()));
  return pieces.join('-');
}

/** Writes with `write(file)` at `<base>.zip`, `<base>-2.zip`, ... : the first name that does not exist yet (EEXIST-safe). */
async function writeUnique(
  dir: string,
  base: string,
  write: (file: string) => Promise<number>,
): Promise<{ path: string; bytes: number }> {
  for (let n = 1; n < 10_000; n++) {
    const file = path.join(dir, `${base}${n === 1 ? '' : `-${n}`}.zip`);
    try {
      return { path: file, bytes: await write(file) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  throw new Error(`no free file name for ${base}.zip in ${dir}`);
}

/** The profiled runs of a result, each with its key (`-secret` for the service's secret-seed copy). */
function profiledRuns(result: ResultEvent): Array<{ run: string; profile: ProfileResult }> {
  const out: Array<{ run: string; profile: ProfileResult }> = [];
  result.results.forEach((full, i) => {
    for (const [key, ev] of Object.entries(full.runs))
      if (ev.profile) out.push({ run: i > 0 ? `${key}-secret` : key, profile: ev.profile });
  });
  return out;
}

/**
 * Saves every profiled run's archive: the inline base64 `trace` (GPU MODE), else `download_url`, else our
 * runner's `artifact` (needs `client` and `submissionId`). Runs without any archive are skipped. Files are created
 * exclusively: nothing is ever overwritten. Each saved zip without a summary of its own is summarised when `summarize` is given.
 */
export async function saveProfileTraces(result: ResultEvent, options: SaveTracesOptions): Promise<SavedTrace[]> {
  const profiled = profiledRuns(result);
  if (profiled.length === 0) return [];
  await mkdir(options.outDir, { recursive: true });
  const base = traceBaseName(options);
  const saved: SavedTrace[] = [];
  for (const { run, profile } of profiled) {
    let write: ((file: string) => Promise<number>) | undefined;
    if (profile.trace) {
      const bytes = Buffer.from(profile.trace, 'base64');
      write = async (file) => {
        await writeFile(file, bytes, { flag: 'wx' });
        return bytes.length;
      };
    } else if (profile.download_url && options.client) {
      const { client } = options;
      const url = profile.download_url;
      write = async (file) => (await client.downloadArtifact({ url }, file, { signal: options.signal })).bytes;
    } else if (profile.artifact && options.client && options.submissionId !== undefined) {
      const { client } = options;
      const ref = { jobId: options.submissionId, name: profile.artifact };
      write = async (file) => (await client.downloadArtifact(ref, file, { signal: options.signal })).bytes;
    }
    if (!write) continue;
    const profiler = profilerKind(profile);
    const suffix = profiler === 'nsight-compute' ? '-nsight-compute' : '';
    const file = await writeUnique(options.outDir, `${base}-${safeNamePart(run)}${suffix}`, write);
    const entry: SavedTrace = { run, ...file, profiler };
    // The trace toolkit reads rocprof's outputs; an Nsight Compute report is for Nsight Compute.
    if (options.summarize && !profile.summary && profiler === 'rocprof') {
      try {
        entry.summary = await options.summarize(file.path);
      } catch (err) {
        entry.summaryError = errorMessage(err);
      }
    }
    const summary = profile.summary ?? entry.summary;
    if (options.digest && summary && profiler === 'rocprof') {
      try {
        entry.digest = await options.digest(file.path, summary);
        const digestFile = file.path.replace(/\.zip$/, '.digest.json');
        await writeFile(digestFile, `${JSON.stringify(entry.digest)}\n`, { flag: 'wx' });
        entry.digestPath = digestFile;
      } catch (err) {
        entry.digestError = err instanceof Error ? err.message : String(err);
      }
    }
    saved.push(entry);
  }
  return saved;
}
