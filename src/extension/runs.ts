// One run of a file: resolve the target, pick leaderboard/GPU, check the file as the service would (refusing to
// send it with the reasons), submit through the runner client, stream live output into the channel (noise hidden),
// keep the status bar and a cancellable progress notification current, then show the result (channel summary +
// results panel). Cancel really cancels: DELETE /jobs/{id} on the runner. Against GPU MODE, test / benchmark /
// leaderboard go through the background route and are polled (as popcorn-cli does); those submissions are kept in
// globalState while in flight and picked up again after a window reload.
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { isRunnerClientError, type ClientEvent, type RunnerClient, type StreamOutcome } from '../core/client';
import { EXTENSION_REGISTER_HINTS, explainGpuModeError, isGpuModeError } from '../core/gpumode/errors';
import { formatRunnerQueue } from '../core/gpumode/leaderboards';
import { pollSubmission } from '../core/gpumode/poll';
import { saveProfileTraces } from '../core/gpumode/traces';
import { queueLabel, type SubmissionMode, type UserSubmissionDetail } from '../core/protocol/api';
import { ChoiceStore, UserFacingError, chooseLeaderboardAndGpu, offerDirectives, type Choice } from './choices';
import type { Ctx } from './ctx';
import type { SubmissionDiagnostics } from './diagnostics';
import { InFlightStore, type InFlightSubmission } from './gpumode/inflight';
import { describeBlocking } from './preflight';
import { buildResultView, buildSubmissionView, outcomeSummary, resultLines, resultOutputLines, type ProfileExtras, type RunContext, type Terminal } from './resultModel';
import type { ProfileActions, ResultsPanels } from './resultsPanel';
import type { RunLog, RunOutput } from './runOutput';
import { formatElapsed, type StatusBar } from './statusBar';
import { clientFor, type ResolvedTarget, type Targets } from './targets';
import type { TraceFiles } from './traceFiles';
import { hooks, notify } from './ui';
import type { ProfileView, ResultView } from '../webview/protocol';

/** Commands behind the buttons of failure notifications. */
const ACTION_COMMANDS: Record<string, string> = {
  'Select Target…': 'kernelRunner.selectTarget',
  'Re-register': 'kernelRunner.reregisterGpuMode',
  'Register with GPU MODE…': 'kernelRunner.registerGpuMode',
  'Show Problems': 'workbench.actions.view.problems',
};

export interface RunRequest {
  mode: SubmissionMode;
  title: string;
}

export interface RunRecord {
  file: string;
  mode: SubmissionMode;
  target: ResolvedTarget;
  choice: Choice;
  jobId?: number;
  view?: ResultView;
  log: RunLog;
}

interface ActiveRun {
  abort: AbortController;
  record: Partial<RunRecord> & { file: string };
  done: Promise<void>;
}

export class RunController implements vscode.Disposable {
  private active: ActiveRun | undefined;
  private readonly choices: ChoiceStore;
  private readonly history: RunRecord[] = [];
  private readonly inflight: InFlightStore;
  private disposing = false;
  private readonly finishedEmitter = new vscode.EventEmitter<void>();
  /** After every run (its submission may now show in "My Submissions"). */
  readonly onDidFinishRun = this.finishedEmitter.event;
  /** Between polls of a background submission (popcorn-cli: 5 s); tests shorten it. */
  get pollIntervalMs(): number {
    return hooks.pollIntervalMs ?? 5000;
  }

  constructor(
    private readonly ctx: Ctx,
    private readonly targets: Targets,
    private readonly output: RunOutput,
    private readonly status: StatusBar,
    private readonly panels: ResultsPanels,
    private readonly traceFiles: TraceFiles,
    private readonly diagnostics: SubmissionDiagnostics,
  ) {
    this.choices = new ChoiceStore(ctx.extCtx.workspaceState);
    this.inflight = new InFlightStore(ctx.extCtx.globalState);
  }

  /** Background submissions still being waited for (persisted across reloads). */
  inFlight(): InFlightSubmission[] {
    return this.inflight.list();
  }

  get lastRun(): RunRecord | undefined {
    return this.history[this.history.length - 1];
  }

  get running(): boolean {
    return this.active !== undefined;
  }

  /** Resolves when the current run (if any) has finished. */
  async idle(): Promise<void> {
    await this.active?.done;
  }

  async runFile(uri: vscode.Uri | undefined, req: RunRequest): Promise<void> {
    const doc = await this.documentFor(uri);
    if (!doc) {
      void vscode.window.showWarningMessage('Kernel Runner: open a kernel file (.py, .hip, .cu, .cpp) first, or use the command from the file\'s context menu.');
      return;
    }
    if (this.active) {
      const pick = await vscode.window.showWarningMessage(`Kernel Runner is already running ${this.active.record.file}.`, 'Cancel It', 'Show Output');
      if (pick === 'Cancel It') await this.cancel();
      else if (pick === 'Show Output') this.output.show();
      return;
    }
    const abort = new AbortController();
    let finish!: () => void;
    const done = new Promise<void>((r) => (finish = r));
    const file = basename(doc.uri.fsPath || doc.uri.path);
    this.active = { abort, record: { file, mode: req.mode }, done };
    try {
      await this.execute(doc, req, abort, file);
    } finally {
      this.endActive(finish);
    }
  }

  /** The active run is over (finished, failed or cancelled): clear the status bar and wake `idle()` waiters. */
  private endActive(finish: () => void): void {
    this.active = undefined;
    if (!this.disposing) {
      this.status.setJob(undefined);
      this.finishedEmitter.fire();
    }
    finish();
  }

  private async documentFor(uri: vscode.Uri | undefined): Promise<vscode.TextDocument | undefined> {
    if (uri) return vscode.workspace.openTextDocument(uri);
    return vscode.window.activeTextEditor?.document;
  }

  private async execute(doc: vscode.TextDocument, req: RunRequest, abort: AbortController, file: string): Promise<void> {
    const startedAt = new Date();
    const t0 = Date.now();
    this.status.setJob({ file, mode: req.mode, state: 'connecting', startedAt: t0 });
    const source = doc.getText();

    let target: ResolvedTarget | undefined;
    let client: RunnerClient;
    let choice: Choice | undefined;
    try {
      target = await this.targets.resolve();
      if (target.kind === 'gpumode' && !target.cliId && !target.token) {
        throw new UserFacingError(
          `No GPU MODE cli_id in ${this.targets.popcornConfigPath}: register with GPU MODE first (Kernel Runner and popcorn-cli share that file).`,
          ['Register with GPU MODE…'],
        );
      }
      client = clientFor(target);
      if (req.mode === 'profile') await this.checkProfiler(client, target, abort.signal);
      choice = await chooseLeaderboardAndGpu({
        client,
        uri: doc.uri,
        source,
        store: this.choices,
        targetLabel: target.label,
        ...(req.mode === 'profile' ? { requiredGpu: this.ctx.config.profileGpu } : {}),
        signal: abort.signal,
      });
      if (choice) {
        const blocking = await this.diagnostics.blockingProblems(doc, choice.leaderboard);
        if (blocking.length) {
          const who = target.kind === 'gpumode' ? 'GPU MODE' : 'the runner';
          throw new UserFacingError(
            `Not sent: ${file} has ${blocking.length === 1 ? 'a problem' : `${blocking.length} problems`} ${who} would reject it for (see the Problems panel):\n${describeBlocking(blocking).join('\n')}`,
            ['Show Problems'],
          );
        }
      }
    } catch (err) {
      const log = this.output.begin(`${req.title} ${file}${target ? ` · ${req.mode} · ${target.label} (${target.baseUrl})` : ''}`);
      this.reportFailure(log, err, target, file);
      log.end(`error: ${file}`);
      return;
    }
    if (!choice) return; // the user dismissed a picker

    const log = this.output.begin(`${req.title} ${file} · ${choice.leaderboard} on ${choice.gpu} · ${req.mode} · ${target.label} (${target.baseUrl})`);
    const record: RunRecord = { file, mode: req.mode, target, choice, log };
    this.history.push(record);
    if (this.history.length > 20) this.history.shift();
    if (this.active) this.active.record = record;
    this.output.show(true);
    if (choice.picked) void offerDirectives(doc, choice);

    if (target.kind === 'gpumode') {
      const queue = await client.runnerQueue(choice.gpu, { signal: abort.signal, timeoutMs: 5000 }).catch(() => undefined);
      if (queue) log.info(`runner queue: ${formatRunnerQueue(queue)}`);
      // popcorn-cli's way since long SSE connections were being dropped: the background route, then polling.
      if (req.mode !== 'profile') {
        await this.runBackground({ target, client, choice, req, file, uri: doc.uri, source, log, record, abort, t0 });
        return;
      }
    }

    let sawOutput = false;
    let jobId: number | undefined;
    // The notification says the stage and the same ticking clock as the status bar: the runner's heartbeats come
    // only every 15 s, so their elapsed_time would leave it stuck at "running · 0 s".
    let stage = `submitting to ${target.label}`;
    const reportStage = (progress: vscode.Progress<{ message?: string }>) => progress.report({ message: `${stage} · ${formatElapsed(Date.now() - t0)}` });
    const onEvent = (ev: ClientEvent, progress: vscode.Progress<{ message?: string }>) => {
      switch (ev.event) {
        case 'job':
          jobId = ev.data.job_id;
          record.jobId = jobId;
          this.status.setJob({ file, mode: req.mode, state: 'queued', queuePosition: ev.data.queue_position, startedAt: t0 });
          log.info(`job ${jobId} accepted by ${target.label}`);
          break;
        case 'status': {
          const state = ev.data.state;
          const q = ev.data.queue_position;
          if (state === 'queued' || state === 'running') {
            this.status.setJob({ file, mode: req.mode, state, ...(q !== undefined ? { queuePosition: q } : {}), startedAt: t0 });
          } else if (state === undefined && !sawOutput) {
            // Upstream heartbeats do not say whether the job is queued or running.
            this.status.setJob({ file, mode: req.mode, state: 'running', note: ev.data.status, startedAt: t0 });
          }
          stage = state === 'queued' && q !== undefined ? queueLabel(q) : (state ?? ev.data.status);
          reportStage(progress);
          // Upstream GPU MODE sends no live output: heartbeats are all there is until the result.
          if (!sawOutput && ev.id === undefined) log.info(`${ev.data.status} · ${Math.round(ev.data.elapsed_time)} s`);
          break;
        }
        case 'output':
          if (!sawOutput) {
            sawOutput = true;
            this.status.setJob({ file, mode: req.mode, state: 'running', startedAt: t0 });
            stage = 'running';
            reportStage(progress);
          }
          log.program(ev.data.text, ev.data.noise);
          break;
        case 'result':
        case 'error':
          this.status.setJob({ file, mode: req.mode, state: 'finishing', startedAt: t0 });
          break;
      }
    };

    let terminal: Terminal;
    let outcome: StreamOutcome | undefined;
    try {
      outcome = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Kernel Runner: ${req.title} ${file}`, cancellable: true },
        async (progress, token) => {
          const sub = token.onCancellationRequested(() => abort.abort(new Error('cancelled by the user')));
          reportStage(progress);
          const ticker = setInterval(() => reportStage(progress), 1000);
          try {
            return await client.submit(
              { leaderboard: choice.leaderboard, gpu: choice.gpu, mode: req.mode, file: { name: file, content: source } },
              {
                signal: abort.signal,
                cancelOnAbort: true,
                onEvent: (ev) => onEvent(ev, progress),
                onReconnect: (info) => log.info(`connection dropped (${info.reason.message}); resuming after event ${info.lastEventId} (attempt ${info.attempt})`),
              },
            );
          } finally {
            clearInterval(ticker);
            sub.dispose();
          }
        },
      );
      terminal = outcome.kind === 'result' ? { kind: 'result', result: outcome.result } : { kind: 'error', error: outcome.error };
    } catch (err) {
      if (abort.signal.aborted) {
        const state = jobId !== undefined ? await client.getJob(jobId, { timeoutMs: 5000 }).then((j) => j.state, () => undefined) : undefined;
        const detail = jobId !== undefined ? `Cancelled: job ${jobId} on ${target.label}${state ? ` is ${state}` : ''}.` : 'Cancelled before the runner accepted the job.';
        log.info(detail);
        terminal = { kind: 'cancelled', detail };
      } else {
        const detail = this.reportFailure(log, err, target, file);
        terminal = { kind: 'failed', detail };
      }
    }

    // Without live output (upstream GPU MODE), the program's output arrives inside the result.
    if (!sawOutput && terminal.kind === 'result') this.printResultOutput(log, terminal);

    // A ranked score computed from the timings needs the leaderboard's ranking (last | mean | geom).
    const rankingBy =
      terminal.kind === 'result' && req.mode === 'leaderboard'
        ? await client.listLeaderboards({ timeoutMs: 5000 }).then(
            (boards) => boards.find((b) => b.name === choice.leaderboard)?.task.ranking_by,
            () => undefined,
          )
        : undefined;
    const extras = new Map<string, ProfileExtras>();
    const summaries = new Map<string, NonNullable<ProfileView['summary']>>();
    if (terminal.kind === 'result') await this.saveInlineTraces(terminal, jobId, choice, file, extras, summaries, log);

    const view = buildResultView(
      {
        title: `${req.title}: ${file}`,
        fileName: file,
        leaderboard: choice.leaderboard,
        gpu: choice.gpu,
        mode: req.mode,
        target: target.label,
        startedAt: startedAt.toISOString(),
        elapsedS: (Date.now() - t0) / 1000,
        hiddenNoiseLines: log.hiddenNoise,
      },
      terminal,
      { perfettoMaxBytes: this.ctx.config.perfettoMaxTraceBytes, profileExtras: (k) => extras.get(k), summaries: (k) => summaries.get(k), ...(rankingBy ? { rankingBy } : {}) },
    );
    record.view = view;
    if (terminal.kind === 'result') log.block(resultLines(view));
    log.end(outcomeSummary(view));
    this.output.flush();

    const open = this.ctx.config.openResults;
    const show = open === 'always' || (open === 'profileOrFailure' && (view.profiles.length > 0 || view.outcome !== 'success'));
    if (terminal.kind !== 'cancelled' && terminal.kind !== 'failed' && show) {
      this.panels.show(view, this.profileActions(client, jobId, file));
    } else if (terminal.kind === 'result' && !show) {
      void vscode.window.showInformationMessage(`Kernel Runner: ${outcomeSummary(view)}`, 'Show Results').then((b) => {
        if (b) this.panels.show(view, this.profileActions(client, jobId, file));
      });
    }
  }

  /** Our runner says in /health whether it has a profiler; GPU MODE's service does not say (then we just try). */
  private async checkProfiler(client: RunnerClient, target: ResolvedTarget, signal: AbortSignal): Promise<void> {
    const health = await client.health({ signal, timeoutMs: 10_000 });
    if (health.profiler === null) {
      throw new UserFacingError(
        `The target (${target.label}) has no profiler: rocprofv3 was not found on its PATH. Profile on a runner on an MI300 machine with ROCm ("Kernel Runner: Select Target…").`,
        ['Select Target…'],
      );
    }
  }

  private printResultOutput(log: RunLog, terminal: Extract<Terminal, { kind: 'result' }>): void {
    for (const line of resultOutputLines(terminal.result)) {
      if (line.heading) log.info(line.text);
      else log.program(line.text, line.noise);
    }
  }

  /**
   * GPU MODE returns each profile zip inline (base64): save every one under its own name (never overwriting) and
   * summarise it with the trace toolkit when no summary came along.
   */
  private async saveInlineTraces(
    terminal: Extract<Terminal, { kind: 'result' }>,
    jobId: number | undefined,
    choice: Choice,
    file: string,
    extras: Map<string, ProfileExtras>,
    summaries: Map<string, NonNullable<ProfileView['summary']>>,
    log: RunLog,
  ): Promise<void> {
    const inline = terminal.result.results.some((r) => Object.values(r.runs).some((ev) => ev.profile?.trace && !ev.profile.download_url));
    if (!inline) return;
    try {
      const saved = await saveProfileTraces(terminal.result, {
        outDir: await this.traceFiles.tracesDir(),
        fileName: file,
        leaderboard: choice.leaderboard,
        gpu: choice.gpu,
        ...(jobId !== undefined ? { submissionId: jobId } : {}),
        summarize: true,
      });
      for (const t of saved) {
        const extra: ProfileExtras = { localPath: t.path, traceBytes: t.bytes };
        if (t.summary) summaries.set(t.run, t.summary);
        else if (t.summaryError) extra.note = `No summary: ${t.summaryError}`;
        extras.set(t.run, extra);
        log.info(`${t.run}: trace saved to ${t.path}`);
      }
    } catch (err) {
      log.error(`Could not save the profile traces: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private profileActions(client: RunnerClient, jobId: number | undefined, file: string): ProfileActions {
    return {
      downloadTrace: (p) => this.traceFiles.downloadForUser(client, p, `${file.replace(/\.[^.]+$/, '')}-${jobId ?? 'trace'}-${p.key}.zip`),
      openPerfetto: (p) => this.traceFiles.openInPerfetto(client, p, `${file} ${p.key}`),
    };
  }

  /** Writes a clear error to the channel and a notification (with what to do as buttons); returns the text. */
  private reportFailure(log: RunLog, err: unknown, target: ResolvedTarget | undefined, file: string): string {
    const explained = target?.kind === 'gpumode' ? explainGpuModeError(err, { hints: EXTENSION_REGISTER_HINTS }) : err;
    const text = describeError(explained, target);
    log.error(text);
    let actions: string[] = [];
    if (explained instanceof UserFacingError) actions = explained.actions;
    else if (isGpuModeError(explained) && explained.type === 'unregistered') actions = ['Re-register'];
    else if (isGpuModeError(explained) && explained.type === 'no-identity') actions = ['Register with GPU MODE…'];
    else if ((isRunnerClientError(explained) || isGpuModeError(explained)) && explained.type === 'network') actions = ['Select Target…'];
    void notify.error(`Kernel Runner: ${file}: ${text}`, ...actions, 'Show Output').then((pick) => {
      const command = pick ? ACTION_COMMANDS[pick] : undefined;
      if (command) void vscode.commands.executeCommand(command);
      else if (pick === 'Show Output') this.output.show(false);
    });
    return text;
  }

  async cancel(): Promise<void> {
    const run = this.active;
    if (!run) {
      void vscode.window.showInformationMessage('Kernel Runner: nothing is running.');
      return;
    }
    run.abort.abort(new Error('cancelled by the user'));
    await run.done;
  }

  /** Status bar click while a job runs. */
  async jobMenu(): Promise<void> {
    if (!this.active) {
      this.output.show(false);
      return;
    }
    const pick = await vscode.window.showQuickPick(['Show Output', 'Cancel Run'], { title: `Kernel Runner: ${this.active.record.file}` });
    if (pick === 'Show Output') this.output.show(false);
    else if (pick === 'Cancel Run') await this.cancel();
  }

  async dispose(): Promise<void> {
    this.disposing = true;
    this.finishedEmitter.dispose();
    const run = this.active;
    if (!run) return;
    run.abort.abort(new Error('extension deactivated'));
    // Background submissions stay in globalState: the next activation picks them up again.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([run.done, new Promise((r) => (timer = setTimeout(r, 5000)))]);
    clearTimeout(timer);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Background submissions (GPU MODE's test / benchmark / leaderboard modes)

  private async runBackground(p: {
    target: ResolvedTarget;
    client: RunnerClient;
    choice: Choice;
    req: RunRequest;
    file: string;
    uri: vscode.Uri;
    source: string;
    log: RunLog;
    record: RunRecord;
    abort: AbortController;
    t0: number;
  }): Promise<void> {
    const { target, client, choice, req, file, log, record, abort } = p;
    let entry: InFlightSubmission;
    try {
      const accepted = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Kernel Runner: submitting ${file} to ${target.label}`, cancellable: true },
        (_progress, token) => {
          const sub = token.onCancellationRequested(() => abort.abort(new Error('cancelled by the user')));
          return client
            .submitBackground({ leaderboard: choice.leaderboard, gpu: choice.gpu, mode: req.mode, file: { name: file, content: p.source } }, { signal: abort.signal, timeoutMs: 120_000 })
            .finally(() => sub.dispose());
        },
      );
      const id = accepted.details.id;
      record.jobId = id;
      log.info(`submission ${id} accepted by ${target.label}${accepted.runner_queue ? ` · ${formatRunnerQueue(accepted.runner_queue)}` : ''}`);
      entry = {
        id,
        baseUrl: target.baseUrl,
        targetLabel: target.label,
        uri: p.uri.toString(),
        file,
        mode: req.mode,
        leaderboard: choice.leaderboard,
        gpu: choice.gpu,
        title: req.title,
        startedAt: p.t0,
      };
      await this.inflight.add(entry);
    } catch (err) {
      if (this.disposing) return;
      if (abort.signal.aborted) {
        log.info('Cancelled before the service accepted the submission.');
        record.view = this.failureView(record, req.title, p.t0, { kind: 'cancelled', detail: 'Cancelled before the service accepted the submission.' });
      } else {
        record.view = this.failureView(record, req.title, p.t0, { kind: 'failed', detail: this.reportFailure(log, err, target, file) });
      }
      log.end(outcomeSummary(record.view));
      return;
    }
    await this.followSubmission(entry, client, target, log, record, abort, false);
  }

  private failureView(record: RunRecord, title: string, t0: number, terminal: Terminal): ResultView {
    return buildResultView(this.runContext(record.file, record.mode, record.choice, record.target.label, title, t0), terminal, {
      perfettoMaxBytes: this.ctx.config.perfettoMaxTraceBytes,
    });
  }

  private runContext(file: string, mode: SubmissionMode, choice: Pick<Choice, 'leaderboard' | 'gpu'>, targetLabel: string, title: string, t0: number): RunContext {
    return {
      title: `${title}: ${file}`,
      fileName: file,
      leaderboard: choice.leaderboard,
      gpu: choice.gpu,
      mode,
      target: targetLabel,
      startedAt: new Date(t0).toISOString(),
      elapsedS: (Date.now() - t0) / 1000,
      hiddenNoiseLines: 0,
    };
  }

  /** Polls a background submission to its end (status bar, progress, channel), then shows the result. */
  private async followSubmission(
    entry: InFlightSubmission,
    client: RunnerClient,
    target: ResolvedTarget,
    log: RunLog,
    record: RunRecord,
    abort: AbortController,
    resumed: boolean,
  ): Promise<void> {
    const { file, mode } = entry;
    const t0 = entry.startedAt;
    let lastLogged = Date.now();
    let detail: UserSubmissionDetail | undefined;
    let failure: unknown;
    try {
      detail = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Kernel Runner: ${entry.title} ${file} · submission #${entry.id}`, cancellable: true },
        async (progress, token) => {
          const sub = token.onCancellationRequested(() => abort.abort(new Error('stopped waiting by the user')));
          try {
            return await pollSubmission(client, entry.id, {
              signal: abort.signal,
              intervalMs: this.pollIntervalMs,
              // popcorn-cli waits an hour; a resumed submission has used part of it (one last poll at least).
              timeoutMs: Math.max(60_000, 3_600_000 - (Date.now() - t0)),
              hints: EXTENSION_REGISTER_HINTS,
              onUpdate: (u) => {
                const running = u.status.status === 'running';
                const q = u.detail.runner_queue;
                const note = !running && !u.status.terminal && q && q.status === 'available' ? `${q.queued_jobs} queued, ${q.running_jobs} running on ${entry.gpu}` : undefined;
                this.status.setJob({ file, mode, state: u.status.terminal ? 'finishing' : running ? 'running' : 'queued', ...(note ? { note } : {}), startedAt: t0 });
                const elapsed = formatElapsed(Date.now() - t0);
                const beat = u.lastHeartbeat ? heartbeatAge(u.lastHeartbeat) : '';
                progress.report({ message: `${u.status.label}${note ? ` (${note})` : ''} · ${elapsed}${beat}` });
                if (u.changed || Date.now() - lastLogged >= 60_000) {
                  lastLogged = Date.now();
                  log.info(`submission ${entry.id}: ${u.changed ? '' : 'still '}${u.status.label}${note ? ` (${note})` : ''} · ${elapsed}${beat}`);
                }
              },
              onRetry: (r) => log.info(`${entry.targetLabel} did not answer (${r.error.message}); polling again in ${Math.max(1, Math.round(r.delayMs / 1000))} s (attempt ${r.failures})`),
            });
          } finally {
            sub.dispose();
          }
        },
      );
    } catch (err) {
      failure = err;
    }
    if (this.disposing) return; // a reload: the entry stays for the next activation

    const ctx = this.runContext(file, mode, entry, entry.targetLabel, entry.title, t0);
    const opts = { perfettoMaxBytes: this.ctx.config.perfettoMaxTraceBytes };
    let view: ResultView;
    if (detail) {
      this.status.setJob({ file, mode, state: 'finishing', startedAt: t0 });
      view = buildSubmissionView(ctx, detail, opts);
      log.block(resultLines(view));
    } else if (abort.signal.aborted) {
      const text = `Stopped waiting for submission ${entry.id}: it keeps running on ${entry.targetLabel}; "My Submissions" shows its result later.`;
      log.info(text);
      view = buildResultView(ctx, { kind: 'cancelled', detail: text }, opts);
    } else {
      view = buildResultView(ctx, { kind: 'failed', detail: this.reportFailure(log, failure, target, file) }, opts);
    }
    view.submissionId = entry.id;
    record.view = view;
    log.end(outcomeSummary(view));
    this.output.flush();
    await this.inflight.remove(entry);
    if (!detail) return;

    const open = this.ctx.config.openResults;
    const show = open === 'always' || (open === 'profileOrFailure' && view.outcome !== 'success');
    if (show) this.panels.show(view);
    if (resumed || !show) {
      void notify.info(`Kernel Runner: submission #${entry.id} ${outcomeSummary(view)}`, ...(show ? [] : ['Show Results'])).then((b) => {
        if (b === 'Show Results') this.panels.show(view);
      });
    }
  }

  /** On activation: every background submission that was in flight when the window closed is followed again. */
  async resumeInFlight(): Promise<void> {
    for (const entry of this.inflight.list()) {
      while (this.active && !this.disposing) await this.active.done;
      if (this.disposing) return;
      await this.resumeOne(entry);
    }
  }

  private async resumeOne(entry: InFlightSubmission): Promise<void> {
    const abort = new AbortController();
    let finish!: () => void;
    const done = new Promise<void>((r) => (finish = r));
    this.active = { abort, record: { file: entry.file, mode: entry.mode }, done };
    try {
      const target: ResolvedTarget = { kind: 'gpumode', baseUrl: entry.baseUrl, label: entry.targetLabel, ...(await this.targets.identity(entry.baseUrl)) };
      const choice: Choice = { leaderboard: entry.leaderboard, gpu: entry.gpu };
      const log = this.output.begin(
        `${entry.title} ${entry.file} · ${entry.leaderboard} on ${entry.gpu} · ${entry.mode} · ${entry.targetLabel} (${entry.baseUrl}) · submission ${entry.id}, resumed`,
      );
      log.info(`picking up submission ${entry.id} again (submitted ${formatElapsed(Date.now() - entry.startedAt)} ago, before the window reloaded)`);
      this.output.show(true);
      const record: RunRecord = { file: entry.file, mode: entry.mode, target, choice, jobId: entry.id, log };
      this.history.push(record);
      if (this.history.length > 20) this.history.shift();
      this.active.record = record;
      this.status.setJob({ file: entry.file, mode: entry.mode, state: 'queued', startedAt: entry.startedAt });
      await this.followSubmission(entry, clientFor(target), target, log, record, abort, true);
    } catch (err) {
      console.error('[kernel-runner] resuming a submission failed:', err);
    } finally {
      this.endActive(finish);
    }
  }
}

function heartbeatAge(iso: string): string {
  const at = Date.parse(iso);
  if (!Number.isFinite(at)) return '';
  return ` · heartbeat ${formatElapsed(Math.max(0, Date.now() - at))} ago`;
}

export function describeError(err: unknown, target: ResolvedTarget | undefined): string {
  if (err instanceof UserFacingError) return err.message;
  if (isGpuModeError(err)) return err.message;
  if (isRunnerClientError(err)) {
    const where = target ? `the runner at ${target.baseUrl}` : 'the runner';
    switch (err.type) {
      case 'network': {
        const why = err.code === 'ECONNREFUSED' ? 'connection refused (nothing is listening there)' : err.code === 'ENOTFOUND' ? 'host not found' : (err.code ?? 'network error');
        const hint = target?.kind === 'embedded' ? '' : ' Is `kernel-runner serve` running? Check kernelRunner.server, or select the embedded runner ("Kernel Runner: Select Target…").';
        return `Cannot reach ${where}: ${why}.${hint} (${err.method} ${err.url})`;
      }
      case 'http':
        if (err.status === 401) return `${where} refused the credentials (401): set a token with "Kernel Runner: Set Token"${target?.kind === 'gpumode' ? ' or register with popcorn-cli (cli_id in ~/.popcorn.yaml)' : ''}. (${err.message})`;
        return `${where} answered ${err.status ?? ''}: ${err.detail ?? err.message}`;
      case 'timeout':
        return `${where} did not answer in time. (${err.message})`;
      case 'protocol':
        return `${where} sent something this version cannot read. (${err.message})`;
      case 'cancelled':
        return 'Cancelled.';
    }
  }
  return err instanceof Error ? err.message : String(err);
}
