// DispatchTimings (a dispatch's first timing inline, all of them only once it has several) against a PassTimings
// per dispatch, the plain form it stands for: the same distinct (start, end) pairs in the same order for each
// dispatch, whatever order the dispatches' timings come in. The pairs share starts or ends (a pass that only
// ended later, or only started earlier, is another timing).
import test from 'node:test';
import assert from 'node:assert/strict';
import { DispatchTimings, PassTimings } from '../../../src/trace/readers/counterDispatches';
import { seededRandom } from './helpers';

const PAIRS: Array<[number, number]> = [
  [100, 200],
  [100, 250],
  [90, 200],
  [107, 207],
  [2 ** 60, 2 ** 60 + 4096],
];

test('each dispatch gets its distinct timings in the order they came, as a PassTimings of its own would', () => {
  for (let seed = 1; seed <= 20; seed++) {
    const next = seededRandom(seed);
    const timings = new DispatchTimings();
    const plain: PassTimings[] = [];
    for (let step = 0; step < 400; step++) {
      if (plain.length === 0 || next() < 0.1) {
        timings.push();
        plain.push(new PassTimings());
        continue;
      }
      const d = Math.floor(next() * plain.length);
      // mostly the dispatch's first timing again, as the rows of one pass give it
      const [start, end] = PAIRS[next() < 0.6 ? 0 : Math.floor(next() * PAIRS.length)] as [number, number];
      timings.add(d, start, end);
      (plain[d] as PassTimings).add(start, end);
    }
    assert.equal(timings.size, plain.length);
    let several = 0;
    for (let d = 0; d < plain.length; d++) {
      const want = plain[d] as PassTimings;
      const passes = timings.several.get(d);
      if (want.starts.length > 1) several++;
      // one timing (or none) inline, several all in the PassTimings
      assert.equal(passes !== undefined, want.starts.length > 1, `seed ${seed}, dispatch ${d}`);
      const starts = passes ? passes.starts : Number.isNaN(timings.starts[d]) ? [] : [timings.starts[d]];
      const ends = passes ? passes.ends : Number.isNaN(timings.ends[d]) ? [] : [timings.ends[d]];
      assert.deepEqual({ starts, ends }, { starts: want.starts, ends: want.ends }, `seed ${seed}, dispatch ${d}`);
      assert.equal(timings.starts[d], want.starts[0] ?? NaN, 'the first timing inline');
      assert.equal(timings.ends[d], want.ends[0] ?? NaN);
    }
    assert.ok(several > 0 && several < plain.length, `seed ${seed}: ${several} dispatches with several timings`);
  }
});

test('cleared, it holds no dispatch and no timing', () => {
  const timings = new DispatchTimings();
  timings.push();
  timings.add(0, 1, 2);
  timings.add(0, 1, 3);
  timings.clear();
  assert.equal(timings.size, 0);
  assert.equal(timings.several.size, 0);
  timings.push();
  assert.ok(Number.isNaN(timings.starts[0]), 'a new dispatch has no timing yet');
});
