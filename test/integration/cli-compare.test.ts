// Runs the BUILT CLI (dist/cli.cjs): `compare A B` as text and --json on two runs written in rocprofv3's layout
// (and on the real rocpd database against itself), `summarize` printing a kernel table per rocTX range, and the
// exit-2 errors.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { traceComparisonSchema } from '../../src/core/protocol/traceComparison';
import { tempDir } from '../unit/trace/helpers';
import { A, B, C, LAUNCHES, writeRun, type Launch } from '../unit/trace/rangeRuns';
import { ensureBuilt } from './submit/helpers';
import { runCli as kr } from '../support/cliRun';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DB = path.resolve(repoRoot, '../shared/fixtures/rocprof/batched_gemm__28_results.db');
const A4 = 'void gemm<float, 4>(float const*, float*, int)';
const dirs: string[] = [];
let runA = '';
let runB = '';

before(() => {
  ensureBuilt();
  runA = tempDir('cli-cmp-a');
  runB = tempDir('cli-cmp-b');
  dirs.push(runA, runB);
  writeRun(runA);
  // B: gemm's template argument changed and it got 2x faster; worker_kernel is gone; inner_kernel 3x slower
  const launches: Launch[] = LAUNCHES.filter((l) => l.kernel !== B).map((l) => {
    const len = l.gpu[1] - l.gpu[0];
    if (l.kernel === A) return { ...l, kernel: A4, gpu: [l.gpu[0], l.gpu[0] + len / 2] };
    if (l.kernel === C) return { ...l, gpu: [l.gpu[0], l.gpu[0] + len * 3] };
    return l;
  });
  writeRun(runB, { launches });
});

after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('compare --json: the schema, null sides for a vanished kernel, a base-name pair marked, per-range deltas', () => {
  const r = kr('compare', runA, runB, '--json');
  assert.equal(r.status, 0, r.stderr);
  const c = traceComparisonSchema.parse(JSON.parse(r.stdout));
  assert.equal(c.a.label, runA);
  const gemm = c.kernels.find((k) => k.name === A4);
  assert.equal(gemm?.match, 'short-name');
  assert.equal(gemm?.aName, A);
  assert.equal(gemm?.ratio, 0.5);
  const worker = c.kernels.find((k) => k.name === B);
  assert.deepEqual([worker?.match, worker?.b, worker?.ratio], ['a-only', null, null]);
  assert.ok(c.ranges?.some((x) => x.name === 'inner' && x.kernelRatio === 3));
});

test('compare text: kernels with the change and ratio, new/gone marks, busy change, a table per range', () => {
  const r = kr('compare', runA, runB);
  assert.equal(r.status, 0, r.stderr);
  const out = r.stdout;
  assert.ok(!out.includes('\x1b['), 'no colour when piped');
  assert.match(out, /^Compare A: /);
  assert.match(out, /\nKernel time: A 640 ns, B 490 ns, change -150 ns \(0\.77x\)\n/);
  // B's slower inner_kernel dispatches overlap each other and a gemm: busy is their union
  assert.match(out, /\nGPU busy: A 640 ns, B 360 ns, change -280 ns \(0\.56x\)\n/);
  assert.match(out, /\n {2}gemm<float, 4> +≈ +4 +4 +500 ns +250 ns +-250 ns +0\.50x/);
  assert.match(out, /\n {2}inner_kernel +2 +2 +80 ns +240 ns +\+160 ns +3\.00x/);
  assert.match(out, /\n {2}worker_kernel +gone +2 +- +60 ns +- +-60 ns +- +30 ns +-\n/);
  assert.match(out, /\n {2}worker +1 +0 +30 ns +0 ns +-30 ns +0\.00x\n/);
  assert.match(out, /1 gone from A; 1 paired by base name/);
  assert.match(out, /rocTX ranges \(kernel time launched inside each\)/);
  assert.match(out, /\n {2}Range benchmark 1: n: 2048; seed: 2\n/);
});

test('compare of the real rocpd database with itself: every kernel exact, ratio 1, no change', () => {
  const r = kr('compare', DB, DB, '--json');
  assert.equal(r.status, 0, r.stderr);
  const c = traceComparisonSchema.parse(JSON.parse(r.stdout));
  assert.equal(c.kernels.length, 2);
  for (const k of c.kernels) assert.deepEqual([k.match, k.ratio, k.deltaTotalNs], ['exact', 1, 0]);
  assert.equal(c.busy.deltaNs, 0);
  assert.equal(c.ranges, null, 'no rocTX ranges in that run');
});

test('summarize prints each range with its kernels and how they were put there', () => {
  const r = kr('summarize', runA);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /rocTX ranges\n {2}Range +Calls +Total +Avg +Kernels +Kernel time\n/);
  assert.match(
    r.stdout,
    /6 of 8 dispatches were launched inside a range, put there by their launch call \(Correlation_Id\)\./,
  );
  assert.match(
    r.stdout,
    /\n {2}Kernels in benchmark 1: n: 2048; seed: 2\n {4}Kernel +Calls +Total +Avg +% of range\n {4}gemm<float, 2> +1 +100 ns/,
  );
});

test('compare: a missing path is exit 2 with what was looked for; a missing argument is a usage error', () => {
  const r = kr('compare', runA, path.join(runA, 'nope.zip'));
  assert.equal(r.status, 2);
  assert.match(r.stderr, /nope\.zip: no such file or directory/);
  assert.equal(r.stdout, '');
  const u = kr('compare', runA);
  assert.notEqual(u.status, 0);
  assert.match(u.stderr, /missing required argument 'b'/);
});
