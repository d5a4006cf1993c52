// One run of a file: resolve the target, pick leaderboard/GPU, submit through the runner client, stream live
// output into the channel (noise hidden), keep the status bar and a cancellable progress notification current,
// then show the result (channel summary + results panel). Cancel really cancels: DELETE /jobs/{id} on the runner.
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { createRunnerClient, isRunnerClientError, type ClientEvent, type RunnerClient, type StreamOutcome } from '../core/client';
import type { SubmissionMode } from '../core/protocol/api';
import { ChoiceStore, UserFacingError, chooseLeaderboardAndGpu, type Choice } from './choices';
import type { Ctx } from './ctx';
import { buildResultView, outcomeSummary, resultLines, resultOutputLines, type ProfileExtras, type Terminal } from './resultModel';
import type { ProfileActions, ResultsPanels } from './resultsPanel';
import type { RunLog, RunOutput } from './runOutput';
import type { StatusBar } from './statusBar';
import type { ResolvedTarget, Targets } from './targets';
import type { TraceFiles } from './traceFiles';
import type { ProfileView, ResultView } from '../webview/protocol';

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

  constructor(
    private readonly ctx: Ctx,
    private readonly targets: Targets,
    private readonly output: RunOutput,
    private readonly status: StatusBar,
    private readonly panels: ResultsPanels,
    private readonly traceFiles: TraceFiles,
  ) {
    this.choices = new ChoiceStore(ctx.extCtx.workspaceState);
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
      this.active = undefined;
      this.status.setJob(undefined);
      finish();
    }
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
      client = createRunnerClient({
        baseUrl: target.baseUrl,
        ...(target.token ? { token: target.token } : {}),
        ...(target.cliId ? { cliId: target.cliId } : {}),
        // GPU MODE's service has no live output or resumable streams: speak plain upstream to it.
        extensions: target.kind !== 'gpumode',
        userAgent: 'kernel-runner-vscode',
      });
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

    let sawOutput = false;
    let jobId: number | undefined;
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
          }
          const msg = state === 'queued' && q !== undefined ? `queued (position ${q})` : `${state ?? ev.data.status} · ${Math.round(ev.data.elapsed_time)} s`;
          progress.report({ message: msg });
          // Upstream GPU MODE sends no live output: heartbeats are all there is until the result.
          if (!sawOutput && ev.id === undefined) log.info(`${ev.data.status} · ${Math.round(ev.data.elapsed_time)} s`);
          break;
        }
        case 'output':
          if (!sawOutput) {
            sawOutput = true;
            this.status.setJob({ file, mode: req.mode, state: 'running', startedAt: t0 });
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
          try {
            progress.report({ message: `submitting to ${target.label}` });
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

    const extras = new Map<string, ProfileExtras>();
    const summaries = new Map<string, NonNullable<ProfileView['summary']>>();
    if (terminal.kind === 'result') await this.saveInlineTraces(terminal, jobId, file, extras, summaries, log);

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
      { perfettoMaxBytes: this.ctx.config.perfettoMaxTraceBytes, profileExtras: (k) => extras.get(k), summaries: (k) => summaries.get(k) },
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

  /** GPU MODE returns the profile zip inline (base64): save it, and summarise it when no summary came along. */
  private async saveInlineTraces(
    terminal: Extract<Terminal, { kind: 'result' }>,
    jobId: number | undefined,
    file: string,
    extras: Map<string, ProfileExtras>,
    summaries: Map<string, NonNullable<ProfileView['summary']>>,
    log: RunLog,
  ): Promise<void> {
    for (const r of terminal.result.results) {
      for (const [key, ev] of Object.entries(r.runs)) {
        const p = ev.profile;
        if (!p?.trace || p.download_url) continue;
        try {
          const saved = await this.traceFiles.saveInlineZip(p.trace, `${file}-${jobId ?? Date.now()}-${key}`);
          const extra: ProfileExtras = { localPath: saved.path, traceBytes: saved.bytes };
          if (p.summary === undefined) {
            try {
              summaries.set(key, await this.traceFiles.summarize(saved.path));
            } catch (err) {
              extra.note = `No summary: ${err instanceof Error ? err.message : String(err)}`;
            }
          }
          extras.set(key, extra);
        } catch (err) {
          log.error(`Could not save the ${key} trace: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    }
  }

  private profileActions(client: RunnerClient, jobId: number | undefined, file: string): ProfileActions {
    return {
      downloadTrace: (p) => this.traceFiles.downloadForUser(client, p, `${file.replace(/\.[^.]+$/, '')}-${jobId ?? 'trace'}-${p.key}.zip`),
      openPerfetto: (p) => this.traceFiles.openInPerfetto(client, p, `${file} ${p.key}`),
    };
  }

  /** Writes a clear error to the channel and a notification; returns the text. */
  private reportFailure(log: RunLog, err: unknown, target: ResolvedTarget | undefined, file: string): string {
    const text = describeError(err, target);
    log.error(text);
    const actions = err instanceof UserFacingError ? err.actions : isRunnerClientError(err) && err.type === 'network' ? ['Select Target…'] : [];
    void vscode.window.showErrorMessage(`Kernel Runner: ${file}: ${text}`, ...actions, 'Show Output').then((pick) => {
      if (pick === 'Select Target…') void vscode.commands.executeCommand('kernelRunner.selectTarget');
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

  dispose(): void {
    this.active?.abort.abort(new Error('extension deactivated'));
  }
}

export function describeError(err: unknown, target: ResolvedTarget | undefined): string {
  if (err instanceof UserFacingError) return err.message;
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
