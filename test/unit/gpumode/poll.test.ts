// pollSubmission with a scripted getSubmission (a small fake: the real service is in test/integration/gpumode).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunnerClientError } from '../../../src/core/client/errors';
import type { UserSubmissionDetail } from '../../../src/core/protocol/api';
import { GpuModeError, pollSubmission, type PollRetry, type PollUpdate } from '../../../src/core/gpumode/index';

const base: UserSubmissionDetail = {
  id: 5,
  leaderboard_name: 'lb',
  file_name: 'a.py',
  submission_time: '2026-01-01T00:00:00Z',
  done: false,
  code: '',
  runs: [],
  job: { status: 'initial', error: null, last_heartbeat: null },
};
const at = (status: string, done = false): UserSubmissionDetail => ({
  ...base,
  done,
  job: { status, error: null, last_heartbeat: status === 'running' ? '2026-01-01T00:00:05Z' : null },
});
const err = (status: number, extra: object = {}) =>
  Object.assign(
    new RunnerClientError('http', `Request failed with status ${status}`, {
      method: 'GET',
      url: 'http://h/user/submissions/5',
      status,
    }),
    extra,
  );

function scripted(steps: Array<UserSubmissionDetail | Error>) {
  let i = 0;
  return {
    calls: () => i,
    getSubmission: async () => {
      const step = steps[Math.min(i++, steps.length - 1)] as UserSubmissionDetail | Error;
      if (step instanceof Error) throw step;
      return step;
    },
  };
}

test('reports each state change with heartbeats and honours Retry-After on 429', async () => {
  const client = scripted([
    at('initial'),
    err(429, { retryAfterMs: 120 }),
    at('pending'),
    at('running'),
    at('running'),
    at('hacked', true),
  ]);
  const updates: PollUpdate[] = [];
  const retries: PollRetry[] = [];
  const detail = await pollSubmission(client, 5, {
    intervalMs: 1,
    onUpdate: (u) => updates.push(u),
    onRetry: (r) => retries.push(r),
  });
  assert.equal(detail.job?.status, 'hacked');
  assert.deepEqual(
    updates.map((u) => [u.status.status, u.changed]),
    [
      ['initial', true],
      ['pending', true],
      ['running', true],
      ['running', false],
      ['hacked', true],
    ],
  );
  assert.equal(updates[2]?.lastHeartbeat, '2026-01-01T00:00:05Z');
  assert.equal(retries.length, 1);
  assert.equal(retries[0]?.delayMs, 120, 'the server asked for 120 ms');
  assert.equal(retries[0]?.error.type, 'rate-limited');
});

test('a terminal job status ends polling even before `done`; 5xx are retried with growing waits', async () => {
  const client = scripted([err(502), err(503), at('timed_out')]);
  const retries: PollRetry[] = [];
  const detail = await pollSubmission(client, 5, { intervalMs: 2, onRetry: (r) => retries.push(r) });
  assert.equal(detail.job?.status, 'timed_out');
  assert.deepEqual(
    retries.map((r) => r.delayMs),
    [2, 4],
  );
});

test('401 stops at once with the re-registration message; too many failures give up', async () => {
  await assert.rejects(
    pollSubmission(scripted([err(401)]), 5, { intervalMs: 1 }),
    (e: unknown) => e instanceof GpuModeError && e.type === 'unregistered' && /register/.test(e.message),
  );
  const flaky = scripted([err(500)]);
  await assert.rejects(
    pollSubmission(flaky, 5, { intervalMs: 1, maxFailures: 3 }),
    (e: unknown) => e instanceof GpuModeError && e.type === 'server',
  );
  assert.equal(flaky.calls(), 4);
});

test('gives up after timeoutMs and stops when the signal aborts', async () => {
  let clock = 0;
  await assert.rejects(
    pollSubmission(scripted([at('running')]), 5, { intervalMs: 10, timeoutMs: 25, now: () => (clock += 10) }),
    (e: unknown) => e instanceof GpuModeError && e.type === 'timeout',
  );
  const controller = new AbortController();
  const pending = pollSubmission(scripted([at('pending')]), 5, { intervalMs: 60_000, signal: controller.signal });
  setImmediate(() => controller.abort());
  await assert.rejects(pending, (e: unknown) => e instanceof GpuModeError && e.type === 'cancelled');
});

test('done before the final job status (GPU MODE marks done first): a few more polls for it, then the final status', async () => {
  const doneRunning: UserSubmissionDetail = { ...at('running'), done: true };
  const client = scripted([at('running'), doneRunning, at('failed', true)]);
  const updates: PollUpdate[] = [];
  const detail = await pollSubmission(client, 5, { intervalMs: 0, onUpdate: (u) => updates.push(u) });
  assert.equal(detail.job?.status, 'failed', 'ranked validation failed: not shown as a pass');
  assert.equal(client.calls(), 3);
  const stuck = scripted([doneRunning]);
  assert.equal((await pollSubmission(stuck, 5, { intervalMs: 0 })).done, true);
  assert.equal(stuck.calls(), 3, 'gives up waiting for the status after settlePolls (2) more polls');
  const now = scripted([doneRunning]);
  await pollSubmission(now, 5, { intervalMs: 0, settlePolls: 0 });
  assert.equal(now.calls(), 1);
});

test('no job status (older deployments send no job; streaming-route submissions a job of nulls): status unknown, then done', async () => {
  const oldPending: UserSubmissionDetail = { ...base, job: null };
  const oldDone: UserSubmissionDetail = {
    ...base,
    job: null,
    done: true,
    runs: [
      { start_time: null, end_time: null, mode: 'test', secret: false, runner: 'MI300', score: null, passed: true },
    ],
  };
  const updates: PollUpdate[] = [];
  await pollSubmission(scripted([oldPending, oldPending, oldDone]), 5, {
    intervalMs: 0,
    onUpdate: (u) => updates.push(u),
  });
  assert.deepEqual(
    updates.map((u) => [u.status.label, u.changed]),
    [
      ['status unknown', true],
      ['status unknown', false],
      ['done', true],
    ],
  );
  assert.equal(updates[2]?.status.ok, true);
  const nulls: UserSubmissionDetail = { ...oldDone, job: { status: null, error: null, last_heartbeat: null } };
  const last: PollUpdate[] = [];
  await pollSubmission(scripted([nulls]), 5, { intervalMs: 0, onUpdate: (u) => last.push(u) });
  assert.deepEqual(
    last.map((u) => [u.status.label, u.lastHeartbeat]),
    [['done', null]],
  );
});

test("429 without Retry-After: the wait comes from GPU MODE's text", async () => {
  const text = 'Rate limit exceeded: 3/3 test submissions per hour. Try again in 0s.';
  const retries: PollRetry[] = [];
  await pollSubmission(scripted([err(429, { detail: text }), at('succeeded', true)]), 5, {
    intervalMs: 40,
    onRetry: (r) => retries.push(r),
  });
  assert.deepEqual(
    retries.map((r) => [r.delayMs, r.error.type, r.error.retryAfterMs]),
    [[0, 'rate-limited', 0]],
    'not the 40 ms backoff',
  );
});
