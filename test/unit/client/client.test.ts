import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRunnerClient, RunnerClientError, type ClientEvent } from '../../../src/core/client';
import { RESULT, sse, startFakeServer, startSse, type FakeServer } from './fakeServer';

const fast = { backoff: { initialMs: 5, maxMs: 20, jitter: 0 } };
let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Events of a job: `job`, then `lines` outputs, then `result`; ids 1..lines+2. */
function jobEvents(lines: number): string[] {
  const out = [sse(1, 'job', { job_id: 1, leaderboard: 'script', gpu: 'CPU', mode: 'test', queue_position: 0 })];
  for (let i = 1; i <= lines; i++)
    out.push(sse(i + 1, 'output', { stream: i % 2 ? 'stdout' : 'stderr', text: `line ${i}`, noise: false }));
  out.push(sse(lines + 2, 'result', RESULT));
  return out;
}

function outputs(events: ClientEvent[]): string[] {
  return events.flatMap((e) => (e.event === 'output' ? [e.data.text] : []));
}

test('submit uploads the file with identity headers and delivers events to the result', async () => {
  server = await startFakeServer((req, res) => {
    startSse(res);
    res.end(jobEvents(3).join(''));
  });
  const client = createRunnerClient({ baseUrl: `${server.url}/`, token: 'tok-secret-1' });
  const events: ClientEvent[] = [];
  const outcome = await client.submit(
    { leaderboard: 'script', gpu: 'CPU', mode: 'test', file: { name: 'hello.py', content: 'print("hi µ")\n' } },
    { onEvent: (e) => events.push(e) },
  );
  assert.equal(outcome.kind, 'result');
  assert.equal(outcome.jobId, 1);
  assert.deepEqual(outputs(events), ['line 1', 'line 2', 'line 3']);
  const post = server.requests[0]!;
  assert.equal(post.method, 'POST');
  assert.equal(post.url, '/script/CPU/test');
  assert.equal(post.headers.authorization, 'Bearer tok-secret-1');
  assert.equal(post.headers['x-kernel-runner-extensions'], '1');
  assert.match(String(post.headers['content-type']), /^multipart\/form-data; boundary=/);
  assert.match(post.body, /name="file"; filename="hello.py"/);
  assert.ok(post.body.includes('print("hi µ")'));
});

test('a connection cut mid-stream resumes with Last-Event-ID: every line once, in order', async () => {
  const all = jobEvents(60);
  server = await startFakeServer((req, res) => {
    startSse(res);
    if (req.method === 'POST') {
      res.write(all.slice(0, 21).join(''));
      res.write(all[21]!.slice(0, 15)); // half an event, then the cut
      setTimeout(() => res.destroy(), 20);
      return;
    }
    const after = Number(req.headers['last-event-id'] ?? 0);
    // Replay with an overlap of two events already seen, cut once more in the middle, then finish.
    const rest = all.slice(Math.max(0, after - 2));
    if (after < 30) {
      res.write(rest.slice(0, 20).join(''));
      setTimeout(() => res.destroy(), 20);
    } else {
      res.end(rest.join(''));
    }
  });
  const client = createRunnerClient({ baseUrl: server.url });
  const events: ClientEvent[] = [];
  const reconnects: number[] = [];
  const outcome = await client.submit(
    { leaderboard: 'script', gpu: 'CPU', mode: 'test', file: { name: 'n.py', content: 'x' } },
    { ...fast, onEvent: (e) => events.push(e), onReconnect: (r) => reconnects.push(r.lastEventId) },
  );
  assert.equal(outcome.kind, 'result');
  assert.deepEqual(
    outputs(events),
    Array.from({ length: 60 }, (_v, i) => `line ${i + 1}`),
  );
  const ids = events.map((e) => e.id);
  assert.deepEqual(
    ids,
    Array.from({ length: 62 }, (_v, i) => i + 1),
  );
  assert.deepEqual(reconnects, [21, 39]);
  const gets = server.requests.filter((r) => r.method === 'GET');
  assert.deepEqual(
    gets.map((r) => [r.url, r.headers['last-event-id']]),
    [
      ['/jobs/1/events', '21'],
      ['/jobs/1/events', '39'],
    ],
  );
});

test('a silent connection counts as dropped after the idle timeout and is resumed', async () => {
  const all = jobEvents(2);
  server = await startFakeServer((req, res) => {
    startSse(res);
    if (req.method === 'POST')
      res.write(all.slice(0, 2).join('')); // then silence, connection left open
    else res.end(all.slice(Number(req.headers['last-event-id'])).join(''));
  });
  const client = createRunnerClient({ baseUrl: server.url });
  const events: ClientEvent[] = [];
  const outcome = await client.submit(
    { leaderboard: 'script', gpu: 'CPU', mode: 'test', file: { name: 'n.py', content: 'x' } },
    { ...fast, idleTimeoutMs: 150, onEvent: (e) => events.push(e) },
  );
  assert.equal(outcome.kind, 'result');
  assert.deepEqual(outputs(events), ['line 1', 'line 2']);
});

test('an upstream stream (no ids, no job event) that drops is a network error, not a resume', async () => {
  server = await startFakeServer((req, res) => {
    startSse(res);
    res.write(sse(undefined, 'status', { status: 'processing', elapsed_time: 0.1 }));
    setTimeout(() => res.destroy(), 20);
  });
  const client = createRunnerClient({ baseUrl: server.url, extensions: false, cliId: 'cli-id-123456' });
  await assert.rejects(
    client.submit({ leaderboard: 'lb', gpu: 'MI300', mode: 'profile', file: { name: 's.py', content: 'x' } }, fast),
    (err: unknown) =>
      err instanceof RunnerClientError && err.type === 'network' && /closed before the result/.test(err.message),
  );
  assert.equal(server.requests.length, 1);
  assert.equal(server.requests[0]!.headers['x-popcorn-cli-id'], 'cli-id-123456');
  assert.equal(server.requests[0]!.headers['x-kernel-runner-extensions'], undefined);
});

test('an error event ends the stream as an error outcome', async () => {
  server = await startFakeServer((_req, res) => {
    startSse(res);
    res.end(
      sse(1, 'job', { job_id: 4, leaderboard: 'lb', gpu: 'CPU', mode: 'test', queue_position: 0 }) +
        sse(2, 'error', { status: 'error', detail: 'boom', status_code: 500 }),
    );
  });
  const outcome = await createRunnerClient({ baseUrl: server.url }).submit({
    leaderboard: 'lb',
    gpu: 'CPU',
    mode: 'test',
    file: { name: 's.py', content: 'x' },
  });
  assert.deepEqual(outcome, {
    kind: 'error',
    jobId: 4,
    lastEventId: 2,
    error: { status: 'error', detail: 'boom', status_code: 500 },
  });
});

test('aborting the signal after the job started cancels the job on the server', async () => {
  server = await startFakeServer((req, res) => {
    if (req.method === 'DELETE') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"ok","job_id":9,"state":"cancelled"}');
      return;
    }
    startSse(res);
    res.write(sse(1, 'job', { job_id: 9, leaderboard: 'script', gpu: 'CPU', mode: 'test', queue_position: 0 }));
  });
  const controller = new AbortController();
  const client = createRunnerClient({ baseUrl: server.url });
  await assert.rejects(
    client.submit(
      { leaderboard: 'script', gpu: 'CPU', mode: 'test', file: { name: 'n.py', content: 'x' } },
      { signal: controller.signal, onEvent: (e) => e.event === 'job' && controller.abort() },
    ),
    (err: unknown) => err instanceof RunnerClientError && err.type === 'cancelled',
  );
  assert.ok(server.requests.some((r) => r.method === 'DELETE' && r.url === '/jobs/9'));
});

test('an HTTP error carries status and detail, names method and URL, never the token', async () => {
  server = await startFakeServer((_req, res) => {
    res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"detail":"Invalid or missing token"}');
  });
  const client = createRunnerClient({ baseUrl: server.url, token: 'super-secret-token' });
  for (const call of [
    () => client.listLeaderboards(),
    () => client.submit({ leaderboard: 'script', gpu: 'CPU', mode: 'test', file: { name: 'a.py', content: 'x' } }),
  ]) {
    await assert.rejects(call(), (err: unknown) => {
      assert.ok(err instanceof RunnerClientError);
      assert.equal(err.type, 'http');
      assert.equal(err.status, 401);
      assert.equal(err.detail, 'Invalid or missing token');
      assert.match(err.message, new RegExp(`(GET|POST) ${server!.url}/`));
      assert.ok(!err.message.includes('super-secret-token'));
      return true;
    });
  }
});

test('a dead server is a network error naming the refused connection', async () => {
  const dead = await startFakeServer(() => undefined);
  await dead.close();
  await assert.rejects(createRunnerClient({ baseUrl: dead.url }).health(), (err: unknown) => {
    assert.ok(err instanceof RunnerClientError);
    assert.equal(err.type, 'network');
    assert.equal(err.systemCode, 'ECONNREFUSED');
    assert.match(err.message, /connection refused/);
    assert.match(err.message, new RegExp(`GET ${dead.url}/health`));
    return true;
  });
});

test('an answer that is not JSON, or has the wrong shape, is a protocol error', async () => {
  server = await startFakeServer((req, res) => {
    if (req.url === '/health') res.writeHead(200).end('<html>proxy login</html>');
    else res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"nope":1}');
  });
  const client = createRunnerClient({ baseUrl: server.url });
  await assert.rejects(
    client.health(),
    (err: unknown) => err instanceof RunnerClientError && err.type === 'protocol' && /not JSON/.test(err.message),
  );
  await assert.rejects(
    client.runnerQueue('CPU'),
    (err: unknown) => err instanceof RunnerClientError && err.type === 'protocol' && /shape/.test(err.message),
  );
});

test('an invalid base URL is rejected clearly', () => {
  assert.throws(() => createRunnerClient({ baseUrl: 'ftp://x' }), /only http and https/);
  assert.throws(() => createRunnerClient({ baseUrl: 'not a url' }), /Not a valid runner URL/);
});

test('downloadArtifact streams to the file, never overwrites, and leaves nothing behind when cut short', async () => {
  const payload = Buffer.alloc(300_000, 7);
  server = await startFakeServer((req, res) => {
    if (req.url === '/jobs/2/artifacts/profile.zip') {
      res.writeHead(200, {
        'Content-Type': 'application/zip',
        'Content-Length': String(payload.length),
        'Content-Disposition': 'attachment; filename="job-2-profile.zip"',
      });
      res.end(payload);
    } else {
      res.writeHead(200, { 'Content-Length': '1000' });
      res.write('0123456789');
      setTimeout(() => res.destroy(), 20);
    }
  });
  const dir = mkdtempSync(join(tmpdir(), 'kr-dl-'));
  try {
    const client = createRunnerClient({ baseUrl: server.url, token: 'tok-123456' });
    const dest = join(dir, 'trace.zip');
    const got = await client.downloadArtifact({ jobId: 2, name: 'profile.zip' }, dest);
    assert.equal(got.bytes, payload.length);
    assert.equal(got.suggestedName, 'job-2-profile.zip');
    assert.ok(readFileSync(dest).equals(payload));
    await assert.rejects(
      client.downloadArtifact({ jobId: 2, name: 'profile.zip' }, dest),
      (err: unknown) => (err as NodeJS.ErrnoException).code === 'EEXIST',
    );
    await assert.rejects(
      client.downloadArtifact({ url: `${server.url}/cut` }, join(dir, 'cut.zip')),
      (err: unknown) => err instanceof RunnerClientError,
    );
    assert.equal(existsSync(join(dir, 'cut.zip')), false);
    assert.deepEqual(readdirSync(dir).sort(), ['trace.zip']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('identity headers are not sent to another origin', async () => {
  const other = await startFakeServer((_req, res) => res.writeHead(200, { 'Content-Length': '2' }).end('ok'));
  server = await startFakeServer(() => undefined);
  const dir = mkdtempSync(join(tmpdir(), 'kr-dl-'));
  try {
    await createRunnerClient({ baseUrl: server.url, token: 'tok-abcdef' }).downloadArtifact(
      { url: `${other.url}/file` },
      join(dir, 'f'),
    );
    assert.equal(other.requests[0]!.headers.authorization, undefined);
  } finally {
    await other.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("our runner's artifact links are fetched from the base URL the client uses, token included", async () => {
  // The runner names its links by its listening address (or --public-url); the client may reach it by another name.
  server = await startFakeServer((_req, res) => res.writeHead(200, { 'Content-Length': '2' }).end('ok'));
  const other = await startFakeServer((_req, res) => res.writeHead(200, { 'Content-Length': '2' }).end('no'));
  const dir = mkdtempSync(join(tmpdir(), 'kr-dl-'));
  try {
    const link = `${other.url}/jobs/3/artifacts/job-3-profile.0.zip`;
    await createRunnerClient({ baseUrl: server.url, token: 'tok-abcdef' }).downloadArtifact(
      { url: link },
      join(dir, 'ours.zip'),
    );
    assert.equal(server.requests[0]?.url, '/jobs/3/artifacts/job-3-profile.0.zip');
    assert.equal(server.requests[0]?.headers.authorization, 'Bearer tok-abcdef');
    assert.equal(other.requests.length, 0, 'nothing went to the host the link names');
    // GPU MODE's links (extensions off) are fetched where they point, with no identity
    await createRunnerClient({ baseUrl: server.url, cliId: 'cli-abcdef', extensions: false }).downloadArtifact(
      { url: link },
      join(dir, 'theirs.zip'),
    );
    assert.equal(other.requests.length, 1);
    assert.equal(other.requests[0]?.headers['x-popcorn-cli-id'], undefined);
  } finally {
    await other.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('streamJob attaches to a running job after a given id and retries a refused first connection', async () => {
  const all = jobEvents(5);
  let first = true;
  server = await startFakeServer((req, res) => {
    if (first) {
      first = false;
      res.writeHead(503).end('{"detail":"busy"}');
      return;
    }
    startSse(res);
    res.end(all.slice(Number(req.headers['last-event-id'] ?? 0)).join(''));
  });
  const events: ClientEvent[] = [];
  const outcome = await createRunnerClient({ baseUrl: server.url }).streamJob(1, {
    ...fast,
    after: 3,
    onEvent: (e) => events.push(e),
  });
  assert.equal(outcome.kind, 'result');
  assert.deepEqual(outputs(events), ['line 3', 'line 4', 'line 5']);
  assert.equal(server.requests[1]!.headers['last-event-id'], '3');
});
