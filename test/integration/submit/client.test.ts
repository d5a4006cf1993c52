// The client core against the real runner (in-process, real HTTP on 127.0.0.1): resume after a network cut,
// background submission with polling, attaching to a job's events, artifact download, submission routes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createRunnerClient, type ClientEvent } from '../../../src/core/client/index';
import { pollSubmission } from '../../../src/core/gpumode/poll';
import { startRunner, type RunningRunner } from '../../../src/runner/index';
import { expandOutput } from '../../../src/core/protocol/api';
import { problems, profilingPath, scripts, startProxy, tempDir, vectoradd } from './helpers';

let runner: RunningRunner;
let dataDir: string;
let work: string;

before(async () => {
  dataDir = tempDir('kr-submit-client-');
  work = tempDir('kr-submit-client-out-');
  runner = await startRunner({
    port: 0,
    dataDir,
    problemsDir: problems,
    heartbeatMs: 200,
    killGraceMs: 1000,
    env: { ...process.env, PATH: profilingPath },
  });
});

after(async () => {
  await runner?.close();
  for (const d of [dataDir, work]) if (d) rmSync(d, { recursive: true, force: true });
});

/** numbered_lines.py with its arguments baked in (the `script` leaderboard runs files without arguments). */
function numberedLines(count: number, delayMs: number): string {
  return `import sys\nsys.argv = ['numbered_lines.py', '${count}', '${delayMs}']\n${readFileSync(path.join(scripts, 'numbered_lines.py'), 'utf8')}`;
}

test('cutting the connection twice mid-stream loses and doubles nothing', async () => {
  const proxy = await startProxy(runner.url);
  try {
    const client = createRunnerClient({ baseUrl: proxy.url });
    const count = 3000;
    const events: ClientEvent[] = [];
    const reconnects: number[] = [];
    let outputs = 0;
    let cuts = 0;
    const outcome = await client.submit(
      {
        leaderboard: 'script',
        gpu: 'CPU',
        mode: 'test',
        file: { name: 'numbered.py', content: numberedLines(count, 0.3) },
      },
      {
        backoff: { initialMs: 20, maxMs: 200 },
        onEvent(e) {
          events.push(e);
          if (e.event !== 'output') return;
          const before = outputs;
          outputs += expandOutput(e.data).length;
          if ((before < 400 && outputs >= 400) || (before < 1800 && outputs >= 1800))
            cuts += proxy.cutAll() > 0 ? 1 : 0;
        },
        onReconnect: (r) => reconnects.push(r.lastEventId),
      },
    );
    assert.equal(outcome.kind, 'result');
    assert.equal(cuts, 2);
    assert.ok(reconnects.length >= 2, `reconnected ${reconnects.length} times`);
    // Every event id once, consecutive from 1: nothing lost, nothing doubled.
    assert.deepEqual(
      events.map((e) => e.id),
      Array.from({ length: events.length }, (_v, i) => i + 1),
    );
    const lines = events.flatMap((e) => (e.event === 'output' ? expandOutput(e.data) : []));
    const expectOut = Array.from({ length: count / 2 }, (_v, i) => `out ${2 * i + 1}`).concat(`finished ${count}`);
    const expectErr = Array.from({ length: count / 2 }, (_v, i) => `err ${2 * i + 2}`);
    assert.deepEqual(
      lines.filter((l) => l.stream === 'stdout').map((l) => l.text),
      expectOut,
    );
    assert.deepEqual(
      lines.filter((l) => l.stream === 'stderr').map((l) => l.text),
      expectErr,
    );
  } finally {
    await proxy.close();
  }
});

test('background submit, polling, attaching to the events, and the submission routes', async () => {
  const client = createRunnerClient({ baseUrl: runner.url });
  const accepted = await client.submitBackground({
    leaderboard: 'script',
    gpu: 'CPU',
    mode: 'test',
    file: { name: 'hello.py', content: readFileSync(path.join(scripts, 'hello.py')) },
  });
  const id = accepted.details.id;
  const done = await pollSubmission(client, id, { intervalMs: 50 });
  assert.equal(done.done, true);
  assert.equal(done.file_name, 'hello.py');
  assert.ok(done.runs.length >= 1 && done.runs.every((r) => r.passed));

  const events: ClientEvent[] = [];
  const replay = await client.streamJob(id, { onEvent: (e) => events.push(e) });
  assert.equal(replay.kind, 'result');
  assert.equal(events[0]?.event, 'job');
  assert.deepEqual(
    events
      .flatMap((e) => (e.event === 'output' ? expandOutput(e.data).map((l) => l.text) : []))
      .filter((t) => t.startsWith('hello')),
    ['hello from stdout', 'hello from stderr'],
  );
  const later: ClientEvent[] = [];
  await client.streamJob(id, { after: events.length - 1, onEvent: (e) => later.push(e) });
  assert.deepEqual(
    later.map((e) => e.event),
    ['result'],
  );

  assert.ok((await client.listSubmissions()).some((s) => s.id === id));
  assert.equal((await client.getJob(id)).state, 'succeeded');
  assert.deepEqual(await client.deleteSubmission(id), { status: 'ok', submission_id: id });
  await assert.rejects(client.getSubmission(id), (err: unknown) => (err as { status?: number }).status === 404);
});

test('listings: health, leaderboards, GPUs and the runner queue', async () => {
  const client = createRunnerClient({ baseUrl: runner.url });
  const health = await client.health();
  assert.equal(health.status, 'ok');
  assert.deepEqual(health.gpus, ['CPU']);
  const names = (await client.listLeaderboards()).map((l) => l.name);
  assert.ok(names.includes('vectoradd_py') && names.includes('script'));
  assert.deepEqual(await client.listGpus('vectoradd_py'), ['CPU']);
  assert.equal((await client.runnerQueue('CPU')).gpu, 'CPU');
  await assert.rejects(
    client.listGpus('no_such_board'),
    (err: unknown) =>
      (err as { type?: string; status?: number }).type === 'http' && (err as { status: number }).status === 404,
  );
});

test('a profile artifact downloads to a file', async () => {
  const client = createRunnerClient({ baseUrl: runner.url });
  const outcome = await client.submit({
    leaderboard: 'vectoradd_py',
    gpu: 'CPU',
    mode: 'profile',
    file: { name: 'submission.py', content: readFileSync(path.join(vectoradd, 'submission.py')) },
  });
  assert.equal(outcome.kind, 'result');
  if (outcome.kind !== 'result') return;
  const profile = outcome.result.results[0]?.runs['profile.0']?.profile;
  assert.ok(profile?.artifact && profile.download_url);
  const dest = path.join(work, 'p0.zip');
  const got = await client.downloadArtifact({ jobId: outcome.jobId as number, name: profile.artifact }, dest);
  const bytes = readFileSync(dest);
  assert.equal(got.bytes, bytes.length);
  assert.equal(bytes.subarray(0, 2).toString(), 'PK');
  assert.deepEqual(bytes, Buffer.from(profile.trace, 'base64'));
});
