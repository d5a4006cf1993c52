// What a person sees of one run, drawn from the workflow's SubmissionEvents: a block in the output channel (RunLog:
// header, live program output with the profiler's noise hidden, our status lines), the status bar item, and a
// cancellable progress notification with the running clock. At the end: the ResultView built from the
// SubmissionOutcome (resultModel.ts), its summary lines in the channel, and the results panel or a notification as
// kernelRunner.openResults says. Failures go to failureActions.ts (buttons). Nothing here decides what happens.
import * as vscode from 'vscode';
import { formatElapsed } from '../../core/format/index';
import type { SubmissionMode } from '../../core/protocol/api';
import type {
  Connection,
  Explanation,
  ResumeState,
  Route,
  SubmissionEvent,
  SubmissionOutcome,
} from '../../core/submission/index';
import type { Config } from '../config';
import { notifyFailure, type FailureActionHost } from './failureActions';
import { outcomeSummary, resultLines, resultOutputLines, viewOfOutcome } from '../resultModel';
import type { ProfileActions, ResultsPanels } from '../resultsPanel';
import type { RunLog, RunOutput } from './output';
import type { ActiveJobs, JobStatus } from './activeJobs';
import { notify } from '../ui';
import type { ResultView } from '../../webview/protocol';

/** How the editor names a run: the command's title, the file, the mode, when it started. */
export interface RunHeading {
  title: string;
  file: string;
  mode: SubmissionMode;
  /** Epoch ms (for a resumed submission: when it was first started). */
  startedAt: number;
  /** Which of the runs at once this is (the status bar's key). */
  runId: number;
}

export interface PresenterDeps {
  output: RunOutput;
  /** The runs going on (drawn by the status bar and the Runs view). */
  jobs: ActiveJobs;
  config: Config;
  panels: ResultsPanels;
}

/** A background submission's status is logged again after this long without a change ("still running"). */
const STILL_EVERY_MS = 60_000;

const stripClock = (text: string) => text.replace(/^\[\d\d:\d\d\] /, '');

/**
 * The status bar's extra words for a stage: what it says beyond the phase ("MI300: 3 queued", "profile.1",
 * "processing"); none when the queue position says it all.
 */
function statusNote(stage: string, phase: string, queuePosition?: number): string | undefined {
  if (queuePosition !== undefined || stage === phase) return undefined;
  if (stage.startsWith(`${phase} (`) && stage.endsWith(')')) return stage.slice(phase.length + 2, -1);
  if (stage.startsWith(`${phase} `)) return stage.slice(phase.length + 1);
  return stage;
}

export class RunPresenter {
  /** The run's block in the output channel, once it has begun. */
  log: RunLog | undefined;
  /** Lines said before the block began (notes while choosing the target). */
  private early: string[] = [];
  private route: Route | undefined;
  private id: number | undefined;
  private stage: string;
  private lastLogged = 0;
  private progressOpen = false;
  private progressClosed = false;
  private reportProgress: (() => void) | undefined;
  private closeProgress: (() => void) | undefined;

  constructor(
    private readonly deps: PresenterDeps,
    readonly heading: RunHeading,
    /** The progress notification's Cancel. */
    private readonly onCancel: () => void,
  ) {
    this.stage = 'connecting';
    this.setStatus({ state: 'connecting' });
  }

  private setStatus(s: Pick<JobStatus, 'state' | 'queuePosition' | 'note'>): void {
    this.deps.jobs.setJob(this.heading.runId, {
      file: this.heading.file,
      mode: this.heading.mode,
      startedAt: this.heading.startedAt,
      ...s,
    });
  }

  /** Opens the channel block with its header (once), flushing what was said before. */
  begin(header: string): RunLog {
    if (this.log) return this.log;
    const log = this.deps.output.begin(header, `${this.heading.file} · ${this.heading.mode}`);
    for (const line of this.early) log.info(line);
    this.early = [];
    this.log = log;
    return log;
  }

  private info(text: string): void {
    if (this.log) this.log.info(text);
    else this.early.push(text);
  }

  /** The header of a run whose leaderboard and GPU are known. */
  private fullHeader(connection: Connection, leaderboard: string, gpu: string): string {
    const { title, file, mode } = this.heading;
    return `${title} ${file} · ${leaderboard} on ${gpu} · ${mode} · ${connection.label} (${connection.baseUrl})`;
  }

  /** A run picked up again after a reload: the block, the status and the progress at once. */
  beginResumed(state: ResumeState, connection: Connection): void {
    const what = state.kind === 'poll' ? 'submission' : 'job';
    this.route = state.kind === 'poll' ? 'background' : 'stream';
    this.id = state.id;
    const log = this.begin(
      `${this.fullHeader(connection, state.leaderboard, state.gpu)} · ${what} ${state.id}, resumed`,
    );
    log.info(
      `picking up ${what} ${state.id} again (submitted ${formatElapsed(Date.now() - this.heading.startedAt)} ago, before the window reloaded)`,
    );
    this.deps.output.show(true);
    this.stage = 'queued';
    this.setStatus({ state: 'queued' });
    this.openProgress(`Kernel Runner: ${this.heading.title} ${this.heading.file} · ${what} #${state.id}`);
  }

  /** The workflow's onEvent. */
  readonly onEvent = (ev: SubmissionEvent): void => {
    switch (ev.type) {
      case 'target': {
        this.route = ev.route;
        this.begin(this.fullHeader(ev.connection, ev.target.leaderboard, ev.target.gpu));
        this.deps.output.show(true);
        this.openProgress(`Kernel Runner: ${this.heading.title} ${this.heading.file}`);
        break;
      }
      case 'note':
      case 'queue':
      case 'retry':
        this.info(ev.text);
        break;
      case 'accepted':
        this.id = ev.id;
        this.info(ev.text);
        break;
      case 'status':
        this.onStatus(ev);
        break;
      case 'output':
        this.log?.program(ev.text, ev.noise);
        break;
      case 'trace-saved':
        this.info(`${ev.trace.run}: trace saved to ${ev.trace.path}`);
        break;
    }
  };

  private onStatus(ev: Extract<SubmissionEvent, { type: 'status' }>): void {
    const multiRun = this.heading.mode === 'leaderboard' || this.heading.mode === 'profile';
    const text = stripClock(ev.text);
    // A single-run mode needs no "running test": the phase says it.
    this.stage = ev.phase === 'running' && ev.run && !multiRun ? 'running' : text;
    const state = ev.phase === 'submitting' ? 'connecting' : ev.phase;
    const note = statusNote(this.stage, state, ev.queuePosition);
    this.setStatus({
      state,
      ...(ev.queuePosition !== undefined ? { queuePosition: ev.queuePosition } : {}),
      ...(note ? { note } : {}),
    });
    this.reportProgress?.();

    if (ev.phase === 'submitting') return;
    const now = Date.now();
    if (this.route === 'background') {
      const beat = ev.heartbeatAgeMs !== undefined ? ` · heartbeat ${formatElapsed(ev.heartbeatAgeMs)} ago` : '';
      const elapsed = formatElapsed(now - this.heading.startedAt);
      if (ev.changed || now - this.lastLogged >= STILL_EVERY_MS) {
        this.lastLogged = now;
        this.info(
          `submission ${this.id ?? '?'}: ${ev.changed ? '' : 'still '}${ev.text}${ev.phase === 'finishing' ? '' : ` · ${elapsed}`}${beat}`,
        );
      }
      return;
    }
    if (!ev.changed || ev.phase === 'finishing') return;
    // Our runner: places in the queue and the runs of a leaderboard / profile submission; GPU MODE's streaming
    // route: its heartbeats ("[00:15] processing"), all there is until the result.
    if ((ev.queuePosition ?? 0) > 0 || (ev.run && multiRun) || ev.text.startsWith('[')) this.info(ev.text);
  }

  private openProgress(title: string): void {
    if (this.progressOpen) return;
    this.progressOpen = true;
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: true },
      (progress, token) => {
        if (this.progressClosed) return Promise.resolve();
        const sub = token.onCancellationRequested(() => this.onCancel());
        // The stage and the same ticking clock as the status bar: heartbeats come only every 15 s.
        const report = () =>
          progress.report({ message: `${this.stage} · ${formatElapsed(Date.now() - this.heading.startedAt)}` });
        report();
        const ticker = setInterval(report, 1000);
        this.reportProgress = report;
        return new Promise<void>((resolve) => {
          this.closeProgress = () => {
            clearInterval(ticker);
            sub.dispose();
            resolve();
          };
        });
      },
    );
  }

  /** Closes the progress notification (the run is over). */
  close(): void {
    this.progressClosed = true;
    this.reportProgress = undefined;
    this.closeProgress?.();
    this.closeProgress = undefined;
  }

  /**
   * The end of a run: the result in the channel and the view for the panel; a failure also as a notification with
   * its actions. Undefined when nothing happened worth a block (a picker dismissed).
   */
  finish(outcome: SubmissionOutcome, failureHost: FailureActionHost): ResultView | undefined {
    this.close();
    if (outcome.kind === 'cancelled' && !outcome.explanation?.message && !this.log) return undefined;
    const { connection, target } = outcome;
    const log = this.begin(
      target
        ? this.fullHeader(connection, target.leaderboard, target.gpu)
        : `${this.heading.title} ${this.heading.file} · ${this.heading.mode} · ${connection.label} (${connection.baseUrl})`,
    );
    const view = viewOfOutcome(
      outcome,
      {
        title: `${this.heading.title}: ${this.heading.file}`,
        fileName: this.heading.file,
        hiddenNoiseLines: log.hiddenNoise,
        startedAt: this.heading.startedAt,
      },
      {
        perfettoMaxBytes: this.deps.config.perfettoMaxTraceBytes,
      },
    );
    switch (outcome.kind) {
      case 'result':
        this.setStatus({ state: 'finishing' });
        // Without live output (GPU MODE) the program's output came inside the result.
        if (!outcome.liveOutput && outcome.result) {
          for (const line of resultOutputLines(outcome.result)) {
            if (line.heading) log.info(line.text);
            else log.program(line.text, line.noise);
          }
        }
        log.block(resultLines(view));
        if (outcome.traceError) log.error(`Could not save the profile traces: ${outcome.traceError}`);
        break;
      case 'error':
        if (view.error) log.error(view.error);
        break;
      case 'failed':
        this.reportFailure(outcome.explanation as Explanation, failureHost);
        break;
      case 'cancelled':
        if (outcome.explanation?.message) log.info(outcome.explanation.message);
        break;
    }
    log.end(outcomeSummary(view));
    this.deps.output.flush();
    return view;
  }

  /** A run that failed before the workflow could start (no connection): the channel, then the notification. */
  failBeforeConnecting(explanation: Explanation, where: string | undefined, failureHost: FailureActionHost): void {
    this.close();
    const log = this.begin(
      `${this.heading.title} ${this.heading.file} · ${this.heading.mode}${where ? ` · ${where}` : ''}`,
    );
    this.reportFailure(explanation, failureHost);
    log.end(`error: ${this.heading.file}`);
    this.deps.output.flush();
  }

  private reportFailure(explanation: Explanation, failureHost: FailureActionHost): void {
    this.log?.error(explanation.message);
    notifyFailure(`Kernel Runner: ${this.heading.file}: ${explanation.message}`, explanation, failureHost);
  }

  /**
   * The results panel or a notification, per kernelRunner.openResults: `always`; `profileOrFailure` (a profile,
   * or anything but a pass); `never`. A submission resumed after a reload also says in a notification that it ended.
   */
  present(view: ResultView, outcome: SubmissionOutcome, actions: ProfileActions | undefined, resumed: boolean): void {
    if (outcome.kind !== 'result' && outcome.kind !== 'error') return;
    const open = this.deps.config.openResults;
    const show =
      open === 'always' || (open === 'profileOrFailure' && (view.profiles.length > 0 || view.outcome !== 'success'));
    const { panels } = this.deps;
    if (show) panels.show(view, actions);
    if (show && !resumed) return;
    const what = outcome.route === 'background' && outcome.id !== undefined ? `submission #${outcome.id} ` : '';
    void notify.info(`Kernel Runner: ${what}${outcomeSummary(view)}`, ...(show ? [] : ['Show Results'])).then((b) => {
      if (b === 'Show Results') panels.show(view, actions);
    });
  }
}
