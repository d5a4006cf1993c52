// A clock the test holds for one length of timer: every `setTimeout` of exactly that length in this process (a
// job's timeout, a hard timeout: set to HELD_TIMEOUT_SEC, far beyond any test) is kept until the test fires it. A timeout test
// lets the job reach the point under test first (a line read back, a process seen), then times it out, however slow
// the machine: the runner's own timeout path runs, only the moment is the test's. Timers of any other length run as
// usual (the runner's grace periods, heartbeats, the test's polls).

/** The real timer functions, whatever is held. */
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;

class HeldTimeout {
  cleared = false;
  private referenced = true;
  constructor(readonly fire: () => void) {}
  ref(): this {
    this.referenced = true;
    return this;
  }
  unref(): this {
    this.referenced = false;
    return this;
  }
  hasRef(): boolean {
    return this.referenced;
  }
  refresh(): this {
    return this;
  }
  close(): this {
    this.cleared = true;
    return this;
  }
}

const held = new Map<number, Set<HeldTimeout>>();

function install(): void {
  const hold = ((fn: (...a: unknown[]) => void, delay?: number, ...args: unknown[]) => {
    const waiting = delay === undefined ? undefined : held.get(delay);
    if (!waiting) return realSetTimeout(fn, delay, ...args);
    const timer = new HeldTimeout(() => fn(...args));
    waiting.add(timer);
    return timer;
  }) as unknown as typeof setTimeout;
  globalThis.setTimeout = Object.assign(hold, { __promisify__: realSetTimeout.__promisify__ });
  globalThis.clearTimeout = ((timer?: unknown) => {
    if (timer instanceof HeldTimeout) timer.close();
    else realClearTimeout(timer as Parameters<typeof clearTimeout>[0]);
  }) as typeof clearTimeout;
}

/** A timeout no timer of the runner has by default (its retention sweep is hourly): give it to the job. */
const HELD_TIMEOUT_SEC = 4321;

export interface HeldClock {
  /** The timer's length: give this as the job's timeout. */
  readonly seconds: number;
  /** Fires every held timer of this length that is still set (not cleared); returns how many fired. */
  fire(): number;
  /** How many timers of this length are held and still set (a timer set a moment after the event a test waits for). */
  pending(): number;
  /** Lets timers of this length run as usual again (those already held stay held: fire them first). */
  release(): void;
}

/** Holds every timer of exactly `seconds` set from now on, until fired. One holder per length; release in `after`. */
export function holdTimers(seconds = HELD_TIMEOUT_SEC): HeldClock {
  const ms = seconds * 1000;
  if (held.has(ms)) throw new Error(`timers of ${seconds} s are already held`);
  if (held.size === 0) install();
  const timers = new Set<HeldTimeout>();
  held.set(ms, timers);
  return {
    seconds,
    fire() {
      const due = [...timers].filter((t) => !t.cleared);
      timers.clear();
      for (const t of due) t.fire();
      return due.length;
    },
    pending() {
      return [...timers].filter((t) => !t.cleared).length;
    },
    release() {
      held.delete(ms);
      if (held.size === 0) {
        globalThis.setTimeout = realSetTimeout;
        globalThis.clearTimeout = realClearTimeout;
      }
    },
  };
}
