// Waiting for a background submission as popcorn-cli does (GET /user/submissions/{id} every 5 s for up to an
// hour), but telling the caller about each state change, elapsed time and heartbeat, riding out network blips and
// 5xx answers, and waiting as long as the service asks when it rate-limits the polls (429: a Retry-After header,
// or GPU MODE's "Try again in Ns." text). Answers without a job status (older deployments) end on `done`.
import type { RunnerClient } from '../client/index';
import { RunnerClientError, isRetryable } from '../client/errors';
import { sleep } from '../client/backoff';
import type { UserSubmissionDetail } from '../protocol/api';
import { explainGpuModeError, GpuModeError, retryAfterMs, type ExplainOptions } from './errors';
import { describeSubmissionStatus, submissionFinished, type JobStatusInfo } from './results';
import { POLL_DEADLINE_MS, POLL_INTERVAL_MS, POLL_MAX_RETRY_DELAY_MS } from '../limits';

export interface PollUpdate {
  detail: UserSubmissionDetail;
  status: JobStatusInfo;
  /** Since polling started, ms. */
  elapsedMs: number;
  /** The job's last heartbeat (ISO), if the service reports one. */
  lastHeartbeat: string | null;
  /** The status differs from the previous poll's (or this is the first poll). */
  changed: boolean;
}

export interface PollRetry {
  error: GpuModeError;
  /** Failed polls in a row. */
  failures: number;
  /** How long before the next poll, ms (the wait the server asked for, when it said one). */
  delayMs: number;
}

export interface PollOptions {
  signal?: AbortSignal;
  /** Between polls; default 5 s (popcorn-cli's interval). */
  intervalMs?: number;
  /** Give up after this long; default 1 h (popcorn-cli's limit). */
  timeoutMs?: number;
  /** Failed polls in a row tolerated (network, 5xx, 429); default 20. */
  maxFailures?: number;
  /** Wait after a failure that names no wait: doubles from intervalMs up to this; default 60 s. */
  maxRetryDelayMs?: number;
  onUpdate?: (update: PollUpdate) => void;
  onRetry?: (retry: PollRetry) => void;
  hints?: ExplainOptions['hints'];
  /**
   * Polls to wait for the final job status once `done` is set while the job still says pending/running (GPU MODE
   * marks a submission done before its background worker writes the final status); default 2. 0 ends at `done`.
   */
  settlePolls?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/**
 * Polls until the submission is done (or its job reaches a terminal status: succeeded, failed, timed_out, hacked)
 * and resolves with the last detail. A `done` submission whose job still says pending/running is polled up to
 * settlePolls more times for its final status (which says whether ranked validation failed). Throws a GpuModeError: `unregistered` on 401 (at once), `timeout` after
 * timeoutMs, `cancelled` when the signal aborts, or the last failure after maxFailures.
 */
export async function pollSubmission(
  client: Pick<RunnerClient, 'getSubmission'>,
  id: number,
  options: PollOptions = {},
): Promise<UserSubmissionDetail> {
  const now = options.now ?? Date.now;
  const started = now();
  const interval = options.intervalMs ?? POLL_INTERVAL_MS;
  const timeoutMs = options.timeoutMs ?? POLL_DEADLINE_MS;
  const maxFailures = options.maxFailures ?? 20;
  const maxRetryDelay = options.maxRetryDelayMs ?? POLL_MAX_RETRY_DELAY_MS;
  const explain = (err: unknown) => explainGpuModeError(err, { hints: options.hints });
  const settlePolls = options.settlePolls ?? 2;
  let failures = 0;
  let settling = 0;
  let lastStatus: string | undefined;
  let lastError: GpuModeError | undefined;
  for (;;) {
    let delay = interval;
    try {
      const detail = await client.getSubmission(id, { signal: options.signal });
      failures = 0;
      const status = describeSubmissionStatus(detail);
      const changed = status.status !== lastStatus;
      lastStatus = status.status;
      options.onUpdate?.({
        detail,
        status,
        elapsedMs: now() - started,
        lastHeartbeat: detail.job?.last_heartbeat ?? null,
        changed,
      });
      if (submissionFinished(detail)) {
        if (status.terminal || settling >= settlePolls) return detail;
        settling += 1;
      }
    } catch (err) {
      if (options.signal?.aborted) throw cancelled(err);
      const explained = explain(err);
      if (!(err instanceof RunnerClientError) || !isRetryable(err) || !(explained instanceof GpuModeError))
        throw explained;
      failures += 1;
      lastError = explained;
      if (failures > maxFailures) throw explained;
      delay = explained.retryAfterMs ?? retryAfterMs(err) ?? Math.min(maxRetryDelay, interval * 2 ** (failures - 1));
      options.onRetry?.({ error: explained, failures, delayMs: delay });
    }
    const elapsed = now() - started;
    if (elapsed + delay > timeoutMs) {
      throw new GpuModeError(
        'timeout',
        `Submission ${id} did not finish within ${Math.round(timeoutMs / 60_000)} min${lastError ? ` (last error: ${lastError.message})` : ''}`,
      );
    }
    try {
      await sleep(delay, options.signal);
    } catch (err) {
      throw cancelled(err);
    }
  }
  function cancelled(cause: unknown): GpuModeError {
    return new GpuModeError('cancelled', `Stopped waiting for submission ${id}`, { cause });
  }
}
