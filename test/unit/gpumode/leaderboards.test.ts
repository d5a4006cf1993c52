import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Leaderboard } from '../../../src/core/protocol/api';
import {
  describeLeaderboards,
  formatDeadline,
  formatQueueCounts,
  formatRunnerQueue,
  parseDeadline,
  queueIsBusy,
} from '../../../src/core/gpumode/index';

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
    [
      lb('old', '2026-05-01T00:00:00+00:00', ['A100']),
      lb('later', '2026-07-01 00:00:00', ['MI300']),
      lb('soon', '2026-06-04T12:00:00Z', ['MI300', 'T4']),
    ],
    now,
  );
  assert.deepEqual(
    infos.map((i) => [i.name, i.closed]),
    [
      ['soon', false],
      ['later', false],
      ['old', true],
    ],
  );
  assert.equal(infos[0]!.deadlineText, 'closes 2026-06-04 12:00 UTC (in 3 days)');
  assert.equal(infos[2]!.deadlineText, 'closed 2026-05-01 00:00 UTC');
  assert.equal(infos[0]!.summary, 'soon problem');
  assert.deepEqual(infos[0]!.gpus, ['MI300', 'T4']);
  assert.equal(infos[0]!.rankingBy, 'geom');
  assert.equal(formatDeadline(null, now), 'no deadline');
  assert.equal(formatDeadline('whenever', now), 'deadline whenever');
  assert.equal(parseDeadline('2026-07-01')?.toISOString(), '2026-07-01T00:00:00.000Z');
});

test('a leaderboard with nothing but its name (null or missing informational fields) is still described', () => {
  const [info] = describeLeaderboards(
    [{ name: 'bare', deadline: null, gpu_types: [], task: { lang: null, ranking_by: null } }],
    now,
  );
  assert.deepEqual(
    [info?.name, info?.deadlineText, info?.closed, info?.gpus, info?.lang, info?.rankingBy, info?.summary],
    ['bare', 'no deadline', false, [], undefined, undefined, ''],
  );
});

test('runner queue lines', () => {
  const q = {
    runner: 'amd',
    gpu: 'MI300',
    queued_jobs: 3,
    running_jobs: 1,
    available_runners: 2,
    status: 'available' as const,
    error: null,
  };
  assert.equal(formatRunnerQueue(q), 'MI300: 3 queued, 1 running, 2 runners available');
  assert.equal(
    formatRunnerQueue({ ...q, queued_jobs: 0, available_runners: 1 }),
    'MI300: 0 queued, 1 running, 1 runner available',
  );
  assert.equal(
    formatRunnerQueue({ ...q, status: 'unavailable', error: 'no runners' }),
    'MI300: unavailable — no runners',
  );
  assert.equal(queueIsBusy(q), true);
  assert.equal(queueIsBusy({ ...q, queued_jobs: 0 }), false);
});

test("runner queue lines show only the counts the service knows (GPU MODE's GitHub launcher counts queued jobs only)", () => {
  const github = {
    runner: 'GitHub',
    gpu: 'MI300',
    queued_jobs: 3,
    running_jobs: null,
    available_runners: null,
    status: 'available',
    error: null,
  };
  assert.equal(formatRunnerQueue(github), 'MI300: 3 queued');
  assert.equal(formatQueueCounts(github), '3 queued');
  assert.equal(
    formatRunnerQueue({ ...github, runner: 'Modal', gpu: 'T4', available_runners: 1 }),
    'T4: 3 queued, 1 runner available',
  );
  assert.equal(formatRunnerQueue({ ...github, queued_jobs: null }), 'MI300: available');
  assert.equal(formatQueueCounts({ ...github, queued_jobs: null }), '');
  assert.equal(
    formatRunnerQueue({ ...github, queued_jobs: null, status: 'unavailable', error: 'unknown gpu' }),
    'MI300: unavailable — unknown gpu',
  );
  assert.equal(formatRunnerQueue({ status: 'draining', queued_jobs: 2 }), 'runner queue: draining, 2 queued');
  assert.equal(queueIsBusy(github), true);
  assert.equal(queueIsBusy({ ...github, queued_jobs: 0 }), false, 'unknown runner counts do not make it busy');
  assert.equal(queueIsBusy({ ...github, queued_jobs: null }), false);
});
