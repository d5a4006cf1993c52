// What GPU MODE's answers mean for the user: 401 (unknown cli_id: register again), 400 without identity, 413 (file
// too large), 429 (rate limited), 400 with the server's detail. One error class; the message names the method and
// URL (never the cli_id: the client already redacts it) and says what to do.
//
// The wait of a 429: GPU MODE sends no Retry-After header. Its limiter (kernelbot submission.py) raises
// "Rate limit exceeded: 3/3 leaderboard submissions per hour. Try again in 1234s." — a 429 `{"detail": ...}` on
// the background route (`{"message": ...}` where a KernelBotError reaches FastAPI's handler), and an in-stream
// `error` event with status_code 400 on the streaming route. So the wait is read from a Retry-After header when
// there is one (our runner, proxies), else from that text.
import { RunnerClientError } from '../client/errors';
import { formatWait } from '../format/durations';
import { KernelRunnerError, type CoreErrorCode } from '../errors';
export { parseRetryAfter } from '../client/errors';

export type GpuModeErrorType =
  | 'unregistered' // 401: the cli_id is unknown or was reset
  | 'no-identity' // 400 "Missing X-Popcorn-Cli-Id header", or no cli_id in ~/.popcorn.yaml at all
  | 'too-large' // 413
  | 'rate-limited' // 429
  | 'bad-request' // other 4xx, with the server's detail
  | 'server' // 5xx
  | 'network'
  | 'timeout'
  | 'cancelled'
  | 'protocol';

const CODES: Record<GpuModeErrorType, CoreErrorCode> = {
  unregistered: 'GPUMODE_UNREGISTERED',
  'no-identity': 'GPUMODE_NO_IDENTITY',
  'too-large': 'GPUMODE_TOO_LARGE',
  'rate-limited': 'GPUMODE_RATE_LIMITED',
  'bad-request': 'GPUMODE_BAD_REQUEST',
  server: 'GPUMODE_SERVER',
  network: 'GPUMODE_NETWORK',
  timeout: 'GPUMODE_TIMEOUT',
  cancelled: 'GPUMODE_CANCELLED',
  protocol: 'GPUMODE_PROTOCOL',
};

/** What to tell the user to do, by surface: actions, used as "To register, <register>." / "To register again, <reregister>." */
export interface RegisterHints {
  register: string;
  reregister: string;
}

export const CLI_REGISTER_HINTS: RegisterHints = {
  register: 'run `kernel-runner register discord` (or `kernel-runner register github`)',
  reregister: 'run `kernel-runner register discord --reset` (or `github`; leave out --reset if you never registered)',
};

export const EXTENSION_REGISTER_HINTS: RegisterHints = {
  register: 'run "Kernel Runner: Register with GPU MODE" from the Command Palette',
  reregister: 'run "Kernel Runner: Register with GPU MODE" from the Command Palette and choose to re-register',
};

export interface GpuModeErrorInit {
  method?: string;
  url?: string;
  status?: number;
  detail?: string;
  retryAfterMs?: number;
  cause?: unknown;
}

export class GpuModeError extends KernelRunnerError {
  override readonly name = 'GpuModeError';
  readonly type: GpuModeErrorType;
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly status: number | undefined;
  /** The server's `detail` (or `message`). */
  readonly detail: string | undefined;
  /** The wait the server asked for: its `Retry-After` header, else the "Try again in Ns." of its text. */
  readonly retryAfterMs: number | undefined;

  constructor(type: GpuModeErrorType, message: string, init: GpuModeErrorInit = {}) {
    super(message, { cause: init.cause });
    this.type = type;
    this.method = init.method;
    this.url = init.url;
    this.status = init.status;
    this.detail = init.detail;
    this.retryAfterMs = init.retryAfterMs;
  }

  get code(): CoreErrorCode {
    return CODES[this.type];
  }
}

export function isGpuModeError(err: unknown): err is GpuModeError {
  return err instanceof GpuModeError;
}

const TRY_AGAIN =
  /\btry again in\s+(\d+(?:\.\d+)?)(?:\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?)(?![a-z])|(?!\s*[a-z]))/i;

/**
 * The wait a server's text asks for: GPU MODE's "Try again in 1234s." (also "in 30 seconds", "in 2 min", "in 1 h"),
 * in milliseconds; undefined when the text names no wait ("please try again later").
 */
export function parseRetryAfterText(text: string | null | undefined): number | undefined {
  const m = text ? TRY_AGAIN.exec(text) : null;
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = (m[2] ?? 's').toLowerCase();
  const factor =
    unit.startsWith('ms') || unit.startsWith('milli')
      ? 1
      : unit.startsWith('h')
        ? 3_600_000
        : unit.startsWith('m')
          ? 60_000
          : 1000;
  const ms = Math.round(n * factor);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/**
 * The wait a failed call asks for, if it says: a `retryAfterMs` number on the error (GpuModeError, or a
 * RunnerClientError from the server's Retry-After header), else the "Try again in Ns." of the server's detail
 * (GPU MODE's rate limit sends no header), else undefined.
 */
export function retryAfterMs(err: unknown): number | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const value = (err as { retryAfterMs?: unknown }).retryAfterMs;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  const detail = (err as { detail?: unknown }).detail;
  return typeof detail === 'string' ? parseRetryAfterText(detail) : undefined;
}

export interface ExplainOptions {
  /** What to tell the user; default CLI_REGISTER_HINTS (the extension passes EXTENSION_REGISTER_HINTS). */
  hints?: RegisterHints;
}

/**
 * Turns a client failure into a GpuModeError that says what happened and what to do. Anything that is not a
 * RunnerClientError (a bug, a PopcornConfigError) is returned unchanged.
 */
export function explainGpuModeError(err: unknown, options: ExplainOptions = {}): unknown {
  if (err instanceof GpuModeError || !(err instanceof RunnerClientError)) return err;
  const hints = options.hints ?? CLI_REGISTER_HINTS;
  const where = `${err.method} ${err.url}`;
  const init: GpuModeErrorInit = {
    method: err.method,
    url: err.url,
    status: err.status,
    detail: err.detail,
    retryAfterMs: retryAfterMs(err),
    cause: err,
  };
  if (err.type !== 'http') {
    return new GpuModeError(err.type, err.message, init);
  }
  // The background route answers every error of its preparation step as 400 "failed to prepare submission
  // request: <code>: <text>" (main.run_submission_async wraps to_submit_info's HTTPException, whose str() is
  // "<code>: <detail>"): the inner code and text are the error, as the streaming route sends them.
  const wrapped = unwrapPreparationError(err.status, err.detail);
  const status = wrapped?.status ?? err.status ?? 0;
  const detail = wrapped?.detail ?? err.detail;
  if (wrapped) {
    init.status = status;
    init.detail = detail;
    init.retryAfterMs = err.retryAfterMs ?? parseRetryAfterText(detail);
  }
  const said = detail ? ` (${detail})` : '';
  const code = wrapped ? `${status}, sent wrapped in a 400` : String(status);
  if (status === 401) {
    return new GpuModeError(
      'unregistered',
      `GPU MODE does not recognise this cli_id (401)${said}: ${where}. To register again, ${hints.reregister}.`,
      init,
    );
  }
  if (status === 400 && /x-popcorn-cli-id/i.test(detail ?? '')) {
    return new GpuModeError(
      'no-identity',
      `GPU MODE needs a cli_id and none was sent${said}: ${where}. To register, ${hints.register}.`,
      init,
    );
  }
  if (status === 413) {
    return new GpuModeError(
      'too-large',
      `GPU MODE rejected the file as too large (${code})${said}: ${where}. Submissions must be at most 1 MB.`,
      init,
    );
  }
  if (status === 429) return rateLimitError(detail, where, init);
  // to_submit_info answers an unknown leaderboard and the `stream` keyword with 500: refusals, not failures
  if (status >= 500 && !refusedWith500(detail))
    return new GpuModeError('server', `GPU MODE failed to answer (${code})${said}: ${where}`, init);
  return new GpuModeError('bad-request', `GPU MODE rejected the request (${code})${said}: ${where}`, init);
}

const WRAPPED = /^failed to prepare submission request: (\d{3}): ([^]*)$/;

/** The inner error of the background route's 400 "failed to prepare submission request: <code>: <text>". */
function unwrapPreparationError(
  status: number | undefined,
  detail: string | undefined,
): { status: number; detail: string } | undefined {
  const m = status === 400 && detail ? WRAPPED.exec(detail) : null;
  return m ? { status: Number(m[1]), detail: m[2] as string } : undefined;
}

/** api_utils.to_submit_info's 500s that are the submission's fault: a leaderboard that does not exist, `stream`. */
function refusedWith500(detail: string | undefined): boolean {
  return /Leaderboard `[^`]*` does not exist|contains work on another stream/.test(detail ?? '');
}

/**
 * GPU MODE's rate limit, as one message wherever it arrives: a 429 of the background route, or the streaming
 * route's in-stream `error` (the same KernelBotError(code=429), re-raised there as status_code 400).
 */
export function rateLimitError(detail: string | undefined, where: string, init: GpuModeErrorInit = {}): GpuModeError {
  const said = detail ? ` (${detail})` : '';
  const waitMs = init.retryAfterMs ?? parseRetryAfterText(detail);
  const wait = waitMs !== undefined ? ` Try again in ${formatWait(waitMs)}.` : ' Wait a little before trying again.';
  return new GpuModeError('rate-limited', `GPU MODE is rate limiting these requests (429)${said}: ${where}.${wait}`, {
    ...init,
    status: 429,
    detail,
    ...(waitMs !== undefined ? { retryAfterMs: waitMs } : {}),
  });
}

export { formatWait } from '../format/durations';
