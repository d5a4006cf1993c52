// `kernel-runner mcp` driven by the MCP SDK's own client over stdio (the built CLI as a real process): the agent
// loop against the embedded runner (test -> profile -> digest -> edit -> profile -> compare with the baseline, the
// stand-in rocprofv3 on PATH), cancellation, a dead server as clear tool errors, and the token never in an answer.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Ajv from 'ajv';
import {
  ensureBuilt,
  profilingPath,
  repoRoot,
  startServe,
  tempDir,
  vectoradd,
  type ServeProcess,
} from './submit/helpers';
import { MCP_TOOL_NAMES, mcpSession } from './mcpSession';

const schemaCheck = new Ajv({ allErrors: true, strict: true }).compile(
  JSON.parse(readFileSync(path.join(repoRoot, 'docs/digest.schema.json'), 'utf8')),
);
const valid = (d: unknown): boolean => schemaCheck(d);
let work: string;

before(() => {
  ensureBuilt();
  work = tempDir('kr-mcp-');
});
after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the agent loop on the embedded runner: test, profile with a digest, edit, profile again, compare with the baseline', async () => {
  const s = await mcpSession(work, ['--out', path.join(work, 'loop')], { PATH: profilingPath });
  try {
    const tools = (await s.client.listTools()).tools;
    assert.deepEqual(tools.map((t) => t.name).sort(), MCP_TOOL_NAMES);
    for (const t of tools) assert.ok((t.description ?? '').length > 80, `${t.name} tells an agent when to use it`);
    const boards = await s.call('list_leaderboards', {});
    assert.equal(boards.isError, false, boards.text);
    assert.ok(boards.json.leaderboards.some((b: { name: string }) => b.name === 'vectoradd_py'));

    const submission = path.join(vectoradd, 'submission.py');
    const tested = await s.call('submit', { file: submission, mode: 'test' });
    assert.equal(tested.isError, false, tested.text);
    assert.equal(tested.json.passed, true, tested.text);
    assert.equal(tested.json.evaluator.tests.failed, 0);
    assert.ok(tested.json.evaluator.tests.passed > 0);

    const progress: string[] = [];
    const first = await s.call(
      'submit',
      { file: submission, mode: 'profile' },
      { onProgress: (m) => progress.push(m) },
    );
    assert.equal(first.isError, false, first.text);
    assert.ok(
      progress.some((m) => m.startsWith(`${String(first.json.run_id)} (job `)),
      progress.join('\n'),
    );
    assert.ok(valid(first.json.digest), JSON.stringify(schemaCheck.errors));
    assert.ok(first.json.digest.cases.length > 0);
    assert.ok(first.text.length < 40_000, 'the answer is the digest and links, not the trace');
    const traceA = first.json.traces[0].path as string;
    // the artifacts as links to the local files, not their bytes
    assert.deepEqual(
      first.links.map((l) => l.uri),
      [
        ...first.json.traces.map((t: { path: string }) => pathToFileURL(t.path).href),
        pathToFileURL(first.json.result_file).href,
      ],
    );

    const digest = await s.call('profile_digest', { path: traceA, max_bytes: 4096 });
    assert.equal(digest.isError, false, digest.text);
    assert.ok(valid(digest.json), JSON.stringify(schemaCheck.errors));
    assert.ok(Buffer.byteLength(JSON.stringify(digest.json)) <= 4096);

    // the edit: the same kernel sent as code, with a comment
    const edited = `${readFileSync(submission, 'utf8')}\n# tried a different block size\n`;
    const second = await s.call('submit', { code: edited, file_name: 'submission.py', mode: 'profile' });
    assert.equal(second.isError, false, second.text);
    const traceB = second.json.traces[0].path as string;

    const compared = await s.call('compare', { a: traceA, b: traceB });
    assert.equal(compared.isError, false, compared.text);
    assert.ok(valid(compared.json.digest), JSON.stringify(schemaCheck.errors));
    assert.equal(compared.json.digest.baseline.trace.file, path.basename(traceA));
    for (const k of compared.json.digest.kernels)
      if (!('more' in k))
        assert.ok(['no-change', 'not-enough-runs'].includes(k.change.verdict), JSON.stringify(k.change));

    // the evaluator's timings: two benchmark runs, their result files compared with Welch's test per case
    const benchA = await s.call('submit', { file: submission, mode: 'benchmark' });
    const benchB = await s.call('submit', { file: submission, mode: 'benchmark' });
    assert.equal(benchA.isError, false, benchA.text);
    assert.ok(
      benchA.json.evaluator.benchmarks.length > 0 &&
        benchA.json.evaluator.benchmarks.every((b: { runs: number | null }) => (b.runs ?? 0) > 1),
    );
    const timings = await s.call('compare', { a: benchA.json.result_file, b: benchB.json.result_file });
    assert.equal(timings.isError, false, timings.text);
    assert.equal(timings.json.kind, 'evaluator-timings');
    assert.equal(timings.json.cases.length, benchA.json.evaluator.benchmarks.length);
    for (const c of timings.json.cases) {
      assert.equal(c.change.method, 'welch');
      assert.ok(['faster', 'slower', 'no-change'].includes(c.change.verdict), JSON.stringify(c.change));
      assert.equal(c.change.interval.length, 2);
    }

    assert.match(first.json.run_id, /^r\d{8}-\d{6}-[0-9a-f]{6}$/, 'a run id carries the time and a random part');
    assert.notEqual(first.json.run_id, tested.json.run_id);
    const again = await s.call('get_run', { run_id: first.json.run_id });
    assert.equal(again.json.outcome, 'result');
    assert.equal(again.json.traces[0].path, traceA);
    const missing = await s.call('get_run', { run_id: 'r99' });
    assert.equal(missing.isError, true);
    assert.match(missing.text, /no run r99 in this session/);
  } finally {
    await s.close();
  }
});

test('cancelling a submit cancels the job; get_run then says so', async () => {
  const s = await mcpSession(work, ['--out', path.join(work, 'cancel')]);
  try {
    const slow = path.join(work, 'slow.py');
    writeFileSync(slow, '#!POPCORN leaderboard script\nimport time\nprint("started", flush=True)\ntime.sleep(300)\n');
    const controller = new AbortController();
    let runId = '';
    const call = s.call(
      'submit',
      { file: slow, mode: 'test' },
      {
        signal: controller.signal,
        onProgress: (m) => {
          const id = /^(r\S+) \(job \d+\)/.exec(m)?.[1];
          if (id) runId = id;
          if (/output: started$/.test(m)) controller.abort();
        },
      },
    );
    await assert.rejects(call, /abort|cancel/i);
    assert.match(runId, /^r\d{8}-\d{6}-[0-9a-f]{6}$/);
    const run = await s.call('get_run', { run_id: runId });
    assert.equal(run.json.outcome, 'cancelled', run.text);
    assert.match(run.json.message, /Cancelled: job \d+ on embedded runner is cancelled/);
  } finally {
    await s.close();
  }
});

test('a dead server: each tool that needs it ends in a clear tool error, and the server keeps serving', async () => {
  const s = await mcpSession(work, ['--server', 'http://127.0.0.1:9', '--out', path.join(work, 'dead')]);
  try {
    const r = await s.call('submit', { file: path.join(vectoradd, 'submission.py'), mode: 'test' });
    assert.equal(r.isError, true);
    assert.match(r.text, /127\.0\.0\.1:9/);
    assert.match(r.text, /refused|not reach|cannot connect|could not connect/i);
    const l = await s.call('list_leaderboards', {});
    assert.equal(l.isError, true);
    const d = await s.call('profile_digest', { path: path.join(work, 'no-such.zip') });
    assert.equal(d.isError, true);
    assert.match(d.text, /no such file or directory/);
  } finally {
    await s.close();
  }
});

test('the runner token never appears in any answer or progress message', async () => {
  const secret = 'kr-test-token-5f1c2b7e9a';
  let serve: ServeProcess | undefined;
  try {
    serve = await startServe(['--token', secret]);
    const s = await mcpSession(work, ['--server', serve.url, '--token', secret, '--out', path.join(work, 'token')]);
    try {
      const boards = await s.call('list_leaderboards', {});
      assert.equal(boards.isError, false, boards.text);
      const ok = await s.call('submit', { file: path.join(vectoradd, 'submission.py'), mode: 'test' });
      assert.equal(ok.json.passed, true, ok.text);
      const echo = path.join(work, 'echo.py');
      writeFileSync(
        echo,
        `#!POPCORN leaderboard script\nprint("${secret}")\nprint("token", "${secret.slice(0, 8)}", "${secret.slice(8)}")\n`,
      );
      const echoed = await s.call('submit', { file: echo, mode: 'test' });
      assert.equal(echoed.isError, false, echoed.text);
      await s.call('get_run', { run_id: echoed.json.run_id });
      assert.ok(s.seen.length > 3);
      for (const text of s.seen) assert.ok(!text.includes(secret), `the token is in: ${text.slice(0, 300)}`);
      assert.ok(
        s.seen.some((t) => t.includes('[redacted]')),
        'the program printed the token: it was redacted',
      );
    } finally {
      await s.close();
    }
    const wrong = await mcpSession(work, [
      '--server',
      serve.url,
      '--token',
      'not-the-token-123',
      '--out',
      path.join(work, 'token2'),
    ]);
    try {
      const r = await wrong.call('submit', { file: path.join(vectoradd, 'submission.py'), mode: 'test' });
      assert.equal(r.isError, true, r.text);
      assert.ok(!r.text.includes('not-the-token-123'));
    } finally {
      await wrong.close();
    }
  } finally {
    await serve?.stop();
  }
});
