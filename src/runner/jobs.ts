// The job model: submissions become jobs with a per-job event sequence (persisted, replayable), queued per GPU,
// run by evaluate.ts, finished with exactly one terminal event (result or error).
import { mkdir, rm } from 'node:fs/promises';
import type {
  ErrorEvent,
  JobRecord,
  JobState,
  OutputStream,
  ResultEvent,
  SseEventName,
  StatusEvent,
  SubmissionMode,
} from '../core/protocol/api';
import type { ClassifiedLine } from '../core/noise';
import { HARD_TIMEOUT_ERROR, upstreamCompletion } from './completion';
import { evaluateJob, type RunSettings } from './evaluate';
import type { EventLog, FrameBatch, LoggedEvent } from './eventLog';
import type { GpuInventory, GpuSlot } from './gpus';
import type { Problem } from './problems';
import { killOrphanGroup, processGroupRef } from './orphans';
import { createOutputBatcher, type OutputBatcher } from './outputBatcher';
import { createOutputBudget, outputCutNote, type OutputBudget } from './outputBudget';
import { createScheduler, type Scheduler } from './scheduler';
import type { JobStore, RetentionPolicy, StoredJob } from './store';
import type { SystemProbe } from './system';
import { routes } from '../core/protocol/api';
import type { ProfileOptions } from '../core/profileOptions';
import { KernelRunnerError, errorMessage } from '../core/errors';
import { BUDGET_CHECK_SHARE, CLOSE_MARGIN_MS, SWEEP_AFTER_JOB_MS } from './limits';

export interface Subscriber {
  /** Extension clients: every event, in batches of frames in id order (the bytes also written to the log). */
  frames?(batch: FrameBatch): void;
  /** Plain clients: each event but `output`, as it is appended. */
  event?(ev: LoggedEvent): void;
}

export interface LiveJob {
  readonly id: number;
  readonly gpu: string;
  record: StoredJob;
  log: EventLog;
  subscribers: Set<Subscriber>;
  abort: AbortController;
  heartbeat: NodeJS.Timeout | null;
  createdMs: number;
  problem: Problem | null;
  code: string;
  /** Profile mode's counters and kernel selection, as checked at submission. */
  profile?: ProfileOptions;
  currentRun: string | null;
  /** Resolves when the terminal event is written and the record saved. */
  done: Promise<void>;
  markDone: () => void;
  interrupting: boolean;
  /** The job ran past the runner's hard timeout and was stopped. */
  hardTimedOut: boolean;
  finished: boolean;
  /** Live output lines on their way to `output` events. */
  output: OutputBatcher;
  /** What the job may still store of its output (events and profiler stderr logs). */
  outputBudget: OutputBudget;
  /** The stored output at which the data dir is next checked against --max-data. */
  nextBudgetCheck: number;
  /** Its end is being recorded (finish has begun; `finished` once its terminal event is out). */
  ending: boolean;
}

interface SubmitRequest {
  leaderboard: string;
  problem: Problem | null;
  gpu: string;
  mode: SubmissionMode;
  fileName: string;
  code: Buffer;
  /** Profile mode's counters and kernel selection, as checked at submission. */
  profile?: ProfileOptions;
  baseUrl: string;
  /** Attached before the first event, so it sees them all. */
  subscriber?: Subscriber;
}

export interface JobManagerOptions {
  store: JobStore;
  inventory: GpuInventory;
  system: SystemProbe;
  settings: RunSettings;
  heartbeatMs: number;
  retention: RetentionPolicy;
  retentionIntervalMs: number;
  /** The least time between two sweeps after jobs end (a later one waits for it). Default 60 s. */
  retentionGapMs?: number;
  /** Stored output per job (live output events and profiler stderr logs together), in bytes. */
  maxJobOutputBytes: number;
  maxQueuedJobs: number;
  /** The most a job may run, all its runs together (kernelbot's HARD_TIMEOUT_SEC: 30 min); then it is `timed_out`. */
  hardTimeoutMs: number;
  log(message: string): void;
}

export class QueueFullError extends KernelRunnerError {
  override readonly name = 'QueueFullError';
  readonly code = 'RUNNER_QUEUE_FULL';
  readonly type = 'queue-full' as const;
}

export interface JobManager {
  submit(req: SubmitRequest): Promise<LiveJob>;
  live(id: number): LiveJob | undefined;
  /** The stored record (light: without result for finished jobs unless `full`). */
  record(id: number, full?: boolean): StoredJob | undefined;
  records(): StoredJob[];
  publicRecord(job: StoredJob): JobRecord;
  subscribe(job: LiveJob, sub: Subscriber): void;
  unsubscribe(job: LiveJob, sub: Subscriber): void;
  /** Cancels a queued or running job and waits until it has ended; returns the final state. */
  cancel(id: number): Promise<JobState | undefined>;
  remove(id: number): Promise<boolean>;
  queueCounts(gpu: string): { queued: number; running: number; idle: number; slots: number };
  close(): Promise<void>;
}

const CANCELLED: ErrorEvent = { status: 'error', detail: 'Submission cancelled' };
const STOPPED_RUNNING: ErrorEvent = {
  status: 'error',
  detail: 'Interrupted: the runner was stopped while this job was running; submit it again',
  status_code: 503,
};

/** A route under the base URL, keeping the base's path (a runner behind a proxy at https://host/gpu/). */
function artifactLink(baseUrl: string, route: string): string {
  const base = new URL(baseUrl);
  base.pathname = base.pathname.replace(/\/+$/, '') + route;
  return base.href;
}

function elapsedSince(ms: number): number {
  return Math.round((Date.now() - ms) / 10) / 100;
}

function runnerName(slot: GpuSlot): string {
  return slot.devices.length === 1 ? `${slot.gpu} #${slot.devices[0]}` : slot.gpu;
}

export function createJobManager(opts: JobManagerOptions): JobManager {
  const { store } = opts;
  const lightRecords = new Map<number, StoredJob>();
  const liveJobs = new Map<number, LiveJob>();
  let closing = false;
  let lastSweepMs = 0;

  // Jobs that were queued or running when the runner last stopped are interrupted, not lost. If the runner died
  // without stopping them (SIGKILL, OOM), the process group a running job left behind is ended first.
  for (const rec of store.loadJobs()) {
    if (rec.state === 'queued' || rec.state === 'running') {
      let detail =
        rec.state === 'running'
          ? 'Interrupted: the runner stopped while this job was running; submit it again'
          : 'Interrupted: the runner stopped before this job started; submit it again';
      if (rec.process) {
        const outcome = killOrphanGroup(rec.process);
        if (outcome === 'killed') {
          detail += ` (the processes it left behind, group ${rec.process.pgid}, were killed)`;
          opts.log(
            `job ${rec.id}: killed process group ${rec.process.pgid} left behind by a runner that stopped without ending it`,
          );
        }
      }
      store.interruptSync(rec, { status: 'error', detail, status_code: 503 });
    }
    lightRecords.set(rec.id, { ...rec, result: null });
  }

  const emit = (job: LiveJob, event: SseEventName, json: string): number => {
    if (event !== 'output') job.output.flush(); // lines before this event go first
    const id = job.log.append(event, json, event === 'result' || event === 'error');
    job.record.last_event_id = id;
    if (event !== 'output') {
      const ev: LoggedEvent = { id, event, json };
      for (const sub of job.subscribers) sub.event?.(ev);
    }
    return id;
  };

  /** A batch of output lines, if the job's output budget still takes it; past the budget one note, then nothing. */
  const emitOutputBatch = (job: LiveJob, json: string) => {
    if (job.finished) return;
    const budget = job.outputBudget;
    if (budget.exhausted) return;
    if (budget.take(Buffer.byteLength(json))) {
      emit(job, 'output', json);
      if (budget.used >= job.nextBudgetCheck) {
        job.nextBudgetCheck = budget.used + budgetCheckStep;
        void sweepIfOver();
      }
      return;
    }
    opts.log(`job ${job.id}: output cut at ${budget.limit} bytes`);
    emit(job, 'output', JSON.stringify({ stream: 'stderr', text: outputCutNote(budget.limit), noise: false }));
  };

  const emitStatus = (job: LiveJob) => {
    if (job.finished) return; // a job recorded as ended while its process was still going (see close)
    const status: StatusEvent = {
      status: 'processing',
      elapsed_time: elapsedSince(job.createdMs),
      state: job.record.state,
      queue_position: job.record.queue_position ?? 0,
      ...(job.currentRun ? { run: job.currentRun } : {}),
    };
    job.record.last_heartbeat = new Date().toISOString();
    emit(job, 'status', JSON.stringify(status));
  };

  const emitOutput = (job: LiveJob, stream: OutputStream, line: ClassifiedLine) => {
    if (job.finished || job.outputBudget.exhausted) return;
    job.output.push(stream, line);
  };

  const updatePositions = (gpu: string) => {
    for (const job of scheduler.waiting(gpu)) {
      const pos = scheduler.position(job);
      if (pos !== null && pos !== job.record.queue_position) {
        job.record.queue_position = pos;
        emitStatus(job);
      }
    }
  };

  const finish = async (
    job: LiveJob,
    terminal: { event: 'result'; data: ResultEvent } | { event: 'error'; data: ErrorEvent },
    state: JobState,
    extra: Partial<StoredJob> = {},
  ) => {
    if (job.finished || job.ending) return; // exactly one terminal event per job
    job.ending = true;
    // the data dir is back under --max-data before anyone hears of the end: the work dir goes, and a job whose end
    // leaves the jobs over their budget has the oldest finished ones deleted now, not a minute later (before
    // `finished`: a client that asks meanwhile still follows the job live, and gets its end)
    await rm(store.workDir(job.id), { recursive: true, force: true }).catch(() => undefined);
    await sweepIfOver();
    job.output.flush();
    job.finished = true;
    if (job.heartbeat) clearInterval(job.heartbeat);
    job.heartbeat = null;
    Object.assign(job.record, extra);
    job.record.state = state;
    if (job.record.upstream_status === undefined || job.record.upstream_status === null) {
      // ends without a result (cancelled, interrupted, failed inside the runner): upstream says failed, with why
      job.record.upstream_status = 'failed';
      job.record.upstream_error = terminal.event === 'error' ? (terminal.data.raw_error ?? terminal.data.detail) : null;
    }
    job.record.queue_position = null;
    job.record.process = null;
    job.record.finished_at = new Date().toISOString();
    if (terminal.event === 'result') job.record.result = terminal.data;
    else job.record.error = terminal.data;
    emit(job, terminal.event, JSON.stringify(terminal.data));
    job.subscribers.clear();
    try {
      await job.log.close();
      await store.saveJob(job.record);
    } catch (err) {
      opts.log(`job ${job.id}: could not save its end: ${errorMessage(err)}`);
    }
    lightRecords.set(job.id, { ...job.record, result: null });
    liveJobs.delete(job.id);
    job.markDone();
    sweepAfterJob();
  };

  /**
   * The data dir's budget is kept between the hourly sweeps too. Jobs past --max-data are swept at once: when a job
   * ends (before its end is sent) and each time a job's stored output has grown by BUDGET_CHECK_SHARE of the budget,
   * so a burst of floods never takes the data dir much past it. Otherwise (the age limit) a run of short jobs sweeps
   * once a gap (a minute) at most: a job that ends sooner after the last sweep has one scheduled for when the gap is
   * over.
   */
  let deferredSweep: NodeJS.Timeout | null = null;
  const retentionGapMs = opts.retentionGapMs ?? SWEEP_AFTER_JOB_MS;
  const sweepAfterJob = () => {
    if (closing) return;
    const wait = lastSweepMs + retentionGapMs - Date.now();
    if (wait <= 0) void sweep();
    else if (!deferredSweep) {
      deferredSweep = setTimeout(() => {
        deferredSweep = null;
        if (!closing) void sweep();
      }, wait);
      deferredSweep.unref();
    }
  };
  const budgetCheckStep = Math.max(1, Math.floor(opts.retention.maxTotalBytes * BUDGET_CHECK_SHARE));
  /** A sweep now if the jobs take more than --max-data and some of it is finished jobs (which a sweep may delete). */
  const sweepIfOver = () =>
    afterSweeps(async () => {
      if (closing) return;
      try {
        const { total, finished } = await store.jobsBytes((id) => liveJobs.has(id));
        if (total <= opts.retention.maxTotalBytes || finished === 0) return;
      } catch (err) {
        opts.log(`retention: could not measure the data dir: ${errorMessage(err)}`);
        return;
      }
      await retentionSweep();
    });

  const runJob = async (job: LiveJob, slot: GpuSlot) => {
    const rec = job.record;
    rec.state = 'running';
    rec.started_at = new Date().toISOString();
    rec.queue_position = 0;
    rec.runner = runnerName(slot);
    void store.saveJob(rec);
    emitStatus(job);
    const hardTimer = setTimeout(() => {
      job.hardTimedOut = true;
      job.abort.abort(`${HARD_TIMEOUT_ERROR} (a job may run ${opts.hardTimeoutMs / 1000} s in all)`);
    }, opts.hardTimeoutMs);
    try {
      await mkdir(store.workDir(job.id), { recursive: true });
      const outcome = await evaluateJob({
        jobId: job.id,
        leaderboard: rec.leaderboard,
        mode: rec.mode,
        problem: job.problem,
        fileName: rec.file_name,
        code: job.code,
        ...(job.profile ? { profile: job.profile } : {}),
        slot,
        secretSeed: job.problem && rec.mode === 'leaderboard' ? store.secretSeed(rec.leaderboard) : 0,
        system: opts.system.forSlot(slot),
        workDir: store.workDir(job.id),
        artifactsDir: store.artifactsDir(job.id),
        artifactUrl: (name) => artifactLink(rec.base_url, routes.artifact(job.id, name)),
        signal: job.abort.signal,
        settings: opts.settings,
        onLine: (stream, line) => emitOutput(job, stream, line),
        outputPressure: () => job.log.pressure(),
        outputBudget: job.outputBudget,
        onRun: (key) => {
          job.currentRun = key;
          emitStatus(job);
        },
        // a run waiting in the executor's own queue (Slurm's pending jobs ahead of it): its place in status events
        onQueuePosition: (position) => {
          if (rec.queue_position === position) return;
          rec.queue_position = position;
          emitStatus(job);
        },
        onProcess: (pid) => {
          rec.process = pid === null ? null : processGroupRef(pid);
          void store.saveJob(rec);
        },
      });
      const result = {
        event: 'result' as const,
        data: { status: 'success' as const, results: outcome.results, reports: outcome.reports },
      };
      const scores = { artifacts: outcome.artifacts, score: outcome.score, secret_score: outcome.secretScore };
      if (job.interrupting) {
        await finish(job, { event: 'error', data: STOPPED_RUNNING }, 'interrupted');
      } else if (job.hardTimedOut) {
        // the runs so far are kept, as upstream keeps the runs it recorded before its hard timeout
        await finish(job, result, 'timed_out', {
          ...scores,
          upstream_status: 'timed_out',
          upstream_error: HARD_TIMEOUT_ERROR,
        });
      } else if (outcome.state === 'cancelled') {
        await finish(job, { event: 'error', data: CANCELLED }, 'cancelled');
      } else {
        const upstream = upstreamCompletion(rec.mode, rec.gpu, outcome.results);
        await finish(job, result, outcome.state, {
          ...scores,
          upstream_status: upstream.status,
          upstream_error: upstream.error,
        });
      }
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      opts.log(`job ${job.id} failed inside the runner: ${e.stack ?? e.message}`);
      await finish(
        job,
        {
          event: 'error',
          data: {
            status: 'error',
            detail: `An unexpected error occurred: ${e.name}`,
            raw_error: e.message,
            status_code: 500,
          },
        },
        'failed',
      );
    } finally {
      clearTimeout(hardTimer);
    }
  };

  const scheduler: Scheduler<LiveJob> = createScheduler<LiveJob>(opts.inventory.slots, runJob, updatePositions);

  const retentionSweep = async () => {
    lastSweepMs = Date.now();
    try {
      const deleted = await store.applyRetention(opts.retention, (id) => liveJobs.has(id));
      for (const id of deleted) lightRecords.delete(id);
      if (deleted.length) opts.log(`retention: deleted ${deleted.length} old job(s): ${deleted.join(', ')}`);
    } catch (err) {
      opts.log(`retention sweep failed: ${errorMessage(err)}`);
    }
  };
  /** Sweeps run one at a time: two at once would count the same jobs twice. */
  let retentionRun: Promise<void> = Promise.resolve();
  const afterSweeps = (work: () => Promise<void>) => (retentionRun = retentionRun.then(work, work));
  const sweep = () => afterSweeps(retentionSweep);
  void sweep();
  const retentionTimer = setInterval(() => void sweep(), opts.retentionIntervalMs);
  retentionTimer.unref();

  const cancel = async (id: number): Promise<JobState | undefined> => {
    const job = liveJobs.get(id);
    if (!job) return lightRecords.get(id)?.state;
    if (scheduler.remove(job)) {
      job.abort.abort();
      await finish(job, { event: 'error', data: CANCELLED }, 'cancelled');
    } else {
      job.abort.abort();
      await job.done;
    }
    return job.record.state;
  };

  const publicRecord = (rec: StoredJob): JobRecord => ({
    id: rec.id,
    leaderboard: rec.leaderboard,
    gpu: rec.gpu,
    mode: rec.mode,
    file_name: rec.file_name,
    state: rec.state,
    queue_position: rec.queue_position,
    created_at: rec.created_at,
    started_at: rec.started_at,
    finished_at: rec.finished_at,
    last_event_id: rec.last_event_id,
    result: rec.result,
    error: rec.error,
    artifacts: rec.artifacts,
  });

  return {
    async submit(req) {
      if (closing) throw new QueueFullError('the runner is shutting down');
      const waiting = scheduler.counts(req.gpu).queued;
      if (waiting >= opts.maxQueuedJobs)
        throw new QueueFullError(`the queue for ${req.gpu} is full (${waiting} jobs waiting); try again later`);
      // `queue_position` (see core/protocol/api.ts): 0 = a free device takes it at once, else its place in line
      const placeInLine = () => {
        const c = scheduler.counts(req.gpu);
        return c.idle > 0 ? 0 : c.queued + 1;
      };
      const id = store.allocateId();
      const now = new Date();
      const record: StoredJob = {
        id,
        leaderboard: req.leaderboard,
        gpu: req.gpu,
        mode: req.mode,
        file_name: req.fileName,
        state: 'queued',
        queue_position: placeInLine(),
        created_at: now.toISOString(),
        started_at: null,
        finished_at: null,
        last_event_id: 0,
        result: null,
        error: null,
        artifacts: [],
        base_url: req.baseUrl,
        last_heartbeat: null,
        score: null,
        runner: '',
      };
      await store.createJob(record, req.code);
      // others may have been queued meanwhile; from here to enqueue() nothing awaits
      const position = placeInLine();
      record.queue_position = position;
      let markDone = () => undefined as void;
      const done = new Promise<void>((resolve) => (markDone = resolve));
      const subscribers = new Set<Subscriber>(req.subscriber ? [req.subscriber] : []);
      const job: LiveJob = {
        id,
        gpu: req.gpu,
        record,
        log: store.openLog(id, (batch) => {
          for (const sub of subscribers) sub.frames?.(batch);
        }),
        subscribers,
        abort: new AbortController(),
        heartbeat: null,
        createdMs: now.getTime(),
        problem: req.problem,
        code: req.code.toString('utf8'),
        ...(req.profile ? { profile: req.profile } : {}),
        currentRun: null,
        done,
        markDone,
        interrupting: false,
        hardTimedOut: false,
        finished: false,
        output: createOutputBatcher({ emit: (json) => emitOutputBatch(job, json) }),
        outputBudget: createOutputBudget(opts.maxJobOutputBytes),
        nextBudgetCheck: budgetCheckStep,
        ending: false,
      };
      liveJobs.set(id, job);
      lightRecords.set(id, record);
      emit(
        job,
        'job',
        JSON.stringify({
          job_id: id,
          leaderboard: req.leaderboard,
          gpu: req.gpu,
          mode: req.mode,
          queue_position: position,
        }),
      );
      emitStatus(job);
      job.heartbeat = setInterval(() => emitStatus(job), opts.heartbeatMs);
      scheduler.enqueue(job);
      return job;
    },
    live: (id) => liveJobs.get(id),
    record(id, full = false) {
      const live = liveJobs.get(id);
      if (live) return live.record;
      const light = lightRecords.get(id);
      if (!light || !full) return light;
      return store.loadJob(id) ?? light;
    },
    records: () => [...lightRecords.values()].sort((a, b) => b.id - a.id),
    publicRecord,
    subscribe(job, sub) {
      job.subscribers.add(sub);
    },
    unsubscribe(job, sub) {
      job.subscribers.delete(sub);
    },
    cancel,
    async remove(id) {
      if (!lightRecords.has(id)) return false;
      await cancel(id);
      lightRecords.delete(id);
      await store.deleteJob(id);
      return true;
    },
    queueCounts: (gpu) => scheduler.counts(gpu),
    async close() {
      closing = true;
      clearInterval(retentionTimer);
      if (deferredSweep) clearTimeout(deferredSweep);
      const jobs = [...liveJobs.values()];
      // take every waiting job out of the queues first, so that no job starts while others are being stopped
      const waiting = jobs.filter((job) => scheduler.remove(job));
      for (const job of jobs) {
        job.interrupting = true;
        job.abort.abort();
      }
      const notStarted: ErrorEvent = {
        status: 'error',
        detail: 'Interrupted: the runner was stopped before this job started; submit it again',
        status_code: 503,
      };
      await Promise.all(waiting.map((job) => finish(job, { event: 'error', data: notStarted }, 'interrupted')));
      // The executor's stop path (SIGINT/SIGTERM, SIGKILL after the grace period) ends a running job; should one not
      // end even then (a pipe held open by something outside its reach), it is still recorded as interrupted before
      // the runner exits, rather than holding the stop up forever and leaving `running` on disk.
      const bound = opts.settings.graceMs + CLOSE_MARGIN_MS;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, bound)));
      await Promise.race([Promise.all(jobs.map((j) => j.done)), timedOut]);
      clearTimeout(timer);
      const stuck = jobs.filter((j) => !j.finished);
      for (const job of stuck)
        opts.log(
          `job ${job.id}: still running ${Math.round(bound / 1000)} s after it was told to stop; recording it as interrupted`,
        );
      await Promise.all(stuck.map((job) => finish(job, { event: 'error', data: STOPPED_RUNNING }, 'interrupted')));
      await retentionRun;
      store.close();
    },
  };
}
