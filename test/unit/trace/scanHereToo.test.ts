// The parallel read with this thread scanning parts beside the workers (ParallelOptions.scanHereToo, which the
// PC-sample read always uses: pcSampleParallel.test.ts) for the rows it is off for by default: a kernel trace and a
// counter collection read that way give the summary of the one-pass read, with threads - 1 workers and the parts
// this thread scanned counted in ParallelRun. Names with quoted newlines make some guessed part starts wrong, so
// that parts are scanned again (here, at once, with scanHereToo).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { summarizePath } from '../../../src/trace/index';
import type { ParallelRun } from '../../../src/trace/parallelParts';
import { seededRandom } from './helpers';
import { tempDirsRemovedAfter } from '../../support/tempDirs';

const tempDir = tempDirsRemovedAfter('kr-scan-here-');

const NAMES = ['void gemm<128, 64>(float const*, float*, int)', 'say ""hi"", then', 'two\nlines, and\na comma', 'k'];

/** Rows of rocprofv3's kernel_trace.csv (the columns the summary reads). */
function kernelTrace(file: string, rows: number): void {
  const next = seededRandom(7);
  const lines = [
    '"Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp"',
  ];
  let t = 1_700_000_000_000_000;
  for (let i = 0; i < rows; i++) {
    const k = Math.floor(next() * NAMES.length);
    const start = t + Math.floor(next() * 5000);
    t = start + Math.floor(next() * 60000);
    lines.push(
      `"KERNEL_DISPATCH","Agent ${4 + (i % 2)}",1,${k + 1},"${NAMES[k]}",${i + 1},${start},${start + 100 + Math.floor(next() * 90000)}`,
    );
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/** Rows of rocprofv3's counter_collection.csv (ROCm 7: one row per dispatch and counter). */
function counterCollection(file: string, dispatches: number): void {
  const next = seededRandom(11);
  const lines = [
    'Correlation_Id,Dispatch_Id,Agent_Id,Queue_Id,Process_Id,Thread_Id,Grid_Size,Kernel_Id,Kernel_Name,Workgroup_Size,LDS_Block_Size,Scratch_Size,VGPR_Count,Accum_VGPR_Count,SGPR_Count,Counter_Name,Counter_Value,Start_Timestamp,End_Timestamp',
  ];
  let t = 1_700_000_000_000_000;
  for (let d = 1; d <= dispatches; d++) {
    const k = Math.floor(next() * NAMES.length);
    const start = t + Math.floor(next() * 5000);
    t = start + 100_000;
    for (const counter of ['SQ_WAVES', 'SQ_INSTS_VALU', 'GRBM_GUI_ACTIVE'])
      lines.push(
        `${d},${d},4,1,77,77,65536,${k + 1},"${NAMES[k]}",256,0,0,32,0,16,${counter},${Math.floor(next() * 1e6)},${start},${start + 50_000}`,
      );
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/** What is read with scanHereToo: the path given to summarizePath and the dispatches it holds. */
const CASES: Array<{ rows: string; partBytes: number; make: () => { target: string; calls: number } }> = [
  {
    rows: 'a kernel trace',
    partBytes: 2000,
    make: () => {
      const target = path.join(tempDir('kt'), 'run_kernel_trace.csv');
      kernelTrace(target, 1500);
      return { target, calls: 1500 };
    },
  },
  {
    rows: 'a counter collection',
    partBytes: 3000,
    make: () => {
      const target = tempDir('counters');
      mkdirSync(target, { recursive: true });
      counterCollection(path.join(target, 'run_counter_collection.csv'), 400);
      return { target, calls: 400 };
    },
  },
];

for (const c of CASES) {
  test(`scanHereToo: ${c.rows} read by this thread and two workers gives the one-pass summary`, async () => {
    const { target, calls } = c.make();
    const one = await summarizePath(target, { parallel: { threads: 0 } });
    const runs: ParallelRun[] = [];
    const many = await summarizePath(target, {
      parallel: { threads: 3, minBytes: 0, partBytes: c.partBytes, scanHereToo: true },
      onParallelRun: (r) => runs.push(r),
    });
    assert.deepEqual(many, one);
    assert.equal(one.kernelTotals.calls, calls);
    assert.equal(runs.length, 1, 'one parallel read');
    const run = runs[0] as ParallelRun;
    assert.ok(run.parts > 20, `${run.parts} parts`);
    assert.equal(run.workers, 2, 'threads - 1 workers');
    assert.ok(run.partsHere > 0, 'this thread scanned parts');
    assert.ok(run.partsHere < run.parts, 'the workers scanned parts');
    assert.ok(run.rescans > 0, 'guesses inside quoted newlines were scanned again');
  });
}

test('scanHereToo without a worker: every part scanned here once, rescans not counted again', async () => {
  const file = path.join(tempDir('kt-here'), 'run_kernel_trace.csv');
  kernelTrace(file, 600);
  const one = await summarizePath(file, { parallel: { threads: 0 } });
  const runs: ParallelRun[] = [];
  const many = await summarizePath(file, {
    parallel: { threads: 3, minBytes: 0, partBytes: 1500, scanHereToo: true, worker: null },
    onParallelRun: (r) => runs.push(r),
  });
  assert.deepEqual(many, one);
  const run = runs[0] as ParallelRun;
  assert.equal(run.workers, 0);
  assert.equal(run.partsHere, run.parts);
  assert.ok(run.rescans > 0);
});
