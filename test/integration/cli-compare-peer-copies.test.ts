// Runs the BUILT CLI (dist/cli.cjs): `compare A B` of two 4-GPU multi-process profiles written in rocprofv3's
// per-process layout, where every rank copies to every other GPU (an all-to-all) and rank 3's copies to GPU 1 went
// from 2.1 µs to 0.9 µs: the pair with the biggest change comes first in text and --json, --top cuts the text with
// the rest counted.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { traceComparisonSchema } from '../../src/core/protocol/traceComparison';
import { tempDir } from '../unit/trace/helpers';
import { writeMultiRankRun } from '../unit/trace/multiRankRun';
import { ensureBuilt } from './submit/helpers';
import { runCli as kr } from '../support/cliRun';

let runA = '';
let runB = '';

/** Agent n is GPU n - 1 and rank n - 1: every GPU copies to every other, 200 ns a copy, rank 3's to GPU 1 `slow` ns. */
const allToAll =
  (slow: number) =>
  (agent: number): Array<[number, number]> =>
    [1, 2, 3, 4].filter((to) => to !== agent).map((to) => [to, agent === 4 && to === 2 ? slow : 200]);

before(() => {
  ensureBuilt();
  runA = tempDir('cli-peer-a');
  runB = tempDir('cli-peer-b');
  writeMultiRankRun(runA, { peerCopies: allToAll(2100) });
  writeMultiRankRun(runB, { peerCopies: allToAll(900) });
});

after(() => {
  for (const d of [runA, runB]) rmSync(d, { recursive: true, force: true });
});

test('compare --json: the 12 GPU pairs on both sides, rank 3 → GPU 1 first with its change', () => {
  const r = kr('compare', runA, runB, '--json');
  assert.equal(r.status, 0, r.stderr);
  const c = traceComparisonSchema.parse(JSON.parse(r.stdout));
  assert.equal(c.peerCopies?.length, 12);
  assert.deepEqual(c.peerCopies?.[0], {
    srcAgentId: 'Agent 4',
    dstAgentId: 'Agent 2',
    srcGpu: 3,
    dstGpu: 1,
    a: { calls: 1, totalNs: 2100, bytes: null },
    b: { calls: 1, totalNs: 900, bytes: null },
    deltaTotalNs: -1200,
    ratio: 900 / 2100,
  });
  // the others unchanged, in source then destination order
  assert.deepEqual(
    c.peerCopies?.slice(1).map((p) => [p.srcGpu, p.dstGpu, p.a?.totalNs, p.b?.totalNs, p.deltaTotalNs, p.ratio]),
    [
      [0, 1],
      [0, 2],
      [0, 3],
      [1, 0],
      [1, 2],
      [1, 3],
      [2, 0],
      [2, 1],
      [2, 3],
      [3, 0],
      [3, 2],
    ].map(([s, d]) => [s, d, 200, 200, 0, 1]),
  );
  assert.equal(c.ranks?.length, 4);
});

test('compare text: the pairs after the ranks, cut to --top with the rest counted', () => {
  const r = kr('compare', runA, runB, '--top', '3');
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n');
  const head = lines.indexOf('GPU-to-GPU copies, biggest change first (3 of 12 pairs)');
  assert.ok(head > lines.indexOf('Ranks, paired by rank number (* computes longest on that side)'), r.stdout);
  assert.deepEqual(lines.slice(head + 1, head + 7), [
    '  All pairs: A 4.30 µs, B 3.10 µs, change -1.20 µs (0.72x)',
    '  Pair             A copies  B copies   A time  B time    Δ time    B/A',
    '  GPU 3 → GPU 1           1         1  2.10 µs  900 ns  -1.20 µs  0.43x',
    '  GPU 0 → GPU 1           1         1   200 ns  200 ns      0 ns  1.00x',
    '  GPU 0 → GPU 2           1         1   200 ns  200 ns      0 ns  1.00x',
    '  9 more pairs: A 1.80 µs, B 1.80 µs',
  ]);
});
