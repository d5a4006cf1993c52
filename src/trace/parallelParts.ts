// A large CSV on disk read by worker threads (dist/trace-worker.cjs): the file is cut into parts (fileParts.ts),
// the workers scan them, and this thread applies their answers in file order, checking each part's guessed first
// row against where the previous part ended, and having a part scanned again when they differ. When no worker can
// be started (the worker file is missing, a worker fails), the parts are scanned here; with `scanHereToo`, this
// thread scans parts beside the workers. What a part's answer holds and how it is applied is the reader's
// (parallelKernelTrace.ts, readers/counterCollection.ts, pcSampling/pcSampleParts.ts).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CsvFormatError } from './csvScanner';
import { partPlan, type PartOutcome, type PartSpan } from './fileParts';
import { WORKER_LIMITS, defaultMinBytes, defaultThreads, releaseTraceWorker, takeTraceWorker } from './traceWorkerPool';

export { defaultMinBytes, defaultThreads };

export interface ParallelOptions {
  /** Worker threads (default: KERNEL_RUNNER_TRACE_THREADS, else the cores, at most 4; 0 = one pass on this thread). */
  threads?: number;
  /**
   * Files smaller than this are read in one pass on this thread (default KERNEL_RUNNER_TRACE_MIN_BYTES, else
   * 48 MiB: below that, starting workers costs about what they save).
   */
  minBytes?: number;
  /** Bytes per part (default 16 MiB, smaller for smaller files so that every worker gets several). */
  partBytes?: number;
  /** The worker to start (default: workerEntry()). */
  worker?: { script: string; evaluated: boolean } | null;
  /**
   * This thread is one of the `threads` that scan (threads - 1 workers, as traceWorkerPool.ts prestarts for
   * 'pc samples'): it scans the first parts, one per turn of the event loop, while the workers take parts from the
   * end. Worth it when this thread's scanner code is warm (it read an earlier file of the run) and the workers' is
   * not. Off: this thread only applies the answers (and scans only when no worker can).
   */
  scanHereToo?: boolean;
}

/** How a parallel read went (for tests and the benchmark). */
export interface ParallelRun {
  parts: number;
  /** Parts scanned again because their guessed first row was not where the previous part ended. */
  rescans: number;
  workers: number;
  /**
   * Parts scanned on this thread: parts no worker could take, a part scanned again (without `scanHereToo`), and
   * with `scanHereToo` the parts it took beside the workers (it scans a part again at once: counted in `rescans`).
   */
  partsHere: number;
  /** Workers that the CLI's launcher had started (traceWorkerPool.ts). */
  prestarted: number;
  /** Parts such a worker had scanned before it was asked for them. */
  early: number;
}

export interface FileSpan {
  path: string;
  size: number;
  /** Offset of the first data row (after the header). */
  dataStart: number;
  /** Line number of the first data row. */
  dataLine: number;
}

/** Whether `options` send a file of `size` bytes on disk to worker threads. */
export function readsInParallel(size: number, options: ParallelOptions = {}): boolean {
  return size >= (options.minBytes ?? defaultMinBytes()) && (options.threads ?? defaultThreads()) > 0;
}

/**
 * How to start a worker: the bundle's trace-worker.cjs beside the bundle that holds this module; or, running
 * from the TypeScript sources (tests, development), the worker's source through tsx's require hook (a worker
 * thread does not inherit the loader hooks of `--import tsx`). Null when neither is there.
 */
export function workerEntry(): { script: string; evaluated: boolean } | null {
  const here = fileURLToPath(import.meta.url);
  const dir = path.dirname(here);
  if (/\.[cm]?js$/.test(here)) {
    const bundled = path.join(dir, 'trace-worker.cjs');
    return existsSync(bundled) ? { script: bundled, evaluated: false } : null;
  }
  const source = path.join(dir, 'kernelTraceWorker.ts');
  let tsx: string;
  try {
    tsx = createRequire(here).resolve('tsx/cjs/api');
  } catch {
    return null;
  }
  if (!existsSync(source)) return null;
  return { script: `require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(source)});`, evaluated: true };
}

/** Where a part's answer came from: a worker (its lane, 0..), or this thread (-1). */
export type PartOrigin = number;
export const HERE: PartOrigin = -1;

/** What a kind of rows does with its parts. `M` is what a worker needs besides the span (sent with every part). */
export interface PartReader<M extends object, R extends PartOutcome> {
  payload: M;
  /** Sent to each worker once, before its first part (what every part needs that is too large to send with each). */
  init?: object;
  /** Scans a part on this thread (when no worker can). */
  scanHere(task: PartSpan & M): R;
  /** An answer as it arrives (a worker answers its parts in the order it was sent them). */
  received?(result: R, from: PartOrigin): void;
  /**
   * The answers in file order; `lineBase` is the line number of the part's first line. `post` sends a message
   * back to the worker that answered (nothing for this thread).
   */
  apply(result: R, from: PartOrigin, lineBase: number, post: (message: unknown, transfer: ArrayBuffer[]) => void): void;
  /** Rows the answer held (for the rows read so far when a part fails). */
  rows(result: R): number;
}

interface Task<M extends object, R extends PartOutcome> {
  span: PartSpan & M;
  resolve: (r: { result: R; from: PartOrigin }) => void;
  reject: (err: Error) => void;
  promise: Promise<{ result: R; from: PartOrigin }>;
}

interface Lane<M extends object, R extends PartOutcome> {
  id: number;
  worker: Worker;
  /** Sent and not answered yet, in order: a worker answers in the order it was sent parts. */
  tasks: Array<Task<M, R>>;
  /** Removes this read's listeners (before the worker goes back to the pool). */
  detach: () => void;
}

/** Parts sent to a worker ahead: it starts the next one without waiting for this thread to answer. */
const PER_WORKER = 2;

/** How far ahead of the next part to apply parts are handed out (bounds the answers held). */
function windowOf(threads: number): number {
  return Math.max(2, threads * (PER_WORKER + 1));
}

/**
 * The parts worker `lane` of `workers` is sent first by a read of `count` parts with `threads` (and `scanHereToo`),
 * in the order it is sent them: what a worker started before the read (traceWorkerPool.ts) can scan meanwhile.
 */
export function firstPartsOf(
  lane: number,
  workers: number,
  count: number,
  threads: number,
  scanHereToo: boolean,
): number[] {
  // as pump() below hands them out before anything is applied
  const queued = Array.from({ length: Math.min(count, windowOf(threads)) }, (_, k) => k);
  const parts: number[] = [];
  for (let round = 0; round < PER_WORKER; round++)
    for (let l = 0; l < workers && queued.length > 0; l++) {
      const index = (scanHereToo ? queued.pop() : queued.shift()) as number;
      if (l === lane) parts.push(index);
    }
  return parts;
}

/**
 * Reads the rows of [dataStart, size) with `reader`; returns the number of data rows. `progress.rowsRead` counts
 * the rows applied so far (still right when a part holds a malformed row: its rows before it are applied first).
 */
export async function readPartsParallel<M extends object, R extends PartOutcome>(
  file: FileSpan,
  reader: PartReader<M, R>,
  progress: { rowsRead: number },
  options: ParallelOptions = {},
  onRun?: (run: ParallelRun) => void,
): Promise<number> {
  const threads = options.threads ?? defaultThreads();
  const { count, boundary } = partPlan(file.dataStart, file.size, threads, options.partBytes);

  const makeTask = (index: number, start: number, exactStart: boolean): Task<M, R> => {
    let resolve!: Task<M, R>['resolve'];
    let reject!: Task<M, R>['reject'];
    const promise = new Promise<{ result: R; from: PartOrigin }>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.catch(() => {}); // awaited in order; a later part's failure must not go unhandled meanwhile
    // (the payload last: a speculating worker compares tasks as JSON, kernelTraceParts.ts sameTask)
    const span = {
      index,
      path: file.path,
      fileSize: file.size,
      start,
      end: boundary(index + 1),
      exactStart,
      ...reader.payload,
    };
    return { span, resolve, reject, promise };
  };
  const tasks = Array.from({ length: count }, (_, k) => makeTask(k, boundary(k), k === 0));
  const queue: Array<Task<M, R>> = [...tasks];
  const run: ParallelRun = { parts: count, rescans: 0, workers: 0, partsHere: 0, prestarted: 0, early: 0 };
  let applied = 0;
  /** Parts handed out at most this far ahead of the next one to apply (bounds the answers held). */
  const window = windowOf(threads);

  const scanNow = (span: PartSpan & M): R => {
    const result = reader.scanHere(span);
    reader.received?.(result, HERE);
    return result;
  };
  const scanHere = (task: Task<M, R>): void => {
    run.partsHere++;
    task.resolve({ result: scanNow(task.span), from: HERE });
  };

  const scanHereToo = options.scanHereToo === true;
  const inWindow = (t: Task<M, R>): boolean => t.span.index < applied + window;
  /** The queued part in the window nearest the start of the file (or, `last`, its end); -1: none. */
  const pick = (last: boolean): number => {
    let at = -1;
    let best = 0;
    for (let i = 0; i < queue.length; i++) {
      const index = (queue[i] as Task<M, R>).span.index;
      if (index >= applied + window) continue;
      if (at < 0 || (last ? index > best : index < best)) {
        at = i;
        best = index;
      }
    }
    return at;
  };

  const lanes: Array<Lane<M, R>> = [];
  let hereScheduled = false;
  const pump = (): void => {
    for (let round = 0; round < PER_WORKER; round++) {
      for (const lane of lanes) {
        if (lane.tasks.length > round) continue;
        // with this thread scanning the first parts, the workers take them from the end
        const i = scanHereToo ? pick(true) : queue.findIndex(inWindow);
        if (i < 0) break;
        const [task] = queue.splice(i, 1) as [Task<M, R>];
        lane.tasks.push(task);
        lane.worker.postMessage(task.span);
      }
    }
    if ((lanes.length === 0 || scanHereToo) && !hereScheduled && queue.some(inWindow)) {
      // one part per turn of the event loop, so that this thread stays responsive and takes the workers' answers
      // between its parts
      hereScheduled = true;
      setImmediate(() => {
        hereScheduled = false;
        const i = scanHereToo ? pick(false) : queue.findIndex(inWindow);
        if (i < 0) return; // the next answer or apply pumps again
        scanHere(queue.splice(i, 1)[0] as Task<M, R>);
        pump();
      });
    }
  };

  const entry = threads > 0 ? (options.worker === undefined ? workerEntry() : options.worker) : null;
  if (entry) {
    // with scanHereToo, this thread is one of `threads` and scans one part at least
    const workers = scanHereToo ? Math.min(threads - 1, count - 1) : Math.min(threads, count);
    for (let i = 0; i < workers; i++) {
      let worker: Worker;
      try {
        // one the launcher started (traceWorkerPool.ts), else a new one
        const started = takeTraceWorker(entry.script);
        if (started) run.prestarted++;
        worker = started ?? new Worker(entry.script, { eval: entry.evaluated, resourceLimits: WORKER_LIMITS });
      } catch {
        break;
      }
      const lane: Lane<M, R> = { id: i, worker, tasks: [], detach: () => {} };
      const drop = (): void => {
        const at = lanes.indexOf(lane);
        if (at < 0) return;
        lanes.splice(at, 1);
        queue.unshift(...lane.tasks.splice(0)); // another lane (or this thread) scans them
        void worker.terminate();
        pump();
      };
      const onMessage = (result: R): void => {
        const task = lane.tasks.shift();
        if (!task) return;
        if (result.early) run.early++;
        reader.received?.(result, lane.id);
        task.resolve({ result, from: lane.id });
        pump();
      };
      worker.on('message', onMessage);
      worker.on('error', drop);
      worker.on('exit', drop);
      lane.detach = () => {
        worker.off('message', onMessage);
        worker.off('error', drop);
        worker.off('exit', drop);
      };
      if (reader.init) worker.postMessage(reader.init);
      lanes.push(lane);
    }
    run.workers = lanes.length;
  }
  const postTo =
    (from: PartOrigin) =>
    (message: unknown, transfer: ArrayBuffer[]): void => {
      if (from === HERE) return;
      lanes.find((l) => l.id === from)?.worker.postMessage(message, transfer);
    };

  let rows = 0;
  /** Time this thread spent applying answers, and waiting for them (shown with KERNEL_RUNNER_TRACE_DEBUG). */
  let applyMs = 0;
  let waitMs = 0;
  try {
    pump();
    let expected = file.dataStart;
    let lineBase = file.dataLine;
    for (let k = 0; k < count; k++) {
      const waiting = performance.now();
      let { result, from } = await (tasks[k] as Task<M, R>).promise;
      if (result.start !== expected) {
        run.rescans++;
        const again = makeTask(k, expected, true);
        if (scanHereToo) {
          // this thread, which scans too, is waiting for this very part: it scans it at once
          result = scanNow(again.span);
          from = HERE;
        } else {
          queue.unshift(again);
          pump();
          ({ result, from } = await again.promise);
        }
      }
      waitMs += performance.now() - waiting;
      const applying = performance.now();
      reader.apply(result, from, lineBase, postTo(from));
      rows += reader.rows(result);
      progress.rowsRead = rows;
      applyMs += performance.now() - applying;
      if (result.failure !== null) throw new Error(result.failure);
      if (result.error) throw new CsvFormatError(result.error.reason, lineBase + result.error.line - 1);
      expected = result.stop;
      lineBase += result.lines;
      applied = k + 1;
      pump();
    }
  } finally {
    queue.length = 0;
    // a worker with no part in flight serves the next file (traceWorkerPool.ts), the others end
    const ending: Array<Promise<number>> = [];
    for (const lane of lanes.splice(0)) {
      lane.detach();
      if (lane.tasks.length === 0 && entry) releaseTraceWorker(entry.script, lane.worker);
      else ending.push(lane.worker.terminate());
    }
    await Promise.all(ending);
    onRun?.(run);
    if (process.env.KERNEL_RUNNER_TRACE_DEBUG) {
      process.stderr.write(
        `kernel-runner: ${file.path}: ${run.parts} part(s), ${run.workers} worker thread(s), ${run.rescans} rescanned, ${run.partsHere} on the main thread, ${applyMs.toFixed(0)} ms applying them there, ${waitMs.toFixed(0)} ms awaiting them (its own scans included), ${run.prestarted} started by the launcher (${run.early} part(s) scanned before they were asked for)\n`,
      );
    }
  }
  return rows;
}
