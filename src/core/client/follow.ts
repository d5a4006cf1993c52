// Reads a job's event stream to its terminal event, resuming after dropped connections with
// GET /jobs/{id}/events + Last-Event-ID. Events are delivered once each, in id order: anything at or below the
// last id seen (a replay overlap) is skipped.
import type { Readable } from 'node:stream';
import { routes, type ErrorEvent, type ResultEvent } from '../protocol/api';
import { createBackoff, reconnectBackoffFromEnv, sleep, type BackoffOptions } from './backoff';
import { RunnerClientError, isRetryable } from './errors';
import { EventDecodeError, decodeEvent, isTerminalEvent, type ClientEvent } from './events';
import type { StreamResponse, Transport } from './http';
import { SseLimitError, createSseReader } from './sse';
import type { CoreErrorCode } from '../errors';
import { FOLLOW_IDLE_TIMEOUT_MS } from '../limits';

export interface FollowOptions {
  signal?: AbortSignal;
  /** Every event, in order, exactly once. */
  onEvent?: (event: ClientEvent) => void;
  /** Before each reconnection attempt (`attempt` counts every attempt of the stream). */
  onReconnect?: (info: ReconnectInfo) => void;
  /** A connection silent for this long counts as dropped (the runner sends a status heartbeat about every 15 s). Default 60 s. */
  idleTimeoutMs?: number;
  /**
   * Reconnection attempts in all, over the whole stream (a connection that made progress does not reset it), before
   * giving up with a {@link FollowGaveUpError}. Default 20 (a bit over a minute against a runner gone for good).
   */
  maxReconnects?: number;
  /** Default: 250 ms doubling to 5 s, or `KERNEL_RUNNER_RECONNECT_MS` as the longest wait (tests). */
  backoff?: BackoffOptions;
  /** Largest single event accepted, in characters. */
  maxEventSize?: number;
}

interface ReconnectInfo {
  jobId: number;
  attempt: number;
  lastEventId: number;
  delayMs: number;
  reason: RunnerClientError;
}

export type StreamOutcome =
  | { kind: 'result'; jobId: number | undefined; lastEventId: number; result: ResultEvent }
  | { kind: 'error'; jobId: number | undefined; lastEventId: number; error: ErrorEvent };

export interface Cursor {
  jobId: number | undefined;
  lastEventId: number;
}

/**
 * The stream was given up after `reconnects` reconnection attempts; the job itself may still be running. Its type
 * (and status, code) are those of the last failure, `reason`.
 */
export class FollowGaveUpError extends RunnerClientError {
  override readonly name = 'FollowGaveUpError';
  override get code(): CoreErrorCode {
    return 'CLIENT_GAVE_UP';
  }
  constructor(
    readonly jobId: number,
    readonly reconnects: number,
    readonly lastEventId: number,
    readonly reason: RunnerClientError,
  ) {
    super(
      reason.type,
      `gave up following job ${jobId} after ${reconnects} reconnect${reconnects === 1 ? '' : 's'} (last: ${reason.message})`,
      {
        method: reason.method,
        url: reason.url,
        ...(reason.status !== undefined ? { status: reason.status } : {}),
        ...(reason.systemCode !== undefined ? { code: reason.systemCode } : {}),
        ...(reason.retryAfterMs !== undefined ? { retryAfterMs: reason.retryAfterMs } : {}),
        cause: reason,
      },
    );
    // the summary already names the reason: no "METHOD url" tail twice
    this.message = `gave up following job ${jobId} after ${reconnects} reconnect${reconnects === 1 ? '' : 's'} (last: ${reason.message})`;
  }
}

interface Consumed {
  outcome?: StreamOutcome;
  dropped?: RunnerClientError;
  progressed: boolean;
}

function outcomeOf(event: ClientEvent, cursor: Cursor): StreamOutcome | undefined {
  if (event.event === 'result')
    return { kind: 'result', jobId: cursor.jobId, lastEventId: cursor.lastEventId, result: event.data };
  if (event.event === 'error')
    return { kind: 'error', jobId: cursor.jobId, lastEventId: cursor.lastEventId, error: event.data };
  return undefined;
}

async function consume(
  transport: Transport,
  method: string,
  response: StreamResponse,
  cursor: Cursor,
  options: FollowOptions,
): Promise<Consumed> {
  const body: Readable = response.body;
  const shownUrl = transport.show(response.url);
  const idleTimeoutMs = options.idleTimeoutMs ?? FOLLOW_IDLE_TIMEOUT_MS;
  let outcome: StreamOutcome | undefined;
  let progressed = false;
  let idle = false;
  let failure: unknown;
  let callbackError: { err: unknown } | undefined;

  const reader = createSseReader({
    maxEventSize: options.maxEventSize,
    onMessage(message) {
      if (outcome) return;
      const event = decodeEvent(message);
      if (!event) return;
      if (event.id !== undefined) {
        if (event.id <= cursor.lastEventId) return;
        cursor.lastEventId = event.id;
      }
      if (event.event === 'job') cursor.jobId = event.data.job_id;
      progressed = true;
      try {
        options.onEvent?.(event);
      } catch (err) {
        callbackError = { err };
        throw err;
      }
      if (isTerminalEvent(event)) outcome = outcomeOf(event, cursor);
    },
  });

  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      idle = true;
      body.destroy(new Error('idle'));
    }, idleTimeoutMs);
  };
  arm();
  try {
    for await (const chunk of body) {
      arm();
      reader.feed(chunk as Buffer);
      if (outcome) break;
    }
    if (!outcome) reader.end();
  } catch (err) {
    failure = err;
  } finally {
    clearTimeout(timer);
    body.destroy();
  }

  if (outcome) return { outcome, progressed };
  if (options.signal?.aborted) {
    throw new RunnerClientError('cancelled', 'Cancelled while reading the event stream', {
      method,
      url: shownUrl,
      cause: options.signal.reason,
    });
  }
  if (failure instanceof EventDecodeError || failure instanceof SseLimitError) {
    throw new RunnerClientError('protocol', 'The runner sent an event this client cannot read', {
      method,
      url: shownUrl,
      detail: failure.message,
    });
  }
  // An exception from the caller's onEvent is the caller's, not a connection problem.
  if (callbackError) throw callbackError.err;
  const dropped = idle
    ? new RunnerClientError('timeout', `No event for ${Math.round(idleTimeoutMs / 1000)} s`, { method, url: shownUrl })
    : new RunnerClientError('network', 'The connection closed before the result arrived', {
        method,
        url: shownUrl,
        detail: failure instanceof Error ? failure.message : undefined,
        code: failure instanceof Error && 'code' in failure ? String((failure as { code: unknown }).code) : undefined,
      });
  return { dropped, progressed };
}

/**
 * Follows a stream to its end. `open` makes the first connection (the streaming POST, or a GET of the events);
 * reconnections always use GET /jobs/{id}/events, which needs the job id (from the `job` event or the caller).
 */
export async function followEvents(
  transport: Transport,
  first: {
    method: string;
    open: () => Promise<StreamResponse>;
    /** a GET of the events: retry it like a reconnection */ resumable?: boolean;
  },
  cursor: Cursor,
  options: FollowOptions = {},
): Promise<StreamOutcome> {
  const backoff = createBackoff(options.backoff ?? reconnectBackoffFromEnv());
  const maxReconnects = options.maxReconnects ?? 20;
  let reconnects = 0; // in all, for this stream
  let method = first.method;
  let response: StreamResponse | undefined;
  let reason: RunnerClientError | undefined;
  try {
    response = await first.open();
  } catch (err) {
    if (!(first.resumable && cursor.jobId !== undefined && isRetryable(err))) throw err;
    reason = err as RunnerClientError;
  }
  for (;;) {
    if (response) {
      const consumed = await consume(transport, method, response, cursor, options);
      if (consumed.outcome) return consumed.outcome;
      reason = consumed.dropped as RunnerClientError;
      if (consumed.progressed) backoff.reset();
      response = undefined;
    }
    if (cursor.jobId === undefined || !reason) {
      // Without a job id (an upstream server, or a drop before the first event) there is nothing to resume.
      throw (
        reason ??
        new RunnerClientError('protocol', 'The stream ended without a result', { method, url: transport.baseUrl })
      );
    }
    method = 'GET';
    const path = routes.jobEvents(cursor.jobId);
    while (!response) {
      if (reconnects >= maxReconnects)
        throw new FollowGaveUpError(cursor.jobId, reconnects, cursor.lastEventId, reason);
      reconnects += 1;
      const delayMs = backoff.next();
      options.onReconnect?.({
        jobId: cursor.jobId,
        attempt: reconnects,
        lastEventId: cursor.lastEventId,
        delayMs,
        reason,
      });
      try {
        await sleep(delayMs, options.signal);
      } catch (err) {
        throw new RunnerClientError('cancelled', 'Cancelled while reconnecting', {
          method,
          url: transport.show(transport.url(path)),
          cause: err,
        });
      }
      try {
        response = await openEvents(transport, cursor, options.signal);
      } catch (err) {
        if (!isRetryable(err)) throw err;
        reason = err as RunnerClientError;
      }
    }
  }
}

/** GET /jobs/{id}/events after the cursor's last id. */
export function openEvents(transport: Transport, cursor: Cursor, signal?: AbortSignal): Promise<StreamResponse> {
  if (cursor.jobId === undefined) throw new Error('openEvents needs a job id');
  return transport.stream('GET', routes.jobEvents(cursor.jobId), {
    headers: cursor.lastEventId > 0 ? { 'Last-Event-ID': String(cursor.lastEventId) } : {},
    signal,
  });
}
