// `kernel-runner submit` against a server that is not ours (no `version` in /health, like GPU MODE's service):
// test/benchmark/leaderboard go through the background route and polling, as popcorn-cli does. The server is a
// small scripted fake on a real port; the command runs in-process with its output captured.
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
    const json = (status: number, body: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/health') return json(200, { status: 'ok' });
    if (req.url === '/gpus/vectoradd_py') return json(200, ['MI300', 'MI250']);
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
        runs: done ? [{ start_time: null, end_time: null, mode: 'benchmark', secret: false, runner: 'MI300', score: 0.0123, passed: true }] : [],
        job: { status: done ? 'succeeded' : 'running', error: null, last_heartbeat: null },
      });
    }
    return json(404, { detail: `no route ${req.method} ${req.url}` });
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'kr-upstream-'));
  try {
    const file = path.join(dir, 'sub.py');
    writeFileSync(file, '#!POPCORN leaderboard vectoradd_py\ndef custom_kernel(data):\n    return data\n');
    const out = capture();
    const err = capture();
    const code = await runSubmit(file, { server: server.url, mode: 'benchmark' }, { stdout: out.stream, stderr: err.stream, color: false, cwd: dir });
    assert.equal(code, 0, err.text());
    assert.match(err.text(), /using GPU MI300 \(of MI300, MI250; --gpu chooses\)/);
    assert.match(err.text(), /submission 77 accepted/);
    assert.match(out.text(), /^benchmark: passed · score 0\.0123$/m);
    assert.ok(polls >= 2);
    assert.equal(server.requests.filter((r) => r.method === 'POST').length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
});
