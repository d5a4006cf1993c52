// What a submission tells its front-end while it runs (events) and when it ends (the outcome). Front-ends render
// these; every decision behind them is the workflow's.
import type { ErrorEvent, ResultEvent, SubmissionMode, UserSubmissionDetail } from '../protocol/api';
import type { JobStatusInfo, RankedScore } from '../gpumode/results';
import type { SavedTrace } from '../gpumode/traces';
import type { Explanation } from './explain';
import type { Connection, ServiceKind } from './service';
import type { ChosenTarget } from './target';

/** Streaming (SSE, live output on our runner) or background + poll (GPU MODE's test/benchmark/leaderboard). */
export type Route = 'stream' | 'background';

/** Where a run is, for status bars: waiting for a device, running, or fetching/saving its result. */
type RunPhase = 'submitting' | 'queued' | 'running' | 'finishing';

/** What to keep to pick a submission up again after a restart (the front-end persists it, the workflow reads it). */
export interface ResumeState {
  /** `poll`: a GPU MODE background submission; `stream`: a job on a self-hosted runner of ours. */
  kind: 'poll' | 'stream';
  baseUrl: string;
  service: ServiceKind;
  id: number;
  fileName: string;
  mode: SubmissionMode;
  leaderboard: string;
  gpu: string;
  /** Epoch ms when the service accepted it (the poll deadline counts from here). */
  acceptedAt: number;
}

export type SubmissionEvent =
  /** Leaderboard, GPU and route are settled; nothing has been sent yet. */
  | { type: 'target'; target: ChosenTarget; mode: SubmissionMode; route: Route; connection: Connection }
  /** A line worth telling (a closed leaderboard, which GPU was taken). */
  | { type: 'note'; text: string }
  /** The runner queue before submitting (GPU MODE), in words. */
  | { type: 'queue'; text: string }
  /** The service took it: job id (our runner) or submission id (background route). */
  | { type: 'accepted'; id: number; text: string; resume?: ResumeState }
  /**
   * Progress. `text` is a ready line; `changed` says it differs from the last one (a log writes those, a status bar
   * takes every one). `queuePosition` is our runner's (0 = starting), `run` the run in progress (`profile.1`).
   */
  | {
      type: 'status';
      phase: RunPhase;
      text: string;
      changed: boolean;
      elapsedMs: number;
      queuePosition?: number;
      run?: string;
      heartbeatAgeMs?: number;
    }
  /**
   * A line of the program's live output (our runner), classified by the noise filter; with the workflow's
   * `outputBatches`, `lines` consecutive lines of one class joined by "\n".
   */
  | { type: 'output'; stream: 'stdout' | 'stderr'; text: string; noise: boolean; lines?: number }
  /** A dropped connection being resumed, or a failed poll being retried. */
  | { type: 'retry'; text: string; delayMs: number }
  | { type: 'trace-saved'; trace: SavedTrace };

type OutcomeKind = 'result' | 'error' | 'failed' | 'cancelled';

export interface SubmissionOutcome {
  /**
   * `result`: the service returned results (passed or not: see `passed`); `error`: the runner ended the job with an
   * error event; `failed`: the submission could not be made or followed (see `explanation`); `cancelled`.
   */
  kind: OutcomeKind;
  connection: Connection;
  mode: SubmissionMode;
  target?: ChosenTarget;
  route?: Route;
  /** Job id (our runner) or submission id (background route). */
  id?: number;
  /** For `result`; a background submission's runs are turned into one too (public runs, then secret ones). */
  result?: ResultEvent;
  /** A background submission's final detail. */
  submission?: UserSubmissionDetail;
  /** The background job's status in words. */
  jobStatus?: JobStatusInfo;
  /** For `error`. */
  error?: ErrorEvent;
  /** For `failed` and `cancelled`: what happened and what to do. */
  explanation?: Explanation;
  /** Everything passed (what an exit code follows). */
  passed: boolean;
  score: RankedScore | null;
  rankingBy?: string;
  traces: SavedTrace[];
  /** What the user can do about how it ended (runs that failed without details kept), one sentence each. */
  advice?: string[];
  /** Saving (or summarising) a trace failed. */
  traceError?: string;
  /** Live output was delivered as `output` events (our runner): renderers need not repeat the runs' stdout. */
  liveOutput: boolean;
  /** Noise lines among the live output. */
  noiseLines: number;
  startedAt: number;
  elapsedMs: number;
}
