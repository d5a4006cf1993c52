import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statsOut } from '../../../src/trace/durationStats';
import { BatchMoments, ExactMoments, MOMENT_WIDTH } from '../../../src/trace/exactMoments';
import { seededRandom } from './helpers';

/** Moments of `durations` (per id) fed in batches of the given sizes. */
function summed(durations: Array<[number, number]>, batchSizes: () => number): Map<number, ExactMoments> {
  const out = new Map<number, ExactMoments>();
  const batch = new BatchMoments();
  const drain = (): void => {
    const { moments, long } = batch.take();
    for (let o = 0; o < moments.length; o += MOMENT_WIDTH) {
      const id = moments[o] as number;
      if (!out.has(id)) out.set(id, new ExactMoments());
      out.get(id)!.addEntry(moments, o);
    }
    for (let i = 0; i < long.length; i += 2) out.get(long[i] as number)!.addLongSquare(long[i + 1] as number);
  };
  let left = batchSizes();
  for (const [id, d] of durations) {
    batch.add(id, d);
    if (--left === 0) {
      drain();
      left = batchSizes();
    }
  }
  drain();
  return out;
}

/** The exact sample variance as a reduced fraction's value, from BigInt sums. */
function referenceVariance(ds: number[]): number {
  const n = BigInt(ds.length);
  const s1 = ds.reduce((a, d) => a + BigInt(d), 0n);
  const s2 = ds.reduce((a, d) => a + BigInt(d) * BigInt(d), 0n);
  return Number(n * s2 - s1 * s1) / ds.length / (ds.length - 1);
}

test('exact moments: any batching and order give the same stats, and the variance of exact sums', () => {
  const next = seededRandom(8);
  const durations: Array<[number, number]> = [];
  for (let i = 0; i < 200_000; i++) {
    const id = Math.floor(next() * 7);
    // short kernels, long ones, 0 ns, and a few above 2^36 ns (squared as BigInt)
    const d = id === 6 ? 2 ** 36 + Math.floor(next() * 2 ** 40) : id === 5 ? 0 : Math.floor(next() * 10 ** (2 + id));
    durations.push([id, d]);
  }
  const a = summed(durations, () => 65536);
  const b = summed([...durations].reverse(), () => 1 + Math.floor(next() * 3000));
  assert.equal(a.size, 7);
  for (const [id, m] of a) {
    const ds = durations.filter(([i]) => i === id).map(([, d]) => d);
    const sa = m.toStats();
    const sb = b.get(id)!.toStats();
    assert.deepEqual(sa, sb, `kernel ${id}: same stats whatever the batches`);
    assert.equal(sa.count, ds.length);
    assert.equal(
      sa.sum,
      ds.reduce((x, d) => x + d, 0),
    );
    assert.equal(sa.min, Math.min(...ds));
    assert.equal(sa.max, Math.max(...ds));
    const stddev = statsOut(sa).stddevNs as number;
    assert.equal(stddev, Math.sqrt(referenceVariance(ds)), `kernel ${id}: the variance of the exact sums`);
  }
  assert.equal(statsOut(a.get(5)!.toStats()).stddevNs, 0);
});

test('exact moments of many full batches carry into BigInt without losing a bit', () => {
  const m = new ExactMoments();
  const batch = new BatchMoments();
  // 2^36 - 1 ns each: every term of the split square is near its bound, so the doubles must carry often
  const d = 2 ** 36 - 1;
  const batches = 40;
  for (let k = 0; k < batches; k++) {
    for (let i = 0; i < 65536; i++) batch.add(0, i % 2 === 0 ? d : 0);
    const { moments } = batch.take();
    m.addEntry(moments, 0);
  }
  const s = m.toStats();
  const n = batches * 65536;
  assert.equal(s.count, n);
  // half at d, half at 0: mean d/2, sum of squared deviations n * (d/2)^2
  const expected = Number((BigInt(n) * BigInt(d) * BigInt(d)) / 4n);
  assert.equal(s.m2, expected);
});
