import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Leaderboard } from '../../../src/core/protocol/api';
import { describeLeaderboards, formatDeadline, formatRunnerQueue, parseDeadline, queueIsBusy } from '../../../src/core/gpumode/index';

const now = new Date('2026-06-01T12:00:00Z');
const lb = (name: string, deadline: string | null, gpus: string[]): Leaderboard => ({
  id: 1,
  name,
  description: `${name} problem\nmore text`,
  deadline,
  gpu_types: gpus,
  task: { lang: 'py', files: { 'submission.py': '@SUBMISSION@' }, ranking_by: 'geom' },
});

test('leaderboards: open ones first by deadline, closed ones marked and last', () => {
  const infos = describeLeaderboards(
    [lb('old', '2026-05-01T00:00:00+00:00', ['A100']), lb('later', '2026-07-01 00:00:00', ['MI300']), lb('soon', '2026-06-04T12:00:00Z', ['MI300', 'T4'])],
    now,
  );
  assert.deepEqual(infos.map((i) => [i.name, i.closed]), [['soon', false], ['later', false], ['old', true]]);
  assert.equal(infos[0]!.deadlineText, 'closes 2026-06-04 12:00 UTC (in 3 days)');
  assert.equal(infos[2]!.deadlineText, 'closed 2026-05-01 00:00 UTC');
  assert.equal(infos[0]!.summary, 'soon problem');
  assert.deepEqual(infos[0]!.gpus, ['MI300', 'T4']);
  assert.equal(infos[0]!.rankingBy, 'geom');
  assert.equal(formatDeadline(null, now), 'no deadline');
  assert.equal(formatDeadline('whenever', now), 'deadline whenever');
  assert.equal(parseDeadline('2026-07-01')?.toISOString(), '2026-07-01T00:00:00.000Z');
});

test('runner queue lines', () => {
  const q = { runner: 'amd', gpu: 'MI300', queued_jobs: 3, running_jobs: 1, available_runners: 2, status: 'available' as const, error: null };
  assert.equal(formatRunnerQueue(q), 'MI300: 3 queued, 1 running, 2 runners available');
  assert.equal(formatRunnerQueue({ ...q, queued_jobs: 0, available_runners: 1 }), 'MI300: 0 queued, 1 running, 1 runner available');
  assert.equal(formatRunnerQueue({ ...q, status: 'unavailable', error: 'no runners' }), 'MI300: unavailable — no runners');
  assert.equal(queueIsBusy(q), true);
  assert.equal(queueIsBusy({ ...q, queued_jobs: 0 }), false);
});
