// A worker the CLI's launcher starts early scans the part it will most likely be sent first (kernelTraceWorker.ts):
// when that is the part it is sent, the answer is the early scan; when another part comes, the early scan and its
// collector are dropped and the answer is what a worker that never guessed gives (its new names included). The
// same for a counter collection's parts (readers/counterSpeculation.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { ensureKernelTrace } from '../../../bench/kernelTraceData';
import { KernelRowCollector } from '../../../src/trace/kernelRows';
import { scanPart, speculativeTask, type PartResult, type PartTask } from '../../../src/trace/kernelTraceParts';
import { workerEntry } from '../../../src/trace/parallelKernelTrace';
import { tempDirsRemovedAfter } from '../../support/tempDirs';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { scanCounterPart, type CounterPart, type CounterTask } from '../../../src/trace/readers/counterParts';
import { speculativeCounterTasks } from '../../../src/trace/readers/counterSpeculation';

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

/** What a counter part says (typed arrays as plain arrays). */
function counterGist(p: CounterPart): unknown {
  return JSON.parse(
    JSON.stringify({ ...p, early: undefined }, (_, v: unknown) =>
      ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v,
    ),
  );
}

test('a counter collection: the early scans answer their parts in order; a task that differs gets a fresh scan', async () => {
  const file = path.join(tempDir('counters'), 'run_counter_collection.csv');
  const lines = [
    'Dispatch_Id,Agent_Id,Kernel_Name,VGPR_Count,Counter_Name,Counter_Value,Start_Timestamp,End_Timestamp',
  ];
  for (let d = 1; d <= 3000; d++)
    for (const c of ['SQ_WAVES', 'GRBM_GUI_ACTIVE', 'SQ_INSTS_VALU_ADD_F32'])
      lines.push(`${d},2,"k${d % 5}(int, float)",16,${c},${d * 3},${12e15 + d * 1000},${12e15 + d * 1000 + 700}`);
  writeFileSync(file, lines.join('\n') + '\n');
  const [guessed] = speculativeCounterTasks(file, 0, 2);
  assert.ok(guessed, 'a guess for the first part');
  assert.equal(guessed.spec.epoch, 12_000_000, 'the epoch from the first row, as the summary takes it');
  const data = { speculate: { path: file, index: 0, threads: 2, counters: true } };

  const entry = workerEntry();
  assert.ok(entry);
  const ask = async (tasks: CounterTask[]): Promise<CounterPart[]> => {
    const worker = new Worker(entry.script, { eval: entry.evaluated, workerData: data });
    try {
      const answers: CounterPart[] = [];
      for (const task of tasks) {
        worker.postMessage(task);
        answers.push(((await once(worker, 'message')) as [CounterPart])[0]);
      }
      return answers;
    } finally {
      await worker.terminate();
    }
  };
  const [hit] = await ask([guessed]);
  assert.ok(hit);
  assert.equal(hit.early, true);
  assert.deepEqual(counterGist(hit), counterGist(scanCounterPart(guessed)));

  // another epoch (the summary's clock came from another file): the guess is not used
  const other = { ...guessed, spec: { ...guessed.spec, epoch: 11_999_999 } };
  const [miss] = await ask([other]);
  assert.ok(miss);
  assert.equal(miss.early, undefined);
  assert.deepEqual(counterGist(miss), counterGist(scanCounterPart(other)));
  assert.notDeepEqual(counterGist(miss), counterGist(hit), 'its times are taken from its own epoch');
});
