// The runs of this workspace, kept in the extension's workspace storage (context.storageUri) so that they outlast
// the panels and a reload: one folder per run with `run.json` (what the Runs view lists and the results view) and
// the profile's trace zips, so that a panel opened later (or restored after a reload) reads its trace from here
// instead of downloading it again. The folder's size is bounded by kernelRunner.runs.maxStorageMB, oldest runs
// removed first (core's runsToRemove). No vscode here: the store is tested on real folders with node:test.
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, join } from 'node:path';
import { z } from '../../core/protocol/zod';
import type { RunnerClient } from '../../core/client';
import { formatNs, formatSeconds } from '../../core/format/index';
import { addCounterTotals, addRankShares, counterTotals, type ProfiledKernel } from '../../core/kernelTimings';
import { runsToRemove } from '../../core/runRetention';
import type { ResultView } from '../../webview/protocol';

const runStoreEntrySchema = z.object({
  id: z.string().regex(/^[\w-]+$/),
  file: z.string(),
  /** The source file's URI (string form), for the timing lens. */
  uri: z.string().optional(),
  mode: z.string(),
  title: z.string(),
  target: z.string(),
  /** The submission on its service (kind, service URL and id), for one that is followed again after a reload. */
  submission: z.string().optional(),
  outcome: z.enum(['success', 'failure', 'error', 'cancelled', 'trace']),
  /** Epoch ms. */
  startedAt: z.number(),
  storedAt: z.number(),
  /** Kernel time of a profile, the score, or how many tests passed. */
  headline: z.string(),
  bytes: z.number().nonnegative(),
  /** Trace files in the run's folder. */
  traces: z.array(z.string()),
  /** Every profiled kernel of the run (all profile runs merged), for the timing lens. */
  kernels: z
    .array(
      z.object({
        name: z.string(),
        calls: z.number(),
        totalNs: z.number(),
        /** Counter totals, when the profile read hardware counters (its roofline). */
        counters: z
          .object({ dispatches: z.number(), ns: z.number(), flops: z.number(), hbmBytes: z.number() })
          .optional(),
        /** A multi-process profile: the kernel on each rank (when every rank lists it among its top kernels). */
        ranks: z.array(z.object({ rank: z.number(), calls: z.number(), totalNs: z.number() })).optional(),
      }),
    )
    .default([]),
  /** The roofline peaks the lens holds the counters to (the first profile's with a roofline). */
  peaks: z
    .object({ hbmGBps: z.number().nullable(), valuFp32: z.number().nullable(), mfmaFp32: z.number().nullable() })
    .optional(),
});
export type RunStoreEntry = z.output<typeof runStoreEntrySchema>;

const RUN_FILE = 'run.json';
/** A save lasts as long as its trace downloads: an hour is far past any. */
const ABANDONED_AFTER_MS = 60 * 60 * 1000;

export interface RunToStore {
  file: string;
  uri?: string;
  mode: string;
  title: string;
  target: string;
  startedAt: number;
  /** The submission on its service (`inFlightKey`), when it could be followed again after a reload: storing it again
   * (its outcome arrived again, after a reload that came before the in-flight entry was forgotten) keeps it once. */
  submission?: string;
  view: ResultView;
  /** Downloads the runner's artifacts (profiles with a downloadUrl and no local file). */
  client?: RunnerClient;
}

/** What the Runs view shows after the file and mode. */
function runHeadline(view: ResultView): string {
  if (view.rankedScore) return `score ${view.rankedScore.text}`;
  const summaries = view.profiles.flatMap((p) => (p.summary ? [p.summary] : []));
  if (summaries.length) {
    const ns = summaries.reduce((n, s) => n + s.kernelTotals.totalNs, 0);
    const calls = summaries.reduce((n, s) => n + s.kernelTotals.calls, 0);
    return `kernels ${formatNs(ns)} · ${calls} dispatches`;
  }
  const tests = view.runs.flatMap((r) => r.tests);
  if (tests.length) return `${tests.filter((t) => t.passed).length}/${tests.length} tests passed`;
  const bench = view.runs.flatMap((r) => r.benchmarks).find((b) => b.meanNs !== undefined);
  if (bench?.meanNs !== undefined) return `mean ${formatNs(bench.meanNs)}`;
  if (view.error) return view.error.split('\n')[0]?.slice(0, 80) ?? view.outcome;
  return `${view.outcome} in ${formatSeconds(view.elapsedS)}`;
}

function mergedKernels(view: ResultView): ProfiledKernel[] {
  const byName = new Map<string, ProfiledKernel>();
  for (const p of view.profiles) {
    const traced = new Set<string>();
    for (const k of p.summary?.kernels ?? []) {
      const m = byName.get(k.name) ?? { name: k.name, calls: 0, totalNs: 0 };
      m.calls += k.calls;
      m.totalNs += k.totalNs;
      byName.set(k.name, m);
      traced.add(k.name);
    }
    if (p.summary?.ranks) addRankShares(byName, p.summary.ranks);
    for (const k of p.summary?.roofline?.kernels ?? []) {
      const c = counterTotals(k);
      // a counter collection without a kernel trace: its dispatches are the kernel's calls
      const m = byName.get(k.name) ?? { name: k.name, calls: 0, totalNs: 0 };
      if (!traced.has(k.name)) {
        m.calls += k.dispatches;
        m.totalNs += c?.ns ?? 0;
      }
      if (c) m.counters = m.counters ? addCounterTotals(m.counters, c) : c;
      byName.set(k.name, m);
    }
  }
  return [...byName.values()];
}

/** The peaks of the run's first profile with a roofline (what the timing lens holds its counters to). */
function rooflinePeaks(view: ResultView): RunStoreEntry['peaks'] {
  const r = view.profiles.find((p) => p.summary?.roofline)?.summary?.roofline;
  return r ? { hbmGBps: r.peaks.hbmGBps, valuFp32: r.peaks.valuFp32, mfmaFp32: r.peaks.mfmaFp32 } : undefined;
}

const safeName = (s: string) => s.replace(/[^\w.-]+/g, '_').slice(0, 80) || 'trace';

async function folderBytes(dir: string): Promise<number> {
  let n = 0;
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const p = join(dir, e.name);
    if (e.isDirectory()) n += await folderBytes(p);
    else if (e.isFile()) n += (await stat(p)).size;
  }
  return n;
}

/** A folder of this store's naming with no run.json, started long enough ago that no save can still be writing it:
 * a save the window's close cut short (run.json comes last). Its traces would count against no run. */
function abandonedSave(name: string, err: unknown): boolean {
  const startedAt = /^(\d+)-[0-9a-f]{6}$/.exec(name)?.[1];
  return (
    startedAt !== undefined &&
    (err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT' &&
    Date.now() - Number(startedAt) > ABANDONED_AFTER_MS
  );
}

export class RunStore {
  private runs: RunStoreEntry[] = [];
  private loaded: Promise<void> | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly root: string,
    /** kernelRunner.runs.maxStorageMB in bytes, read at each save. */
    private readonly maxBytes: () => number,
  ) {}

  /** Called after a run was stored or deleted (and once the stored runs are read); returns its unsubscribe. */
  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private fire(): void {
    for (const l of [...this.listeners]) l();
  }

  get folder(): string {
    return this.root;
  }

  /** Reads the stored runs once (anything unreadable, e.g. from another version, is left out). */
  load(): Promise<void> {
    this.loaded ??= (async () => {
      const found: RunStoreEntry[] = [];
      for (const e of await readdir(this.root, { withFileTypes: true }).catch(() => [])) {
        if (!e.isDirectory()) continue;
        try {
          const raw = JSON.parse(await readFile(join(this.root, e.name, RUN_FILE), 'utf8')) as { run?: unknown };
          const parsed = runStoreEntrySchema.safeParse(raw.run);
          if (parsed.success && parsed.data.id === e.name) found.push(parsed.data);
        } catch (err) {
          if (abandonedSave(e.name, err)) await rm(join(this.root, e.name), { recursive: true, force: true });
          // else a foreign folder, or a run of another version: left alone
        }
      }
      this.runs = found.sort((a, b) => b.storedAt - a.storedAt);
      this.fire();
    })();
    return this.loaded;
  }

  /** Newest first. */
  list(): RunStoreEntry[] {
    return [...this.runs];
  }

  get(id: string): RunStoreEntry | undefined {
    return this.runs.find((r) => r.id === id);
  }

  dirOf(id: string): string {
    return join(this.root, id);
  }

  /** The newest run of this file that profiled kernels. */
  latestProfileOf(uri: string): RunStoreEntry | undefined {
    return this.runs.find((r) => r.uri === uri && r.kernels.length > 0);
  }

  /** The stored view, its profiles pointing at the kept traces where the store is now (the folder may have moved). */
  async view(id: string): Promise<ResultView | undefined> {
    const run = this.get(id);
    if (!run) return undefined;
    const raw = JSON.parse(await readFile(join(this.dirOf(id), RUN_FILE), 'utf8')) as { view?: ResultView };
    if (!raw.view) return undefined;
    const kept = new Set(run.traces);
    const profiles = raw.view.profiles.map((p) =>
      p.localPath && kept.has(basename(p.localPath))
        ? { ...p, localPath: join(this.dirOf(id), basename(p.localPath)) }
        : p,
    );
    return { ...raw.view, profiles };
  }

  /**
   * Stores a finished run with its traces: local trace files are copied in, the runner's artifacts downloaded;
   * the stored view's profiles point at the copies. Returns the stored run and its view.
   */
  async save(input: RunToStore): Promise<{ run: RunStoreEntry; view: ResultView }> {
    await this.load();
    const already = input.submission ? this.runs.find((r) => r.submission === input.submission) : undefined;
    const alreadyView = already && (await this.view(already.id).catch(() => undefined));
    if (already && alreadyView) return { run: already, view: alreadyView };
    const storedAt = Date.now();
    const id = `${storedAt}-${randomBytes(3).toString('hex')}`;
    const dir = this.dirOf(id);
    await mkdir(dir, { recursive: true });
    const traces: string[] = [];
    const profiles = [];
    for (const p of input.view.profiles) {
      const name = `${safeName(p.key)}.zip`;
      const dest = join(dir, name);
      let localPath: string | undefined;
      try {
        if (p.localPath && (await stat(p.localPath)).isFile()) {
          await copyFile(p.localPath, join(dir, (localPath = `${safeName(p.key)}-${safeName(basename(p.localPath))}`)));
        } else if (p.downloadUrl && input.client) {
          await input.client.downloadArtifact({ url: p.downloadUrl }, dest, { overwrite: true });
          localPath = name;
        }
      } catch (err) {
        console.error(`[kernel-runner] could not keep the trace of ${p.key}:`, err);
        localPath = undefined;
      }
      if (localPath) traces.push(localPath);
      profiles.push(localPath ? { ...p, localPath: join(dir, localPath) } : p);
    }
    const view: ResultView = { ...input.view, profiles };
    const run: RunStoreEntry = {
      id,
      file: input.file,
      ...(input.uri ? { uri: input.uri } : {}),
      mode: input.mode,
      title: input.title,
      target: input.target,
      ...(input.submission ? { submission: input.submission } : {}),
      outcome: view.outcome,
      startedAt: input.startedAt,
      storedAt,
      headline: runHeadline(view),
      bytes: 0,
      traces,
      kernels: mergedKernels(view),
    };
    const peaks = rooflinePeaks(view);
    if (peaks) run.peaks = peaks;
    // run.json comes last and whole (written aside, then renamed): a folder without it is a run not stored.
    // (the view, the large part, is written out once: `{ run, view }` as JSON.stringify would write it)
    const viewJson = JSON.stringify(view);
    const body = () => `{"run":${JSON.stringify(run)},"view":${viewJson}}`;
    run.bytes = await folderBytes(dir);
    run.bytes += Buffer.byteLength(body()); // run.json itself, within a digit or two
    const aside = join(dir, `${RUN_FILE}.part`);
    await writeFile(aside, body());
    await rename(aside, join(dir, RUN_FILE));
    this.runs.unshift(run);
    await this.enforceBound();
    this.fire();
    return { run, view };
  }

  async delete(id: string): Promise<boolean> {
    await this.load();
    const i = this.runs.findIndex((r) => r.id === id);
    if (i < 0) return false;
    this.runs.splice(i, 1);
    await rm(this.dirOf(id), { recursive: true, force: true });
    this.fire();
    return true;
  }

  /** Oldest runs removed until the folder fits kernelRunner.runs.maxStorageMB. */
  private async enforceBound(): Promise<void> {
    const remove = new Set(runsToRemove(this.runs, this.maxBytes()));
    if (!remove.size) return;
    this.runs = this.runs.filter((r) => !remove.has(r.id));
    for (const id of remove) await rm(this.dirOf(id), { recursive: true, force: true });
  }

  dispose(): void {
    this.listeners.clear();
  }
}
