// Worker thread entry (bundled as dist/trace-worker.cjs): scans the parts of one kernel_trace file it is sent,
// with one collector for all of them (ids stay valid across its parts), and sends the batches back; their row
// arrays come back once applied, for later batches.
import { parentPort } from 'node:worker_threads';
import { KernelRowCollector, batchBuffers, type RunArrays } from './kernelRows';
import { scanPart, type PartTask } from './kernelTraceParts';

let collector: KernelRowCollector | null = null;
const port = parentPort;
port?.on('message', (message: PartTask | { recycle: RunArrays }) => {
  if ('recycle' in message) {
    collector?.recycle(message.recycle);
    return;
  }
  const task = message;
  collector ??= new KernelRowCollector(task.columns, () => {});
  const result = scanPart(task, collector);
  port.postMessage(result, result.batches.flatMap(batchBuffers));
});
