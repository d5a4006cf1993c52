// A bound on the time of every MCP tool call. Past it (or when the client cancels, or the session ends) the call's
// signal is aborted, so a submission is cancelled and a wait stops, and the call answers with an error that says
// which limit was reached; nothing keeps running for a client that stopped listening.
import { KernelRunnerError } from '../../core/errors';

export class CallLimitError extends KernelRunnerError {
  override readonly name = 'CallLimitError';
  readonly code = 'CLI_MCP_TOOL';
}

const MINUTE = 60_000;

/** Per tool: a submit covers queueing, building and running (the runner's own job limit is shorter). */
const LIMITS_MS: Record<string, number> = {
  submit: 120 * MINUTE,
  get_run: 120 * MINUTE,
  list_leaderboards: 2 * MINUTE,
  profile_digest: 10 * MINUTE,
  compare: 10 * MINUTE,
  isa: 10 * MINUTE,
};
const DEFAULT_LIMIT_MS = 10 * MINUTE;

/** The limit of a tool; KERNEL_RUNNER_MCP_TIME_LIMIT_S (seconds) lowers every limit to it. */
export function callLimitMs(tool: string, env: NodeJS.ProcessEnv = process.env): number {
  const own = LIMITS_MS[tool] ?? DEFAULT_LIMIT_MS;
  const cap = Number(env.KERNEL_RUNNER_MCP_TIME_LIMIT_S);
  return Number.isFinite(cap) && cap > 0 ? Math.min(own, cap * 1000) : own;
}

/** What became of the work a tool started when its call stops. */
const AFTER_STOP: Record<string, string> = {
  submit: 'the job was cancelled',
  get_run: 'the run goes on: call get_run again',
};

const seconds = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/**
 * Runs `work` with a signal that aborts when `outer` does (client cancellation, end of session) or when `limitMs`
 * has passed; answers as soon as either happens, whether or not `work` has noticed yet.
 */
export async function boundCall<T>(
  tool: string,
  limitMs: number,
  outer: AbortSignal,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let stop!: (err: Error) => void;
  const stopped = new Promise<never>((_, reject) => (stop = reject));
  const onOuter = () => {
    const err = new CallLimitError(`${tool}: cancelled`);
    controller.abort(err);
    stop(err);
  };
  const timer = setTimeout(() => {
    const err = new CallLimitError(
      `${tool}: stopped after its time limit of ${seconds(limitMs)} (${AFTER_STOP[tool] ?? 'nothing of it is kept'})`,
    );
    controller.abort(err);
    stop(err);
  }, limitMs);
  if (outer.aborted) onOuter();
  else outer.addEventListener('abort', onOuter, { once: true });
  try {
    return await Promise.race([work(controller.signal), stopped]);
  } finally {
    clearTimeout(timer);
    outer.removeEventListener('abort', onOuter);
  }
}
