// The runner's persistent state, pure JS (the embedded runner lives in the VS Code extension host: no native
// modules). Layout under the data dir:
//   runner.lock                  pid of the runner using it
//   runner.json                  {next_id}
//   secret-seeds.json            {leaderboard: seed}, each leaderboard's fixed secret seed, made on first use
//   jobs/<id>/job.json           the job record, replaced atomically (write temp + rename)
//   jobs/<id>/events.sse         every event, framed as sent to clients (see eventLog.ts)
//   jobs/<id>/events.hwm         the highest event id ever handed to a client (may be past the file after a crash)
//   jobs/<id>/submission/<file>  the uploaded file
//   jobs/<id>/artifacts/<name>   downloads (profile zips)
//   jobs/<id>/work/              scratch folder of the running job, removed when it ends
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { randomInt } from 'node:crypto';
import { lstat, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join, relative, resolve, sep, isAbsolute } from 'node:path';
import { jobRecordSchema, type ErrorEvent, type JobRecord } from '../core/protocol/api';
import { formatFrame, openEventLog, readHighWaterMark, repairLog, type EventLog, type FrameBatch } from './eventLog';
import type { ProcessGroupRef } from './orphans';
import { KernelRunnerError } from '../core/errors';

/** What job.json holds: the public record plus what the runner needs to answer later. */
export type StoredJob = JobRecord & {
  /** Base URL the job was submitted through; artifact links are absolute under it. */
  base_url: string;
  last_heartbeat: string | null;
  /** Ranked score in seconds (leaderboard mode), else null. */
  score: number | null;
  /** Name of the GPU slot's device that ran it, e.g. `MI300 #0`. */
  runner: string;
  /** The process group running now (ended by the next start if the runner dies); absent in older records. */
  process?: ProcessGroupRef | null;
  /**
   * What GET /user/submissions/{id} says in `job.status` / `job.error` once the job has ended: upstream's view
   * (completion.ts), which differs from `state` (ours: a failed test is `failed` there, `succeeded` here). Absent in
   * older records, and until the job ends.
   */
  upstream_status?: string | null;
  upstream_error?: string | null;
  /** The secret run's score in seconds (leaderboard mode), computed as the public one is. */
  secret_score?: number | null;
};

export class StoreError extends KernelRunnerError {
  override readonly name = 'StoreError';
  readonly code = 'RUNNER_STORE';
  readonly type = 'store' as const;
}

const lockedDirs = new Set<string>();

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A killed runner can linger as a zombie until its parent reaps it: that one holds nothing.
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}

/** Valid artifact names: one plain file name, no separators, no dot-dot, no encodings. */
export function isSafeArtifactName(name: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/.test(name) && !name.includes('..');
}

/** Resolves `name` inside `dir`, or null when it would leave it. */
export function containedPath(dir: string, name: string): string | null {
  if (!isSafeArtifactName(name)) return null;
  const root = resolve(dir);
  const full = resolve(root, name);
  const rel = relative(root, full);
  if (!rel || rel.startsWith('..') || isAbsolute(rel) || rel.includes(sep)) return null;
  return full;
}

async function dirSize(path: string): Promise<number> {
  let total = 0;
  let entries;
  try {
    entries = await readdir(path, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = join(path, e.name);
    if (e.isDirectory()) total += await dirSize(p);
    else {
      try {
        total += (await lstat(p)).size;
      } catch {
        // vanished
      }
    }
  }
  return total;
}

export interface RetentionPolicy {
  /** Finished jobs older than this are deleted. */
  maxAgeDays: number;
  /** Oldest finished jobs are deleted until all jobs together take at most this. */
  maxTotalBytes: number;
}

export interface JobStore {
  readonly dataDir: string;
  allocateId(): number;
  jobDir(id: number): string;
  artifactsDir(id: number): string;
  workDir(id: number): string;
  submissionPath(id: number, fileName: string): string;
  eventsPath(id: number): string;
  /** Creates the job's folders and writes the uploaded file. */
  createJob(record: StoredJob, code: Uint8Array): Promise<void>;
  /** Atomic; saves of one job are serialised and coalesced. */
  saveJob(record: StoredJob): Promise<void>;
  loadJobs(): StoredJob[];
  loadJob(id: number): StoredJob | undefined;
  openLog(id: number, onBatch?: (batch: FrameBatch) => void): EventLog;
  /** At start, before serving: ends a job the last run left unfinished with `error` (synchronously). */
  interruptSync(record: StoredJob, error: ErrorEvent): void;
  deleteJob(id: number): Promise<void>;
  readCode(record: StoredJob): string;
  /**
   * The leaderboard's fixed secret seed: drawn once, as kernelbot's leaderboard table does
   * (`FLOOR(RANDOM() * 2147483648)`), and kept in the data dir, so every secret run of a leaderboard uses it.
   */
  secretSeed(leaderboard: string): number;
  /**
   * What the jobs take on disk: all of them, and the finished ones (those `live` does not name), which a sweep may
   * delete. A finished job's size is measured once (it no longer grows), a live job's every time.
   */
  jobsBytes(live: (id: number) => boolean): Promise<{ total: number; finished: number }>;
  /** Deletes finished jobs past the policy; `keep` says which ids must stay (live jobs). Returns deleted ids. */
  applyRetention(policy: RetentionPolicy, keep: (id: number) => boolean): Promise<number[]>;
  close(): void;
}

export function openStore(dataDir: string): JobStore {
  const root = resolve(dataDir);
  mkdirSync(join(root, 'jobs'), { recursive: true, mode: 0o700 });
  if (lockedDirs.has(root)) throw new StoreError(`data dir ${root} is already used by a runner in this process`);
  const lockPath = join(root, 'runner.lock');
  if (existsSync(lockPath)) {
    const pid = Number(readFileSync(lockPath, 'utf8').trim());
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && pidAlive(pid)) {
      throw new StoreError(
        `data dir ${root} is in use by another kernel-runner (pid ${pid}); stop it or pass --data-dir DIR`,
      );
    }
  }
  const fd = openSync(lockPath, 'w', 0o600);
  writeSync(fd, `${process.pid}\n`);
  closeSync(fd);
  lockedDirs.add(root);

  const metaPath = join(root, 'runner.json');
  let nextId = 1;
  try {
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as { next_id?: unknown };
    if (typeof meta.next_id === 'number' && meta.next_id > 0) nextId = meta.next_id;
  } catch {
    // first start
  }
  // never reuse an id that is on disk, even if runner.json was lost
  for (const name of readdirSync(join(root, 'jobs'))) {
    if (/^\d+$/.test(name)) nextId = Math.max(nextId, Number(name) + 1);
  }

  const jobDir = (id: number) => join(root, 'jobs', String(id));
  const seedsPath = join(root, 'secret-seeds.json');
  let seeds: Record<string, number> | null = null;
  const saving = new Map<number, { running: Promise<void>; next: StoredJob | null }>();
  const finishedSizes = new Map<number, number>();
  const finishedSize = async (id: number) => {
    let size = finishedSizes.get(id);
    if (size === undefined) {
      size = await dirSize(jobDir(id));
      finishedSizes.set(id, size);
    }
    return size;
  };

  async function writeRecord(record: StoredJob): Promise<void> {
    const dir = jobDir(record.id);
    if (!existsSync(dir)) return; // deleted meanwhile
    const tmp = join(dir, `.job.json.${process.pid}.tmp`);
    await writeFile(tmp, JSON.stringify(record), { mode: 0o600 });
    await rename(tmp, join(dir, 'job.json'));
  }

  const store: JobStore = {
    dataDir: root,
    allocateId() {
      const id = nextId++;
      // rename is atomic: a crash leaves the old or the new counter, and the folder scan at start covers both
      writeFileSync(metaPath + '.tmp', JSON.stringify({ next_id: nextId }), { mode: 0o600 });
      renameSync(metaPath + '.tmp', metaPath);
      return id;
    },
    jobDir,
    artifactsDir: (id) => join(jobDir(id), 'artifacts'),
    workDir: (id) => join(jobDir(id), 'work'),
    submissionPath: (id, fileName) => join(jobDir(id), 'submission', fileName),
    eventsPath: (id) => join(jobDir(id), 'events.sse'),
    async createJob(record, code) {
      const dir = jobDir(record.id);
      // each step waits only for what it writes into (a job's start waits for all of them)
      await mkdir(join(dir, 'submission'), { recursive: true, mode: 0o700 });
      await Promise.all([
        mkdir(join(dir, 'artifacts'), { recursive: true, mode: 0o700 }),
        writeFile(store.submissionPath(record.id, record.file_name), code, { mode: 0o600 }),
        writeRecord(record),
      ]);
    },
    saveJob(record) {
      const entry = saving.get(record.id);
      if (entry) {
        entry.next = record;
        return entry.running;
      }
      const state = { running: Promise.resolve(), next: null as StoredJob | null };
      state.running = (async () => {
        let current: StoredJob | null = record;
        while (current) {
          await writeRecord(current);
          current = state.next;
          state.next = null;
        }
        saving.delete(record.id);
      })();
      saving.set(record.id, state);
      return state.running;
    },
    loadJobs() {
      const jobs: StoredJob[] = [];
      for (const name of readdirSync(join(root, 'jobs'))) {
        if (!/^\d+$/.test(name)) continue;
        const path = join(jobDir(Number(name)), 'job.json');
        try {
          const raw = JSON.parse(readFileSync(path, 'utf8')) as StoredJob;
          jobRecordSchema.parse(raw);
          jobs.push(raw);
        } catch {
          // a job folder without a readable record (crash during creation): leave it to retention
        }
      }
      return jobs.sort((a, b) => a.id - b.id);
    },
    loadJob(id) {
      try {
        return JSON.parse(readFileSync(join(jobDir(id), 'job.json'), 'utf8')) as StoredJob;
      } catch {
        return undefined;
      }
    },
    interruptSync(record, error) {
      const path = store.eventsPath(record.id);
      // past anything a client may have been given: frames sent but lost with the process are above the file's end
      const id = Math.max(repairLog(path), readHighWaterMark(path), record.last_event_id) + 1;
      appendFileSync(path, formatFrame(id, 'error', JSON.stringify(error)), { mode: 0o600 });
      record.last_event_id = id;
      record.state = 'interrupted';
      record.error = error;
      record.queue_position = null;
      record.process = null;
      record.finished_at = new Date().toISOString();
      rmSync(store.workDir(record.id), { recursive: true, force: true });
      const tmp = join(jobDir(record.id), `.job.json.${process.pid}.tmp`);
      writeFileSync(tmp, JSON.stringify(record), { mode: 0o600 });
      renameSync(tmp, join(jobDir(record.id), 'job.json'));
    },
    openLog(id, onBatch) {
      const path = store.eventsPath(id);
      return openEventLog(path, Math.max(repairLog(path), readHighWaterMark(path)), onBatch);
    },
    async deleteJob(id) {
      await rm(jobDir(id), { recursive: true, force: true });
      finishedSizes.delete(id);
    },
    secretSeed(leaderboard) {
      if (!seeds) {
        seeds = {};
        try {
          const raw = JSON.parse(readFileSync(seedsPath, 'utf8')) as unknown;
          if (raw && typeof raw === 'object') {
            for (const [name, seed] of Object.entries(raw))
              if (Number.isSafeInteger(seed)) seeds[name] = seed as number;
          }
        } catch {
          // none yet
        }
      }
      const known = seeds[leaderboard];
      if (known !== undefined) return known;
      const seed = randomInt(1, 2 ** 31);
      seeds[leaderboard] = seed;
      writeFileSync(seedsPath + '.tmp', JSON.stringify(seeds), { mode: 0o600 });
      renameSync(seedsPath + '.tmp', seedsPath);
      return seed;
    },
    readCode(record) {
      try {
        return readFileSync(store.submissionPath(record.id, record.file_name), 'utf8');
      } catch {
        return '';
      }
    },
    async jobsBytes(live) {
      let total = 0;
      let finished = 0;
      for (const name of await readdir(join(root, 'jobs'))) {
        if (!/^\d+$/.test(name)) continue;
        const id = Number(name);
        if (live(id)) {
          finishedSizes.delete(id);
          total += await dirSize(jobDir(id));
        } else {
          const size = await finishedSize(id);
          total += size;
          finished += size;
        }
      }
      return { total, finished };
    },
    async applyRetention(policy, keep) {
      const deleted: number[] = [];
      const now = Date.now();
      const finishedAt = (j: StoredJob) => Date.parse(j.finished_at ?? j.created_at);
      // the size budget takes the jobs that ended first first (several jobs end in any order: the highest id is not
      // always the newest)
      const jobs = store
        .loadJobs()
        .filter((j) => j.finished_at !== null && !keep(j.id))
        .sort((a, b) => finishedAt(a) - finishedAt(b) || a.id - b.id);
      const maxAgeMs = policy.maxAgeDays * 86_400_000;
      const remaining: Array<{ id: number; size: number }> = [];
      for (const j of jobs) {
        const finished = finishedAt(j);
        if (now - finished > maxAgeMs) {
          await store.deleteJob(j.id);
          deleted.push(j.id);
        } else remaining.push({ id: j.id, size: await finishedSize(j.id) });
      }
      let { total } = await store.jobsBytes(keep);
      for (const j of remaining) {
        if (total <= policy.maxTotalBytes) break;
        await store.deleteJob(j.id);
        deleted.push(j.id);
        total -= j.size;
      }
      return deleted;
    },
    close() {
      lockedDirs.delete(root);
      try {
        if (readFileSync(lockPath, 'utf8').trim() === String(process.pid)) unlinkSync(lockPath);
      } catch {
        // already gone
      }
    },
  };
  return store;
}
