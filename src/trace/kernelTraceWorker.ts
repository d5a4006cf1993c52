// Worker thread entry (bundled as dist/trace-worker.cjs): scans the parts of one large CSV it is sent
// (parallelParts.ts; then, told to `reset`, those of the next file, e.g. a multi-process profile's next trace). A kernel_trace file's parts go through one collector for all of them (ids stay valid across
// its parts), and their batches go back; their row arrays come back once applied, for later batches. A counter
// collection's part (`kind: 'counters'`) goes back as its collected rows (readers/counterParts.ts), a PC-sample
// CSV's part as its tallies (pcSampling/pcSampleParts.ts; the file's columns and kernels come once, first). A worker
// the CLI's launcher started before the CLI knew it needed one (traceWorkerPool.ts) is told the parts it will most
// likely be sent first, and scans them meanwhile: when those are the parts it is sent, the answers are ready; when
// not, the scans (and a kernel trace's collector) are dropped.
import { parentPort, workerData } from 'node:worker_threads';
import { KernelRowCollector, batchBuffers, type RunArrays } from './kernelRows';
import { sameTask, scanPart, speculativeTask, type PartResult, type PartTask } from './kernelTraceParts';
import { counterPartBuffers, scanCounterPart, type CounterPart, type CounterTask } from './readers/counterParts';
import { sameCounterTask, speculativeCounterTasks } from './readers/counterSpeculation';
import { isPcWorkerMessage, scanPcMessage, type PcWorkerMessage } from './pcSampling/pcSampleParts';

export interface SpeculationData {
  /** `counters`: a counter_collection.csv (else a kernel_trace file). */
  speculate?: { path: string; index: number; threads: number; counters?: boolean };
}

let collector: KernelRowCollector | null = null;
/** The collector of the file before a `reset`: its spare run arrays go to the next file's. */
let before: KernelRowCollector | null = null;
const port = parentPort;

function send(result: PartResult): void {
  port?.postMessage(result, result.batches.flatMap(batchBuffers));
}

function scan(task: PartTask): void {
  if (!collector) {
    collector = new KernelRowCollector(task.columns, () => {});
    if (before) collector.adoptSpares(before);
    before = null;
  }
  send(scanPart(task, collector));
}

const guess = (workerData as SpeculationData | null)?.speculate;
/** Counter parts scanned early, answered when their task comes (dropped at the first task that differs). */
let earlyCounters: Array<{ task: CounterTask; part: CounterPart }> = [];
if (guess?.counters) {
  // before any task is read (a microtask): the parts are the ones it will be sent first, so the answers wait for no
  // more than the scans they would have taken anyway, and what was guessed does not depend on when the tasks come
  queueMicrotask(() => {
    let tasks: CounterTask[] = [];
    try {
      tasks = speculativeCounterTasks(guess.path, guess.index, guess.threads);
    } catch {
      // no guess: the read sends the tasks
    }
    for (const task of tasks) earlyCounters.push({ task, part: scanCounterPart(task) });
  });
}

function answerCounters(task: CounterTask): void {
  const known = earlyCounters.shift();
  if (known && sameCounterTask(known.task, task) && known.part.failure === null) {
    port?.postMessage({ ...known.part, early: true }, counterPartBuffers(known.part));
    return;
  }
  earlyCounters = [];
  const part = scanCounterPart(task);
  port?.postMessage(part, counterPartBuffers(part));
}

/** The early scan, until the first task comes (each task waits for the one before it: answers go in order). */
let early: Promise<{ task: PartTask; result: PartResult } | null> | null =
  guess && !guess.counters
    ? Promise.resolve()
        .then(() => {
          const task = speculativeTask(guess.path, guess.index, guess.threads);
          if (!task) return null;
          collector = new KernelRowCollector(task.columns, () => {});
          return { task, result: scanPart(task, collector) };
        })
        .catch(() => null)
    : null;
let queue: Promise<void> = Promise.resolve();

port?.on('message', (message: PartTask | CounterTask | { recycle: RunArrays } | { reset: true } | PcWorkerMessage) => {
  if ('recycle' in message) {
    collector?.recycle(message.recycle);
    return;
  }
  if ('reset' in message) {
    // the read is over (traceWorkerPool.ts releaseTraceWorker): the next file's ids start again
    queue = queue.then(() => {
      before = collector;
      collector = null;
      earlyCounters = [];
    });
    return;
  }
  if (isPcWorkerMessage(message)) {
    queue = queue.then(() => {
      const answer = scanPcMessage(message);
      if (answer) port?.postMessage(answer.result, answer.transfer);
    });
    return;
  }
  const task = message;
  const pending = early;
  early = null;
  queue = queue.then(async () => {
    const done = pending ? await pending : null;
    if ('kind' in task) {
      if (done) collector = null; // its ids were never sent
      answerCounters(task);
      return;
    }
    if (done && sameTask(done.task, task) && done.result.failure === null) {
      send({ ...done.result, early: true });
      return;
    }
    if (done) collector = null; // its ids were never sent
    scan(task);
  });
});
