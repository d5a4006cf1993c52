import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BusyRuns, BusyTracker } from '../../../src/trace/busy';
import { seededRandom, unionLength } from './helpers';

/** Intervals like a multi-queue trace: bursts of overlapping work with idle gaps, emitted in completion order
 *  with bounded disorder (`jitter` positions). */
function traceLike(n: number, next: () => number, jitter: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let t = 1_000_000;
  for (let i = 0; i < n; i++) {
    t += next() < 0.2 ? 2000 + Math.floor(next() * 5000) : Math.floor(next() * 300);
    const s = t;
    out.push([s, s + 50 + Math.floor(next() * 1000)]);
  }
  // bounded shuffle: swap each with one at most `jitter` ahead
  for (let i = 0; i < out.length; i++) {
    const j = Math.min(out.length - 1, i + Math.floor(next() * (jitter + 1)));
    [out[i], out[j]] = [out[j] as [number, number], out[i] as [number, number]];
  }
  return out;
}

/** Brute-force busy ns of the union inside [a, b). */
function coveredIn(intervals: Array<[number, number]>, a: number, b: number): number {
  return unionLength(
    intervals.map(([s, e]) => [Math.max(s, a), Math.min(e, b)] as [number, number]).filter(([s, e]) => e > s),
  );
}

test('busy time is the union of intervals, not their sum, whatever the arrival order', () => {
  const next = seededRandom(5);
  for (let run = 0; run < 30; run++) {
    const intervals = traceLike(2000, next, run % 3 === 0 ? 2000 : 20);
    const b = new BusyTracker();
    for (const [s, e] of intervals) b.add(s, e);
    assert.equal(b.busyNs, unionLength(intervals), `run ${run}`);
    assert.ok(b.exact);
    const sum = intervals.reduce((t, [s, e]) => t + e - s, 0);
    assert.ok(b.busyNs < sum, 'overlaps are counted once');
  }
});

test('touching, nested, zero-length and reversed intervals', () => {
  const b = new BusyTracker();
  b.add(10, 20);
  b.add(20, 30); // touches: one island
  b.add(12, 18); // nested
  b.add(40, 40); // zero length: nothing
  b.add(50, 45); // reversed: ignored
  b.add(0, 5);
  b.add(4, 11); // bridges into the first island
  assert.equal(b.busyNs, 30);
  assert.equal(b.islandCount, 1);
});

test('memory stays bounded: at most 1.5 x maxIslands islands (appends retire at maxIslands), exact while disorder stays inside the window', () => {
  const next = seededRandom(11);
  const intervals = traceLike(50_000, next, 30);
  const b = new BusyTracker({ maxIslands: 256, histogramBins: 64 });
  let maxHeld = 0;
  for (const [s, e] of intervals) {
    b.add(s, e);
    maxHeld = Math.max(maxHeld, b.islandCount);
  }
  assert.ok(maxHeld <= 384, `held ${maxHeld}`);
  assert.equal(b.busyNs, unionLength(intervals));
  assert.equal(b.exact, true);
  assert.equal(b.timelineExact, false, 'the retired part of the timeline comes from the histogram');
});

test('an interval far behind the retired window makes busy a flagged lower bound', () => {
  const b = new BusyTracker({ maxIslands: 4 });
  const intervals: Array<[number, number]> = [];
  for (let i = 0; i < 20; i++) intervals.push([i * 100, i * 100 + 10]);
  for (const [s, e] of intervals) b.add(s, e);
  b.add(5, 50); // reaches back into retired islands
  intervals.push([5, 50]);
  assert.equal(b.exact, false);
  assert.ok(b.busyNs <= unionLength(intervals));
  assert.ok(b.lateNs > 0);
});

test('timeline coverage: exact from islands, close from the histogram', () => {
  const next = seededRandom(3);
  const intervals = traceLike(5000, next, 10);
  const t0 = Math.min(...intervals.map((i) => i[0]));
  const t1 = Math.max(...intervals.map((i) => i[1]));
  const buckets = 40;
  const width = (t1 - t0) / buckets;
  const expected = Array.from({ length: buckets }, (_, i) =>
    coveredIn(intervals, t0 + i * width, i === buckets - 1 ? t1 : t0 + (i + 1) * width),
  );

  const exact = new BusyTracker();
  for (const [s, e] of intervals) exact.add(s, e);
  const got = Array.from(exact.coverage(t0, t1, buckets));
  got.forEach((v, i) => assert.ok(Math.abs(v - (expected[i] as number)) < 1e-6, `bucket ${i}: ${v} vs ${expected[i]}`));

  const bounded = new BusyTracker({ maxIslands: 64, histogramBins: 4096 });
  for (const [s, e] of intervals) bounded.add(s, e);
  const approx = Array.from(bounded.coverage(t0, t1, buckets));
  assert.equal(bounded.timelineExact, false, 'islands were retired into the histogram');
  assert.equal(bounded.busyNs, unionLength(intervals));
  approx.forEach((v, i) => {
    // resampling error is at most a histogram bin at each bucket edge
    assert.ok(Math.abs(v - (expected[i] as number)) <= 0.05 * width, `bucket ${i}: ${v} vs ${expected[i]}`);
  });
  assert.ok(
    Math.abs(approx.reduce((a, b) => a + b, 0) - unionLength(intervals)) < 1e-3,
    'no busy time lost or invented',
  );
});

/** Everything a tracker shows: busy, flags, islands held and the timeline. */
function state(b: BusyTracker, t0: number, t1: number): unknown {
  return {
    busy: b.busyNs,
    exact: b.exact,
    timelineExact: b.timelineExact,
    islands: b.islandCount,
    coverage: Array.from(b.coverage(t0, t1, 64)),
  };
}

test('intervals merged into runs (BusyRuns) leave a tracker exactly as the intervals one by one, retirement included', () => {
  const next = seededRandom(21);
  for (let run = 0; run < 60; run++) {
    // several agents interleaved, bursts, bounded disorder, zero-length and nested intervals; a small window
    const intervals = traceLike(4000, next, [0, 3, 30, 300][run % 4] as number).map(
      ([s, e]) => [s, next() < 0.05 ? s : e, Math.floor(next() * 2)] as const,
    );
    const maxIslands = [8, 64, 1024][run % 3] as number;
    const t0 = Math.min(...intervals.map((i) => i[0]));
    const t1 = Math.max(...intervals.map((i) => i[1]));
    const one = [
      new BusyTracker({ maxIslands, histogramBins: 64 }),
      new BusyTracker({ maxIslands, histogramBins: 64 }),
    ];
    for (const [s, e, a] of intervals) one[a]!.add(s, e);
    const merged = [
      new BusyTracker({ maxIslands, histogramBins: 64 }),
      new BusyTracker({ maxIslands, histogramBins: 64 }),
    ];
    // runs cut into batches of random sizes, as a reader's batches cut them
    let at = 0;
    let runs = 0;
    while (at < intervals.length) {
      const batch = intervals.slice(at, at + 1 + Math.floor(next() * 500));
      at += batch.length;
      const r = BusyRuns.withCapacity(batch.length);
      for (const [s, e, a] of batch) r.add(a, s, e);
      r.close();
      runs += r.count;
      for (let i = 0; i < r.count; i++) merged[r.keys[i]!]!.addRange(r.starts, r.ends, i, i + 1);
    }
    // flagged alike; where exact, the same busy state
    const shown = (b: (typeof merged)[number]) => (b.exact ? state(b, t0, t1) : 'not exact');
    assert.deepEqual(merged.map(shown), one.map(shown), `run ${run}: ${runs} runs for ${intervals.length} intervals`);
    assert.ok(runs < intervals.length, 'runs merge something');
  }
});

test('an insertion into a full window grows it instead of retiring: a run and its intervals agree there too', () => {
  const fill = (b: BusyTracker): void => {
    for (const s of [0, 10, 20, 30]) b.add(s, s + 1);
  };
  // one by one: [5, 6] needs a new island in a full list, [6, 12] then joins it to [10, 11]
  const one = new BusyTracker({ maxIslands: 4 });
  fill(one);
  one.add(5, 6);
  one.add(6, 12);
  // as one run: [5, 12] joins [10, 11] at once
  const run = new BusyTracker({ maxIslands: 4 });
  fill(run);
  const r = BusyRuns.withCapacity(2);
  r.add(0, 5, 6);
  r.add(0, 6, 12);
  r.close();
  assert.equal(r.count, 1);
  run.addRange(r.starts, r.ends, 0, 1);
  for (const b of [one, run]) {
    assert.equal(b.exact, true, 'nothing was retired behind the new interval');
    assert.equal(b.busyNs, 1 + 7 + 1 + 1);
    assert.equal(b.islandCount, 4);
  }
});
