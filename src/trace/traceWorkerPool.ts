// Worker threads for a large kernel trace started before they are needed: the CLI's launcher starts them when it
// sees `summarize <a large trace>`, so that they boot (~30 ms each) while the CLI bundle loads and the trace's
// header is read, and the parallel read (parallelKernelTrace.ts) takes them. The launcher and the CLI are separate
// bundles: the started workers are handed over through a global. Nothing here imports the rest of the toolkit (the
// launcher stays small).
import { PARALLEL_TRACE_MIN_BYTES } from './limits';
import { readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Worker, type ResourceLimits } from 'node:worker_threads';

const MAX_THREADS = 4;
export const WORKER_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 8 };

/** KERNEL_RUNNER_TRACE_MIN_BYTES when set, else PARALLEL_TRACE_MIN_BYTES. */
export function defaultMinBytes(env: NodeJS.ProcessEnv = process.env): number {
  const set = env.KERNEL_RUNNER_TRACE_MIN_BYTES;
  return set !== undefined && /^\d+$/.test(set.trim()) ? Number(set) : PARALLEL_TRACE_MIN_BYTES;
}

/** KERNEL_RUNNER_TRACE_THREADS when set (0: no workers), else the cores, at most 4. */
export function defaultThreads(env: NodeJS.ProcessEnv = process.env): number {
  const set = env.KERNEL_RUNNER_TRACE_THREADS;
  if (set !== undefined && /^\d+$/.test(set.trim())) return Math.min(MAX_THREADS, Number(set));
  return Math.max(1, Math.min(MAX_THREADS, availableParallelism()));
}

/**
 * Threads of a counter collection's parallel read (0: one pass on the calling thread): KERNEL_RUNNER_TRACE_THREADS
 * when set, else none on two cores or fewer. There the one pass is faster: a counter part's rows merge per
 * dispatch on the calling thread, and each worker warms up its own copy of the row code, which costs more than a
 * second core gives (bench/roofline.bench.ts: 0.50 s one pass against 0.61 s with a worker, 1,000,000 rows).
 */
export function counterReadThreads(env: NodeJS.ProcessEnv = process.env): number {
  if (env.KERNEL_RUNNER_TRACE_THREADS === undefined && availableParallelism() <= 2) return 0;
  return defaultThreads(env);
}

interface Pool {
  script: string;
  workers: Worker[];
}

const POOL = Symbol.for('kernel-runner.traceWorkers');
type WithPool = typeof globalThis & { [POOL]?: Pool };

/**
 * Starts the default number of workers of `script` when one of `paths` is (or is a folder holding) a
 * `*kernel_trace.csv`, `*counter_collection.csv` (or PC-sample CSV) the parallel read will take (default minimum
 * size). They do not keep the process alive. Given a kernel trace file, or a counter collection without a kernel
 * trace beside it, worker i starts on the parts of it it will most likely be sent first (kernelTraceWorker.ts).
 */
export function prestartTraceWorkers(
  script: string,
  paths: readonly string[],
  /** What the workers will read (`hotspots`: PC samples, read in parts by pcSampling/pcSampleParts.ts). */
  what: 'kernel trace' | 'pc samples' = 'kernel trace',
): void {
  const threads = defaultThreads();
  const names =
    what === 'kernel trace'
      ? /(?:kernel_trace|counter_collection)\.csv$/i
      : /_pc_sampling_(host_trap|stochastic)\.csv$/i;
  const large = threads <= 0 ? undefined : paths.map((p) => largeCsvIn(p, names)).find((f) => f !== null);
  if (!large) return;
  // the PC-sample and counter reads scan on the calling thread too (parallelParts.ts scanHereToo): one worker fewer
  const counters = what === 'kernel trace' && large.counters && large.alone;
  const readThreads = counters ? counterReadThreads() : threads;
  const count = what === 'pc samples' || counters ? readThreads - 1 : readThreads;
  // what the workers start on before they are asked (kernelTraceWorker.ts): a kernel trace given as a file, or a
  // counter collection with no kernel trace beside it
  const speculate = counters
    ? { path: large.file, counters: true }
    : what === 'kernel trace' && !large.counters && large.given
      ? { path: large.file }
      : undefined;
  const workers: Worker[] = [];
  for (let i = 0; i < count; i++) {
    let worker: Worker;
    try {
      const workerData = speculate ? { speculate: { ...speculate, index: i, threads: readThreads } } : undefined;
      worker = new Worker(script, { resourceLimits: WORKER_LIMITS, workerData });
    } catch {
      break;
    }
    worker.unref();
    pool(worker, workers);
  }
  (globalThis as WithPool)[POOL] = { script, workers };
}

/** A started worker of `script`, referenced again (it keeps the process alive until terminated), or null. */
export function takeTraceWorker(script: string): Worker | null {
  const pool = (globalThis as WithPool)[POOL];
  if (!pool || pool.script !== script) return null;
  const worker = pool.workers.shift();
  if (!worker) return null;
  clearTimeout(idleTimers.get(worker));
  poolListeners.get(worker)?.();
  worker.ref();
  return worker;
}

/** Per pooled worker, what removes the pool's listeners from it (the read that takes it adds its own). */
const poolListeners = new WeakMap<Worker, () => void>();

/** Puts `worker` in `workers` until taken; an error does not throw (the read that takes it starts its own). */
function pool(worker: Worker, workers: Worker[]): void {
  const ignore = (): void => {};
  const gone = (): void => {
    const at = workers.indexOf(worker);
    if (at >= 0) workers.splice(at, 1);
  };
  worker.on('error', ignore);
  worker.once('exit', gone);
  poolListeners.set(worker, () => {
    worker.off('error', ignore);
    worker.off('exit', gone);
  });
  workers.push(worker);
}

/** How long a worker a read gave back waits for the next read (of the same summary: the next file) before it ends. */
const IDLE_MS = 2000;
const idleTimers = new WeakMap<Worker, NodeJS.Timeout>();

/**
 * A worker a read is done with (no part in flight), kept for the next large file of the same summary: one of a
 * multi-process profile's many traces would otherwise start and warm up its workers again. It is told to forget
 * the file (`reset`), does not keep the process alive, and ends when no read takes it within IDLE_MS.
 */
export function releaseTraceWorker(script: string, worker: Worker): void {
  let kept = (globalThis as WithPool)[POOL];
  if (!kept || kept.script !== script) {
    for (const w of kept?.workers ?? []) void w.terminate();
    kept = { script, workers: [] };
    (globalThis as WithPool)[POOL] = kept;
  }
  worker.postMessage({ reset: true });
  worker.unref();
  const timer = setTimeout(() => void worker.terminate(), IDLE_MS);
  timer.unref();
  idleTimers.set(worker, timer);
  pool(worker, kept.workers);
}

/**
 * The large CSV of `names` that `p` is or holds (absolute): `given` when `p` is the file itself, `counters` when it
 * is a counter collection, `alone` when no kernel trace is beside it. Null when there is none.
 */
function largeCsvIn(
  p: string,
  names: RegExp,
): { file: string; given: boolean; counters: boolean; alone: boolean } | null {
  const min = defaultMinBytes();
  const found = (file: string, given: boolean, siblings: string[]) => ({
    file: path.resolve(file),
    given,
    counters: /counter_collection\.csv$/i.test(file),
    alone: !siblings.some((name) => /kernel_trace\.csv$/i.test(name)),
  });
  try {
    const st = statSync(p);
    if (st.isFile()) return st.size >= min && /\.csv$/i.test(p) ? found(p, true, []) : null;
    if (!st.isDirectory()) return null;
    const entries = readdirSync(p);
    const name = entries.find(
      (name) => names.test(name) && (statSync(path.join(p, name), { throwIfNoEntry: false })?.size ?? 0) >= min,
    );
    return name === undefined ? null : found(path.join(p, name), false, entries);
  } catch {
    return null;
  }
}
