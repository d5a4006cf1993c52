// A large kernel_trace CSV on disk read by worker threads: the file is cut into parts (kernelTraceParts.ts), the
// workers scan them, and this thread applies their batches in file order (kernelBatches.ts), checking each part's
// guessed first row against where the previous part ended, and having a part scanned again when they differ.
// When no worker can be started (the worker file is missing, a worker fails), the parts are scanned here.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CsvFormatError } from './csvScanner';
import { BatchSource, applyBatch, type KernelTraceTotals } from './kernelBatches';
import { KernelRowCollector, runArrays, type KernelBatch, type KernelColumns } from './kernelRows';
import { partPlan, scanPart, type PartResult, type PartTask } from './kernelTraceParts';
import type { CsvReadContext, RowProblems } from './readers/rocprofv3Csv';
import { WORKER_LIMITS, defaultMinBytes, defaultThreads, takeTraceWorker } from './traceWorkerPool';

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
}

/** How a parallel read went (for tests and the benchmark). */
export interface ParallelRun {
  parts: number;
  /** Parts scanned again because their guessed first row was not where the previous part ended. */
  rescans: number;
  workers: number;
  /** Parts scanned on this thread (no worker could take them). */
  partsHere: number;
  /** Workers that the CLI's launcher had started (traceWorkerPool.ts). */
  prestarted: number;
  /** Parts such a worker had scanned before it was asked for them. */
  early: number;
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

interface Task extends PartTask {
  resolve: (r: { result: PartResult; source: BatchSource }) => void;
  reject: (err: Error) => void;
  promise: Promise<{ result: PartResult; source: BatchSource }>;
}

interface Lane {
  worker: Worker;
  source: BatchSource;
  /** Sent and not answered yet, in order: a worker answers in the order it was sent parts. */
  tasks: Task[];
}

/** Parts sent to a worker ahead: it starts the next one without waiting for this thread to answer. */
const PER_WORKER = 2;

export interface FileSpan {
  path: string;
  size: number;
  /** Offset of the first data row (after the header). */
  dataStart: number;
  /** Line number of the first data row. */
  dataLine: number;
}

/** Reads the rows of [dataStart, size) into `ctx`; returns the number of data rows. */
export async function readKernelTraceParallel(
  file: FileSpan,
  columns: KernelColumns,
  ctx: CsvReadContext,
  totals: KernelTraceTotals,
  problems: RowProblems,
  options: ParallelOptions = {},
  onRun?: (run: ParallelRun) => void,
): Promise<number> {
  const threads = options.threads ?? defaultThreads();
  const span = file.size - file.dataStart;
  const { partBytes, count } = partPlan(span, threads, options.partBytes);
  const boundary = (k: number): number => (k >= count ? file.size : file.dataStart + k * partBytes);

  const makeTask = (index: number, start: number, exactStart: boolean): Task => {
    let resolve!: Task['resolve'];
    let reject!: Task['reject'];
    const promise = new Promise<{ result: PartResult; source: BatchSource }>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.catch(() => {}); // awaited in order; a later part's failure must not go unhandled meanwhile
    return {
      index,
      path: file.path,
      fileSize: file.size,
      start,
      end: boundary(index + 1),
      exactStart,
      columns,
      resolve,
      reject,
      promise,
    };
  };
  const tasks = Array.from({ length: count }, (_, k) => makeTask(k, boundary(k), k === 0));
  const queue: Task[] = [...tasks];
  const run: ParallelRun = { parts: count, rescans: 0, workers: 0, partsHere: 0, prestarted: 0, early: 0 };
  let applied = 0;
  /** Parts handed out at most this far ahead of the next one to apply (bounds the batches held). */
  const window = Math.max(2, threads * (PER_WORKER + 1));

  const here = { collector: new KernelRowCollector(columns, () => {}), source: new BatchSource() };
  const scanHere = (task: Task): void => {
    run.partsHere++;
    const result = scanPart(task, here.collector);
    for (const b of result.batches) here.source.learn(b);
    task.resolve({ result, source: here.source });
  };

  const lanes: Lane[] = [];
  /** Run arrays of an applied batch back to the collector that made it. */
  const giveBack = (source: BatchSource, b: KernelBatch): void => {
    if (source === here.source) {
      here.collector.recycle(runArrays(b));
      return;
    }
    const lane = lanes.find((l) => l.source === source);
    const arrays = runArrays(b);
    lane?.worker.postMessage({ recycle: arrays }, [
      arrays.runAgent.buffer,
      arrays.runStart.buffer,
      arrays.runEnd.buffer,
    ] as ArrayBuffer[]);
  };
  let hereScheduled = false;
  const pump = (): void => {
    for (let round = 0; round < PER_WORKER; round++) {
      for (const lane of lanes) {
        if (lane.tasks.length > round) continue;
        const i = queue.findIndex((t) => t.index < applied + window);
        if (i < 0) break;
        const [task] = queue.splice(i, 1) as [Task];
        lane.tasks.push(task);
        const { resolve: _r, reject: _j, promise: _p, ...message } = task;
        lane.worker.postMessage(message);
      }
    }
    if (lanes.length === 0 && queue.length > 0 && !hereScheduled) {
      // no worker: one part per turn of the event loop, so that this thread stays responsive
      hereScheduled = true;
      setImmediate(() => {
        hereScheduled = false;
        const i = queue.findIndex((t) => t.index < applied + window);
        if (i >= 0) scanHere(queue.splice(i, 1)[0] as Task);
        pump();
      });
    }
  };

  const entry = threads > 0 ? (options.worker === undefined ? workerEntry() : options.worker) : null;
  if (entry) {
    for (let i = 0; i < Math.min(threads, count); i++) {
      let worker: Worker;
      try {
        // one the launcher started (traceWorkerPool.ts), else a new one
        const started = entry.evaluated ? null : takeTraceWorker(entry.script);
        if (started) run.prestarted++;
        worker = started ?? new Worker(entry.script, { eval: entry.evaluated, resourceLimits: WORKER_LIMITS });
      } catch {
        break;
      }
      const lane: Lane = { worker, source: new BatchSource(), tasks: [] };
      const drop = (): void => {
        const at = lanes.indexOf(lane);
        if (at < 0) return;
        lanes.splice(at, 1);
        queue.unshift(...lane.tasks.splice(0)); // another lane (or this thread) scans them
        void worker.terminate();
        pump();
      };
      worker.on('message', (result: PartResult) => {
        const task = lane.tasks.shift();
        if (!task) return;
        if (result.early) run.early++;
        for (const b of result.batches) lane.source.learn(b);
        task.resolve({ result, source: lane.source });
        pump();
      });
      worker.on('error', drop);
      worker.on('exit', drop);
      lanes.push(lane);
    }
    run.workers = lanes.length;
  }

  let rows = 0;
  /** Time this thread spent applying batches (shown with KERNEL_RUNNER_TRACE_DEBUG). */
  let applyMs = 0;
  try {
    pump();
    let expected = file.dataStart;
    let lineBase = file.dataLine;
    for (let k = 0; k < count; k++) {
      let { result, source } = await (tasks[k] as Task).promise;
      if (result.start !== expected) {
        run.rescans++;
        const again = makeTask(k, expected, true);
        queue.unshift(again);
        pump();
        ({ result, source } = await again.promise);
      }
      const applying = performance.now();
      for (const b of result.batches) {
        applyBatch(ctx, totals, source, b, problems, lineBase);
        rows += b.rows;
        problems.rowsRead = rows;
        giveBack(source, b);
      }
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
    await Promise.all(lanes.splice(0).map((l) => l.worker.terminate()));
    onRun?.(run);
    if (process.env.KERNEL_RUNNER_TRACE_DEBUG) {
      process.stderr.write(
        `kernel-runner: ${file.path}: ${run.parts} part(s), ${run.workers} worker thread(s), ${run.rescans} rescanned, ${run.partsHere} on the main thread, ${applyMs.toFixed(0)} ms applying them there, ${run.prestarted} started by the launcher (${run.early} part(s) scanned before they were asked for)\n`,
      );
    }
  }
  return rows;
}
