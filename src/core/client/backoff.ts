// Retry pacing: exponential delays with jitter, and an abortable sleep.
import { RECONNECT_INITIAL_MS, RECONNECT_MAX_MS } from '../limits';

export interface BackoffOptions {
  initialMs?: number;
  maxMs?: number;
  factor?: number;
  /** 0..1: part of each delay that is randomised. */
  jitter?: number;
}

export function createBackoff(options: BackoffOptions = {}): { next(): number; reset(): void } {
  const initial = options.initialMs ?? RECONNECT_INITIAL_MS;
  const max = options.maxMs ?? RECONNECT_MAX_MS;
  const factor = options.factor ?? 2;
  const jitter = options.jitter ?? 0.2;
  let current = initial;
  return {
    next() {
      const base = current;
      current = Math.min(max, current * factor);
      return Math.round(base * (1 - jitter + Math.random() * jitter));
    },
    reset() {
      current = initial;
    },
  };
}

/**
 * Reconnection pacing from `KERNEL_RUNNER_RECONNECT_MS` (the longest wait between reconnects, at least 10 ms;
 * tests use it), else undefined (the defaults).
 */
export function reconnectBackoffFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): BackoffOptions | undefined {
  const v = Number(env.KERNEL_RUNNER_RECONNECT_MS);
  if (!env.KERNEL_RUNNER_RECONNECT_MS || !Number.isFinite(v) || v < 10) return undefined;
  return { initialMs: Math.min(250, v), maxMs: v };
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
