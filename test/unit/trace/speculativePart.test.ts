// A worker the CLI's launcher starts early scans the part it will most likely be sent first (kernelTraceWorker.ts):
// when that is the part it is sent, the answer is the early scan; when another part comes, the early scan and its
// collector are dropped and the answer is what a worker that never guessed gives (its new names included).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { ensureKernelTrace } from '../../../bench/kernelTraceData';
import { KernelRowCollector } from '../../../src/trace/kernelRows';
import { scanPart, speculativeTask, type PartResult, type PartTask } from '../../../src/trace/kernelTraceParts';
import { workerEntry } from '../../../src/trace/parallelKernelTrace';
import { tempDirsRemovedAfter } from '../../support/tempDirs';

const tempDir = tempDirsRemovedAfter('kr-trace-early-');

async function answer(workerData: unknown, task: PartTask): Promise<PartResult> {
  const entry = workerEntry();
  assert.ok(entry);
  const worker = new Worker(entry.script, { eval: entry.evaluated, workerData });
  try {
    worker.postMessage(task);
    const [result] = (await once(worker, 'message')) as [PartResult];
    return result;
  } finally {
    await worker.terminate();
  }
}

/** What a result says, without its transferable arrays' identity. */
function gist(r: PartResult): unknown {
  return {
    start: r.start,
    stop: r.stop,
    lines: r.lines,
    error: r.error,
    failure: r.failure,
    batches: r.batches.map((b) => ({
      rows: b.rows,
      count: b.count,
      newNames: b.newNames,
      newAgents: b.newAgents,
      moments: [...b.moments],
    })),
  };
}

test('the early scan is the answer for its part, and dropped (with its names) for another part', async () => {
  const file = await ensureKernelTrace(tempDir('file'), { rows: 20_000, kernels: 40, seed: 3 });
  const [first, second] = await Promise.all([speculativeTask(file, 0, 2), speculativeTask(file, 1, 2)]);
  assert.ok(first && second, 'the file is cut in several parts');
  const here = (task: PartTask): PartResult => scanPart(task, new KernelRowCollector(task.columns, () => {}));

  const hit = await answer({ speculate: { path: file, index: 0, threads: 2 } }, first);
  assert.equal(hit.early, true);
  assert.deepEqual(gist(hit), gist(here(first)));

  const miss = await answer({ speculate: { path: file, index: 0, threads: 2 } }, second);
  assert.equal(miss.early, undefined);
  const fresh = here(second);
  assert.ok((fresh.batches[0]?.newNames.length ?? 0) > 0);
  assert.deepEqual(gist(miss), gist(fresh), 'every name of the part sent as new: the early collector was dropped');

  const none = await answer(undefined, first);
  assert.equal(none.early, undefined);
  assert.deepEqual(gist(none), gist(hit));
});
