// How much a job may write of its output (live output events and profiler stderr logs together): past the limit
// output is counted, not stored, so one chatty submission cannot fill the runner's disk.
import { formatBytes } from '../core/format';

export interface OutputBudget {
  readonly limit: number;
  readonly used: number;
  /** Whether `bytes` more may be written; once refused, every later take is refused too. */
  take(bytes: number): boolean;
  readonly exhausted: boolean;
}

export function createOutputBudget(limit: number): OutputBudget {
  let used = 0;
  let exhausted = false;
  return {
    limit,
    get used() {
      return used;
    },
    take(bytes) {
      if (exhausted) return false;
      if (used + bytes > limit) {
        exhausted = true;
        return false;
      }
      used += bytes;
      return true;
    },
    get exhausted() {
      return exhausted;
    },
  };
}

/** The line that says where stored output stopped (live, in the stderr log and in the run's result). */
export function outputCutNote(limit: number): string {
  return `[kernel-runner] output cut: this job reached its limit of ${formatBytes(limit)} of stored output (--max-job-output); the program kept running, and what it wrote past that was counted, not stored`;
}
