// The numbers every front-end waits by: one idle timeout for event streams, one poll interval and one poll
// deadline for background submissions. The CLI and the extension take them from here and nowhere else.

/**
 * A streaming connection silent this long counts as dropped. Both our runner and GPU MODE send a status heartbeat
 * about every 15 s; GPU MODE's can lag behind a busy event loop, so eight missed beats, not four.
 */
export const STREAM_IDLE_TIMEOUT_MS = 120_000;

/** Between polls of a background submission: popcorn-cli's 5 s. */
export const POLL_INTERVAL_MS = 5_000;

/** How long a background submission is waited for, counted from when it was accepted: popcorn-cli's hour. */
export const POLL_DEADLINE_MS = 3_600_000;

/** A resumed wait (after a reload) always gets at least this long, for one last look. */
export const POLL_MIN_REMAINING_MS = 60_000;

/** Quick look-ups that only decorate a run (runner queue, ranking rule, health): never hold a run up longer. */
export const LOOKUP_TIMEOUT_MS = 5_000;

/** The GPU that "Profile on MI300" asks for by default. */
export const DEFAULT_PROFILE_GPU = 'MI300';

/** `KERNEL_RUNNER_POLL_MS` shortens the poll interval (tests, impatient people); at least 50 ms. */
export function pollIntervalFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const v = Number(env.KERNEL_RUNNER_POLL_MS);
  return Number.isFinite(v) && v >= 50 ? v : POLL_INTERVAL_MS;
}

/** What is left of the poll deadline for a submission accepted at `acceptedAt` (epoch ms). */
export function remainingPollMs(acceptedAt: number, now: number = Date.now()): number {
  return Math.max(POLL_MIN_REMAINING_MS, POLL_DEADLINE_MS - (now - acceptedAt));
}
