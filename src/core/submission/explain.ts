// Every way a submission can fail, as one explanation: what happened, in words for the surface the user is on
// (the CLI or the editor), and what they can do about it as actions. The CLI prints the message (its hints are in
// it); the extension shows the actions as buttons.
import { InvalidRunnerUrlError, RunnerClientError, isRunnerClientError } from '../client/errors';
import { FollowGaveUpError } from '../client/follow';
import {
  CLI_REGISTER_HINTS,
  EXTENSION_REGISTER_HINTS,
  GpuModeError,
  explainGpuModeError,
  formatWait,
  parseRetryAfterText,
  type RegisterHints,
} from '../gpumode/errors';
import type { ErrorEvent } from '../protocol/api';
import { PopcornConfigError } from '../popcornConfig';
import type { ServiceKind } from './service';
import {
  KernelRunnerError,
  errorMessage,
  explainCode,
  isKernelRunnerError,
  type CoreErrorCode,
  type FailureKind,
} from '../errors';

/** Where the words go: the `kernel-runner` command or the VS Code extension. */
export type Surface = 'cli' | 'editor';

export type ActionId =
  | 'register' // no cli_id yet
  | 'reregister' // the cli_id is unknown to GPU MODE
  | 'select-target' // the server is unreachable or cannot do this
  | 'set-token' // our runner refused the credentials
  | 'show-problems' // the file has problems the service would reject it for
  | 'profile-on-gpu' // profile on another AMD Instinct GPU the leaderboard offers (`gpu`)
  | 'profile-on-gpumode'; // the target has no profiler: GPU MODE's MI300s have one

export interface Action {
  id: ActionId;
  /** Button text. */
  label: string;
  /** For `profile-on-gpu`. */
  gpu?: string;
}

export type { FailureKind } from '../errors';

export interface Explanation {
  kind: FailureKind;
  message: string;
  actions: Action[];
  /** When the service asked to wait (429). */
  retryAfterMs?: number;
  /** `file:line: message` lines, for `rejected` by a check before sending. */
  problems?: string[];
}

/** A failure the workflow decided on itself (nothing went wrong in transport): it carries its explanation. */
export class SubmissionError extends KernelRunnerError {
  override readonly name: string = 'SubmissionError';
  constructor(readonly explanation: Explanation) {
    super(explanation.message);
  }

  get code(): CoreErrorCode {
    return SUBMISSION_CODES[this.explanation.kind];
  }
}

const SUBMISSION_CODES: Record<FailureKind, CoreErrorCode> = {
  usage: 'SUBMISSION_USAGE',
  rejected: 'SUBMISSION_REJECTED',
  'no-identity': 'SUBMISSION_NO_IDENTITY',
  unregistered: 'SUBMISSION_UNREGISTERED',
  unauthorized: 'SUBMISSION_UNAUTHORIZED',
  'rate-limited': 'SUBMISSION_RATE_LIMITED',
  'no-profiler': 'SUBMISSION_NO_PROFILER',
  'no-gpu': 'SUBMISSION_NO_GPU',
  network: 'SUBMISSION_NETWORK',
  timeout: 'SUBMISSION_TIMEOUT',
  server: 'SUBMISSION_SERVER',
  protocol: 'SUBMISSION_PROTOCOL',
  cancelled: 'SUBMISSION_CANCELLED',
  internal: 'SUBMISSION_INTERNAL',
};

export function submissionError(
  kind: FailureKind,
  message: string,
  actions: Action[] = [],
  extra: Partial<Explanation> = {},
): SubmissionError {
  return new SubmissionError({ kind, message, actions, ...extra });
}

const ACTION_LABELS: Record<ActionId, string> = {
  register: 'Register with GPU MODE…',
  reregister: 'Re-register',
  'select-target': 'Select Target…',
  'set-token': 'Set Token',
  'show-problems': 'Show Problems',
  'profile-on-gpu': 'Profile on',
  'profile-on-gpumode': 'Profile on GPU MODE',
};

export function action(id: ActionId, gpu?: string): Action {
  return gpu ? { id, label: `${ACTION_LABELS[id]} ${gpu}`, gpu } : { id, label: ACTION_LABELS[id] };
}

export function registerHints(surface: Surface): RegisterHints {
  return surface === 'cli' ? CLI_REGISTER_HINTS : EXTENSION_REGISTER_HINTS;
}

const TOKEN_HINT: Record<Surface, string> = {
  cli: 'pass --token-file PATH (the runner prints where its token is kept), or set KERNEL_RUNNER_TOKEN',
  editor: 'set one with "Kernel Runner: Set Token"',
};

/** Where a failed GPU MODE background run's output comes back, on each surface (see noDetailsAdvice). */
export const NO_DETAILS_HINTS: Record<Surface, { ourRunner: string; profile: string }> = {
  cli: {
    ourRunner: '`kernel-runner submit FILE --mode test` starts an embedded one',
    profile: '`kernel-runner submit FILE --server gpumode --mode profile`',
  },
  editor: {
    ourRunner: 'Run with the embedded runner selected ("Kernel Runner: Select Target…")',
    profile: '"Profile on GPU MODE"',
  },
};

const UNREACHABLE_HINT: Record<Surface, string> = {
  cli: ' Start `kernel-runner serve` there, or leave out --server to use an embedded runner.',
  editor:
    ' Is `kernel-runner serve` running? Check kernelRunner.server, or select the embedded runner ("Kernel Runner: Select Target…").',
};

export interface ExplainContext {
  service?: ServiceKind;
  /** "the runner at http://…" in messages. */
  baseUrl?: string;
  embedded?: boolean;
  surface: Surface;
}

function networkWhy(code: string | undefined): string {
  if (code === 'ECONNREFUSED') return 'connection refused (nothing is listening there)';
  if (code === 'ENOTFOUND') return 'host not found';
  return code ?? 'network error';
}

/** Turns anything a submission threw into an explanation. */
export function explain(err: unknown, ctx: ExplainContext): Explanation {
  if (err instanceof SubmissionError) return err.explanation;
  if (err instanceof PopcornConfigError) return { kind: 'usage', message: err.message, actions: [] };
  if (err instanceof InvalidRunnerUrlError)
    return {
      kind: 'usage',
      message: `${err.url} is not a runner URL: ${err.detail}.`,
      actions: [action('select-target')],
    };
  if (err instanceof FollowGaveUpError) return explainGaveUp(err, ctx);
  if (ctx.service === 'gpumode' || err instanceof GpuModeError) return explainUpstream(err, ctx);
  if (isRunnerClientError(err)) return explainOurs(err, ctx);
  // any other error of ours: what its code means (the table of core/errors.ts)
  if (isKernelRunnerError(err)) return { kind: explainCode(err.code).kind, message: err.message, actions: [] };
  return { kind: 'internal', message: errorMessage(err), actions: [] };
}

function explainUpstream(err: unknown, ctx: ExplainContext): Explanation {
  const e = explainGpuModeError(err, { hints: registerHints(ctx.surface) });
  if (!(e instanceof GpuModeError)) return explain(e, { ...ctx, service: 'kernel-runner' });
  const base = { message: e.message, actions: [] as Action[] };
  switch (e.type) {
    case 'unregistered':
      return { ...base, kind: 'unregistered', actions: [action('reregister')] };
    case 'no-identity':
      return { ...base, kind: 'no-identity', actions: [action('register')] };
    case 'rate-limited':
      return {
        ...base,
        kind: 'rate-limited',
        ...(e.retryAfterMs !== undefined ? { retryAfterMs: e.retryAfterMs } : {}),
      };
    case 'too-large':
    case 'bad-request':
      return { ...base, kind: 'rejected' };
    case 'network':
      return { ...base, kind: 'network', actions: [action('select-target')] };
    case 'timeout':
    case 'server':
    case 'protocol':
    case 'cancelled':
      return { ...base, kind: e.type };
  }
}

function explainOurs(err: RunnerClientError, ctx: ExplainContext): Explanation {
  const where = ctx.embedded ? 'the embedded runner' : ctx.baseUrl ? `the runner at ${ctx.baseUrl}` : 'the runner';
  switch (err.type) {
    case 'network': {
      const hint = ctx.embedded ? '' : UNREACHABLE_HINT[ctx.surface];
      return {
        kind: 'network',
        message: `Cannot reach ${where}: ${networkWhy(err.systemCode)}.${hint} (${err.method} ${err.url})`,
        actions: [action('select-target')],
      };
    }
    case 'http': {
      const status = err.status ?? 0;
      if (status === 401 || status === 403) {
        return {
          kind: 'unauthorized',
          message: `${capital(where)} refused the credentials (${status}): ${TOKEN_HINT[ctx.surface]}. (${err.detail ?? err.message})`,
          actions: [action('set-token')],
        };
      }
      if (status === 429) {
        const wait = err.retryAfterMs !== undefined ? ` Try again in ${formatWait(err.retryAfterMs)}.` : '';
        return {
          kind: 'rate-limited',
          message: `${capital(where)} is busy (429): ${err.detail ?? err.message}.${wait}`,
          actions: [],
          ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
        };
      }
      if (status >= 500)
        return {
          kind: 'server',
          message: `${capital(where)} failed to answer (${status}): ${err.detail ?? err.message} (${err.method} ${err.url})`,
          actions: [],
        };
      return {
        kind: 'rejected',
        message: `${capital(where)} answered ${status}: ${err.detail ?? err.message} (${err.method} ${err.url})`,
        actions: [],
      };
    }
    case 'timeout':
      return { kind: 'timeout', message: `${capital(where)} did not answer in time. (${err.message})`, actions: [] };
    case 'protocol':
      return {
        kind: 'protocol',
        message: `${capital(where)} sent something this version cannot read. (${err.message})`,
        actions: [],
      };
    case 'cancelled':
      return { kind: 'cancelled', message: 'Cancelled.', actions: [] };
  }
}

/** The client stopped following a job that may still be running: name it, and where to see how it ended. */
function explainGaveUp(err: FollowGaveUpError, ctx: ExplainContext): Explanation {
  const why =
    err.reason.type === 'network'
      ? networkWhy(err.reason.systemCode)
      : err.reason.type === 'http'
        ? `${err.reason.status ?? 'error'} ${err.reason.detail ?? ''}`.trim()
        : err.reason.message;
  const jobUrl = ctx.baseUrl ? `${ctx.baseUrl.replace(/\/+$/, '')}/jobs/${err.jobId}` : `/jobs/${err.jobId}`;
  const server = ctx.baseUrl && !ctx.embedded ? ` --server ${ctx.baseUrl}` : '';
  const later =
    ctx.surface === 'cli'
      ? `\`kernel-runner submissions show ${err.jobId}${server}\` or GET ${jobUrl} shows it later`
      : `GET ${jobUrl} (or \`kernel-runner submissions show ${err.jobId}${server}\`) shows it later`;
  const message = `Gave up following job ${err.jobId} after ${err.reconnects} reconnect${err.reconnects === 1 ? '' : 's'} (${why}); the job may still be running: ${later}.`;
  const kind: FailureKind = err.type === 'network' ? 'network' : err.type === 'timeout' ? 'timeout' : 'server';
  return { kind, message, actions: kind === 'network' ? [action('select-target')] : [] };
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * A job that ended with an `error` event. Upstream's streaming route sends its refusals this way after the 200
 * (`status_code: 400`), its rate limit among them ("... Try again in 1234s.").
 */
export function explainErrorEvent(error: ErrorEvent): Explanation {
  const wait = parseRetryAfterText(error.detail);
  if (wait !== undefined && /rate limit/i.test(error.detail))
    return { kind: 'rate-limited', message: error.detail, actions: [], retryAfterMs: wait };
  const code = error.status_code ?? 0;
  return { kind: code >= 400 && code < 500 ? 'rejected' : 'server', message: error.detail, actions: [] };
}
