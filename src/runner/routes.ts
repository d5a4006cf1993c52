// The HTTP routes: GPU MODE's submission API with upstream's shapes, plus the additive job routes.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import {
  EXTENSIONS_HEADER,
  SCRIPT_LEADERBOARD,
  isSubmissionMode,
  isTerminalJobState,
  terminalEventNames,
  type BackgroundAccepted,
  type CancelAnswer,
  type Health,
  type RankedSubmission,
  type RunnerQueue,
  type SubmissionMode,
  type SubmissionDetailRun,
  type UserSubmissionDetail,
  type UserSubmissionSummary,
} from '../core/protocol/api';
import { parseDirectivesServer } from '../core/directives';
import { checkSubmission, SCRIPT_EXTRA_EXTENSIONS } from '../core/submissionChecks';
import {
  hasProfileOptions,
  PROFILE_FORM_FIELDS,
  profileFormFields,
  profileOptionsFromForm,
  ProfileOptionError,
  profileOptionsWhat,
  type ProfileOptions,
} from '../core/profileOptions';
import { readEventLog, type FrameBatch } from './eventLog';
import { isMultiDevice, type GpuInventory } from './gpus';
import { HttpError, sendJson } from './http/errors';
import { createRouter, type RequestContext, type Router } from './http/router';
import { createPlainFramer, openSse, type SseWriter } from './http/sse';
import type { BacklogBudget } from './http/backlogBudget';
import { readUpload } from './http/upload';
import type { JobManager, LiveJob, Subscriber } from './jobs';
import { QueueFullError } from './jobs';
import { leaderboardEntry, type Problem } from './problems';
import { noProfilerDetail, type Profiler } from './profilers';
import { containedPath, type JobStore, type StoredJob } from './store';
import type { Executor } from './executors';
import { errorMessage } from '../core/errors';
import { sseFrame } from '../core/protocol/sseFrame';

export interface RouteServices {
  jobs: JobManager;
  store: JobStore;
  problems: Map<string, Problem>;
  inventory: GpuInventory;
  profiler: Profiler | null;
  version: string;
  maxFileBytes: number;
  /** Overrides the base URL taken from the Host header (a runner behind a proxy). */
  publicUrl?: string;
  /** What extension clients may hold of unsent live output, each and together (past it: relayed from the log). */
  backlog: BacklogBudget;
  /** The runner's log (serve prints it). */
  log?: (line: string) => void;
  heartbeatMs: number;
  /** Where jobs run; a Slurm executor's queue and availability are the cluster's. Default: local. */
  executor?: Executor;
}

const jobStateToUpstream: Record<StoredJob['state'], string> = {
  queued: 'pending',
  running: 'running',
  succeeded: 'succeeded',
  failed: 'failed',
  timed_out: 'timed_out',
  cancelled: 'failed',
  interrupted: 'failed',
};

function wantsExtensions(ctx: RequestContext): boolean {
  return ctx.req.headers[EXTENSIONS_HEADER.toLowerCase()] === '1';
}

function baseUrl(ctx: RequestContext, services: RouteServices): string {
  if (services.publicUrl) return services.publicUrl.replace(/\/+$/, '') + '/';
  const host = ctx.req.headers.host ?? `${ctx.req.socket.localAddress}:${ctx.req.socket.localPort}`;
  return `http://${host}/`;
}

function intParam(
  value: string | null | undefined,
  what: string,
  opts: { min?: number; max?: number; fallback?: number } = {},
): number {
  if (value === null || value === undefined || value === '') {
    if (opts.fallback !== undefined) return opts.fallback;
    throw new HttpError(400, `${what} is required`);
  }
  if (!/^-?\d+$/.test(value)) throw new HttpError(400, `${what} must be an integer, got '${value}'`);
  const n = Number(value);
  if (opts.min !== undefined && n < opts.min) throw new HttpError(400, `${what} must be >= ${opts.min}`);
  if (opts.max !== undefined && n > opts.max) throw new HttpError(400, `${what} must be <= ${opts.max}`);
  return n;
}

function jobId(ctx: RequestContext): number {
  const raw = ctx.params.id ?? '';
  if (!/^\d{1,15}$/.test(raw)) throw new HttpError(404, `Job '${raw}' not found`);
  return Number(raw);
}

/** A safe name to keep the upload under: its base name with path and control characters removed. */
export function safeFileName(name: string): string {
  const base = basename(name.replace(/\\/g, '/'))
    .replace(/[^\w.+-]/g, '_')
    .replace(/^\.+/, '');
  return base.slice(-120) || 'submission';
}

function findLeaderboard(services: RouteServices, name: string): { name: string; problem: Problem | null } {
  if (name === SCRIPT_LEADERBOARD || name.toLowerCase() === SCRIPT_LEADERBOARD)
    return { name: SCRIPT_LEADERBOARD, problem: null };
  const exact = services.problems.get(name);
  if (exact) return { name, problem: exact };
  // popcorn-cli lower-cases the leaderboard name in the URL
  for (const [key, problem] of services.problems)
    if (key.toLowerCase() === name.toLowerCase()) return { name: key, problem };
  const names = [...services.problems.keys(), SCRIPT_LEADERBOARD].join(', ');
  throw new HttpError(404, `Leaderboard '${name}' not found. Leaderboards on this runner: ${names}`);
}

interface AcceptedSubmission {
  leaderboard: string;
  problem: Problem | null;
  gpu: string;
  mode: SubmissionMode;
  fileName: string;
  bytes: Buffer;
  profile?: ProfileOptions;
}

/**
 * A refusal of kernelbot's prepare_submission step (file extension, directives, ...). Upstream's streaming route
 * reports these inside the stream, after its 200: `event: error` with `status_code: 400`; everywhere else (the
 * background route, our extension clients) they are the HTTP answer.
 */
class PreparationError extends HttpError {
  override readonly name = 'PreparationError';
  override readonly code = 'RUNNER_PREPARATION';
  constructor(detail: string) {
    super(400, detail);
  }
}

/** The GPUs a leaderboard takes: its own list (competition entry or task.yml), else what this runner has. */
function leaderboardGpus(services: RouteServices, problem: Problem | null): string[] {
  if (problem?.gpus.length) return problem.gpus;
  const { slots } = services.inventory;
  const names = (multi: boolean) => [...new Set(slots.filter((s) => isMultiDevice(s) === multi).map((s) => s.gpu))];
  if (!problem) return services.inventory.names;
  // a multi-GPU task goes to the multi-device slots (MI300x8) when there are any; other tasks to single devices
  if (problem.multiGpu && names(true).length) return names(true);
  return names(false);
}

async function acceptSubmission(ctx: RequestContext, services: RouteServices): Promise<AcceptedSubmission> {
  const mode = (ctx.params.mode ?? '').toLowerCase();
  if (!isSubmissionMode(mode))
    throw new HttpError(
      400,
      `Invalid submission mode value: '${ctx.params.mode}' (use test, benchmark, leaderboard or profile)`,
    );
  const lb = findLeaderboard(services, ctx.params.leaderboard ?? '');
  const gpu = ctx.params.gpu ?? '';
  const gpus = leaderboardGpus(services, lb.problem);
  if (!gpus.includes(gpu)) {
    throw new HttpError(
      400,
      `GPU type '${gpu}' is not supported for leaderboard '${lb.name}'. Supported GPUs: ${gpus.join(', ') || 'None'}`,
    );
  }
  if (!services.inventory.names.includes(gpu)) {
    const group = /^(.+)x(\d+)$/.exec(gpu);
    const how = group
      ? `a runner with ${group[2]} GPUs serves them as ${gpu} when started with --gpu-name ${group[1]}`
      : `start the runner with --gpu-name ${gpu} to run them on this machine's GPU (or CPU)`;
    throw new HttpError(
      400,
      `Leaderboard '${lb.name}' runs on ${gpu}, which this runner does not have (it has ${services.inventory.names.join(', ')}): ${how}.`,
    );
  }
  const upload = await readUpload(ctx.req, services.maxFileBytes);
  const fileName = upload.fileName || (lb.problem ? 'submission.py' : '');
  const isScript = lb.problem === null;
  // The script leaderboard is ours: HIP sources are welcome there, and so is the word "stream" (hipStream_t),
  // which upstream rejects in every submission (kept for problems, so a pre-flight here predicts GPU MODE).
  const problems = checkSubmission(
    fileName,
    upload.bytes,
    isScript ? { extraExtensions: SCRIPT_EXTRA_EXTENSIONS } : {},
  ).filter((p) => !(isScript && p.code === 'stream-keyword'));
  const message = (p: (typeof problems)[number]) => (p.line ? `${p.message} (line ${p.line})` : p.message);
  // upstream reads and checks the upload first (size, UTF-8, "stream"); the extension is a preparation check
  const direct = problems.find((p) => p.code !== 'bad-extension');
  if (direct) throw new HttpError(direct.status, message(direct));
  const badExtension = problems[0];
  if (badExtension) throw new PreparationError(message(badExtension));
  // A .cpp or .cu upload to a Python leaderboard is taken as upstream takes it: its text becomes submission.py.
  if (lb.problem?.lang === 'cu' && !/\.(cu|cuh|cpp)$/.test(fileName)) {
    throw new PreparationError(
      `Leaderboard '${lb.name}' takes CUDA submissions (a .cu file defining custom_kernel); got ${fileName}`,
    );
  }
  const source = upload.bytes.toString('utf8');
  const directives = parseDirectivesServer(source, fileName, { expectedLeaderboard: lb.name });
  // popcorn-cli lower-cases the URL's leaderboard name, so a directive may differ from it by case only
  const mismatchOk = (e: { code: string }) =>
    e.code === 'leaderboard-mismatch' && directives.leaderboard?.toLowerCase() === lb.name.toLowerCase();
  const errors = directives.errors.filter((e) => !mismatchOk(e));
  if (errors.length) throw new PreparationError(errors.map((e) => e.message).join('; '));
  if (mode === 'profile' && !services.profiler) throw new PreparationError(noProfilerDetail(services.inventory.names));
  const profile = profileOptionsOf(upload.fields, mode, lb.problem, services);
  return {
    leaderboard: lb.name,
    problem: lb.problem,
    gpu,
    mode,
    fileName: safeFileName(fileName),
    bytes: upload.bytes,
    ...(profile ? { profile } : {}),
  };
}

/**
 * Profile mode's form fields (core/profileOptions.ts), checked before anything runs: a bad value is a 400 naming
 * the field, and no value reaches a command line unchecked.
 */
function profileOptionsOf(
  fields: Record<string, string>,
  mode: SubmissionMode,
  problem: Problem | null,
  services: RouteServices,
): ProfileOptions | null {
  let options: ProfileOptions;
  try {
    options = profileOptionsFromForm(fields);
  } catch (err) {
    if (err instanceof ProfileOptionError)
      throw new HttpError(400, `Invalid profile option '${PROFILE_FORM_FIELDS[err.field]}': ${err.message}`);
    throw err;
  }
  if (!hasProfileOptions(options)) return null;
  const given = profileFormFields(options)
    .map(([name]) => name)
    .join(', ');
  if (mode !== 'profile') throw new HttpError(400, `${given}: profile options apply to profile mode only, not ${mode}`);
  if (services.profiler && services.profiler.kind !== 'rocprofv3') {
    throw new HttpError(
      400,
      `${given}: ${profileOptionsWhat(options)} (profile options) need rocprofv3; this runner profiles with legacy rocprof (v1)`,
    );
  }
  if (options.caseIndex !== undefined) {
    if (!problem)
      throw new HttpError(
        400,
        `Invalid profile option 'case': the script leaderboard has no benchmark cases (leave it out)`,
      );
    const n = problem.benchmarkLines.length;
    if (options.caseIndex >= n) {
      throw new HttpError(
        400,
        `Invalid profile option 'case': ${options.caseIndex} is past the last benchmark case of ${problem.name} (${n} case${n === 1 ? '' : 's'}: 0 to ${n - 1})`,
      );
    }
  }
  return options;
}

function runnerQueue(services: RouteServices, gpu: string): RunnerQueue {
  const known = services.inventory.names.includes(gpu);
  const own = services.jobs.queueCounts(gpu);
  const health = services.executor?.health();
  if (known && health && !health.available) {
    return {
      runner: 'kernel-runner',
      gpu,
      queued_jobs: null,
      running_jobs: null,
      available_runners: null,
      status: 'unavailable',
      error: health.detail,
    };
  }
  // a cluster's queue: its pending and running jobs (all users) plus ours not handed to it yet, its idle nodes
  const cluster = services.executor?.queueCounts(gpu) ?? null;
  const c = cluster ? { queued: cluster.queued + own.queued, running: cluster.running, idle: cluster.idle } : own;
  return {
    runner: 'kernel-runner',
    gpu,
    queued_jobs: c.queued,
    running_jobs: c.running,
    available_runners: known ? c.idle : 0,
    status: known ? 'available' : 'unavailable',
    error: known ? null : `GPU '${gpu}' is not served by this runner (GPUs: ${services.inventory.names.join(', ')})`,
  };
}

function submissionRuns(rec: StoredJob): SubmissionDetailRun[] {
  const runs: SubmissionDetailRun[] = [];
  rec.result?.results.forEach((full, i) => {
    for (const [mode, ev] of Object.entries(full.runs)) {
      runs.push({
        start_time: ev.start,
        end_time: ev.end,
        mode,
        secret: i > 0,
        runner: rec.runner || rec.gpu,
        // the secret copy is scored as the public run is (kernelbot scores every passed `leaderboard` run)
        score: mode !== 'leaderboard' ? null : i === 0 ? rec.score : i === 1 ? (rec.secret_score ?? null) : null,
        passed: ev.run?.passed === true && (ev.compilation?.success ?? true),
        result: ev.run?.result ?? null,
      });
    }
  });
  return runs;
}

function userSubmissionDetail(services: RouteServices, rec: StoredJob): UserSubmissionDetail {
  const done = isTerminalJobState(rec.state);
  // upstream's status once the job has ended (completion.ts); records from before it: our state, mapped
  const known = rec.upstream_status !== undefined && rec.upstream_status !== null;
  const status = known ? (rec.upstream_status as string) : jobStateToUpstream[rec.state];
  let error: string | null = known ? (rec.upstream_error ?? null) : (rec.error?.detail ?? null);
  if (rec.state === 'cancelled' && !error) error = 'Submission cancelled';
  return {
    id: rec.id,
    leaderboard_id: null,
    leaderboard_name: rec.leaderboard,
    file_name: rec.file_name,
    user_id: null,
    submission_time: rec.created_at,
    done,
    code: services.store.readCode(rec),
    runs: submissionRuns(rec),
    job: { status, error, last_heartbeat: rec.last_heartbeat, state: rec.state },
    runner_queue: runnerQueue(services, rec.gpu),
  };
}

/** Past its own cap or a large share of a runner over its budget: the client leaves the live batches (logged). */
function tooFarBehind(services: RouteServices, writer: SseWriter, jobId: number): boolean {
  const verdict = services.backlog.check(writer);
  if (!verdict.over) return false;
  const mb = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  services.log?.(
    verdict.reason === 'client'
      ? `job ${jobId}: a client is ${mb(verdict.clientBytes)} behind the live output; it continues from the job's log as it reads`
      : `job ${jobId}: a client is ${mb(verdict.clientBytes)} behind and all clients together ${mb(verdict.totalBytes)} (over the runner's budget); it continues from the job's log as it reads`,
  );
  return true;
}

/**
 * Relays a job's events to an extension client on `writer`: the log's frames with id > after, then live batches,
 * until the terminal event. Replay and live never overlap: pending events are flushed before subscribing, the
 * replay stops at the last id written then, and every later batch starts after it. A client too slow for the live
 * batches (its unsent backlog past its cap, or its share of the runner's budget: backlogBudget.ts) is not cut off: it is unsubscribed, and once its socket
 * drains it continues from the log the same way, so the runner's memory stays bounded and the client never has
 * to reconnect.
 */
function relayJobEvents(
  services: RouteServices,
  writer: SseWriter,
  id: number,
  live: LiveJob | undefined,
  after: number,
): { stop(): void } {
  const { jobs } = services;
  let lagging = false;
  let lastSent = after;
  let ended = false;
  const sub: Subscriber = {
    frames(batch) {
      sendBatch(batch);
    },
  };
  const stop = () => {
    ended = true;
    if (live) jobs.unsubscribe(live, sub);
  };
  const finish = () => {
    stop();
    writer.end();
  };
  const sendBatch = (batch: FrameBatch) => {
    if (ended || lagging || batch.last <= lastSent) return;
    let bytes = batch.bytes;
    if (batch.first <= lastSent) {
      // a live job asked for from an id inside this batch: start at the frame after lastSent
      const at = bytes.indexOf(`\n\nid: ${lastSent + 1}\n`);
      bytes = at < 0 ? bytes : bytes.subarray(at + 2);
    }
    lastSent = batch.last;
    writer.write(bytes);
    if (batch.terminal) finish();
    else if (tooFarBehind(services, writer, id)) {
      lagging = true;
      if (live) jobs.unsubscribe(live, sub);
      void writer.drain().then(follow);
    }
  };
  let resumeAt = { last: 0, offset: 0 }; // a frame boundary in the log: every frame before it is at or below `last`
  /**
   * Reads the log from lastSent as the client takes it, until it has caught up with everything the job has logged;
   * only then does it take live batches again. Nothing is held for it meanwhile: a job that writes faster than the
   * client reads is followed from its log to its end (holding live batches during the replay grew without bound).
   */
  const follow = async (): Promise<void> => {
    lagging = false;
    for (;;) {
      if (ended) return;
      let upTo = Number.POSITIVE_INFINITY;
      if (live) {
        live.log.flush();
        upTo = live.log.lastId;
        await live.log.flushed();
      }
      // the log is read on from where the last read ended (all before it is at or below lastSent), not from its start
      for await (const chunk of readEventLog(
        services.store.eventsPath(id),
        lastSent,
        upTo,
        resumeAt.last <= lastSent ? resumeAt.offset : 0,
      )) {
        if (ended) return;
        writer.write(chunk.bytes);
        lastSent = chunk.last;
        resumeAt = { last: chunk.last, offset: chunk.end };
        if (terminalEventNames.includes(chunk.lastEvent)) {
          finish();
          return;
        }
        await writer.drain();
      }
      if (ended) return;
      // a job that had ended before: its whole log was read
      if (!live) {
        finish();
        return;
      }
      // what was logged while the client read: from the log again. Else (synchronously, so that no batch goes out
      // in between) it follows the live batches from the next id.
      live.log.flush();
      if (live.log.lastId > lastSent) continue;
      // a job that ended while still listed as live (its record being saved): its terminal event was appended when it
      // ended, so the client has it (it asked from it or past it); no batch comes any more
      if (live.finished) {
        finish();
        return;
      }
      jobs.subscribe(live, sub);
      return;
    }
  };
  void follow().catch(() => {
    stop();
    writer.end();
  });
  return { stop };
}

/** GET /jobs/{id}/events: the job's events after `after` (Last-Event-ID), then live ones, until its end. */
function streamJobEvents(ctx: RequestContext, services: RouteServices, id: number, after: number): void {
  const { jobs } = services;
  const live: LiveJob | undefined = jobs.live(id);
  const known = jobs.record(id)?.last_event_id ?? 0;
  if (!live && after > known)
    throw new HttpError(400, `Last-Event-ID ${after} is past job ${id}'s last event (${known})`);
  let relay: { stop(): void } | null = null;
  const writer = openSse(ctx.res, () => relay?.stop());
  services.backlog.track(writer);
  relay = relayJobEvents(services, writer, id, live, after);
}

export function createRoutes(services: RouteServices): Router {
  const { jobs } = services;
  const router = createRouter();

  router.serve('health', ({ res }) => {
    const executor = services.executor?.health();
    const body: Health = {
      status: 'ok',
      version: services.version,
      gpus: services.inventory.names,
      profiler: services.profiler?.kind ?? null,
      ...(executor ? { executor: { ...executor } } : {}),
    };
    sendJson(res, 200, body);
  });

  router.serve('leaderboards', ({ res }) => {
    const names = [...services.problems.keys()].sort();
    const list = names.map((n, i) => {
      const problem = services.problems.get(n) as Problem;
      return leaderboardEntry(problem, i + 1, leaderboardGpus(services, problem));
    });
    list.push(leaderboardEntry(null, names.length + 1, leaderboardGpus(services, null)));
    sendJson(res, 200, list);
  });

  router.serve('gpus', (ctx) => {
    sendJson(ctx.res, 200, leaderboardGpus(services, findLeaderboard(services, ctx.params.leaderboard ?? '').problem));
  });

  // Registration and invite codes are GPU MODE's: this runner knows one token, and every leaderboard is open.
  router.serve('authInit', (ctx) => {
    throw new HttpError(
      400,
      'This runner does not register users: it takes its token as the identity. For popcorn-cli, put the token in ~/.popcorn.yaml ' +
        '(cli_id: <token>; any value when the runner has no token) and set POPCORN_API_URL=' +
        baseUrl(ctx, services).replace(/\/$/, '') +
        '. ' +
        'kernel-runner takes --server URL and --token (or $KERNEL_RUNNER_TOKEN); in VS Code, kernelRunner.server and Set Token.',
    );
  });

  router.serve('userJoin', () => {
    throw new HttpError(
      400,
      'This runner has no invite codes: every leaderboard on it is open to anyone with its token.',
    );
  });

  router.serve('runnerQueue', (ctx) => sendJson(ctx.res, 200, runnerQueue(services, ctx.params.gpu ?? '')));

  router.serve('rankedSubmissions', (ctx) => {
    const lb = findLeaderboard(services, ctx.params.leaderboard ?? '');
    const limit = intParam(ctx.url.searchParams.get('limit'), 'limit', { min: 1, max: 1000, fallback: 1000 });
    const offset = intParam(ctx.url.searchParams.get('offset'), 'offset', { min: 0, fallback: 0 });
    const ranked = jobs
      .records()
      .filter(
        (r) =>
          r.leaderboard === lb.name &&
          r.gpu === ctx.params.gpu &&
          r.mode === 'leaderboard' &&
          r.state === 'succeeded' &&
          r.score !== null,
      )
      .sort((a, b) => (a.score as number) - (b.score as number));
    const body: RankedSubmission[] = ranked.slice(offset, offset + limit).map((r, i) => ({
      submission_id: r.id,
      rank: offset + i + 1,
      submission_name: r.file_name,
      submission_time: r.created_at,
      submission_score: r.score as number,
      user_name: 'local',
      gpu_type: r.gpu,
    }));
    sendJson(ctx.res, 200, body);
  });

  router.serve('submitBackground', async (ctx) => {
    const sub = await acceptSubmission(ctx, services);
    const job = await submit(sub, ctx);
    const body: BackgroundAccepted = {
      status: 'accepted',
      details: { id: job.id, job_status_id: job.id },
      runner_queue: runnerQueue(services, sub.gpu),
    };
    sendJson(ctx.res, 202, body);
  });

  router.serve('submit', async (ctx) => {
    const ext = wantsExtensions(ctx);
    let accepted: AcceptedSubmission;
    try {
      accepted = await acceptSubmission(ctx, services);
    } catch (err) {
      if (ext || !(err instanceof PreparationError)) throw err;
      // upstream: the stream has started (a status event), then the refusal arrives inside it
      const writer = openSse(ctx.res, () => undefined);
      writer.write(sseFrame('status', JSON.stringify({ status: 'processing', elapsed_time: 0 })));
      writer.write(sseFrame('error', JSON.stringify({ status: 'error', detail: err.detail, status_code: err.status })));
      writer.end();
      return;
    }
    let job: LiveJob | null = null;
    let finished = false;
    const plain = createPlainFramer(services.heartbeatMs);
    const writer = openSse(ctx.res, () => {
      relay?.stop();
      if (!job || finished) return;
      jobs.unsubscribe(job, subscriber);
      // upstream cancels a streaming submission whose client went away; extension clients resume instead
      if (!ext) void jobs.cancel(job.id);
    });
    if (ext) services.backlog.track(writer);
    // too slow for the live batches: from here on it is relayed from the log (see relayJobEvents)
    let relay: { stop(): void } | null = null;
    let lastSent = 0;
    const subscriber: Subscriber = ext
      ? {
          frames(batch) {
            writer.write(batch.bytes);
            lastSent = batch.last;
            if (batch.terminal) {
              finished = true;
              writer.end();
            } else if (job && tooFarBehind(services, writer, job.id)) {
              const slow = job;
              jobs.unsubscribe(slow, subscriber);
              void writer.drain().then(() => {
                if (!writer.closed) relay = relayJobEvents(services, writer, slow.id, jobs.live(slow.id), lastSent);
              });
            }
          },
        }
      : {
          event(ev) {
            const frame = plain(ev);
            if (frame) writer.write(frame);
            if (terminalEventNames.includes(ev.event)) {
              finished = true;
              writer.end();
            }
          },
        };
    try {
      job = await submit(accepted, ctx, subscriber);
    } catch (err) {
      const detail = errorMessage(err);
      writer.write(sseFrame('error', JSON.stringify({ status: 'error', detail, status_code: 503 })));
      writer.end();
    }
  });

  const submit = async (s: AcceptedSubmission, ctx: RequestContext, subscriber?: Subscriber): Promise<LiveJob> => {
    try {
      return await jobs.submit({ ...s, code: s.bytes, baseUrl: baseUrl(ctx, services), subscriber });
    } catch (err) {
      if (err instanceof QueueFullError) throw new HttpError(503, err.message, { 'Retry-After': '30' });
      throw err;
    }
  };

  router.serve('userSubmissions', (ctx) => {
    const q = ctx.url.searchParams;
    const limit = intParam(q.get('limit'), 'limit', { min: 1, max: 100, fallback: 50 });
    const offset = intParam(q.get('offset'), 'offset', { min: 0, fallback: 0 });
    const leaderboard = q.get('leaderboard');
    const list: UserSubmissionSummary[] = jobs
      .records()
      .filter((r) => !leaderboard || r.leaderboard === leaderboard)
      .slice(offset, offset + limit)
      .map((r) => ({
        id: r.id,
        leaderboard_name: r.leaderboard,
        file_name: r.file_name,
        submission_time: r.created_at,
        done: isTerminalJobState(r.state),
        runs:
          isTerminalJobState(r.state) && r.state !== 'cancelled' && r.state !== 'interrupted'
            ? [{ gpu_type: r.gpu, score: r.score }]
            : [],
      }));
    sendJson(ctx.res, 200, list);
  });

  router.serve('userSubmission', (ctx) => {
    const id = jobId(ctx);
    const rec = jobs.record(id, true);
    if (!rec) throw new HttpError(404, 'Submission not found');
    sendJson(ctx.res, 200, userSubmissionDetail(services, rec));
  });

  router.serve('deleteUserSubmission', async (ctx) => {
    const id = jobId(ctx);
    if (!(await jobs.remove(id))) throw new HttpError(404, 'Submission not found');
    sendJson(ctx.res, 200, { status: 'ok', submission_id: id });
  });

  router.serve('job', (ctx) => {
    const rec = jobs.record(jobId(ctx), true);
    if (!rec) throw new HttpError(404, `Job ${ctx.params.id} not found`);
    sendJson(ctx.res, 200, jobs.publicRecord(rec));
  });

  router.serve('cancelJob', async (ctx) => {
    const id = jobId(ctx);
    const state = await jobs.cancel(id);
    if (!state) throw new HttpError(404, `Job ${id} not found`);
    const body: CancelAnswer = { status: 'ok', job_id: id, state };
    sendJson(ctx.res, 200, body);
  });

  router.serve('jobEvents', async (ctx) => {
    const id = jobId(ctx);
    if (!jobs.record(id)) throw new HttpError(404, `Job ${id} not found`);
    const header = ctx.req.headers['last-event-id'];
    const raw = typeof header === 'string' && header.trim() !== '' ? header.trim() : ctx.url.searchParams.get('after');
    const after = intParam(raw, 'Last-Event-ID', { min: 0, fallback: 0 });
    streamJobEvents(ctx, services, id, after);
  });

  router.serve('artifact', async (ctx) => {
    const id = jobId(ctx);
    const rec = jobs.record(id);
    if (!rec) throw new HttpError(404, `Job ${id} not found`);
    const name = ctx.params.name ?? '';
    const path = containedPath(services.store.artifactsDir(id), name);
    if (!path) throw new HttpError(400, `Invalid artifact name '${name}': a plain file name is expected`);
    let size: number;
    try {
      const st = await stat(path);
      if (!st.isFile()) throw new Error('not a file');
      size = st.size;
    } catch {
      throw new HttpError(404, `Artifact '${name}' of job ${id} not found`);
    }
    ctx.res.writeHead(200, {
      'Content-Type': extname(name) === '.zip' ? 'application/zip' : 'application/octet-stream',
      'Content-Length': size,
      'Content-Disposition': `attachment; filename="${name}"`,
      'Cache-Control': 'no-store',
    });
    if (ctx.req.method === 'HEAD') {
      ctx.res.end();
      return;
    }
    await new Promise<void>((resolve) => {
      const stream = createReadStream(path);
      stream.on('error', () => {
        ctx.res.destroy();
        resolve();
      });
      ctx.res.on('close', () => {
        stream.destroy();
        resolve();
      });
      stream.pipe(ctx.res);
    });
  });

  return router;
}
