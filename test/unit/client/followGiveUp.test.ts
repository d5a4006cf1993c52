// The reconnect budget is for the whole stream: a runner that keeps dropping the connection after a little progress
// does not keep a follower going forever, and giving up names the job and where to see it later (CLI and editor).
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRunnerClient } from '../../../src/core/client';
import { reconnectBackoffFromEnv } from '../../../src/core/client/backoff';
import { FollowGaveUpError } from '../../../src/core/client/follow';
import { explain } from '../../../src/core/submission/explain';
import { sse, startFakeServer, startSse, type FakeServer } from './fakeServer';

const fast = { backoff: { initialMs: 2, maxMs: 5, jitter: 0 } };
let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

test('reconnects are capped in total: progress on every connection does not reset the budget', async () => {
  server = await startFakeServer((req, res) => {
    startSse(res);
    const after = Number(req.headers['last-event-id'] ?? 0);
    // every connection brings one new event, then drops
    const first =
      req.method === 'POST'
        ? sse(1, 'job', { job_id: 7, leaderboard: 'script', gpu: 'CPU', mode: 'test', queue_position: 0 })
        : '';
    res.write(first + sse(after + (first ? 2 : 1), 'status', { status: 'processing', elapsed_time: 0 }));
    setTimeout(() => res.destroy(), 5);
  });
  const client = createRunnerClient({ baseUrl: server.url });
  const attempts: number[] = [];
  const err = await client
    .submit(
      { leaderboard: 'script', gpu: 'CPU', mode: 'test', file: { name: 'n.py', content: 'x' } },
      { ...fast, maxReconnects: 5, onReconnect: (r) => attempts.push(r.attempt) },
    )
    .then(
      () => assert.fail('the stream never ends: following it must give up'),
      (e: unknown) => e,
    );
  assert.ok(err instanceof FollowGaveUpError, String(err));
  assert.equal(err.jobId, 7);
  assert.equal(err.reconnects, 5);
  assert.equal(err.type, 'network');
  assert.match(err.message, /^gave up following job 7 after 5 reconnects/);
  assert.deepEqual(attempts, [1, 2, 3, 4, 5], 'attempts are counted across connections');
  assert.equal(server.requests.filter((r) => r.method === 'GET').length, 5);
});

test('giving up is explained with the job and how to see it later, on both surfaces', async () => {
  let gone: Promise<void> | undefined;
  const fake: FakeServer = await startFakeServer((_req, res) => {
    startSse(res);
    // the runner goes away for good after the first connection: the reconnects are refused
    res.end(
      sse(1, 'job', { job_id: 12, leaderboard: 'script', gpu: 'CPU', mode: 'test', queue_position: 0 }),
      () => (gone = fake.close()),
    );
  });
  const url = fake.url;
  const client = createRunnerClient({ baseUrl: url });
  const err = await client
    .submit(
      { leaderboard: 'script', gpu: 'CPU', mode: 'test', file: { name: 'n.py', content: 'x' } },
      { backoff: { initialMs: 50, maxMs: 50, jitter: 0 }, maxReconnects: 2 },
    )
    .then(
      () => assert.fail('no result can come'),
      (e: unknown) => e,
    );
  await gone;
  assert.ok(err instanceof FollowGaveUpError, String(err));
  assert.equal(err.reconnects, 2);
  const cli = explain(err, { surface: 'cli', baseUrl: url, service: 'kernel-runner' });
  assert.equal(cli.kind, 'network');
  assert.match(cli.message, /^Gave up following job 12 after 2 reconnects \(connection refused/);
  assert.ok(
    cli.message.includes(`\`kernel-runner submissions show 12 --server ${url}\` or GET ${url}/jobs/12 shows it later`),
    cli.message,
  );
  const editor = explain(err, { surface: 'editor', baseUrl: url, service: 'kernel-runner' });
  assert.match(editor.message, /Gave up following job 12 after 2 reconnects/);
  assert.ok(editor.message.includes(`GET ${url}/jobs/12`), editor.message);
  assert.deepEqual(
    editor.actions.map((a) => a.id),
    ['select-target'],
  );
});

test('KERNEL_RUNNER_RECONNECT_MS sets the longest wait between reconnects', () => {
  assert.deepEqual(reconnectBackoffFromEnv({ KERNEL_RUNNER_RECONNECT_MS: '20' }), { initialMs: 20, maxMs: 20 });
  assert.deepEqual(reconnectBackoffFromEnv({ KERNEL_RUNNER_RECONNECT_MS: '10000' }), { initialMs: 250, maxMs: 10000 });
  assert.equal(reconnectBackoffFromEnv({}), undefined);
  assert.equal(reconnectBackoffFromEnv({ KERNEL_RUNNER_RECONNECT_MS: 'soon' }), undefined);
  assert.equal(reconnectBackoffFromEnv({ KERNEL_RUNNER_RECONNECT_MS: '1' }), undefined);
});
