// Retry pacing: exponential delays with jitter, and an abortable sleep.

export interface BackoffOptions {
  initialMs?: number;
  maxMs?: number;
  factor?: number;
  /** 0..1: part of each delay that is randomised. */
  jitter?: number;
}

export function createBackoff(options: BackoffOptions = {}): { next(): number; reset(): void } {
  const initial = options.initialMs ?? 250;
  const max = options.maxMs ?? 5000;
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
