// The one error the runner client throws. `type` says what went wrong; the message names the method and the URL
// (credentials stripped) and never contains the token or cli_id.
import { KernelRunnerError, type CoreErrorCode } from '../errors';

export type RunnerClientErrorType = 'http' | 'network' | 'protocol' | 'cancelled' | 'timeout';

export interface RunnerClientErrorInit {
  method: string;
  url: string;
  /** HTTP status for `http` errors. */
  status?: number;
  /** The server's `detail` (or `message`) for `http` errors; the reason otherwise. */
  detail?: string;
  /** Node's error code for `network` errors (ECONNREFUSED, ENOTFOUND, ...). */
  code?: string;
  /** The wait the server asked for with `Retry-After` (429, 503), in milliseconds. */
  retryAfterMs?: number;
  cause?: unknown;
}

const CODES: Record<RunnerClientErrorType, CoreErrorCode> = {
  http: 'CLIENT_HTTP',
  network: 'CLIENT_NETWORK',
  protocol: 'CLIENT_PROTOCOL',
  cancelled: 'CLIENT_CANCELLED',
  timeout: 'CLIENT_TIMEOUT',
};

export class RunnerClientError extends KernelRunnerError {
  override readonly name: string = 'RunnerClientError';
  readonly type: RunnerClientErrorType;
  readonly method: string;
  readonly url: string;
  readonly status: number | undefined;
  readonly detail: string | undefined;
  /** Node's error code for `network` errors (ECONNREFUSED, ENOTFOUND, ...). */
  readonly systemCode: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(type: RunnerClientErrorType, summary: string, init: RunnerClientErrorInit) {
    const detail = init.detail ? ` — ${init.detail}` : '';
    super(`${summary}: ${init.method.toUpperCase()} ${init.url}${detail}`, { cause: init.cause });
    this.type = type;
    this.method = init.method.toUpperCase();
    this.url = init.url;
    this.status = init.status;
    this.detail = init.detail;
    this.systemCode = init.code;
    this.retryAfterMs = init.retryAfterMs;
  }

  get code(): CoreErrorCode {
    return CODES[this.type];
  }
}

/** A base URL that is not an http(s) URL: the user's input, found before anything is sent. */
export class InvalidRunnerUrlError extends RunnerClientError {
  override readonly name = 'InvalidRunnerUrlError';
  override get code(): CoreErrorCode {
    return 'CLIENT_INVALID_URL';
  }
  constructor(url: string, why: string) {
    super('protocol', 'Not a valid runner URL', { method: 'GET', url, detail: why });
  }
}

export function isRunnerClientError(err: unknown): err is RunnerClientError {
  return err instanceof RunnerClientError;
}

/** Whether retrying (a resume or the next poll) can help: network blips, timeouts, 5xx, 429. */
export function isRetryable(err: unknown): boolean {
  if (!(err instanceof RunnerClientError)) return false;
  if (err.type === 'network' || err.type === 'timeout') return true;
  return (
    err.type === 'http' && err.status !== undefined && (err.status >= 500 || err.status === 429 || err.status === 408)
  );
}

/** A URL fit for messages: no user:password, no secret-looking query parameters. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    for (const key of [...u.searchParams.keys()]) {
      if (/token|secret|key|password|cli_id/i.test(key)) u.searchParams.set(key, '***');
    }
    return u.toString();
  } catch {
    return url;
  }
}

/** Replaces every occurrence of the given secrets (token, cli_id) in a text. */
export function redact(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join('***');
  }
  return out;
}

/** A `Retry-After` header (delta-seconds or an HTTP date) as milliseconds from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined | null, now: number = Date.now()): number | undefined {
  if (value === undefined || value === null) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const when = Date.parse(text);
  return Number.isNaN(when) ? undefined : Math.max(0, when - now);
}
