// The streaming path end to end on a generated multi-megabyte ROCm 7.0 trace (the benchmark's generator):
// rows cross read-chunk boundaries, names are long quoted templates, and a small interval window forces the
// bounded-memory busy merge to retire islands. Checked against the reference parser and a sort-and-merge union.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { ensureKernelTrace } from '../../../bench/kernelTraceData';
import { summarizePath } from '../../../src/trace/index';
import { referenceKernels, tempDir, unionLength } from './helpers';

test('a generated 6,000-dispatch trace: exact per-kernel numbers and busy union with a 64-island window', async () => {
  const file = await ensureKernelTrace(tempDir('large'), { rows: 6000, kernels: 120, seed: 21 });
  assert.ok(statSync(file).size > 2 * (1 << 20), 'spans several 1 MiB read chunks');
  const s = await summarizePath(file, { busy: { maxIslands: 64, histogramBins: 256 }, buckets: 50 });
  const ref = referenceKernels(file);
  assert.equal(s.kernels.length, ref.kernels.size);
  for (const [name, r] of ref.kernels) {
    const k = s.kernels.find((x) => x.name === name);
    assert.deepEqual([k?.calls, k?.totalNs, k?.minNs, k?.maxNs], [r.calls, r.total, r.min, r.max], name.slice(0, 80));
  }
  assert.ok(
    s.kernels.some((k) => k.name.includes('"tag"')),
    'the name with doubled quotes decoded',
  );
  const agent = s.agents[0];
  assert.equal(agent?.busyNs, unionLength(ref.intervals));
  assert.equal(agent?.busyExact, true);
  assert.equal(s.timeline?.exact, false, 'islands were retired into the histogram');
  const integrated = (s.timeline?.agents[0]?.busyFraction ?? []).reduce(
    (t, f) => t + f * (s.timeline?.bucketNs as number),
    0,
  );
  assert.ok(
    Math.abs(integrated - (agent?.busyNs as number)) / (agent?.busyNs as number) < 1e-4,
    `${integrated} vs ${agent?.busyNs}`,
  );
});
