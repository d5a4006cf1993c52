// The waits every front-end uses, from the numbers of src/core/limits.ts: the poll interval (KERNEL_RUNNER_POLL_MS
// may shorten it) and what is left of a background submission's poll deadline.
import { POLL_DEADLINE_MS, POLL_INTERVAL_MS, POLL_MIN_REMAINING_MS } from '../limits';

/** `KERNEL_RUNNER_POLL_MS` shortens the poll interval (tests, impatient people); at least 50 ms. */
export function pollIntervalFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const v = Number(env.KERNEL_RUNNER_POLL_MS);
  return Number.isFinite(v) && v >= 50 ? v : POLL_INTERVAL_MS;
}

/** What is left of the poll deadline for a submission accepted at `acceptedAt` (epoch ms). */
export function remainingPollMs(acceptedAt: number, now: number = Date.now()): number {
  return Math.max(POLL_MIN_REMAINING_MS, POLL_DEADLINE_MS - (now - acceptedAt));
}
