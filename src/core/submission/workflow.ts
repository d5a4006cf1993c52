// One submission from file to outcome, for the CLI and the editor alike: identity, leaderboard and GPU, the checks
// the service would reject the file for, the profiler, the runner queue, the route (streaming with live output on
// our runner; GPU MODE's background route + polling for test/benchmark/leaderboard, its streaming route for
// profile), cancel, the result read into a score and pass/fail, and the profile archives saved. Front-ends pass
// callbacks and render the events; they decide nothing here.
import path from 'node:path';
import type { RunnerClient, StreamOutcome } from '../client/index';
import type { ClientEvent } from '../client/events';
import { isRunnerClientError } from '../client/errors';
import { formatElapsed } from '../format/durations';
import { formatRunnerQueue, type LeaderboardInfo } from '../gpumode/leaderboards';
import { pollSubmission } from '../gpumode/poll';
import { preflightSubmission } from '../gpumode/preflight';
import {
  describeSubmissionStatus,
  noDetailsAdvice,
  rankedScoreOfResult,
  rankedScoreOfSubmission,
  resultFromSubmission,
  runsWithoutDetails,
  submissionPassed,
} from '../gpumode/results';
import { rateLimitError } from '../gpumode/errors';
import { saveProfileTraces } from '../gpumode/traces';
import {
  expandOutput,
  queueLabel,
  routes,
  SCRIPT_LEADERBOARD,
  type OutputEvent,
  type ResultEvent,
  type UserSubmissionDetail,
} from '../protocol/api';
import type { ProfileDigest } from '../protocol/profileDigest';
import type { TraceSummary } from '../protocol/traceSummary';
import type { ResumeState, Route, SubmissionEvent, SubmissionOutcome } from './events';
import {
  action,
  explain,
  explainErrorEvent,
  NO_DETAILS_HINTS,
  registerHints,
  submissionError,
  type Surface,
} from './explain';
import { multiGpuRefusal } from './multiGpu';
import { remainingPollMs } from './policy';
import { resultPassed } from './resultMaps';
import type { Connection } from './service';
import {
  chooseFromFile,
  findLeaderboard,
  leaderboardCache,
  type ChooseContext,
  type Chooser,
  type ChosenTarget,
  type SubmissionRequest,
} from './target';
import { hasProfileOptions, profileFormFields, profileOptionsWhat, type ProfileOptions } from '../profileOptions';
import { errorMessage } from '../errors';
import { LOOKUP_TIMEOUT_MS, POLL_INTERVAL_MS, STREAM_IDLE_TIMEOUT_MS, UPLOAD_TIMEOUT_MS } from '../limits';

interface TraceOptions {
  /** Where profile archives are saved (a function: made only when there is something to save). */
  outDir: string | (() => Promise<string>);
  /** Summarises an archive that came without a summary (the trace toolkit's summarizePath). */
  summarize?: (file: string) => Promise<TraceSummary>;
  /** Makes each saved archive's profile digest from its summary (src/trace/digest); none: no digests. */
  digest?: (file: string, summary: TraceSummary) => Promise<ProfileDigest>;
  /** Also download archives that are not inline (our runner's artifacts); default false (the editor fetches on demand). */
  downloads?: boolean;
}

export interface WorkflowOptions {
  connection: Connection;
  surface: Surface;
  onEvent?: (event: SubmissionEvent) => void;
  signal?: AbortSignal;
  /**
   * Stops following without cancelling anything: the job keeps running on the service and can be resumed from the
   * `accepted` event's ResumeState (the editor's window reload). `signal` cancels our runner's job (DELETE).
   */
  detach?: AbortSignal;
  traces?: TraceOptions;
  /** Default POLL_INTERVAL_MS. */
  pollIntervalMs?: number;
  now?: () => number;
  /**
   * Output events may hold several consecutive lines of one stream and one noise class (`text` joined by "\n",
   * `lines` of them), as our runner batches them: a front-end that writes text (the CLI) is spared an event, a
   * split and a join per line. Default false: one event per line.
   */
  outputBatches?: boolean;
}

export interface RunSubmissionOptions extends WorkflowOptions {
  /** Leaderboard and GPU; default chooseFromFile (flags, directives, the service's list). Undefined = dismissed. */
  choose?: Chooser;
  /**
   * Problems the service would refuse the file for, as `file:line: message` lines; a non-empty list stops the
   * submission before anything is sent. Without it, GPU MODE's own checks (preflightSubmission) run against GPU
   * MODE before anything at all is asked of the service.
   */
  check?: (target: ChosenTarget) => string[] | Promise<string[]>;
}

const noop = () => undefined;

/** One pass of the workflow for a submission (runSubmission or resumeSubmission): the state its steps share. */
class Attempt {
  readonly emit: (event: SubmissionEvent) => void;
  readonly now: () => number;
  readonly startedAt: number;
  readonly leaderboards: () => Promise<LeaderboardInfo[]>;
  /** `signal` and `detach` in one. */
  readonly signal: AbortSignal | undefined;
  target: ChosenTarget | undefined;
  route: Route | undefined;
  id: number | undefined;
  liveOutput = false;
  noiseLines = 0;
  private lastStatus = '';

  constructor(
    readonly options: WorkflowOptions,
    readonly mode: SubmissionOutcome['mode'],
    readonly fileName: string,
  ) {
    this.emit = options.onEvent ?? noop;
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
    const { signal, detach } = options;
    this.signal = signal && detach ? AbortSignal.any([signal, detach]) : (signal ?? detach);
    this.leaderboards = leaderboardCache(options.connection, this.signal);
  }

  get connection(): Connection {
    return this.options.connection;
  }

  get client(): RunnerClient {
    return this.options.connection.client;
  }

  status(
    phase: Extract<SubmissionEvent, { type: 'status' }>['phase'],
    text: string,
    extra: { queuePosition?: number; run?: string; heartbeatAgeMs?: number; always?: boolean } = {},
  ): void {
    const changed = extra.always === true || text !== this.lastStatus;
    this.lastStatus = text;
    const { always: _always, ...rest } = extra;
    this.emit({ type: 'status', phase, text, changed, elapsedMs: this.now() - this.startedAt, ...rest });
  }

  outcome(fields: Partial<SubmissionOutcome> & Pick<SubmissionOutcome, 'kind'>): SubmissionOutcome {
    return {
      connection: this.connection,
      mode: this.mode,
      ...(this.target ? { target: this.target } : {}),
      ...(this.route ? { route: this.route } : {}),
      ...(this.id !== undefined ? { id: this.id } : {}),
      passed: false,
      score: null,
      traces: [],
      liveOutput: this.liveOutput,
      noiseLines: this.noiseLines,
      startedAt: this.startedAt,
      elapsedMs: this.now() - this.startedAt,
      ...fields,
    };
  }

  /** The explanation for an aborted run: what happened to the job on the service. */
  async cancelled(): Promise<SubmissionOutcome> {
    const { connection } = this;
    let message: string;
    if (this.options.detach?.aborted)
      message = `Stopped following ${this.route === 'background' ? 'submission' : 'job'} ${this.id ?? '(not accepted yet)'}: it keeps running on ${connection.label}.`;
    else if (this.id === undefined) message = 'Cancelled before the service accepted the submission.';
    else if (this.route === 'background') {
      const later =
        this.options.surface === 'cli'
          ? `\`kernel-runner submissions show ${this.id}\` shows`
          : '"My Submissions" shows';
      message = `Stopped waiting for submission ${this.id}: it keeps running on ${connection.label}; ${later} its result later.`;
    } else if (connection.service === 'gpumode')
      message = `Cancelled (GPU MODE has no cancel: submission ${this.id} may still finish there).`;
    else {
      const state = await this.client.getJob(this.id, { timeoutMs: LOOKUP_TIMEOUT_MS }).then(
        (j) => j.state,
        () => undefined,
      );
      message = `Cancelled: job ${this.id} on ${connection.label}${state ? ` is ${state}` : ' was stopped'}.`;
    }
    return this.outcome({ kind: 'cancelled', explanation: { kind: 'cancelled', message, actions: [] } });
  }

  failed(err: unknown): SubmissionOutcome {
    const { connection } = this;
    const explanation = explain(err, {
      service: connection.service,
      baseUrl: connection.baseUrl,
      embedded: connection.embedded,
      surface: this.options.surface,
    });
    return this.outcome({ kind: 'failed', explanation });
  }

  resumeState(kind: ResumeState['kind'], id: number): ResumeState {
    const t = this.target as ChosenTarget;
    return {
      kind,
      baseUrl: this.connection.baseUrl,
      service: this.connection.service,
      id,
      fileName: this.fileName,
      mode: this.mode,
      leaderboard: t.leaderboard,
      gpu: t.gpu,
      acceptedAt: this.now(),
    };
  }

  /** The leaderboard's ranking rule, for a score computed from timings (leaderboard mode only). */
  async rankingBy(): Promise<string | undefined> {
    if (this.mode !== 'leaderboard' || !this.target) return undefined;
    if (this.target.info?.rankingBy) return this.target.info.rankingBy;
    const infos = await this.leaderboards().catch(() => []);
    return findLeaderboard(infos, this.target.leaderboard)?.rankingBy;
  }

  async saveTraces(result: ResultEvent): Promise<Pick<SubmissionOutcome, 'traces' | 'traceError'>> {
    const opts = this.options.traces;
    if (!opts || !this.target) return { traces: [] };
    const wanted = result.results.some((r) =>
      Object.values(r.runs).some((ev) => ev.profile && (ev.profile.trace || opts.downloads)),
    );
    if (!wanted) return { traces: [] };
    try {
      const outDir = typeof opts.outDir === 'string' ? opts.outDir : await opts.outDir();
      const traces = await saveProfileTraces(result, {
        outDir,
        fileName: this.fileName,
        leaderboard: this.target.leaderboard,
        gpu: this.target.gpu,
        ...(this.id !== undefined ? { submissionId: this.id } : {}),
        ...(opts.downloads ? { client: this.client } : {}),
        ...(opts.summarize ? { summarize: opts.summarize } : {}),
        ...(opts.digest ? { digest: opts.digest } : {}),
        signal: this.signal,
      });
      for (const trace of traces) this.emit({ type: 'trace-saved', trace });
      return { traces };
    } catch (err) {
      return { traces: [], traceError: errorMessage(err) };
    }
  }

  // -------------------------------------------------------------------------------------------------------------
  // Streaming route

  private onStreamEvent(ev: ClientEvent, resume: boolean): void {
    switch (ev.event) {
      case 'job': {
        this.id = ev.data.job_id;
        if (resume) break;
        const t = this.target as ChosenTarget;
        const resumable = this.connection.service === 'kernel-runner' && !this.connection.embedded;
        this.emit({
          type: 'accepted',
          id: this.id,
          text: `job ${this.id}: ${this.fileName} → ${t.leaderboard} on ${t.gpu}, ${this.mode} (${this.connection.label === 'embedded runner' ? 'embedded runner' : this.connection.baseUrl})`,
          ...(resumable ? { resume: this.resumeState('stream', this.id) } : {}),
        });
        this.status('queued', queueLabel(ev.data.queue_position), { queuePosition: ev.data.queue_position });
        break;
      }
      case 'status': {
        const d = ev.data;
        if (d.state === undefined && d.queue_position === undefined && d.run === undefined) {
          // Upstream heartbeats say only "processing" and the time since submitting (ours when they leave it out).
          const elapsedMs = typeof d.elapsed_time === 'number' ? d.elapsed_time * 1000 : this.now() - this.startedAt;
          this.status('running', `[${formatElapsed(elapsedMs, { padMinutes: true })}] ${d.status}`, { always: true });
          break;
        }
        const position = d.queue_position ?? 0;
        if (position > 0)
          this.status('queued', `${queueLabel(position)} (waiting for a free device)`, { queuePosition: position });
        else if (d.run && d.state !== 'queued')
          this.status('running', `running ${d.run}`, { run: d.run, queuePosition: 0 });
        else
          this.status(
            d.state === 'queued' ? 'queued' : 'running',
            d.state === 'queued' ? queueLabel(position) : (d.state ?? d.status),
            { queuePosition: position },
          );
        break;
      }
      case 'output':
        if (!this.liveOutput) {
          this.liveOutput = true;
          this.status('running', 'running');
        }
        if (this.options.outputBatches) this.emitOutputBatches(ev.data);
        else
          for (const line of expandOutput(ev.data)) {
            if (line.noise) this.noiseLines += 1;
            this.emit({ type: 'output', stream: line.stream, text: line.text, noise: line.noise });
          }
        break;
      case 'result':
      case 'error':
        this.status('finishing', 'finishing');
        break;
    }
  }

  /**
   * An output event as runs of lines of one noise class: the whole event when no line differs from it, else each
   * run a slice of its text (the lines expandOutput gives, without an object per line).
   */
  private emitOutputBatches(data: OutputEvent): void {
    const { stream, text } = data;
    const marks = data.marks;
    if (data.lines === undefined || data.lines === 1 || !marks?.length) {
      const lines = data.lines ?? 1;
      if (data.noise) this.noiseLines += lines;
      this.emit({ type: 'output', stream, text, noise: data.noise, lines });
      return;
    }
    const marked = new Map<number, boolean>();
    for (const [index, , noise] of marks) marked.set(index, noise);
    const run = (from: number, to: number, noise: boolean, lines: number) => {
      if (noise) this.noiseLines += lines;
      this.emit({ type: 'output', stream, text: text.slice(from, to), noise, lines });
    };
    let runStart = 0;
    let runLines = 0;
    let runNoise = marked.get(0) ?? data.noise;
    for (let line = 0, at = 0; ; line++) {
      const noise = marked.get(line) ?? data.noise;
      if (noise !== runNoise) {
        run(runStart, at - 1, runNoise, runLines);
        runStart = at;
        runLines = 0;
        runNoise = noise;
      }
      runLines += 1;
      const end = text.indexOf('\n', at);
      if (end === -1) break;
      at = end + 1;
    }
    run(runStart, text.length, runNoise, runLines);
  }

  /** Profile options go to our runner, in profile mode only; GPU MODE's service does not take them. */
  private profileFields(request: SubmissionRequest): { profile?: ProfileOptions } {
    return this.mode === 'profile' && this.connection.service === 'kernel-runner' && hasProfileOptions(request.profile)
      ? { profile: request.profile }
      : {};
  }

  async stream(request: SubmissionRequest): Promise<SubmissionOutcome> {
    const t = this.target as ChosenTarget;
    const outcome = await this.client
      .submit(
        {
          leaderboard: t.leaderboard,
          gpu: t.gpu,
          mode: this.mode,
          file: { name: path.basename(request.filePath), content: request.content },
          ...this.profileFields(request),
        },
        this.followOptions(false),
      )
      .catch((err: unknown) => this.cancelJobOnAbort(err));
    return this.finishStream(outcome);
  }

  async resumeStream(state: ResumeState): Promise<SubmissionOutcome> {
    this.id = state.id;
    const outcome = await this.client
      .streamJob(state.id, { ...this.followOptions(true), after: 0 })
      .catch((err: unknown) => this.cancelJobOnAbort(err));
    return this.finishStream(outcome);
  }

  /** Cancel really cancels (DELETE /jobs/{id} on our runner, also for a resumed job); a detach does not. */
  private async cancelJobOnAbort(err: unknown): Promise<never> {
    if (
      this.options.signal?.aborted &&
      !this.options.detach?.aborted &&
      this.id !== undefined &&
      this.connection.service === 'kernel-runner'
    ) {
      await this.client.cancel(this.id, { timeoutMs: LOOKUP_TIMEOUT_MS }).catch(() => undefined);
    }
    throw err;
  }

  private followOptions(resume: boolean) {
    return {
      signal: this.signal,
      cancelOnAbort: false,
      idleTimeoutMs: STREAM_IDLE_TIMEOUT_MS,
      onEvent: (ev: ClientEvent) => this.onStreamEvent(ev, resume),
      onReconnect: (info: { jobId: number; lastEventId: number; attempt: number; delayMs: number; reason: Error }) =>
        this.emit({
          type: 'retry',
          delayMs: info.delayMs,
          text: `connection lost (${info.reason.message}); resuming job ${info.jobId} after event ${info.lastEventId} (attempt ${info.attempt})`,
        }),
    };
  }

  private async finishStream(outcome: StreamOutcome): Promise<SubmissionOutcome> {
    if (outcome.jobId !== undefined) this.id = outcome.jobId;
    if (outcome.kind === 'error') {
      const explanation = explainErrorEvent(outcome.error);
      if (explanation.kind === 'rate-limited' && this.connection.service === 'gpumode') {
        // The same limit as the background route's 429 (upstream re-raises it in-stream as 400): the same words.
        const t = this.target as ChosenTarget;
        const where = `POST ${this.connection.baseUrl.replace(/\/+$/, '')}${routes.submit(t.leaderboard, t.gpu, this.mode)}`;
        return this.failed(rateLimitError(outcome.error.detail, where));
      }
      return this.outcome({ kind: 'error', error: outcome.error, explanation });
    }
    const rankingBy = await this.rankingBy();
    const saved = await this.saveTraces(outcome.result);
    return this.outcome({
      kind: 'result',
      result: outcome.result,
      passed: resultPassed(outcome.result) && !saved.traceError,
      score: rankedScoreOfResult(outcome.result, rankingBy),
      ...(rankingBy ? { rankingBy } : {}),
      ...saved,
    });
  }

  // -------------------------------------------------------------------------------------------------------------
  // Background route + polling

  async background(request: SubmissionRequest): Promise<SubmissionOutcome> {
    const t = this.target as ChosenTarget;
    const accepted = await this.client.submitBackground(
      {
        leaderboard: t.leaderboard,
        gpu: t.gpu,
        mode: this.mode,
        file: { name: path.basename(request.filePath), content: request.content },
        ...this.profileFields(request),
      },
      { signal: this.signal, timeoutMs: UPLOAD_TIMEOUT_MS },
    );
    this.id = accepted.details.id;
    const queue = accepted.runner_queue ? ` · ${formatRunnerQueue(accepted.runner_queue)}` : '';
    const resume = this.resumeState('poll', this.id);
    this.emit({
      type: 'accepted',
      id: this.id,
      text: `submission ${this.id} accepted (${t.leaderboard} · ${t.gpu} · ${this.mode})${queue}; polling for the result`,
      resume,
    });
    return this.poll(resume.acceptedAt);
  }

  async poll(acceptedAt: number): Promise<SubmissionOutcome> {
    const id = this.id as number;
    const detail: UserSubmissionDetail = await pollSubmission(this.client, id, {
      signal: this.signal,
      intervalMs: this.options.pollIntervalMs ?? POLL_INTERVAL_MS,
      timeoutMs: remainingPollMs(acceptedAt, this.now()),
      hints: registerHints(this.options.surface),
      onUpdate: (u) => {
        const phase = u.status.terminal ? 'finishing' : u.status.status === 'running' ? 'running' : 'queued';
        const q = u.detail.runner_queue;
        const note = phase === 'queued' && q && q.status === 'available' ? ` (${formatRunnerQueue(q)})` : '';
        const at = u.lastHeartbeat ? Date.parse(u.lastHeartbeat) : NaN;
        this.status(
          phase,
          `${u.status.label}${note}`,
          Number.isFinite(at) ? { heartbeatAgeMs: Math.max(0, this.now() - at) } : {},
        );
      },
      onRetry: (r) =>
        this.emit({
          type: 'retry',
          delayMs: r.delayMs,
          text: `poll failed (${r.error.message}); retrying in ${Math.max(1, Math.ceil(r.delayMs / 1000))} s (${r.failures})`,
        }),
    });
    // As the polls said it: the job's status, else (deployments without `job`) `done`.
    const jobStatus = describeSubmissionStatus(detail);
    const rankingBy = await this.rankingBy();
    const bare = runsWithoutDetails(detail);
    const advice = bare.length ? [noDetailsAdvice(bare, NO_DETAILS_HINTS[this.options.surface])] : [];
    return this.outcome({
      ...(advice.length ? { advice } : {}),
      kind: 'result',
      result: resultFromSubmission(detail),
      submission: detail,
      jobStatus,
      passed: submissionPassed(detail),
      score: rankedScoreOfSubmission(detail, rankingBy),
      ...(rankingBy ? { rankingBy } : {}),
    });
  }
}

/** Our runner's /health (it says whether there is a profiler); asked once per connection when it is not known yet. */
async function ourHealth(connection: Connection, signal?: AbortSignal): Promise<Connection['health']> {
  connection.health ??= await connection.client.health({ signal, timeoutMs: LOOKUP_TIMEOUT_MS * 2 });
  return connection.health;
}

/**
 * Our runner: a multi-GPU leaderboard on a GPU with fewer devices than its cases' ranks is refused before anything is
 * sent (multiGpu.ts). A list that cannot be read leaves it to the runner.
 */
async function refuseTooFewDevices(
  attempt: Attempt,
  connection: Connection,
  target: ChosenTarget,
  request: SubmissionRequest,
  surface: Surface,
): Promise<void> {
  if (connection.service !== 'kernel-runner' || target.leaderboard === SCRIPT_LEADERBOARD) return;
  let info = target.info;
  if (!info) {
    try {
      info = findLeaderboard(await attempt.leaderboards(), target.leaderboard);
    } catch (err) {
      if (attempt.signal?.aborted) throw err;
      return;
    }
  }
  const refusal =
    info &&
    multiGpuRefusal(info, target.gpu, request.mode, {
      surface,
      embedded: connection.embedded,
      baseUrl: connection.baseUrl,
      file: request.filePath,
    });
  if (refusal) throw refusal;
}

function decode(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}

/** GPU MODE's own checks (our runner checks on arrival and answers with a detail). */
function gpuModeProblems(request: SubmissionRequest, leaderboard: string | undefined): string[] {
  return preflightSubmission(request.filePath, request.content, leaderboard ? { leaderboard } : {}).problems.map(
    (p) => p.text,
  );
}

/** Stops the submission when the checks found problems. */
function refuse(connection: Connection, fileName: string, problems: string[]): void {
  if (!problems.length) return;
  const who = connection.service === 'gpumode' ? 'GPU MODE' : 'the runner';
  const what = problems.length === 1 ? 'this problem' : `these ${problems.length} problems`;
  throw submissionError(
    'rejected',
    `Not sent: ${who} would reject ${fileName} for ${what}:\n${problems.map((p) => `  ${p}`).join('\n')}`,
    [action('show-problems')],
    { problems },
  );
}

/** Runs one submission to its outcome. Never throws for what can go wrong on the way: the outcome says. */
export async function runSubmission(
  request: SubmissionRequest,
  options: RunSubmissionOptions,
): Promise<SubmissionOutcome> {
  const attempt = new Attempt(options, request.mode, path.basename(request.filePath));
  const { connection } = options;
  const { signal } = attempt;
  try {
    if (connection.service === 'gpumode' && !connection.hasIdentity) {
      throw submissionError(
        'no-identity',
        `No GPU MODE cli_id in ${connection.identitySource ?? '~/.popcorn.yaml'}: register with GPU MODE first (Kernel Runner and popcorn-cli share that file). To register, ${registerHints(options.surface).register}.`,
        [action('register')],
      );
    }
    // Nothing leaves the machine (not even a look-up) before the file passes GPU MODE's own checks.
    if (!options.check && connection.service === 'gpumode')
      refuse(connection, attempt.fileName, gpuModeProblems(request, request.leaderboard));
    const source = decode(request.content);
    const ctx: ChooseContext = {
      connection,
      request,
      source,
      leaderboards: attempt.leaderboards,
      note: (text) => attempt.emit({ type: 'note', text }),
      ...(signal ? { signal } : {}),
    };
    const target = await (options.choose ?? chooseFromFile)(ctx);
    if (!target)
      return attempt.outcome({ kind: 'cancelled', explanation: { kind: 'cancelled', message: '', actions: [] } });
    attempt.target = target;

    if (options.check) refuse(connection, attempt.fileName, await options.check(target));
    await refuseTooFewDevices(attempt, connection, target, request, options.surface);
    if (
      request.mode === 'profile' &&
      connection.service === 'kernel-runner' &&
      (await ourHealth(connection, signal))?.profiler === null
    ) {
      const how = options.surface === 'cli' ? ' (`--server gpumode` profiles on GPU MODE)' : '';
      throw submissionError(
        'no-profiler',
        `${connection.label === 'embedded runner' ? 'The embedded runner' : `The runner at ${connection.baseUrl}`} has no profiler: rocprofv3 is not on its PATH. Profile on GPU MODE's MI300s${how}, or on a runner of yours on a machine with ROCm.`,
        [action('profile-on-gpumode'), action('select-target')],
      );
    }
    attempt.route = connection.service === 'gpumode' && request.mode !== 'profile' ? 'background' : 'stream';
    // kernelbot's check_deadline refuses every mode on both routes once the deadline passed; our runner keeps
    // accepting closed leaderboards for practice.
    if (connection.service === 'gpumode' && target.info?.closed) {
      throw submissionError(
        'usage',
        `Not sent: ${target.leaderboard} ${target.info.deadlineText}, and GPU MODE refuses every submission to a leaderboard after its deadline. A runner of ours (\`kernel-runner serve\`) keeps accepting closed leaderboards for practice.`,
        options.surface === 'cli' ? [] : [action('select-target')],
      );
    }
    attempt.emit({ type: 'target', target, mode: request.mode, route: attempt.route, connection });
    if (request.mode === 'profile' && connection.service !== 'kernel-runner' && hasProfileOptions(request.profile)) {
      attempt.emit({
        type: 'note',
        text: `${profileOptionsWhat(request.profile ?? {})} (${profileFormFields(request.profile ?? {})
          .map(([n, v]) => `${n}=${v}`)
          .join(', ')}) are options of Kernel Runner's runners; ${connection.label} profiles without them`,
      });
    }
    attempt.status('submitting', `submitting to ${connection.label}`);
    if (connection.service === 'gpumode') {
      try {
        attempt.emit({
          type: 'queue',
          text: `queue ${formatRunnerQueue(await connection.client.runnerQueue(target.gpu, { signal, timeoutMs: LOOKUP_TIMEOUT_MS }))}`,
        });
      } catch (err) {
        if (signal?.aborted) throw err;
        // Deployments from before the queue routes answer 404: nothing to tell.
        const absent = isRunnerClientError(err) && err.type === 'http' && err.status === 404;
        if (!absent) attempt.emit({ type: 'note', text: `could not read the runner queue (${errorMessage(err)})` });
      }
    }
    return attempt.route === 'background' ? await attempt.background(request) : await attempt.stream(request);
  } catch (err) {
    return attempt.signal?.aborted ? attempt.cancelled() : attempt.failed(err);
  }
}

/** Picks a submission up again after a restart (a window reload) and follows it to its outcome. */
export async function resumeSubmission(state: ResumeState, options: WorkflowOptions): Promise<SubmissionOutcome> {
  const attempt = new Attempt(options, state.mode, state.fileName);
  attempt.target = { leaderboard: state.leaderboard, gpu: state.gpu };
  attempt.route = state.kind === 'poll' ? 'background' : 'stream';
  attempt.id = state.id;
  try {
    return state.kind === 'poll' ? await attempt.poll(state.acceptedAt) : await attempt.resumeStream(state);
  } catch (err) {
    return attempt.signal?.aborted ? attempt.cancelled() : attempt.failed(err);
  }
}
