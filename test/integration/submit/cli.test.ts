// `kernel-runner submit` as users run it: the built CLI against a real `kernel-runner serve` process (and the
// embedded runner), real python3 evaluators on the example problem, the test stand-in rocprofv3 on PATH.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createRunnerClient } from '../../../src/core/client/index';
import {
  ensureBuilt,
  profilingPath,
  runCli,
  scripts,
  startServe,
  tempDir,
  vectoradd,
  type ServeProcess,
} from './helpers';

let serve: ServeProcess;
let work: string;

before(async () => {
  ensureBuilt();
  serve = await startServe([], { PATH: profilingPath });
  work = tempDir('kr-submit-cli-');
});

after(async () => {
  await serve?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

const submission = path.join(vectoradd, 'submission.py');

test('test mode: each case listed as passed, live evaluator output shown, exit 0', async () => {
  const r = await runCli(['submit', submission, '--server', serve.url, '--mode', 'test'], { cwd: work });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /3\/3 tests passed/); // the evaluator's own live line
  assert.match(r.stdout, /^test: passed/m);
  assert.equal(r.stdout.match(/✓ size: \d+; seed: \d+ — max abs error/g)?.length, 3);
});

test('benchmark mode: a mean with a unit for every case', async () => {
  const r = await runCli(['submit', submission, '--server', serve.url, '--mode', 'benchmark'], { cwd: work });
  assert.equal(r.code, 0, r.stderr);
  const means = r.stdout.match(
    /^ {2}size: \d+; seed: \d+: mean [\d.]+ (ns|µs|ms|s) ± [\d.]+ (ns|µs|ms|s) · best .* · \d+ runs$/gm,
  );
  assert.equal(means?.length, 2, r.stdout);
});

test('leaderboard mode: test, benchmark and leaderboard runs, in that order', async () => {
  const r = await runCli(['submit', submission, '--server', serve.url, '--mode', 'leaderboard'], { cwd: work });
  assert.equal(r.code, 0, r.stderr);
  const heads = [...r.stdout.matchAll(/^(test|benchmark|leaderboard): passed/gm)].map((m) => m[1]);
  assert.deepEqual(heads.slice(0, 3), ['test', 'benchmark', 'leaderboard']);
});

test('profile mode: tables, noise hidden and counted, one zip per case saved without overwriting', async () => {
  const out = path.join(work, 'traces');
  const first = await runCli(['submit', submission, '--server', serve.url, '--mode', 'profile', '--out', out], {
    cwd: work,
  });
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /Top kernels/);
  assert.match(first.stdout, /report \(size: 1024; seed: 54352\):\n {4}cProfile of custom_kernel/);
  assert.match(first.stderr, /kernel-runner: \d+ profiler log lines hidden \(--show-noise shows them\)/);
  assert.doesNotMatch(first.stdout + first.stderr, /perfetto\.cc|simple_timer\.cpp/);
  assert.match(first.stderr, /eval\.py: seed/); // the program's own stderr is kept
  const saved = readdirSync(out)
    .filter((f) => f.endsWith('.zip'))
    .sort();
  assert.equal(saved.length, 2);
  // each trace has its profile digest beside it (test/integration/cli-digest.test.ts checks what is in it)
  assert.deepEqual(
    readdirSync(out)
      .filter((f) => !f.endsWith('.zip'))
      .sort(),
    saved.map((f) => f.replace(/\.zip$/, '.digest.json')),
  );
  for (const f of saved) {
    assert.match(f, /^submission-vectoradd_py-[A-Za-z0-9._-]+-\d+-profile\.[01]\.zip$/); // <stem>-<leaderboard>-<gpu>-<job id>-<run>
    assert.equal(readFileSync(path.join(out, f)).subarray(0, 2).toString(), 'PK');
    assert.ok(first.stdout.includes(`trace: ${path.join('traces', f)}`), `${f} is named in the output`);
  }

  const second = await runCli(
    ['submit', submission, '--server', serve.url, '--mode', 'profile', '--out', out, '--json', '--show-noise'],
    { cwd: work },
  );
  assert.equal(second.code, 0, second.stderr);
  const json = JSON.parse(second.stdout) as {
    ok: boolean;
    job_id: number;
    traces: Array<{ run: string; path: string; bytes: number }>;
    result: { status: string };
  };
  assert.equal(json.ok, true);
  assert.equal(json.result.status, 'success');
  assert.deepEqual(json.traces.map((t) => t.run).sort(), ['profile.0', 'profile.1']);
  for (const t of json.traces) assert.ok(existsSync(t.path) && !saved.includes(path.basename(t.path)));
  assert.equal(readdirSync(out).filter((f) => f.endsWith('.zip')).length, 4);
  assert.match(second.stderr, /perfetto\.cc/); // --show-noise
  assert.match(second.stderr, /eval\.py: profile on 1 case/); // live program output goes to stderr with --json
});

test('a failing submission: the check messages, exit 1', async () => {
  const r = await runCli(['submit', path.join(vectoradd, 'solutions/wrong/off_by_one.py'), '--server', serve.url], {
    cwd: work,
  });
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^test: failed/m);
  assert.equal(r.stdout.match(/✗ size: \d+; seed: \d+ — size mismatch: got \d+ elements, expected \d+/g)?.length, 3);
});

test('no --server: an embedded runner, leaderboard from the #!POPCORN directive', async () => {
  const r = await runCli(['submit', submission], { cwd: work });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^test: passed/m);
  assert.match(r.stdout, /✓ size: 127; seed: 4242/);
});

test('a plain script goes to the `script` leaderboard; --json keeps stdout for the JSON', async () => {
  const r = await runCli(['submit', path.join(scripts, 'hello.py'), '--server', serve.url, '--json'], { cwd: work });
  assert.equal(r.code, 0, r.stderr);
  const json = JSON.parse(r.stdout) as {
    ok: boolean;
    result: { results: Array<{ runs: Record<string, { run: { stdout: string } }> }> };
  };
  assert.equal(json.ok, true);
  assert.match(json.result.results[0]!.runs.test!.run.stdout, /hello from stdout/);
  assert.match(r.stderr, /hello from stdout\n/);
});

test('Ctrl-C cancels the job on the runner and exits 130', async () => {
  const r = await runCli(
    ['submit', path.join(vectoradd, 'solutions/slow/hang.py'), '--server', serve.url, '--leaderboard', 'vectoradd_py'],
    {
      cwd: work,
      onStdout: (text, child) => {
        if (text.includes('hang: sleeping forever') && !child.killed) child.kill('SIGINT');
      },
    },
  );
  assert.equal(r.code, 130, r.stderr);
  const id = Number(/cancelling job (\d+)/.exec(r.stderr)?.[1]);
  assert.ok(id > 0, r.stderr);
  const job = await createRunnerClient({ baseUrl: serve.url }).getJob(id);
  assert.equal(job.state, 'cancelled');
});

test('a dead server is a clear error', async () => {
  const r = await runCli(['submit', path.join(scripts, 'hello.py'), '--server', 'http://127.0.0.1:9'], { cwd: work });
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /Cannot reach the runner at http:\/\/127\.0\.0\.1:9: connection refused \(nothing is listening there\)\..*\(GET http:\/\/127\.0\.0\.1:9\/health\)/,
  );
  assert.match(r.stderr, /kernel-runner serve/);
});

test('a wrong token is a clear error that never shows the token', async () => {
  const guarded = await startServe(['--token', 'right-token-abc']);
  try {
    const r = await runCli(
      ['submit', path.join(scripts, 'hello.py'), '--server', guarded.url, '--token', 'wrong-token-xyz'],
      { cwd: work },
    );
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /The runner at http:\/\/127\.0\.0\.1:\d+ refused the credentials \(401\): pass --token-file PATH \(the runner prints where its token is kept\), or set KERNEL_RUNNER_TOKEN\. \(Invalid token\)/,
    );
    assert.match(r.stderr, /--token/);
    assert.ok(!r.stderr.includes('wrong-token-xyz') && !r.stdout.includes('wrong-token-xyz'));
    const ok = await runCli(['submit', path.join(scripts, 'hello.py'), '--server', guarded.url], {
      cwd: work,
      env: { KERNEL_RUNNER_TOKEN: 'right-token-abc' },
    });
    assert.equal(ok.code, 0, ok.stderr);
  } finally {
    await guarded.stop();
  }
});
