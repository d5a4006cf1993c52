// The limits and timeouts of src/core, in one place: each named, with why it is what it is. The CLI and the
// extension take their waits from here (through src/core/submission/policy.ts's helpers) and nowhere else.

/** An HTTP request to a runner (or GPU MODE) that sets no timeout of its own: a live server answers in far less. */
export const HTTP_TIMEOUT_MS = 30_000;

/** Cancelling a job as a stream ends: a courtesy, never worth holding the user up. */
export const CANCEL_TIMEOUT_MS = 5_000;

/** First wait before reconnecting an event stream; doubles up to RECONNECT_MAX_MS. */
export const RECONNECT_INITIAL_MS = 250;

/** Longest wait between reconnections: a runner back after a restart is found within seconds. */
export const RECONNECT_MAX_MS = 5_000;

/** A followed stream silent this long (no event, no heartbeat) is dropped and resumed, when the caller sets none. */
export const FOLLOW_IDLE_TIMEOUT_MS = 60_000;

/** The longest wait between two polls of a background submission after failures (the back-off's cap). */
export const POLL_MAX_RETRY_DELAY_MS = 60_000;

/** Sending a file to the background route: the answer waits for the service's preparation step, slow when busy. */
export const UPLOAD_TIMEOUT_MS = 120_000;

/** Longest output line the noise filter keeps whole (1 MiB); longer ones are cut, so one endless line cannot hold memory. */
export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;

/** Largest server-sent event the client reads (64 Mi characters: a result with inlined summaries fits many times). */
export const DEFAULT_MAX_EVENT_SIZE = 64 * 1024 * 1024;

/** Bytes of an error answer's body read for its `detail`: a message, not a download. */
export const ERROR_BODY_LIMIT = 64 * 1024;

/**
 * Upstream compares `len(content) > 1_000_000` (and says "limit: 1MB"): decimal megabyte, so exactly
 * 1,000,000 bytes passes and 1,000,001 does not (1 MiB = 1,048,576 would let through files upstream rejects).
 */
export const MAX_SUBMISSION_BYTES = 1_000_000;

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
