// A large PC-sample CSV on disk read by the trace worker threads (kernelTraceWorker.ts runs scanPcMessage): the
// file is cut into parts as a kernel trace is (fileParts.ts: partPlan, scanSpan, the guessed first row
// of each part checked against where the previous part stopped, the part scanned again from there when they
// differ), each part is tallied (sampleTally.ts) and this thread applies the parts' batches in file order, so the
// result is the one-thread read's. Without a worker (none could be started, one failed) the parts are scanned here.
import { Worker } from 'node:worker_threads';
import { CsvFormatError, createCsvScanner, type CsvScanner } from '../csvScanner';
import { partPlan, scanSpan, type PartOutcome, type PartSpan } from '../fileParts';
import type { FileSpan } from '../parallelParts';
import { WORKER_LIMITS, takeTraceWorker } from '../traceWorkerPool';
import {
  SampleTally,
  dispatchKernelMap,
  sampleBatchBuffers,
  type DispatchKernels,
  type PcColumns,
  type PcCsvProblems,
  type SampleBatch,
} from './sampleTally';

export interface PcPartInit {
  columns: PcColumns;
  kernels: DispatchKernels;
}

type PcPartTask = PartSpan;

export interface PcPartResult extends PartOutcome {
  batches: SampleBatch[];
  /** Line numbers count from the part's first line (1). */
  problems: PcCsvProblems;
  /** Time the scan took (KERNEL_RUNNER_TRACE_DEBUG). */
  ms: number;
}

/** A message of the PC-sample read to a trace worker: the file's columns and kernels first, then parts. */
export type PcWorkerMessage = { pcInit: PcPartInit } | { pcPart: PcPartTask };

interface ThreadState {
  columns: PcColumns;
  kernels: Map<number, number>;
}

let state: ThreadState | null = null;
let tally: SampleTally | null = null;
/** One scanner per thread, reset for each part (a new one per part would run unoptimised again: kernelTraceParts.ts). */
let scanner: CsvScanner | null = null;

/** Scans one part with the columns and kernels of `init`. */
function scanPcPart(init: ThreadState, task: PcPartTask): PcPartResult {
  const batches: SampleBatch[] = [];
  const t = new SampleTally(init.columns, init.kernels, (b) => batches.push(b));
  tally = t;
  scanner ??= createCsvScanner({ fileStart: false, onRow: (row) => (tally as SampleTally).add(row) });
  const t0 = performance.now();
  const scan = scanSpan(task, scanner);
  // also after a malformed row: the rows before it count
  if (scan.failure === null && task.end > scan.start) t.flush();
  return { ...scan, batches, problems: t.problems, ms: performance.now() - t0 };
}

/** A worker's answer to a message (null: none), with the buffers to transfer. */
export function scanPcMessage(message: PcWorkerMessage): { result: PcPartResult; transfer: ArrayBuffer[] } | null {
  if ('pcInit' in message) {
    state = { columns: message.pcInit.columns, kernels: dispatchKernelMap(message.pcInit.kernels) };
    return null;
  }
  if (!state) throw new Error('a PC-sample part came before its file');
  const result = scanPcPart(state, message.pcPart);
  return { result, transfer: result.batches.flatMap(sampleBatchBuffers) };
}

export function isPcWorkerMessage(message: object): message is PcWorkerMessage {
  return 'pcInit' in message || 'pcPart' in message;
}

export interface PcParallelOptions {
  threads: number;
  partBytes?: number;
  worker: { script: string; evaluated: boolean } | null;
}

/** How a parallel read went (tests). */
export interface PcParallelRun {
  parts: number;
  workers: number;
  rescans: number;
  partsHere: number;
  /** Workers that the CLI's launcher had started. */
  prestarted: number;
}

/** Parts sent to a worker ahead of its answers. */
const PER_WORKER = 2;

interface Pending {
  task: PcPartTask;
  resolve: (r: PcPartResult) => void;
  promise: Promise<PcPartResult>;
}

/**
 * Reads the data rows of `file` in parts; every batch is applied in file order and `problems` the parts' counts
 * (lines made absolute). Returns the rows read. Throws a CsvFormatError at a malformed row (after applying the
 * rows before it) and an Error when a part could not be read.
 */
export async function readPcCsvParallel(
  file: FileSpan,
  init: PcPartInit,
  /** The applier of one scan's batches (ids count from each scan's start). */
  newScan: () => (b: SampleBatch) => void,
  problems: PcCsvProblems,
  options: PcParallelOptions,
  onRun?: (run: PcParallelRun) => void,
): Promise<number> {
  const span = file.size - file.dataStart;
  // two parts per thread (at least 4 MiB): each part's tallies are applied here, and a part holds about as many
  // as a whole file (a few per distinct site), so fewer parts are less work for this thread
  const defaultBytes = Math.max(4 << 20, Math.ceil(span / (Math.max(1, options.threads) * 2)));
  const { partBytes, count } = partPlan(span, options.threads, options.partBytes ?? defaultBytes);
  const boundary = (k: number): number => (k >= count ? file.size : file.dataStart + k * partBytes);
  const pending: Pending[] = Array.from({ length: count }, (_, k) => {
    let resolve!: (r: PcPartResult) => void;
    const promise = new Promise<PcPartResult>((res) => (resolve = res));
    const task = { index: k, path: file.path, fileSize: file.size, start: boundary(k), end: boundary(k + 1) };
    return { task: { ...task, exactStart: k === 0 }, resolve, promise };
  });
  const queue = [...pending];
  const run: PcParallelRun = { parts: count, workers: 0, rescans: 0, partsHere: 0, prestarted: 0 };
  const local: ThreadState = { columns: init.columns, kernels: dispatchKernelMap(init.kernels) };
  const scanHere = (p: Pending): void => {
    run.partsHere++;
    p.resolve(scanPcPart(local, p.task));
  };

  interface Lane {
    worker: Worker;
    inFlight: Pending[];
  }
  const lanes: Lane[] = [];
  let hereScheduled = false;
  const pump = (): void => {
    for (const lane of lanes) {
      while (lane.inFlight.length < PER_WORKER && queue.length > 0) {
        // workers take parts from the end: this thread's code is warm (it read the kernel trace), the workers'
        // is not, so this thread scans the parts needed first
        const p = queue.pop() as Pending;
        lane.inFlight.push(p);
        lane.worker.postMessage({ pcPart: p.task } satisfies PcWorkerMessage);
      }
    }
    if (queue.length > 0 && !hereScheduled) {
      // this thread takes a part too (it has the scanner's code warm from the kernel trace): one per turn of the
      // event loop, so that the workers' answers are taken between them
      hereScheduled = true;
      setImmediate(() => {
        hereScheduled = false;
        const p = queue.shift();
        if (p) scanHere(p);
        pump();
      });
    }
  };
  // `threads` scan: this one and threads - 1 workers
  for (let i = 0; options.worker && i < Math.min(options.threads - 1, count - 1); i++) {
    let worker: Worker;
    try {
      // one the CLI's launcher started (traceWorkerPool.ts), else a new one
      const started = options.worker.evaluated ? null : takeTraceWorker(options.worker.script);
      if (started) run.prestarted++;
      worker =
        started ?? new Worker(options.worker.script, { eval: options.worker.evaluated, resourceLimits: WORKER_LIMITS });
    } catch {
      break;
    }
    const lane: Lane = { worker, inFlight: [] };
    const drop = (): void => {
      const at = lanes.indexOf(lane);
      if (at < 0) return;
      lanes.splice(at, 1);
      queue.push(...lane.inFlight.splice(0)); // another lane (or this thread) scans them
      void worker.terminate();
      pump();
    };
    worker.on('message', (result: PcPartResult) => {
      lane.inFlight.shift()?.resolve(result);
      pump();
    });
    worker.on('error', drop);
    worker.on('exit', drop);
    worker.postMessage({ pcInit: init } satisfies PcWorkerMessage);
    lanes.push(lane);
  }
  run.workers = lanes.length;

  let rows = 0;
  let applyMs = 0;
  let waitMs = 0;
  const scanMs: string[] = [];
  try {
    pump();
    let expected = file.dataStart;
    let lineBase = file.dataLine;
    for (let k = 0; k < count; k++) {
      const waiting = performance.now();
      let result = await (pending[k] as Pending).promise;
      waitMs += performance.now() - waiting;
      scanMs.push(result.ms.toFixed(0));
      if (result.start !== expected) {
        // the guess was inside a quoted field: this part again from where the previous one stopped
        run.rescans++;
        result = scanPcPart(local, { ...(pending[k] as Pending).task, start: expected, exactStart: true });
      }
      const applying = performance.now();
      const apply = newScan();
      for (const b of result.batches) apply(b);
      applyMs += performance.now() - applying;
      const p = result.problems;
      rows += p.rowsRead;
      problems.rowsRead = rows;
      problems.badRows += p.badRows;
      problems.badMasks += p.badMasks;
      problems.badIssued += p.badIssued;
      if (p.firstBadLine !== undefined) problems.firstBadLine ??= lineBase + p.firstBadLine - 1;
      if (p.firstBadMask) problems.firstBadMask ??= { ...p.firstBadMask, line: lineBase + p.firstBadMask.line - 1 };
      if (result.failure !== null) throw new Error(result.failure);
      if (result.error) throw new CsvFormatError(result.error.reason, lineBase + result.error.line - 1);
      expected = result.stop;
      lineBase += result.lines;
    }
  } finally {
    queue.length = 0;
    await Promise.all(lanes.splice(0).map((l) => l.worker.terminate()));
    onRun?.(run);
    if (process.env.KERNEL_RUNNER_TRACE_DEBUG) {
      process.stderr.write(
        `kernel-runner: ${file.path}: ${run.parts} part(s) (scanned in ${scanMs.join(', ')} ms), ${run.workers} worker thread(s) (${run.prestarted} started by the launcher), ${run.partsHere} part(s) scanned on the main thread, ${run.rescans} rescanned; ${applyMs.toFixed(0)} ms applying, ${waitMs.toFixed(0)} ms waiting there\n`,
      );
    }
  }
  return rows;
}
