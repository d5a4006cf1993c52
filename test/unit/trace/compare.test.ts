// compareSummaries on two runs written to temp folders in rocprofv3's layout: a kernel whose template arguments
// changed (paired by base name, marked), one that vanished and one that is new (null on the other side), ratios,
// the busy change, and per-range deltas.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { compareKernels, compareSummaries, summarizePath } from '../../../src/trace/index';
import { traceComparisonSchema } from '../../../src/core/protocol/traceComparison';
import { tempDir } from './helpers';
import { A, B, C, LAUNCHES, writeRun, type Launch } from './rangeRuns';

const A4 = 'void gemm<float, 4>(float const*, float*, int)';
const D = 'new_epilogue(float*)';

/** Run B: gemm<float, 2> became gemm<float, 4> and twice as fast, worker_kernel is gone, inner_kernel is 3x slower, new_epilogue is new. */
function runB(): Launch[] {
  const out: Launch[] = [];
  for (const l of LAUNCHES) {
    const len = l.gpu[1] - l.gpu[0];
    if (l.kernel === B) continue;
    if (l.kernel === A) out.push({ ...l, kernel: A4, gpu: [l.gpu[0], l.gpu[0] + len / 2] });
    else if (l.kernel === C) out.push({ ...l, gpu: [l.gpu[0], l.gpu[0] + len * 3] });
    else out.push(l);
  }
  out.push({ corr: 31, tid: 100, at: 1500, kernel: D, gpu: [6000, 6070] });
  return out;
}

test('two runs: exact, short-name, vanished and new kernels; ratios; busy change; per-range deltas', async () => {
  const da = tempDir('cmp-a');
  const db = tempDir('cmp-b');
  try {
    writeRun(da);
    writeRun(db, { launches: runB() });
    const a = await summarizePath(da);
    const b = await summarizePath(db);
    const c = traceComparisonSchema.parse(compareSummaries(a, b, { a: da, b: db }));
    const byName = new Map(c.kernels.map((k) => [k.name, k]));

    const gemm = byName.get(A4);
    assert.ok(gemm, 'gemm<float, 4> is listed under its new name');
    assert.equal(gemm.match, 'short-name');
    assert.equal(gemm.aName, A);
    assert.deepEqual([gemm.a?.calls, gemm.a?.totalNs, gemm.b?.calls, gemm.b?.totalNs], [4, 500, 4, 250]);
    assert.equal(gemm.ratio, 0.5);
    assert.equal(gemm.deltaTotalNs, -250);
    assert.equal(gemm.deltaAvgNs, -62.5);

    const inner = byName.get(C);
    assert.equal(inner?.match, 'exact');
    assert.equal(inner?.ratio, 3);
    assert.equal(inner?.deltaTotalNs, 160);

    const gone = byName.get(B);
    assert.equal(gone?.match, 'a-only');
    assert.equal(gone?.b, null);
    assert.equal(gone?.ratio, null);
    assert.equal(gone?.deltaTotalNs, -60);
    const added = byName.get(D);
    assert.equal(added?.match, 'b-only');
    assert.equal(added?.a, null);
    assert.deepEqual(added?.b, { calls: 1, totalNs: 70, avgNs: 70 });

    // biggest absolute change first
    assert.deepEqual(
      c.kernels.map((k) => k.name),
      [A4, C, D, B],
    );
    assert.deepEqual([c.kernelTime.a, c.kernelTime.b, c.kernelTime.deltaNs], [640, 560, -80]);
    // A's dispatches never overlap (busy = kernel time); in B the slower inner_kernel dispatches overlap each other
    // and a gemm: busy is their union, 430 ns of 560 ns kernel time
    assert.deepEqual([c.busy.a, c.busy.b, c.busy.deltaNs], [640, 430, -210]);
    assert.ok(Math.abs((c.busy.ratio as number) - 430 / 640) < 1e-12);

    assert.ok(c.ranges, 'both sides have ranges');
    const r0 = c.ranges.find((r) => r.name.startsWith('benchmark 0'));
    assert.deepEqual([r0?.a?.kernelNs, r0?.b?.kernelNs, r0?.deltaKernelNs], [300, 220, -80]);
    assert.deepEqual(
      r0?.kernels.map((k) => [k.name, k.match]),
      [
        [A4, 'short-name'],
        [D, 'b-only'],
      ],
    );
    const worker = c.ranges.find((r) => r.name === 'worker');
    assert.deepEqual([worker?.a?.kernelCalls, worker?.b?.kernelCalls, worker?.kernelRatio], [1, 0, 0]);
    assert.deepEqual(c.rangeAttribution, { a: 'correlation', b: 'correlation' });
  } finally {
    rmSync(da, { recursive: true, force: true });
    rmSync(db, { recursive: true, force: true });
  }
});

test('base-name pairing only when it is one to one; no ranges on one side means no per-range part', async () => {
  const k = (name: string, shortName: string, totalNs: number) => ({ name, shortName, calls: 1, totalNs });
  const rows = compareKernels(
    [k('f<1>()', 'f', 10), k('f<2>()', 'f', 20), k('g<1>()', 'g', 5)],
    [k('f<3>()', 'f', 30), k('g<2>()', 'g', 6)],
  );
  const matches = Object.fromEntries(rows.map((r) => [r.name, r.match]));
  assert.deepEqual(matches, { 'f<1>()': 'a-only', 'f<2>()': 'a-only', 'f<3>()': 'b-only', 'g<2>()': 'short-name' });

  const da = tempDir('cmp-c');
  try {
    writeRun(da);
    const a = await summarizePath(da);
    const b = { ...a, markers: [], rangeAttribution: null };
    assert.equal(compareSummaries(a, b).ranges, null);
  } finally {
    rmSync(da, { recursive: true, force: true });
  }
});
