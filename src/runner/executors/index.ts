// Where a job's processes run: `local` (children of the runner, executor.ts) or `slurm` (one Slurm job per run, on
// the cluster's nodes). evaluate.ts runs every process of a job through the executor of the runner's settings; the
// queue, /health and the runner's start ask it what they need (queue counts, availability, a startup check).
import type { ExecOutcome, ExecSpec } from '../executor';

export interface ExecRequest extends ExecSpec {
  /** The runner's job id: Slurm names its job after it. */
  jobId?: number;
  /**
   * The run waits in the executor's queue (Slurm: pending jobs of the partition in Slurm's order, 1 = next), or
   * runs (0). Called as the place changes; never by the local executor, whose queue is the runner's scheduler.
   */
  onQueuePosition?: (position: number) => void;
}

export interface ExecResult extends ExecOutcome {
  /**
   * The process was ended from outside, not by itself, a timeout or a cancel: a node that failed, Slurm's own
   * time limit, a job Slurm cancelled. Says what happened, in Slurm's words; null otherwise.
   */
  failure?: string | null;
  /** What a timeout or cancel signalled, for the run's note; default "the process group". */
  stopTarget?: string;
}

export interface QueueCounts {
  /** Jobs waiting for a node in the executor's queue (all users). */
  queued: number;
  running: number;
  /** Nodes (or devices) that could take a job now. */
  idle: number;
}

export interface ExecutorHealth {
  kind: ExecutorKind;
  available: boolean;
  /** Why it is not available (names the failing command), or what it runs on. */
  detail: string;
}

export type ExecutorKind = 'local' | 'slurm';

export interface Executor {
  readonly kind: ExecutorKind;
  run(req: ExecRequest): Promise<ExecResult>;
  /** Counts of the executor's own queue, or null when the runner's scheduler is the queue (local). */
  queueCounts(gpu: string): QueueCounts | null;
  health(): ExecutorHealth;
  /** One line for serve's start: where jobs run. */
  readonly description: string;
  close(): Promise<void>;
}

export { createLocalExecutor } from './local';
