// Every bad input gets a clear upstream-style {detail} answer with the right status; nothing runs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { RunnerStartError, startRunner } from '../../../src/runner/index';
import {
  form,
  post,
  readSse,
  solutions,
  startTestRunner,
  submitAndRead,
  tempDir,
  terminal,
  type TestRunner,
} from './helpers';

const correct = readFileSync(path.join(solutions, 'correct/map_add.py'), 'utf8');
/** The solution without its own `#!POPCORN` header line. */
const body = correct.replace(/^#!POPCORN[^\n]*\n/, '');

async function detail(res: Response): Promise<string> {
  const body = (await res.json()) as { detail?: unknown };
  assert.equal(typeof body.detail, 'string', JSON.stringify(body));
  return body.detail as string;
}

/**
 * A preparation refusal on the plain streaming route arrives as upstream sends it: 200, a status event, then
 * `event: error` with status_code 400. Returns its detail.
 */
async function inStreamDetail(res: Response): Promise<string> {
  assert.equal(res.status, 200);
  const events = await readSse(res);
  assert.deepEqual(
    events.map((e) => e.event),
    ['status', 'error'],
  );
  const error = events[1]!.data as { status: string; detail: string; status_code: number };
  assert.equal(error.status, 'error');
  assert.equal(error.status_code, 400);
  return error.detail;
}

/** A raw request (fetch would normalise `..` in the path). */
function rawGet(
  url: string,
  rawPath: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: rawPath, method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('bad uploads and routes', () => {
  let runner: TestRunner;
  before(async () => {
    runner = await startTestRunner();
  });
  after(() => runner.dispose());

  const url = (p: string) => `${runner.url}${p}`;

  test('empty file: 400', async () => {
    const res = await post(url('/vectoradd_py/CPU/test'), { fileName: 'a.py', content: '' });
    assert.equal(res.status, 400);
    assert.match(await detail(res), /Empty file submitted/);
  });

  test('over 1 MB: 413 (exactly 1,000,000 bytes passes the size check)', async () => {
    const big = await post(url('/script/CPU/test'), { fileName: 'a.py', content: '#'.repeat(1_000_001) });
    assert.equal(big.status, 413);
    assert.match(await detail(big), /too large \(limit: 1MB\)/);
    const huge = await post(url('/script/CPU/test'), { fileName: 'a.py', content: '#'.repeat(3_000_000) });
    assert.equal(huge.status, 413);
    const exact = await post(url('/script/CPU/test'), { fileName: 'a.py', content: '#'.repeat(999_999) + '\n' });
    assert.equal(exact.status, 200);
    assert.equal(terminal(await (await import('./helpers')).readSse(exact)).event, 'result');
  });

  test('not UTF-8: 400', async () => {
    const res = await post(url('/vectoradd_py/CPU/test'), {
      fileName: 'a.py',
      content: new Uint8Array([0x70, 0x72, 0xff, 0xfe, 0x0a]),
    });
    assert.equal(res.status, 400);
    assert.match(await detail(res), /UTF-8/);
  });

  test('bad extension: 400 (in-stream on the plain streaming route); .hip only on the script leaderboard', async () => {
    const txt = await post(url('/vectoradd_py/CPU/test'), {
      fileName: 'notes.txt',
      content: 'x = 1\n',
      extensions: true,
    });
    assert.equal(txt.status, 400);
    assert.match(await detail(txt), /\.py/);
    assert.match(
      await inStreamDetail(await post(url('/vectoradd_py/CPU/test'), { fileName: 'notes.txt', content: 'x = 1\n' })),
      /\.py/,
    );
    const hip = await post(url('/vectoradd_py/CPU/test'), {
      fileName: 'k.hip',
      content: 'int main() {}\n',
      extensions: true,
    });
    assert.equal(hip.status, 400);
    const bg = await post(url('/submission/vectoradd_py/CPU/test'), { fileName: 'k.hip', content: 'int main() {}\n' });
    assert.equal(bg.status, 400, 'the background route answers every refusal itself');
  });

  test('the word "stream" is refused on problems as upstream does (500), allowed on script', async () => {
    const res = await post(url('/vectoradd_py/CPU/test'), { fileName: 'a.py', content: correct + '\n# upstream\n' });
    assert.equal(res.status, 500);
    assert.match(await detail(res), /another stream/);
    const events = await submitAndRead(url('/script/CPU/test'), { fileName: 's.py', content: 'print("stream ok")\n' });
    assert.equal(terminal(events).event, 'result');
  });

  test('unknown leaderboard 404, unknown GPU 400, unknown mode 400', async () => {
    const lb = await post(url('/nope/CPU/test'), { fileName: 'a.py', content: correct });
    assert.equal(lb.status, 404);
    assert.match(await detail(lb), /Leaderboard 'nope' not found.*vectoradd_py/);
    const gpu = await post(url('/vectoradd_py/H100/test'), { fileName: 'a.py', content: correct });
    assert.equal(gpu.status, 400);
    assert.equal(
      await detail(gpu),
      "GPU type 'H100' is not supported for leaderboard 'vectoradd_py'. Supported GPUs: CPU",
    );
    const mode = await post(url('/vectoradd_py/CPU/fast'), { fileName: 'a.py', content: correct });
    assert.equal(mode.status, 400);
    assert.match(await detail(mode), /Invalid submission mode value: 'fast'/);
    const bg = await post(url('/submission/nope/CPU/test'), { fileName: 'a.py', content: correct });
    assert.equal(bg.status, 404);
    const gpus = await fetch(url('/gpus/nope'));
    assert.equal(gpus.status, 404);
  });

  test('bad directives: unknown, repeated, other leaderboard -> 400 naming the line', async () => {
    const unknown = await post(url('/vectoradd_py/CPU/test'), {
      fileName: 'a.py',
      content: '#!POPCORN colour blue\n' + body,
      extensions: true,
    });
    assert.equal(unknown.status, 400);
    assert.match(await detail(unknown), /a\.py:1: Invalid !POPCORN directive: colour/);
    const repeated = await post(url('/vectoradd_py/CPU/test'), {
      fileName: 'a.py',
      content: '#!POPCORN gpu CPU\n#!POPCORN gpu CPU\n' + body,
      extensions: true,
    });
    assert.equal(repeated.status, 400);
    assert.match(await detail(repeated), /a\.py:2: Found multiple values/);
    const other = await post(url('/vectoradd_py/CPU/test'), {
      fileName: 'a.py',
      content: '#!POPCORN leaderboard prefixsum_py\n' + body,
      extensions: true,
    });
    assert.equal(other.status, 400);
    assert.match(
      await detail(other),
      /a\.py:1: Leaderboard name `vectoradd_py` specified in the command doesn't match/,
    );
    // a plain client (popcorn-cli) gets the same refusal inside the stream, as upstream sends it
    assert.match(
      await inStreamDetail(
        await post(url('/vectoradd_py/CPU/test'), {
          fileName: 'a.py',
          content: '#!POPCORN leaderboard prefixsum_py\n' + body,
        }),
      ),
      /Leaderboard name `vectoradd_py` specified in the command doesn't match/,
    );
    const same = await submitAndRead(url('/vectoradd_py/CPU/test'), {
      fileName: 'a.py',
      content: '#!POPCORN leaderboard vectoradd_py\n#!POPCORN gpu CPU\n' + body,
    });
    assert.equal(terminal(same).event, 'result');
  });

  test('not multipart, or no file field: 422', async () => {
    const json = await fetch(url('/vectoradd_py/CPU/test'), {
      method: 'POST',
      body: '{}',
      headers: { 'Content-Type': 'application/json' },
    });
    assert.equal(json.status, 422);
    assert.match(await detail(json), /multipart/);
    const fd = new FormData();
    fd.append('other', 'x');
    const nofile = await fetch(url('/vectoradd_py/CPU/test'), { method: 'POST', body: fd });
    assert.equal(nofile.status, 422);
    assert.match(await detail(nofile), /'file'/);
    const wrongField = new FormData();
    wrongField.append('upload', new Blob([correct]), 'a.py');
    assert.equal((await fetch(url('/vectoradd_py/CPU/test'), { method: 'POST', body: wrongField })).status, 422);
  });

  test('unknown route 404, wrong method 405, bad paging 400', async () => {
    assert.equal((await fetch(url('/no/such/route/here'))).status, 404);
    const m = await fetch(url('/health'), { method: 'DELETE' });
    assert.equal(m.status, 405);
    assert.equal(m.headers.get('allow'), 'GET');
    assert.equal((await fetch(url('/user/submissions?limit=0'))).status, 400);
    assert.equal((await fetch(url('/user/submissions?offset=-1'))).status, 400);
    assert.equal((await fetch(url('/user/submissions/abc'))).status, 404);
    assert.equal((await fetch(url('/user/submissions/424242'))).status, 404);
    assert.equal((await fetch(url('/user/submissions/424242'), { method: 'DELETE' })).status, 404);
  });

  test('artifact names cannot leave the job folder, however encoded', async () => {
    const events = await submitAndRead(url('/script/CPU/test'), {
      fileName: 'a.py',
      content: 'print(1)\n',
      extensions: true,
    });
    const id = (events[0]!.data as { job_id: number }).job_id;
    const secretMarker = '"base_url"';
    for (const name of [
      '..%2Fjob.json',
      '%2e%2e%2fjob.json',
      '%2E%2E%2Fsubmission%2Fa.py',
      '%252e%252e%252fjob.json',
      '..%5Cjob.json',
      '.job.json',
      '%2Fetc%2Fpasswd',
      'job.json%00.zip',
      '..',
      '%2e%2e',
    ]) {
      const r = await rawGet(runner.url, `/jobs/${id}/artifacts/${name}`);
      assert.ok(r.status === 400 || r.status === 404, `${name}: ${r.status}`);
      assert.ok(!r.body.includes(secretMarker) && !r.body.includes('root:'), `${name} leaked a file`);
      assert.match((JSON.parse(r.body) as { detail: string }).detail, /artifact|Not Found/i);
    }
    for (const p of [`/jobs/${id}/artifacts/../job.json`, `/jobs/${id}/artifacts/../../runner.json`]) {
      const r = await rawGet(runner.url, p);
      assert.ok(r.status === 404 || r.status === 400, `${p}: ${r.status}`);
      assert.ok(!r.body.includes(secretMarker) && !r.body.includes('next_id'));
    }
    assert.equal((await fetch(url(`/jobs/${id}/artifacts/nothing.zip`))).status, 404);
  });

  test('without a token: only loopback Host names, no cross-origin browser requests', async () => {
    const evil = await rawGet(runner.url, '/leaderboards', { Host: 'evil.example:80' });
    assert.equal(evil.status, 403);
    const origin = await rawGet(runner.url, '/leaderboards', { Origin: 'http://evil.example' });
    assert.equal(origin.status, 403);
    assert.match(origin.body, /Cross-origin/);
    const fd = form('a.py', 'print(1)\n');
    const browserPost = await fetch(url('/script/CPU/test'), {
      method: 'POST',
      body: fd,
      headers: { Origin: 'https://attacker.example' },
    });
    assert.equal(browserPost.status, 403);
    assert.equal((await rawGet(runner.url, '/health', { Host: 'localhost' })).status, 200);
  });
});

describe('token', () => {
  let runner: TestRunner;
  const token = 'correct horse battery staple';
  before(async () => {
    runner = await startTestRunner({ token });
  });
  after(() => runner.dispose());

  test('every route but /health needs it: Bearer or X-Popcorn-Cli-Id, else 401', async () => {
    assert.equal((await fetch(`${runner.url}/health`)).status, 200);
    const missing = await fetch(`${runner.url}/leaderboards`);
    assert.equal(missing.status, 401);
    assert.match(await detail(missing), /Missing token/);
    const wrong = await fetch(`${runner.url}/leaderboards`, { headers: { Authorization: 'Bearer nope' } });
    assert.equal(wrong.status, 401);
    assert.equal(await detail(wrong), 'Invalid token');
    assert.equal(
      (await fetch(`${runner.url}/leaderboards`, { headers: { Authorization: `Bearer ${token}x` } })).status,
      401,
    );
    assert.equal(
      (await fetch(`${runner.url}/leaderboards`, { headers: { Authorization: `Bearer ${token}` } })).status,
      200,
    );
    assert.equal((await fetch(`${runner.url}/leaderboards`, { headers: { 'X-Popcorn-Cli-Id': token } })).status, 200);
    const upload = await post(`${runner.url}/script/CPU/test`, { fileName: 'a.py', content: 'print(1)\n' });
    assert.equal(upload.status, 401);
    const ok = await submitAndRead(`${runner.url}/script/CPU/test`, {
      fileName: 'a.py',
      content: 'print(1)\n',
      headers: { 'X-Popcorn-Cli-Id': token },
    });
    assert.equal(terminal(ok).event, 'result');
    assert.equal((await fetch(`${runner.url}/jobs/1/events`)).status, 401);
    assert.equal((await fetch(`${runner.url}/jobs/1/artifacts/x.zip`)).status, 401);
  });

  test('a non-loopback host without a token refuses to start, saying why', async (t) => {
    const dataDir = tempDir();
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    await assert.rejects(startRunner({ host: '0.0.0.0', port: 0, dataDir }), (err: unknown) => {
      assert.ok(err instanceof RunnerStartError);
      assert.match(err.message, /refusing to listen on 0\.0\.0\.0 without a token/);
      assert.match(err.message, /--token/);
      return true;
    });
  });
});
