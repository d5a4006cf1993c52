// The job status GPU MODE's background manager gives a finished submission (kernelbot's
// background_submission_manager `_ranked_completion_status`), as GET /user/submissions/{id} shows it in
// `job.status` / `job.error`. The evaluation having *run* is `succeeded`, whatever the tests said (the runs carry
// `passed`); only a leaderboard submission whose ranked validation fails is `failed`, with upstream's text. Upstream's
// `timed_out` is the hard limit on the whole job ("hard timeout reached"), not a run's own timeout: a run stopped at
// the task's test/benchmark/ranked timeout is a run with exit code 114 and passed: false.
import type { FullResult, SubmissionMode } from '../core/protocol/api';

export interface UpstreamCompletion {
  status: 'succeeded' | 'failed';
  error: string | null;
}

/** The hard timeout's error text, upstream's. */
export const HARD_TIMEOUT_ERROR = 'hard timeout reached';

/** kernelbot's `_run_passed`: the result ran, and its `key` run succeeded and passed. */
function runPassed(result: FullResult | undefined, key: string): boolean {
  const run = result?.success ? result.runs[key]?.run : null;
  return Boolean(run?.success && run.passed);
}

function allRunsPassed(result: FullResult | undefined): boolean {
  if (!result?.success) return false;
  return Object.values(result.runs).every((ev) => Boolean(ev.run?.success && ev.run.passed));
}

/**
 * For one GPU: `results[0]` is the public run, `results[1]` the secret-seed copy (leaderboard mode). Upstream checks
 * the count first; we skip the secret copy when the public run cannot rank (its build failed), so the public run's
 * verdict comes first and gives upstream's text for that case.
 */
export function upstreamCompletion(
  mode: SubmissionMode,
  gpu: string,
  results: readonly FullResult[],
): UpstreamCompletion {
  if (mode !== 'leaderboard') return { status: 'succeeded', error: null };
  if (!runPassed(results[0], 'leaderboard')) {
    return {
      status: 'failed',
      error: `ranked validation failed on ${gpu}; submission will not appear on the leaderboard`,
    };
  }
  if (results.length < 2)
    return { status: 'failed', error: 'ranked validation did not complete all public and secret runs' };
  if (!runPassed(results[1], 'leaderboard') || !allRunsPassed(results[1])) {
    return {
      status: 'failed',
      error: `secret validation failed on ${gpu}; submission will not appear on the leaderboard`,
    };
  }
  return { status: 'succeeded', error: null };
}
