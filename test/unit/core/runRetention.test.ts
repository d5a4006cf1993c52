import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runsToRemove } from '../../../src/core/runRetention';

const MB = 1024 * 1024;

test('oldest runs go first until the rest fits the bound', () => {
  const runs = [
    { id: 'b', storedAt: 2000, bytes: 40 * MB },
    { id: 'a', storedAt: 1000, bytes: 30 * MB },
    { id: 'd', storedAt: 4000, bytes: 20 * MB },
    { id: 'c', storedAt: 3000, bytes: 10 * MB },
  ];
  assert.deepEqual(runsToRemove(runs, 100 * MB), []);
  assert.deepEqual(runsToRemove(runs, 99 * MB), ['a']);
  assert.deepEqual(runsToRemove(runs, 60 * MB), ['a', 'b']);
  assert.deepEqual(runsToRemove(runs, 30 * MB), ['a', 'b']);
  assert.deepEqual(runsToRemove(runs, 29 * MB), ['a', 'b', 'c']);
});

test('the newest run is kept even when it alone is over the bound', () => {
  assert.deepEqual(
    runsToRemove(
      [
        { id: 'old', storedAt: 1, bytes: 1 },
        { id: 'new', storedAt: 2, bytes: 500 * MB },
      ],
      100 * MB,
    ),
    ['old'],
  );
  assert.deepEqual(runsToRemove([{ id: 'only', storedAt: 1, bytes: 500 * MB }], 0), []);
  assert.deepEqual(runsToRemove([], 0), []);
});

test('runs stored in the same millisecond are ordered by id; negative sizes count as nothing', () => {
  const runs = [
    { id: 'r2', storedAt: 5, bytes: 10 },
    { id: 'r1', storedAt: 5, bytes: 10 },
    { id: 'r3', storedAt: 5, bytes: -99 },
  ];
  assert.deepEqual(runsToRemove(runs, 10), ['r1']);
});
