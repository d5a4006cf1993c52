// Worker thread entry (bundled as dist/trace-worker.cjs): scans the parts of one kernel_trace file it is sent (or
// of one PC-sample CSV: pcSampling/pcSampleParts.ts),
// with one collector for all of them (ids stay valid across its parts), and sends the batches back; their row
// arrays come back once applied, for later batches. A worker the CLI's launcher started before the CLI knew it
// needed one (traceWorkerPool.ts) is told the part it will most likely be sent first, and scans it meanwhile: when
// that is the part it is sent, the answer is ready; when not, the scan and its collector are dropped.
import { parentPort, workerData } from 'node:worker_threads';
import { KernelRowCollector, batchBuffers, type RunArrays } from './kernelRows';
import { sameTask, scanPart, speculativeTask, type PartResult, type PartTask } from './kernelTraceParts';
import { isPcWorkerMessage, scanPcMessage, type PcWorkerMessage } from './pcSampling/pcSampleParts';

export interface SpeculationData {
  speculate?: { path: string; index: number; threads: number };
}

let collector: KernelRowCollector | null = null;
const port = parentPort;

function send(result: PartResult): void {
  port?.postMessage(result, result.batches.flatMap(batchBuffers));
}

function scan(task: PartTask): void {
  collector ??= new KernelRowCollector(task.columns, () => {});
  send(scanPart(task, collector));
}

const guess = (workerData as SpeculationData | null)?.speculate;
/** The early scan, until the first task comes (each task waits for the one before it: answers go in order). */
let early: Promise<{ task: PartTask; result: PartResult } | null> | null = guess
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

port?.on('message', (message: PartTask | { recycle: RunArrays } | PcWorkerMessage) => {
  if ('recycle' in message) {
    collector?.recycle(message.recycle);
    return;
  }
  if (isPcWorkerMessage(message)) {
    // a part of a PC-sample CSV (pcSampling/pcSampleParts.ts)
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
    if (done && sameTask(done.task, task) && done.result.failure === null) {
      send({ ...done.result, early: true });
      return;
    }
    if (done) collector = null; // its ids were never sent
    scan(task);
  });
});
