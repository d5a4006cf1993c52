// `kernel-runner submit` against a server that is not ours (no `version` in /health, like GPU MODE's service under
// another name): GPU MODE's flow with the cli_id — leaderboards checked, the queue shown, test/benchmark/leaderboard
// through the background route and polling, as popcorn-cli does. The server is a small scripted fake on a real
// port; the command runs in-process with its output captured. (The full flow: test/integration/gpumode.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { runSubmit } from '../../../src/cli/commands/submit';
import { startFakeServer } from '../client/fakeServer';

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d: Buffer) => (text += d.toString()));
  return { stream, text: () => text };
}

test('an upstream server gets a background submission, polled until done', async () => {
  let polls = 0;
  const server = await startFakeServer((req, res) => {
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/health') return json(200, { status: 'ok' });
    if (req.url === '/leaderboards') {
      return json(200, [
        {
          id: 1,
          name: 'vectoradd_py',
          description: 'add',
          deadline: null,
          gpu_types: ['MI300', 'MI250'],
          task: { lang: 'py', files: {}, ranking_by: 'last' },
        },
      ]);
    }
    if (req.url === '/runner_queue/MI300')
      return json(200, {
        runner: 'r',
        gpu: 'MI300',
        queued_jobs: 1,
        running_jobs: 2,
        available_runners: 0,
        status: 'available',
        error: null,
      });
    if (req.method === 'POST' && req.url === '/submission/vectoradd_py/MI300/benchmark') {
      return json(202, { status: 'accepted', details: { id: 77, job_status_id: 5 }, runner_queue: null });
    }
    if (req.url === '/user/submissions/77') {
      polls += 1;
      const done = polls >= 2;
      return json(200, {
        id: 77,
        leaderboard_name: 'vectoradd_py',
        file_name: 'sub.py',
        submission_time: '2026-01-01T00:00:00Z',
        done,
        code: '',
        runs: done
          ? [
              {
                start_time: null,
                end_time: null,
                mode: 'benchmark',
                secret: false,
                runner: 'MI300',
                score: 0.0123,
                passed: true,
              },
            ]
          : [],
        job: { status: done ? 'succeeded' : 'running', error: null, last_heartbeat: null },
      });
    }
    return json(404, { detail: `no route ${req.method} ${req.url}` });
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'kr-upstream-'));
  try {
    const file = path.join(dir, 'sub.py');
    writeFileSync(file, '#!POPCORN leaderboard vectoradd_py\ndef custom_kernel(data):\n    return data\n');
    const io = () => ({ out: capture(), err: capture() });
    // two GPUs and none chosen: asked, nothing sent
    const first = io();
    await assert.rejects(
      runSubmit(
        file,
        { server: server.url, mode: 'benchmark', token: 'cli-id-1234' },
        { stdout: first.out.stream, stderr: first.err.stream, color: false, cwd: dir },
      ),
      /which GPU\? vectoradd_py runs on MI300, MI250/i,
    );
    const { out, err } = io();
    const pollMs = process.env.KERNEL_RUNNER_POLL_MS;
    process.env.KERNEL_RUNNER_POLL_MS = '50';
    let code: number;
    try {
      code = await runSubmit(
        file,
        { server: server.url, mode: 'benchmark', gpu: 'MI300', token: 'cli-id-1234' },
        { stdout: out.stream, stderr: err.stream, color: false, cwd: dir },
      );
    } finally {
      if (pollMs === undefined) delete process.env.KERNEL_RUNNER_POLL_MS;
      else process.env.KERNEL_RUNNER_POLL_MS = pollMs;
    }
    assert.equal(code, 0, err.text());
    assert.match(err.text(), /queue MI300: 1 queued, 2 running, 0 runners available/);
    assert.match(err.text(), /submission 77 accepted/);
    assert.match(out.text(), /^Submission 77: succeeded$/m);
    assert.match(out.text(), /^benchmark: passed/m);
    assert.ok(polls >= 2);
    const posts = server.requests.filter((r) => r.method === 'POST');
    assert.equal(posts.length, 1);
    assert.equal(posts[0]?.headers['x-popcorn-cli-id'], 'cli-id-1234');
    assert.equal(posts[0]?.headers['x-kernel-runner-extensions'], undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
});
