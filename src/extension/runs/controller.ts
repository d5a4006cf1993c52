// The runs of the editor: any number at once (each with its own progress notification, channel section and
// status bar count; Cancel and the status bar's job menu ask which when several run), the last runs for the test
// API, every finished run kept in the workspace's run store (the Runs view), and submissions still in flight after
// a window reload. What a run does is core's submission workflow
// (src/core/submission: connection, leaderboard and GPU, checks, route, polling, cancel, traces, explanations);
// this file hands it the editor's parts (the pickers as `choose`, the Problems panel as `check`, where traces go)
// and runPresenter.ts draws its events. Submissions the workflow says are resumable (GPU MODE background polls,
// jobs on a self-hosted runner) are kept in globalState until their outcome arrives, and followed again on the
// next activation.
import * as vscode from 'vscode';
import { basename } from 'node:path';
import type { RunnerClient } from '../../core/client';
import type { SubmissionMode } from '../../core/protocol/api';
import {
  chooseFromFile,
  explain,
  pollIntervalFromEnv,
  resumeSubmission,
  runSubmission,
  type Connection,
  type ResumeState,
  type SubmissionOutcome,
  type WorkflowOptions,
} from '../../core/submission/index';
import { summarizePath } from '../../trace/index';
import { ChoiceStore, documentChooser, offerDirectives, type Choice } from '../choices';
import type { Ctx } from '../ctx';
import type { SubmissionDiagnostics } from '../diagnostics';
import type { FailureActionHost, RerunChange } from './failureActions';
import { InFlightStore, inFlightKey, resumeStateOf, type InFlightSubmission } from '../gpumode/inflight';
import { describeBlocking } from '../../core/gpumode/preflight';
import { sizeRefusal } from '../../core/submissionChecks';
import type { ProfileActions, ResultsPanels } from '../resultsPanel';
import type { RunStore } from './store';
import { RunPresenter, type RunHeading } from './presenter';
import type { RunLog, RunOutput } from './output';
import type { ActiveJobs } from './activeJobs';
import type { TargetChoice, Targets } from '../targets';
import type { TraceFiles } from '../traceFiles';
import { hooks, notify, pickOne } from '../ui';
import type { ResultView } from '../../webview/protocol';
import { profileOptionsForRun } from '../profileOptions';
import { digestKeptProfiles, type KeptDigest } from './digests';
import type { ProfileOptions } from '../../core/profileOptions';

export interface RunRequest {
  mode: SubmissionMode;
  title: string;
  /** Profile on this GPU instead of kernelRunner.profileGpu (the "Profile on MI355X" button). */
  gpu?: string;
  /** The configured target (default), or GPU MODE's service for this run only ("Profile on GPU MODE"). */
  where?: TargetChoice;
  /** Run on this leaderboard (and `gpu`) instead of the file's directives or a picker (the language model tools). */
  leaderboard?: string;
  /** Cancels the run as Cancel does (a language model tool's cancellation). */
  signal?: AbortSignal;
  /** The caller cannot answer a question (a language model tool): what would ask ends the run, saying why. */
  noQuestions?: boolean;
}

export interface EditorRun {
  file: string;
  mode: SubmissionMode;
  target: { baseUrl: string; label: string };
  choice?: Choice;
  /** Our runner's job id, or the background submission's id. */
  jobId?: number;
  view?: ResultView;
  log?: RunLog;
  /** Its id in the run store once kept. */
  storedId?: string;
  /** How it ended (the workflow's outcome) and the digests of its kept profile traces. */
  outcome?: SubmissionOutcome;
  digests?: KeptDigest[];
}

interface ActiveRun {
  /** Which of the runs at once (status bar key, Cancel's pick). */
  id: number;
  /** Cancel: the job is cancelled on our runner (DELETE), a background submission is no longer waited for. */
  abort: AbortController;
  /** A reload: stop following, leave the job running (it is resumed on the next activation). */
  detach: AbortController;
  /** Accepted with a resume state: a reload detaches instead of cancelling. */
  resumable: boolean;
  /** The file's URI (string form) and where it was sent, to tell a repeated click from another run. */
  uri: string;
  where?: TargetChoice;
  record: Partial<EditorRun> & { file: string };
  done: Promise<void>;
  /** Why it ended before it was sent (for a caller that cannot read notifications: a language model tool). */
  notRun?: string;
}

/** A run that did not start, and why (a sentence naming what stopped it). */
interface NotRun {
  notRun: string;
}

/** What a RunController works with, made once by the extension's activation (main.ts). */
export interface RunControllerDeps {
  ctx: Ctx;
  targets: Targets;
  output: RunOutput;
  jobs: ActiveJobs;
  panels: ResultsPanels;
  traceFiles: TraceFiles;
  diagnostics: SubmissionDiagnostics;
  store: RunStore;
}

export class RunController implements vscode.Disposable {
  private readonly active = new Map<number, ActiveRun>();
  private nextId = 1;
  private readonly choices: ChoiceStore;
  private readonly history: EditorRun[] = [];
  private readonly inflight: InFlightStore;
  private disposing = false;
  private readonly finishedEmitter = new vscode.EventEmitter<void>();
  /** After every run (its submission may now show in "My Submissions"). */
  readonly onDidFinishRun = this.finishedEmitter.event;

  private readonly ctx: Ctx;
  private readonly targets: Targets;
  private readonly output: RunOutput;
  private readonly jobs: ActiveJobs;
  private readonly panels: ResultsPanels;
  private readonly traceFiles: TraceFiles;
  private readonly diagnostics: SubmissionDiagnostics;
  private readonly store: RunStore;

  constructor(deps: RunControllerDeps) {
    this.ctx = deps.ctx;
    this.targets = deps.targets;
    this.output = deps.output;
    this.jobs = deps.jobs;
    this.panels = deps.panels;
    this.traceFiles = deps.traceFiles;
    this.diagnostics = deps.diagnostics;
    this.store = deps.store;
    this.choices = new ChoiceStore(deps.ctx.extCtx.workspaceState);
    this.inflight = new InFlightStore(deps.ctx.extCtx.globalState);
  }

  /** Between polls of a background submission: a test's hook, else KERNEL_RUNNER_POLL_MS, else popcorn-cli's 5 s. */
  get pollIntervalMs(): number {
    return hooks.pollIntervalMs ?? pollIntervalFromEnv();
  }

  /** Submissions still being waited for (persisted across reloads). */
  inFlight(): InFlightSubmission[] {
    return this.inflight.list();
  }

  get lastRun(): EditorRun | undefined {
    return this.history[this.history.length - 1];
  }

  get running(): boolean {
    return this.active.size > 0;
  }

  /** The runs going on now, in the order they started. */
  activeRuns(): { id: number; file: string; mode: SubmissionMode }[] {
    return [...this.active.values()].map((r) => ({ id: r.id, file: r.record.file, mode: r.record.mode ?? 'test' }));
  }

  /** Resolves when no run is in progress. */
  async idle(): Promise<void> {
    while (this.active.size) await Promise.all([...this.active.values()].map((r) => r.done));
  }

  /** Run from the palette, a lens, a button: resolves once the run ended (nothing returned to the command's caller). */
  async runFile(uri: vscode.Uri | undefined, req: RunRequest): Promise<void> {
    await this.runFileFor(uri, req);
  }

  /** As runFile; resolves with the run's record (its outcome, view, digests) once it ended, or why it did not start. */
  async runFileFor(uri: vscode.Uri | undefined, req: RunRequest): Promise<EditorRun | NotRun> {
    const doc = uri ? await vscode.workspace.openTextDocument(uri) : vscode.window.activeTextEditor?.document;
    if (!doc) {
      void notify.warning(
        "Kernel Runner: open a kernel file (.py, .hip, .cu, .cpp) first, or use the command from the file's context menu.",
      );
      return { notRun: 'no kernel file is open' };
    }
    const file = basename(doc.uri.fsPath || doc.uri.path);
    // Other files, modes and targets run alongside; the same file in the same mode twice is most likely a double click.
    const same = [...this.active.values()].find(
      (r) =>
        r.uri === doc.uri.toString() &&
        r.record.mode === req.mode &&
        (r.where ?? 'configured') === (req.where ?? 'configured'),
    );
    if (same) {
      const notRun = `${file} is already running (${req.mode}) in this window: a second run of the same file in the same mode is not started`;
      // a caller that cannot answer the question (a language model tool) is told, and nothing is asked
      if (req.noQuestions) return { notRun };
      const pick = await notify.warning(
        `Kernel Runner is already running ${file} (${req.mode}).`,
        'Cancel It',
        'Show Output',
      );
      if (pick === 'Cancel It') await this.cancelRun(same);
      else if (pick === 'Show Output') this.output.show();
      return { notRun };
    }
    let started: ActiveRun | undefined;
    await this.activate({ file, mode: req.mode }, doc.uri.toString(), req.where, (run) => {
      started = run;
      req.signal?.addEventListener('abort', () => run.abort.abort(req.signal?.reason), { once: true });
      return this.execute(doc, req, run, file);
    });
    const record = started?.record;
    if (record && 'target' in record) return record as EditorRun;
    return { notRun: started?.notRun ?? `${file} did not start` };
  }

  /** Makes `work` an active run until it ends: then its status bar entry is cleared and `idle()` waiters wake. */
  private async activate(
    record: ActiveRun['record'],
    uri: string,
    where: TargetChoice | undefined,
    work: (run: ActiveRun) => Promise<void>,
  ): Promise<void> {
    let finish!: () => void;
    const done = new Promise<void>((r) => (finish = r));
    const run: ActiveRun = {
      id: this.nextId++,
      abort: new AbortController(),
      detach: new AbortController(),
      resumable: false,
      record,
      done,
      uri,
      ...(where ? { where } : {}),
    };
    this.active.set(run.id, run);
    try {
      await work(run);
    } finally {
      this.active.delete(run.id);
      run.record.log?.release();
      if (!this.disposing) {
        this.jobs.setJob(run.id, undefined);
        this.finishedEmitter.fire();
      }
      finish();
    }
  }

  private remember(record: EditorRun, run: ActiveRun): void {
    run.record = record;
    this.history.push(record);
    if (this.history.length > 20) this.history.shift();
  }

  private presenter(heading: RunHeading, run: ActiveRun): RunPresenter {
    return new RunPresenter(
      { output: this.output, jobs: this.jobs, config: this.ctx.config, panels: this.panels },
      heading,
      () => run.abort.abort(new Error('cancelled by the user')),
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
  private failureHost(uri: vscode.Uri, req: RunRequest, run: ActiveRun): FailureActionHost {
    return {
      targets: this.targets,
      showOutput: () => this.output.show(false),
      rerun: async (change: RerunChange) => {
        await run.done;
        await this.runFile(uri, { ...req, ...change });
      },
    };
  }

  private connectFailed(
    err: unknown,
    where: TargetChoice,
    presenter: RunPresenter,
    host: FailureActionHost,
    aborted: boolean,
  ): string {
    if (aborted) {
      presenter.close();
      return 'it was cancelled before it was sent';
    }
    const baseUrl = where === 'gpumode' ? this.targets.gpuModeUrl() : this.ctx.config.server || undefined;
    const gpumode = where === 'gpumode' || this.targets.kind === 'gpumode';
    const explanation = explain(err, {
      surface: 'editor',
      service: gpumode ? 'gpumode' : 'kernel-runner',
      ...(baseUrl ? { baseUrl } : { embedded: true }),
    });
    presenter.failBeforeConnecting(explanation, baseUrl, host);
    return `no connection to ${baseUrl ?? 'the embedded runner'}: ${explanation.message}`;
  }

  private async execute(doc: vscode.TextDocument, req: RunRequest, run: ActiveRun, file: string): Promise<void> {
    const startedAt = Date.now();
    const presenter = this.presenter({ title: req.title, file, mode: req.mode, startedAt, runId: run.id }, run);
    const host = this.failureHost(doc.uri, req, run);
    const where = req.where ?? 'configured';
    // over the service's limit: refused on the text's UTF-8 length, before a runner is started or the text encoded
    const refused = sizeRefusal(file, Buffer.byteLength(doc.getText(), 'utf8'));
    if (refused) {
      presenter.failBeforeConnecting({ kind: 'rejected', message: refused, actions: [] }, undefined, host);
      run.notRun = refused;
      return;
    }
    let connection: Connection;
    try {
      connection = await this.targets.connect(where, run.abort.signal);
    } catch (err) {
      run.notRun = this.connectFailed(err, where, presenter, host, run.abort.signal.aborted);
      return;
    }
    // counters, kernel selection and PC sampling: settings (or a quick pick), for runners of ours
    let profile: ProfileOptions | undefined;
    if (req.mode === 'profile' && connection.service === 'kernel-runner') {
      const options = await profileOptionsForRun(this.ctx.config);
      if (options === null) {
        presenter.close();
        run.notRun = 'the profile options (kernelRunner.profile.* settings or their pick) were dismissed or invalid';
        return;
      }
      profile = options;
    }
    const record: EditorRun = {
      file,
      mode: req.mode,
      target: { baseUrl: connection.baseUrl, label: connection.label },
    };
    this.remember(record, run);

    let entry: InFlightSubmission | undefined;
    let added: Promise<void> | undefined;
    const outcome = await runSubmission(
      {
        filePath: doc.uri.fsPath || doc.uri.path,
        content: new TextEncoder().encode(doc.getText()),
        mode: req.mode,
        ...(profile ? { profile } : {}),
        ...(req.leaderboard
          ? {
              leaderboard: req.leaderboard,
              ...(req.gpu ? { gpu: req.gpu } : req.mode === 'profile' ? { gpu: this.ctx.config.profileGpu } : {}),
            }
          : {}),
      },
      {
        ...this.workflowOptions(connection, run),
        // A leaderboard named by the caller (a language model tool): the CLI's rules (flags, then directives), no picker.
        choose: req.leaderboard
          ? chooseFromFile
          : documentChooser({
              uri: doc.uri,
              store: this.choices,
              ...(req.mode === 'profile' ? { requiredGpu: req.gpu ?? this.ctx.config.profileGpu } : {}),
              // A one-off run on GPU MODE does not change what the file runs on at its usual target.
              ...(where === 'gpumode' ? { remember: false } : {}),
              ...(req.noQuestions ? { noQuestions: true } : {}),
            }),
        // The Problems panel's blocking problems are what stops a run.
        check: async (target) =>
          describeBlocking(
            await this.diagnostics.blockingProblems(doc, target.leaderboard, connection.service === 'gpumode'),
            file,
          ),
        onEvent: (ev) => {
          presenter.onEvent(ev);
          if (ev.type === 'target') {
            record.choice = {
              leaderboard: ev.target.leaderboard,
              gpu: ev.target.gpu,
              ...(ev.target.picked ? { picked: true } : {}),
            };
            record.log = presenter.log;
            if (ev.target.picked) void offerDirectives(doc, record.choice);
          } else if (ev.type === 'accepted') {
            record.jobId = ev.id;
            if (ev.resume && record.choice) {
              run.resumable = true;
              const { fileName: _fileName, ...r } = ev.resume;
              entry = {
                ...r,
                targetLabel: connection.label,
                uri: doc.uri.toString(),
                file,
                title: req.title,
                startedAt,
              };
              added = this.inflight.add(entry);
            }
          }
        },
      },
    );
    await added;
    await this.conclude(outcome, presenter, record, host, entry, false, {
      uri: doc.uri.toString(),
      title: req.title,
      startedAt,
      content: new TextEncoder().encode(doc.getText()),
    });
  }

  /** The outcome arrived: the channel, the recorded view, the entry forgotten, then the panel or a notification. */
  private async conclude(
    outcome: SubmissionOutcome,
    presenter: RunPresenter,
    record: EditorRun,
    host: FailureActionHost,
    entry: InFlightSubmission | undefined,
    resumed: boolean,
    about: { uri: string; title: string; startedAt: number; content?: Uint8Array },
  ): Promise<void> {
    if (outcome.id !== undefined) record.jobId = outcome.id;
    record.outcome = outcome;
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
    if (outcome.target && !record.choice)
      record.choice = { leaderboard: outcome.target.leaderboard, gpu: outcome.target.gpu };
    // The panel first; the run is kept (its traces copied or downloaded) while a person reads it, then the panel
    // points at the kept traces, so that it opens Perfetto from them after a reload too (`panels.kept`: the panels
    // opened on this view, whatever they show by then, and one opened later from Show Results). The in-flight entry is
    // forgotten only once the run is kept: a window closed before that follows the submission again on the next
    // activation, and the store keeps a submission once.
    presenter.present(view, outcome, this.profileActions(outcome.connection.client, outcome.id, record.file), resumed);
    await hooks.beforeRunKept?.().catch((err: unknown) => console.error('[kernel-runner] beforeRunKept:', err));
    const kept = await this.keep(view, record, outcome, {
      ...about,
      ...(entry ? { submission: inFlightKey(entry) } : {}),
    });
    if (entry) await this.inflight.remove(entry);
    if (kept !== view) this.panels.kept(view, kept);
    record.view = kept;
    if (kept.profiles.some((p) => p.localPath)) {
      record.digests = await digestKeptProfiles(kept, {
        file: record.file,
        mode: record.mode,
        target: record.target.label,
        ...(about.content ? { content: about.content } : {}),
      });
    }
  }

  /** Into the run store (the Runs view, the timing lens) with its traces; the stored view points at the kept traces. */
  private async keep(
    view: ResultView,
    record: EditorRun,
    outcome: SubmissionOutcome,
    about: { uri: string; title: string; startedAt: number; submission?: string },
  ): Promise<ResultView> {
    try {
      const stored = await this.store.save({
        file: record.file,
        uri: about.uri,
        mode: record.mode,
        title: about.title,
        target: record.target.label,
        startedAt: about.startedAt,
        ...(about.submission ? { submission: about.submission } : {}),
        view,
        client: outcome.connection.client,
      });
      record.storedId = stored.run.id;
      return stored.view;
    } catch (err) {
      console.error('[kernel-runner] could not store the run:', err);
      return view;
    }
  }

  private profileActions(client: RunnerClient, jobId: number | undefined, file: string): ProfileActions {
    return {
      downloadTrace: (p) =>
        this.traceFiles.downloadForUser(client, p, `${file.replace(/\.[^.]+$/, '')}-${jobId ?? 'trace'}-${p.key}.zip`),
      openPerfetto: (p) => this.traceFiles.openInPerfetto(client, p, `${file} ${p.key}`),
      localTrace: (p) => this.traceFiles.localTrace(client, p),
    };
  }

  /** "Kernel Runner: Cancel": the one run, or the one picked when several run. */
  async cancel(): Promise<void> {
    const run = await this.pickRun('Kernel Runner: Cancel which run?');
    if (run) await this.cancelRun(run);
  }

  /** Cancel of one run by its id (the Runs view's row); false when it is no longer running. */
  async cancelById(id: number): Promise<boolean> {
    const run = this.active.get(id);
    if (run) await this.cancelRun(run);
    return !!run;
  }

  private async cancelRun(run: ActiveRun): Promise<void> {
    run.abort.abort(new Error('cancelled by the user'));
    await run.done;
  }

  /** The only active run, or the one a person picks among several; undefined when none runs or none is picked. */
  private async pickRun(title: string): Promise<ActiveRun | undefined> {
    const runs = [...this.active.values()];
    if (runs.length <= 1) {
      if (!runs.length) void notify.info('Kernel Runner: nothing is running.');
      return runs[0];
    }
    const items = runs.map((r) => ({
      label: `${r.record.file} · ${r.record.mode ?? ''}`,
      description: `#${r.id}${r.record.target ? ` · ${r.record.target.label}` : ''}`,
      run: r,
    }));
    // The labels can repeat (a file in one mode on two targets): pick by the item, not the label.
    const unique = items.map((i, n) =>
      items.findIndex((j) => j.label === i.label) === n ? i : { ...i, label: `${i.label} (#${i.run.id})` },
    );
    return (await pickOne(unique, { title, placeHolder: `${runs.length} runs` }))?.run;
  }

  /** Status bar click while runs go on. */
  async jobMenu(): Promise<void> {
    if (!this.active.size) {
      this.output.show(false);
      return;
    }
    const run = await this.pickRun('Kernel Runner: which run?');
    if (!run) return;
    const pick = (
      await pickOne([{ label: 'Show Output' }, { label: 'Cancel Run' }], { title: `Kernel Runner: ${run.record.file}` })
    )?.label;
    if (pick === 'Show Output') this.output.show(false);
    else if (pick === 'Cancel Run') await this.cancelRun(run);
  }

  async dispose(): Promise<void> {
    this.disposing = true;
    this.finishedEmitter.dispose();
    const runs = [...this.active.values()];
    for (const run of runs) {
      // A resumable submission is left running (the next activation follows it again); anything else is cancelled.
      if (run.resumable) run.detach.abort(new Error('the window is reloading'));
      else run.abort.abort(new Error('extension deactivated'));
    }
    if (!runs.length) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.all(runs.map((r) => r.done)), new Promise((r) => (timer = setTimeout(r, 5000)))]);
    clearTimeout(timer);
  }

  // -------------------------------------------------------------------------------------------------------------
  // After a reload

  /** On activation: every submission that was in flight when the window closed is followed again, all at once. */
  async resumeInFlight(): Promise<void> {
    await Promise.all(
      this.inflight.list().map((entry) =>
        this.activate({ file: entry.file, mode: entry.mode }, entry.uri, undefined, (run) =>
          this.resumeOne(entry, run),
        ).catch((err: unknown) => {
          console.error('[kernel-runner] resuming a submission failed:', err);
        }),
      ),
    );
  }

  private async resumeOne(entry: InFlightSubmission, run: ActiveRun): Promise<void> {
    run.resumable = true;
    const state = resumeStateOf(entry);
    const req: RunRequest = { mode: entry.mode, title: entry.title };
    const presenter = this.presenter(
      { title: entry.title, file: entry.file, mode: entry.mode, startedAt: entry.startedAt, runId: run.id },
      run,
    );
    const host = this.failureHost(vscode.Uri.parse(entry.uri), req, run);
    let connection: Connection;
    try {
      connection = await this.targets.connectUrl(entry.baseUrl, run.abort.signal);
    } catch (err) {
      // Cancelled while reconnecting: the job is still to be cancelled on the service (the workflow does that when
      // it resumes with the aborted signal), which needs the connection.
      const again =
        run.abort.signal.aborted && !this.disposing
          ? await this.targets.connectUrl(entry.baseUrl).catch(() => undefined)
          : undefined;
      if (again) return this.followResumed(entry, run, state, presenter, host, again);
      const explanation = explain(err, { surface: 'editor', service: entry.service, baseUrl: entry.baseUrl });
      presenter.failBeforeConnecting(explanation, `${entry.targetLabel} (${entry.baseUrl})`, host);
      await this.inflight.remove(entry);
      return;
    }
    await this.followResumed(entry, run, state, presenter, host, connection);
  }

  private async followResumed(
    entry: InFlightSubmission,
    run: ActiveRun,
    state: ResumeState,
    presenter: RunPresenter,
    host: FailureActionHost,
    connection: Connection,
  ): Promise<void> {
    const record: EditorRun = {
      file: entry.file,
      mode: entry.mode,
      target: { baseUrl: connection.baseUrl, label: connection.label },
      choice: { leaderboard: entry.leaderboard, gpu: entry.gpu },
      jobId: entry.id,
    };
    this.remember(record, run);
    presenter.beginResumed(state, connection);
    record.log = presenter.log;
    const outcome = await resumeSubmission(state, {
      ...this.workflowOptions(connection, run),
      onEvent: presenter.onEvent,
    });
    await this.conclude(outcome, presenter, record, host, entry, true, {
      uri: entry.uri,
      title: entry.title,
      startedAt: entry.startedAt,
    });
  }
}
