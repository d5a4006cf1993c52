// `kernel-runner submit` against the contract server (what only GPU MODE's service does): pre-flight checks,
// queue, background route + polling through initial → pending → running → end, secret runs and the ranked score,
// hacked / timed_out, 401 → re-register, 413, 429 (wait in the text, or Retry-After), and profile runs over the streaming route with
// heartbeats only, their zips saved per run and summarised and their `+*` reports decoded.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PUBLIC_MEANS_NS, profileReportText, scoreOf, startContractServer } from '../../contract/gpumodeServer';
import { createRunnerClient } from '../../../src/core/client/index';
import { explainGpuModeError, formatScore, GpuModeError, pollSubmission } from '../../../src/core/gpumode/index';
import { ensureBuilt, tempHome } from './helpers';

before(() => ensureBuilt());

const SOLUTION = '#!POPCORN leaderboard amd-fp8-mm\n#!POPCORN gpu MI300\n\ndef custom_kernel(data):\n    return data\n';

async function setup(t: import('node:test').TestContext, options: Parameters<typeof startContractServer>[0] = {}) {
  const server = await startContractServer({ heartbeatMs: 30, ...options });
  t.after(() => server.close());
  const cliId = server.registeredId('alice');
  const home = tempHome(t, server.url, cliId);
  const file = (name: string, text: string) => {
    writeFileSync(path.join(home.dir, name), text);
    return name;
  };
  return { server, home, cliId, file };
}

test('leaderboard mode: queue first, background route polled to the end, secret run marked, ranked score', async (t) => {
  const { server, home, file, cliId } = await setup(t);
  const run = await home.cli([
    'submit',
    '--server',
    'gpumode',
    file('submission.py', `${SOLUTION}# contract: slow=2\n`),
    '--mode',
    'leaderboard',
  ]);
  assert.equal(run.code, 0, run.stderr + run.stdout);
  // MI300 runs through GitHub's launcher upstream: only the queued count is known
  assert.match(run.stderr, /queue MI300: 0 queued\n/);
  assert.doesNotMatch(run.stderr, /null|undefined|NaN/);
  assert.match(run.stderr, /submission 4200 accepted \(amd-fp8-mm · MI300 · leaderboard\)/);
  const states = [...run.stderr.matchAll(/\[\d\d:\d\d\] (.+)/g)].map((m) => m[1]);
  assert.deepEqual(states, ['queued', 'running', 'succeeded']);
  assert.match(run.stdout, /Submission 4200: succeeded/);
  assert.match(run.stdout, /── result 2 of 2 \(the service's second, secret-seed run\)/);
  assert.match(run.stdout, /leaderboard: passed/);
  const expected = formatScore(scoreOf(PUBLIC_MEANS_NS, 'geom'));
  assert.match(
    run.stdout,
    new RegExp(`Ranked score: ${expected.replace('.', '\\.')} \\(the service's score; the secret run is not ranked\\)`),
  );
  // order of calls: queue before the upload; every call carried the cli_id; polls until done
  const paths = server.requests.map((r) => `${r.method} ${r.path.split('?')[0]}`);
  assert.ok(
    paths.indexOf('GET /runner_queue/MI300') < paths.indexOf('POST /submission/amd-fp8-mm/MI300/leaderboard'),
    paths.join('\n'),
  );
  assert.equal(paths.filter((p) => p === 'GET /user/submissions/4200').length, 5);
  assert.ok(
    server.requests
      .filter((r) => r.path.startsWith('/user') || r.path.startsWith('/submission'))
      .every((r) => r.cliId === cliId),
  );

  // my submissions: list, show with the secret runs and the code, delete
  const list = await home.cli(['submissions', 'list']);
  assert.equal(list.code, 0, list.stderr);
  assert.match(
    list.stdout,
    new RegExp(
      `^4200 +amd-fp8-mm +submission\\.py +[\\d-]+ [\\d:]+ +MI300 +done +${expected.replace('.', '\\.')}$`,
      'm',
    ),
  );
  const show = await home.cli(['submissions', 'show', '4200', '--code']);
  assert.equal(show.code, 0, show.stderr);
  assert.match(show.stdout, /^#4200 amd-fp8-mm · submission\.py · done \(succeeded\)$/m);
  assert.match(show.stdout, /^leaderboard +MI300 +passed +[\d.]+ µs +secret /m);
  assert.match(show.stdout, /^Queue: MI300: \d+ queued$/m);
  assert.match(show.stdout, /Code \(submission\.py\):\n-+\n#!POPCORN leaderboard amd-fp8-mm\n/);
  const deleted = await home.cli(['submissions', 'delete', '4200', '--yes', '--json']);
  assert.deepEqual(JSON.parse(deleted.stdout), { status: 'ok', submission_id: 4200 });
  assert.equal(server.submission(4200), undefined);

  const json = await home.cli([
    'submit',
    '--server',
    'gpumode',
    file('again.py', SOLUTION),
    '--mode',
    'test',
    '--json',
  ]);
  assert.equal(json.code, 0, json.stderr);
  const parsed = JSON.parse(json.stdout) as {
    ok: boolean;
    status: string;
    submission: { runs: Array<{ mode: string; secret: boolean }> };
  };
  assert.equal(parsed.ok, true);
  assert.equal(parsed.status, 'succeeded');
  assert.deepEqual(
    parsed.submission.runs.map((r) => [r.mode, r.secret]),
    [['test', false]],
  );
});

test('hacked, timed_out and failed tests are told apart clearly, with exit code 1', async (t) => {
  const { home, file } = await setup(t);
  const hacked = await home.cli([
    'submit',
    '--server',
    'gpumode',
    file('h.py', `${SOLUTION}# contract: hacked\n`),
    '--mode',
    'leaderboard',
  ]);
  assert.equal(hacked.code, 1);
  assert.match(
    hacked.stdout,
    /Submission \d+: flagged as hacked — The service flagged this submission as an attempt to cheat the evaluation; it is not ranked\./,
  );
  assert.match(
    hacked.stdout,
    /error: Submission rejected by KernelGuard pre-check \(reads the reference output\)\. Matched rules: output-cache, reference-read\./,
  );
  assert.doesNotMatch(hacked.stdout, /Ranked score/);
  const slow = await home.cli([
    'submit',
    '--server',
    'gpumode',
    file('s.py', `${SOLUTION}# contract: timed_out\n`),
    '--mode',
    'leaderboard',
  ]);
  assert.equal(slow.code, 1);
  assert.match(slow.stdout, /Submission \d+: timed out — The job ran past the leaderboard's time limit/);
  assert.match(slow.stdout, /test: passed/, 'runs that finished before the limit are shown');
  const failing = await home.cli([
    'submit',
    '--server',
    'gpumode',
    file('f.py', `${SOLUTION}# contract: fail\n`),
    '--mode',
    'test',
  ]);
  assert.equal(failing.code, 1);
  assert.match(failing.stdout, /Submission \d+: succeeded/);
  assert.match(failing.stdout, /test: failed/);
  assert.match(failing.stdout, /✗ seed: 5236; size: 1024 — mismatch found!/);
});

test('pre-flight: nothing is sent for a file GPU MODE would reject; messages carry file:line', async (t) => {
  const { server, home, file } = await setup(t);
  const directive = await home.cli([
    'submit',
    '--server',
    'gpumode',
    file('d.py', '#!POPCORN leaderboard amd-fp8-mm\n#!POPCORN leaderbord x\nx = 1 # upstream\n'),
    '--mode',
    'test',
  ]);
  assert.equal(directive.code, 2);
  assert.match(
    directive.stderr,
    /Not sent: GPU MODE would reject d\.py for these 2 problems:\n {2}d\.py:3:11: Your code contains work on another stream/,
  );
  assert.match(directive.stderr, /d\.py:2: Invalid !POPCORN directive: leaderbord/);
  const big = await home.cli([
    'submit',
    '--server',
    'gpumode',
    file('big.py', `${SOLUTION}${'#'.repeat(1_000_001)}\n`),
    '--mode',
    'test',
  ]);
  assert.equal(big.code, 2);
  assert.match(big.stderr, /big\.py: Submission file is too large \(limit: 1MB\)/);
  const ext = await home.cli([
    'submit',
    '--server',
    'gpumode',
    file('k.hip', '__global__ void k() {}\n'),
    '--leaderboard',
    'amd-fp8-mm',
    '--gpu',
    'MI300',
  ]);
  assert.equal(ext.code, 2);
  assert.match(ext.stderr, /k\.hip: Please provide a Python \(\.py\) or CUDA/);
  assert.equal(server.requests.length, 0, 'no request at all');
  const noBoard = await home.cli(['submit', '--server', 'gpumode', file('n.py', 'x = 1\n')]);
  assert.equal(noBoard.code, 2);
  assert.match(noBoard.stderr, /which leaderboard\?[^]*amd-fp8-mm \(MI300; closes [^)]*\)[^]*vectoradd/i);
  assert.doesNotMatch(noBoard.stderr, /grayscale/, 'closed leaderboards are not offered');
  const wrongGpu = await home.cli(['submit', '--server', 'gpumode', file('g.py', SOLUTION), '--gpu', 'mi300']);
  assert.equal(wrongGpu.code, 2);
  assert.match(
    wrongGpu.stderr,
    /amd-fp8-mm does not run on "mi300" \(GPU names are case-sensitive\); it runs on MI300/,
  );
});

test('401 offers re-registration; the server-side 413 and 429 are explained; 429 on polls is ridden out', async (t) => {
  const { server, home, file } = await setup(t);
  writeFileSync(home.config, 'cli_id: 00000000-dead-4bad-8bad-000000000000\n');
  const unknown = await home.cli(['submit', '--server', 'gpumode', file('a.py', SOLUTION)]);
  assert.equal(unknown.code, 1);
  assert.match(
    unknown.stderr,
    /GPU MODE does not recognise this cli_id \(401\).*POST http:\/\/127\.0\.0\.1:\d+\/submission\/amd-fp8-mm\/MI300\/test\. To register again, run `kernel-runner register discord --reset`/,
  );
  assert.doesNotMatch(unknown.stderr, /dead-4bad/);

  const client = createRunnerClient({ baseUrl: server.url, cliId: server.registeredId('alice'), extensions: false });
  const upload = (content: string) =>
    client.submitBackground({ leaderboard: 'amd-fp8-mm', gpu: 'MI300', mode: 'test', file: { name: 'a.py', content } });
  const tooLarge = explainGpuModeError(await upload('#'.repeat(1_000_001)).catch((e: unknown) => e));
  assert.ok(tooLarge instanceof GpuModeError && tooLarge.type === 'too-large', String(tooLarge));
  assert.match(
    tooLarge.message,
    /\(413, sent wrapped in a 400\) \(Submission file is too large \(limit: 1MB\)\.\): POST http/,
  );
  const missing = createRunnerClient({ baseUrl: server.url, extensions: false });
  const noId = explainGpuModeError(await missing.listSubmissions().catch((e: unknown) => e));
  assert.ok(noId instanceof GpuModeError && noId.type === 'no-identity', String(noId));

  // polls answered 429 twice with Retry-After: the CLI says so and carries on
  server.failNext({
    method: 'GET',
    path: /^\/user\/submissions\/\d+$/,
    status: 429,
    detail: 'Too many requests',
    retryAfter: 1,
    times: 2,
  });
  writeFileSync(home.config, `cli_id: ${server.registeredId('alice')}\n`);
  const limited = await home.cli(['submit', '--server', 'gpumode', file('b.py', SOLUTION)]);
  assert.equal(limited.code, 0, limited.stderr);
  const retries = [
    ...limited.stderr.matchAll(
      /poll failed \(GPU MODE is rate limiting these requests \(429\) \(Too many requests\): GET [^)]*\)\.?[^;]*; retrying in (\d+) s \((\d)\)/g,
    ),
  ];
  assert.equal(retries.length, 2, limited.stderr);
  assert.match(limited.stdout, /Submission \d+: succeeded/);

  // the core poller uses the server's Retry-After when the client reports it, else its own backoff
  server.failNext({ method: 'GET', path: /^\/user\/submissions\/\d+$/, status: 429, retryAfter: 1, times: 1 });
  const accepted = await upload(SOLUTION);
  const delays: number[] = [];
  const done = await pollSubmission(client, accepted.details.id, {
    intervalMs: 20,
    onRetry: (r) => delays.push(r.delayMs),
  });
  assert.equal(done.done, true);
  assert.equal(delays.length, 1);

  // submissions over the service's rate limit: 429 with the wait only in upstream's text, explained with that wait
  const limitedServer = await startContractServer({
    submissionLimit: { count: 1, windowMs: 60_000, retryAfterSeconds: 42 },
  });
  t.after(() => limitedServer.close());
  const c2 = createRunnerClient({
    baseUrl: limitedServer.url,
    cliId: limitedServer.registeredId('carol'),
    extensions: false,
  });
  const submit2 = () =>
    c2.submitBackground({
      leaderboard: 'vectoradd',
      gpu: 'T4',
      mode: 'test',
      file: { name: 'a.py', content: 'x = 1\n' },
    });
  await submit2();
  const rate = explainGpuModeError(await submit2().catch((e: unknown) => e));
  assert.ok(rate instanceof GpuModeError && rate.type === 'rate-limited', String(rate));
  assert.match(
    rate.message,
    /429\) \(Rate limit exceeded: 1\/1 test submissions per hour\. Try again in 42s\.\): POST http.*Try again in 42 s\.$/,
  );
  assert.equal(rate.retryAfterMs, 42_000);
});

test('profile: streaming route with heartbeats only; zips saved per run, never overwritten, summarised; reports decoded', async (t) => {
  const { home, file } = await setup(t);
  const name = file('submission.py', `${SOLUTION}# contract: slow=4\n`);
  const first = await home.cli(['submit', '--server', 'gpumode', name, '--mode', 'profile']);
  assert.equal(first.code, 0, first.stderr + first.stdout);
  const beats = [...first.stderr.matchAll(/\[\d\d:\d\d\] processing/g)];
  assert.equal(beats.length, 5, first.stderr);
  // the decoded report of each case, not the base64
  assert.ok(first.stdout.includes(profileReportText(0).split('\n')[3] as string), first.stdout);
  assert.ok(first.stdout.includes(profileReportText(1).split('\n')[0] as string));
  // the trace summary tables from the saved zip, and where it is
  assert.match(first.stdout, /addition_kernel<float>/);
  assert.match(first.stdout, /trace: kernel-runner-traces[\\/]submission-amd-fp8-mm-MI300-\d{8}-\d{6}-profile\.0\.zip/);
  // upstream's Perfetto line in stderr is hidden and counted, the program's line is kept
  assert.doesNotMatch(first.stdout, /perfetto\.cc/);
  assert.match(first.stdout, /kernel done/);
  assert.match(first.stderr, /2 profiler log lines hidden/);
  assert.match(first.stdout, /Reports:\n## amd-fp8-mm · profile on MI300/);

  const second = await home.cli(['submit', '--server', 'gpumode', name, '--mode', 'profile', '--json']);
  assert.equal(second.code, 0, second.stderr);
  const parsed = JSON.parse(second.stdout) as {
    traces: Array<{ run: string; path: string; summary: { kernels: unknown[] } | null }>;
  };
  assert.deepEqual(
    parsed.traces.map((x) => x.run),
    ['profile.0', 'profile.1'],
  );
  assert.ok(parsed.traces.every((x) => x.summary && x.summary.kernels.length > 0));
  const all = readdirSync(path.join(home.dir, 'kernel-runner-traces')).sort();
  const saved = all.filter((f) => f.endsWith('.zip'));
  // each rocprof trace has its profile digest beside it
  assert.deepEqual(
    all.filter((f) => !f.endsWith('.zip')),
    saved.map((f) => f.replace(/\.zip$/, '.digest.json')),
  );
  assert.equal(saved.length, 4, saved.join(', '));
  assert.equal(new Set(saved).size, 4);
  assert.ok(
    saved.every((f) => /^submission-amd-fp8-mm-MI300-\d{8}-\d{6}-profile\.[01](-2)?\.zip$/.test(f)),
    saved.join(', '),
  );

  const crash = await home.cli([
    'submit',
    '--server',
    'gpumode',
    file('c.py', `${SOLUTION}# contract: raise\n`),
    '--mode',
    'profile',
  ]);
  assert.equal(crash.code, 1);
  assert.match(
    crash.stderr,
    /submission failed: An unexpected error occurred: RuntimeError\n {2}Failed to trigger GitHub Action/,
  );
});

test("429 on a poll: the wait is the server's Retry-After", async (t) => {
  const { server } = await setup(t);
  const client = createRunnerClient({ baseUrl: server.url, cliId: server.registeredId('alice'), extensions: false });
  const accepted = await client.submitBackground({
    leaderboard: 'amd-fp8-mm',
    gpu: 'MI300',
    mode: 'test',
    file: { name: 'a.py', content: SOLUTION },
  });
  server.failNext({ method: 'GET', path: /^\/user\/submissions\/\d+$/, status: 429, retryAfter: 2, times: 1 });
  const delays: number[] = [];
  await pollSubmission(client, accepted.details.id, { intervalMs: 20, onRetry: (r) => delays.push(r.delayMs) });
  assert.deepEqual(delays, [2000]);
});
