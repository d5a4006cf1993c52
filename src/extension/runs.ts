// The runs of the editor: one active run at a time (cancel, the status bar's job menu), the last runs for the
// test API, and submissions still in flight after a window reload. What a run does is core's submission workflow
// (src/core/submission: connection, leaderboard and GPU, checks, route, polling, cancel, traces, explanations);
// this file hands it the editor's parts (the pickers as `choose`, the Problems panel as `check`, where traces go)
// and runPresenter.ts draws its events. Submissions the workflow says are resumable (GPU MODE background polls,
// jobs on a self-hosted runner) are kept in globalState until their outcome arrives, and followed again on the
// next activation.
import * as vscode from 'vscode';
import { basename } from 'node:path';
import type { RunnerClient } from '../core/client';
import type { SubmissionMode } from '../core/protocol/api';
import {
  explain,
  pollIntervalFromEnv,
  resumeSubmission,
  runSubmission,
  type Connection,
  type SubmissionOutcome,
  type WorkflowOptions,
} from '../core/submission/index';
import { summarizePath } from '../trace/index';
import { ChoiceStore, documentChooser, offerDirectives, type Choice } from './choices';
import type { Ctx } from './ctx';
import type { SubmissionDiagnostics } from './diagnostics';
import type { FailureActionHost, RerunChange } from './failureActions';
import { InFlightStore, resumeStateOf, type InFlightSubmission } from './gpumode/inflight';
import { describeBlocking } from './preflight';
import type { ProfileActions, ResultsPanels } from './resultsPanel';
import { RunPresenter, type RunHeading } from './runPresenter';
import type { RunLog, RunOutput } from './runOutput';
import type { StatusBar } from './statusBar';
import type { TargetChoice, Targets } from './targets';
import type { TraceFiles } from './traceFiles';
import { hooks } from './ui';
import type { ResultView } from '../webview/protocol';

export interface RunRequest {
  mode: SubmissionMode;
  title: string;
  /** Profile on this GPU instead of kernelRunner.profileGpu (the "Profile on MI355X" button). */
  gpu?: string;
  /** The configured target (default), or GPU MODE's service for this run only ("Profile on GPU MODE"). */
  where?: TargetChoice;
}

export interface RunRecord {
  file: string;
  mode: SubmissionMode;
  target: { baseUrl: string; label: string };
  choice?: Choice;
  /** Our runner's job id, or the background submission's id. */
  jobId?: number;
  view?: ResultView;
  log?: RunLog;
}

interface ActiveRun {
  /** Cancel: the job is cancelled on our runner (DELETE), a background submission is no longer waited for. */
  abort: AbortController;
  /** A reload: stop following, leave the job running (it is resumed on the next activation). */
  detach: AbortController;
  /** Accepted with a resume state: a reload detaches instead of cancelling. */
  resumable: boolean;
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

  /** Between polls of a background submission: a test's hook, else KERNEL_RUNNER_POLL_MS, else popcorn-cli's 5 s. */
  get pollIntervalMs(): number {
    return hooks.pollIntervalMs ?? pollIntervalFromEnv();
  }

  /** Submissions still being waited for (persisted across reloads). */
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
    const doc = uri ? await vscode.workspace.openTextDocument(uri) : vscode.window.activeTextEditor?.document;
    if (!doc) {
      void vscode.window.showWarningMessage("Kernel Runner: open a kernel file (.py, .hip, .cu, .cpp) first, or use the command from the file's context menu.");
      return;
    }
    if (this.active) {
      const pick = await vscode.window.showWarningMessage(`Kernel Runner is already running ${this.active.record.file}.`, 'Cancel It', 'Show Output');
      if (pick === 'Cancel It') await this.cancel();
      else if (pick === 'Show Output') this.output.show();
      return;
    }
    const file = basename(doc.uri.fsPath || doc.uri.path);
    await this.activate({ file, mode: req.mode }, (run) => this.execute(doc, req, run, file));
  }

  /** Makes `work` the active run until it ends: then the status bar is cleared and `idle()` waiters wake. */
  private async activate(record: ActiveRun['record'], work: (run: ActiveRun) => Promise<void>): Promise<void> {
    let finish!: () => void;
    const done = new Promise<void>((r) => (finish = r));
    const run: ActiveRun = { abort: new AbortController(), detach: new AbortController(), resumable: false, record, done };
    this.active = run;
    try {
      await work(run);
    } finally {
      this.active = undefined;
      if (!this.disposing) {
        this.status.setJob(undefined);
        this.finishedEmitter.fire();
      }
      finish();
    }
  }

  private remember(record: RunRecord, run: ActiveRun): void {
    run.record = record;
    this.history.push(record);
    if (this.history.length > 20) this.history.shift();
  }

  private presenter(heading: RunHeading, run: ActiveRun): RunPresenter {
    return new RunPresenter({ output: this.output, status: this.status, config: this.ctx.config, panels: this.panels }, heading, () =>
      run.abort.abort(new Error('cancelled by the user')),
    );
  }

  /** What every run and resumed run of the editor hands the workflow. */
  private workflowOptions(connection: Connection, run: ActiveRun): WorkflowOptions {
    return {
      connection,
      surface: 'editor',
      signal: run.abort.signal,
      detach: run.detach.signal,
      pollIntervalMs: this.pollIntervalMs,
      // Saved into the extension's storage under names that never overwrite; our runner's artifacts are fetched on
      // demand (Download full trace, Open in Perfetto), not after every run.
      traces: { outDir: () => this.traceFiles.tracesDir(), summarize: summarizePath, downloads: false },
    };
  }

  /** What the failure notification's buttons act on: this file, run again with a change. */
  private failureHost(uri: vscode.Uri, req: RunRequest): FailureActionHost {
    return {
      targets: this.targets,
      showOutput: () => this.output.show(false),
      rerun: async (change: RerunChange) => {
        await this.idle();
        await this.runFile(uri, { ...req, ...change });
      },
    };
  }

  private connectFailed(err: unknown, where: TargetChoice, presenter: RunPresenter, host: FailureActionHost, aborted: boolean): void {
    if (aborted) {
      presenter.close();
      return;
    }
    const baseUrl = where === 'gpumode' ? this.targets.gpuModeUrl() : this.ctx.config.server || undefined;
    const gpumode = where === 'gpumode' || this.targets.kind === 'gpumode';
    const explanation = explain(err, { surface: 'editor', service: gpumode ? 'gpumode' : 'kernel-runner', ...(baseUrl ? { baseUrl } : { embedded: true }) });
    presenter.failBeforeConnecting(explanation, baseUrl, host);
  }

  private async execute(doc: vscode.TextDocument, req: RunRequest, run: ActiveRun, file: string): Promise<void> {
    const startedAt = Date.now();
    const presenter = this.presenter({ title: req.title, file, mode: req.mode, startedAt }, run);
    const host = this.failureHost(doc.uri, req);
    const where = req.where ?? 'configured';
    let connection: Connection;
    try {
      connection = await this.targets.connect(where, run.abort.signal);
    } catch (err) {
      this.connectFailed(err, where, presenter, host, run.abort.signal.aborted);
      return;
    }
    const record: RunRecord = { file, mode: req.mode, target: { baseUrl: connection.baseUrl, label: connection.label } };
    this.remember(record, run);

    let entry: InFlightSubmission | undefined;
    let added: Promise<void> | undefined;
    const outcome = await runSubmission(
      { filePath: doc.uri.fsPath || doc.uri.path, content: new TextEncoder().encode(doc.getText()), mode: req.mode },
      {
        ...this.workflowOptions(connection, run),
        choose: documentChooser({
          uri: doc.uri,
          store: this.choices,
          ...(req.mode === 'profile' ? { requiredGpu: req.gpu ?? this.ctx.config.profileGpu } : {}),
          // A one-off run on GPU MODE does not change what the file runs on at its usual target.
          ...(where === 'gpumode' ? { remember: false } : {}),
        }),
        // The Problems panel's blocking problems are what stops a run.
        check: async (target) => describeBlocking(await this.diagnostics.blockingProblems(doc, target.leaderboard, connection.service === 'gpumode'), file),
        onEvent: (ev) => {
          presenter.onEvent(ev);
          if (ev.type === 'target') {
            record.choice = { leaderboard: ev.target.leaderboard, gpu: ev.target.gpu, ...(ev.target.picked ? { picked: true } : {}) };
            record.log = presenter.log;
            if (ev.target.picked) void offerDirectives(doc, record.choice);
          } else if (ev.type === 'accepted') {
            record.jobId = ev.id;
            if (ev.resume && record.choice) {
              run.resumable = true;
              const { fileName: _fileName, ...r } = ev.resume;
              entry = { ...r, targetLabel: connection.label, uri: doc.uri.toString(), file, title: req.title, startedAt };
              added = this.inflight.add(entry);
            }
          }
        },
      },
    );
    await added;
    await this.conclude(outcome, presenter, record, host, entry, false);
  }

  /** The outcome arrived: the channel, the recorded view, the entry forgotten, then the panel or a notification. */
  private async conclude(outcome: SubmissionOutcome, presenter: RunPresenter, record: RunRecord, host: FailureActionHost, entry: InFlightSubmission | undefined, resumed: boolean): Promise<void> {
    if (outcome.id !== undefined) record.jobId = outcome.id;
    if (this.disposing) {
      // A reload: the entry stays for the next activation.
      presenter.close();
      return;
    }
    const view = presenter.finish(outcome, host);
    if (!view) {
      // A picker dismissed: nothing ran, nothing to remember.
      const i = this.history.lastIndexOf(record);
      if (i >= 0) this.history.splice(i, 1);
      return;
    }
    record.log = presenter.log;
    record.view = view;
    if (outcome.target && !record.choice) record.choice = { leaderboard: outcome.target.leaderboard, gpu: outcome.target.gpu };
    if (entry) await this.inflight.remove(entry);
    presenter.present(view, outcome, this.profileActions(outcome.connection.client, outcome.id, record.file), resumed);
  }

  private profileActions(client: RunnerClient, jobId: number | undefined, file: string): ProfileActions {
    return {
      downloadTrace: (p) => this.traceFiles.downloadForUser(client, p, `${file.replace(/\.[^.]+$/, '')}-${jobId ?? 'trace'}-${p.key}.zip`),
      openPerfetto: (p) => this.traceFiles.openInPerfetto(client, p, `${file} ${p.key}`),
      localTrace: (p) => this.traceFiles.localTrace(client, p),
    };
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
    // A resumable submission is left running (the next activation follows it again); anything else is cancelled.
    if (run.resumable) run.detach.abort(new Error('the window is reloading'));
    else run.abort.abort(new Error('extension deactivated'));
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([run.done, new Promise((r) => (timer = setTimeout(r, 5000)))]);
    clearTimeout(timer);
  }

  // -------------------------------------------------------------------------------------------------------------
  // After a reload

  /** On activation: every submission that was in flight when the window closed is followed again, one by one. */
  async resumeInFlight(): Promise<void> {
    for (const entry of this.inflight.list()) {
      while (this.active && !this.disposing) await this.active.done;
      if (this.disposing) return;
      await this.activate({ file: entry.file, mode: entry.mode }, (run) => this.resumeOne(entry, run)).catch((err: unknown) => {
        console.error('[kernel-runner] resuming a submission failed:', err);
      });
    }
  }

  private async resumeOne(entry: InFlightSubmission, run: ActiveRun): Promise<void> {
    run.resumable = true;
    const state = resumeStateOf(entry);
    const req: RunRequest = { mode: entry.mode, title: entry.title };
    const presenter = this.presenter({ title: entry.title, file: entry.file, mode: entry.mode, startedAt: entry.startedAt }, run);
    const host = this.failureHost(vscode.Uri.parse(entry.uri), req);
    let connection: Connection;
    try {
      connection = await this.targets.connectUrl(entry.baseUrl, run.abort.signal);
    } catch (err) {
      const explanation = explain(err, { surface: 'editor', service: entry.service, baseUrl: entry.baseUrl });
      presenter.failBeforeConnecting(explanation, `${entry.targetLabel} (${entry.baseUrl})`, host);
      await this.inflight.remove(entry);
      return;
    }
    const record: RunRecord = { file: entry.file, mode: entry.mode, target: { baseUrl: connection.baseUrl, label: connection.label }, choice: { leaderboard: entry.leaderboard, gpu: entry.gpu }, jobId: entry.id };
    this.remember(record, run);
    presenter.beginResumed(state, connection);
    record.log = presenter.log;
    const outcome = await resumeSubmission(state, { ...this.workflowOptions(connection, run), onEvent: presenter.onEvent });
    await this.conclude(outcome, presenter, record, host, entry, true);
  }
}
