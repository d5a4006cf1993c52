// `kernel-runner submit|submissions|register` against the contract server on the answers kernelbot (4bdd839)
// really gives and the CLI used to get wrong (issue 16): a run that failed with nothing kept (no exit code is made
// up), a score that does not rank, a succeeded job without runs, closed leaderboards, `--gpu`'s help, a second
// plain registration, preparation errors wrapped in the background route's 400, the in-stream rate limit, and
// Nsight Compute profiles.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { completeOAuthInBrowser, startContractServer } from '../../contract/gpumodeServer';
import { contractSetup, ensureBuilt, tempHome } from './helpers';

before(() => ensureBuilt());

const SOLUTION = '#!POPCORN leaderboard amd-fp8-mm\n#!POPCORN gpu MI300\n\ndef custom_kernel(data):\n    return data\n';

test('1: a crash or a timeout (passed: false, result: {}) shows no exit code, and says where the output comes back', async (t) => {
  const { home, file } = await contractSetup(t);
  for (const marker of ['crash', 'timeout']) {
    const run = await home.cli([
      'submit',
      '--server',
      'gpumode',
      file(`${marker}.py`, `${SOLUTION}# contract: ${marker}\n`),
      '--mode',
      'test',
    ]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /Submission \d+: succeeded\n/);
    assert.match(run.stdout, /^test: failed, no details kept by the service/m);
    assert.doesNotMatch(run.stdout, /exit code -?\d/);
    assert.match(
      run.stdout,
      /The test run failed without results: the program crashed or ran past the task's time limit, and GPU MODE keeps no exit code or output of background runs\. To see why, run it in test mode on a runner of ours \(`kernel-runner submit FILE --mode test`[^)]*\) or in profile mode on GPU MODE/,
    );
    const id = /Submission (\d+)/.exec(run.stdout)?.[1] as string;
    const show = await home.cli(['submissions', 'show', id]);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /^test +MI300 +failed /m);
    assert.match(show.stdout, /The test run failed without results/);
  }
});

test('2: a public score whose secret run failed is shown as not ranked, in submit, list and show', async (t) => {
  const { home, file } = await contractSetup(t);
  const run = await home.cli([
    'submit',
    '--server',
    'gpumode',
    file('s.py', `${SOLUTION}# contract: secretfail\n`),
    '--mode',
    'leaderboard',
  ]);
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stdout, /Submission \d+: failed/);
  assert.match(run.stdout, /error: secret validation failed on MI300; submission will not appear on the leaderboard/);
  assert.match(run.stdout, /^Score [\d.]+ µs \(the service's score\), not ranked: secret validation failed$/m);
  assert.doesNotMatch(run.stdout, /Ranked score/);
  const id = /Submission (\d+)/.exec(run.stdout)?.[1] as string;
  const show = await home.cli(['submissions', 'show', id]);
  assert.match(show.stdout, /^Score: [\d.]+ µs, not ranked: secret validation failed$/m);
  assert.doesNotMatch(show.stdout, /Ranked score/);
  // kernelbot's list leaves out the runs of a submission that does not rank: no score there
  const list = await home.cli(['submissions', 'list']);
  assert.match(list.stdout, new RegExp(`^${id} +amd-fp8-mm +s\\.py +[\\d-]+ [\\d:]+ +- +done +-$`, 'm'));
});

test('3: a job that succeeded without runs is explained, in submit and show', async (t) => {
  const { home, file } = await contractSetup(t);
  const run = await home.cli([
    'submit',
    '--server',
    'gpumode',
    file('n.py', `${SOLUTION}# contract: noresults\n`),
    '--mode',
    'test',
  ]);
  assert.equal(run.code, 1);
  assert.match(
    run.stdout,
    /Submission \d+: succeeded without results — The service finished the submission without recording any run: its runner failed before producing results/,
  );
  const id = /Submission (\d+)/.exec(run.stdout)?.[1] as string;
  const show = await home.cli(['submissions', 'show', id]);
  assert.equal(show.code, 0);
  assert.match(show.stdout, /Job: succeeded without results/);
  assert.match(show.stdout, /without recording any run/);
});

test('4: a leaderboard past its deadline is refused before sending against GPU MODE, with exit 2 and the deadline', async (t) => {
  const { server, home, file } = await contractSetup(t);
  for (const mode of ['test', 'leaderboard', 'profile']) {
    const run = await home.cli([
      'submit',
      '--server',
      'gpumode',
      file('g.py', '#!POPCORN leaderboard grayscale\n#!POPCORN gpu MI300\nx = 1\n'),
      '--mode',
      mode,
    ]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(
      run.stderr,
      /Not sent: grayscale closed \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC, and GPU MODE refuses every submission to a leaderboard after its deadline/,
    );
    assert.doesNotMatch(run.stderr, /may no longer rank/);
  }
  assert.deepEqual(
    [...new Set(server.requests.map((r) => `${r.method} ${r.path}`))],
    ['GET /leaderboards'],
    'nothing but the list was asked',
  );
});

test('5: `submit --help` says what happens without --gpu', async (t) => {
  const { home } = await contractSetup(t);
  const help = await home.cli(['submit', '--help']);
  assert.equal(help.code, 0);
  const text = help.stdout.replace(/\s+/g, ' ');
  assert.match(
    text,
    /the leaderboard's only GPU; on GPU MODE a leaderboard with several GPUs is refused without one, on a runner of ours the first is taken and named/,
  );
  assert.doesNotMatch(text, /leaderboard's first GPU\)/);
});

test('6: a second plain `register` of a linked account keeps the working cli_id and explains the refusal', async (t) => {
  const server = await startContractServer();
  t.after(() => server.close());
  const home = tempHome(t, server.url);
  const working = server.registeredId('alice');
  writeFileSync(home.config, `# popcorn\ncli_id: ${working}\n`);
  let callback: Promise<{ status: number; body: string }> | undefined;
  const run = await home.cli(['register', 'discord', '--no-browser', '--timeout', '2'], {
    onStdout(text) {
      const url = /https:\/\/discord\.com\/oauth2\/authorize\?\S+/.exec(text)?.[0];
      if (url && !callback) callback = completeOAuthInBrowser(url, 'alice');
    },
  });
  assert.ok(callback);
  const refused = await callback;
  assert.equal(refused.status, 400);
  assert.equal(
    JSON.parse(refused.body).detail,
    'Database update failed: User already has a valid account with this User ID.Please use the re-register command to re-authenticate.',
  );
  assert.equal(run.code, 1);
  assert.match(run.stdout, /stays until GPU MODE accepts the new one/);
  assert.match(
    run.stderr,
    /GPU MODE has not accepted the new cli_id \(waited 2 s\)\. The cli_id in .*\.popcorn\.yaml is kept: it still works\..*"User already has a valid account with this User ID.*`kernel-runner register discord --reset` links a new cli_id to it/,
  );
  assert.equal(readFileSync(home.config, 'utf8'), `# popcorn\ncli_id: ${working}\n`, 'the working id is kept');
  const list = await home.cli(['submissions', 'list']);
  assert.equal(list.code, 0, list.stderr);
});

test('7: wrapped preparation errors read as their inner error; the in-stream rate limit as the 429', async (t) => {
  const { home, file, server } = await contractSetup(t, {
    submissionLimit: { count: 1, windowMs: 3_600_000, retryAfterSeconds: 3429 },
  });
  // the preflight stops what it knows locally: the service's own wrapping is reached through the client
  const { createRunnerClient } = await import('../../../src/core/client/index');
  const { explainGpuModeError, GpuModeError } = await import('../../../src/core/gpumode/index');
  const client = createRunnerClient({ baseUrl: server.url, cliId: server.registeredId('alice'), extensions: false });
  const send = (lb: string, gpu: string, mode: string, content: string) =>
    client.submitBackground({ leaderboard: lb, gpu, mode: mode as 'test', file: { name: 'a.py', content } }).then(
      () => assert.fail('accepted'),
      (e: unknown) => explainGpuModeError(e),
    );
  const big = await send('amd-fp8-mm', 'MI300', 'test', `${SOLUTION}${'#'.repeat(1_000_001)}`);
  assert.ok(big instanceof GpuModeError && big.type === 'too-large' && big.status === 413, String(big));
  assert.match(
    big.message,
    /too large \(413, sent wrapped in a 400\) \(Submission file is too large \(limit: 1MB\)\.\)/,
  );
  const unknown = await send('nope', 'MI300', 'test', SOLUTION.replace('amd-fp8-mm', 'nope'));
  assert.ok(unknown instanceof GpuModeError && unknown.type === 'bad-request', String(unknown));
  assert.match(
    unknown.message,
    /\(500, sent wrapped in a 400\) \(Internal server error while validating leaderboard\/GPU: Leaderboard `nope` does not exist\.\)/,
  );
  const stream = await send('amd-fp8-mm', 'MI300', 'test', `${SOLUTION}# torch.cuda.Stream\n`);
  assert.ok(stream instanceof GpuModeError && stream.type === 'bad-request', String(stream));
  const gpu = await send('amd-fp8-mm', 'T4', 'test', SOLUTION);
  assert.ok(
    gpu instanceof GpuModeError &&
      gpu.type === 'bad-request' &&
      gpu.status === 400 &&
      /not supported for leaderboard/.test(gpu.message),
    String(gpu),
  );
  const priv = await send('amd-fp8-mm', 'MI300', 'private', SOLUTION);
  assert.match(String(priv), /Submission mode 'private' is not supported for this endpoint/);

  // the profile route's in-stream limit: the same words (and wait) as the background route's 429
  const first = await home.cli(['submit', '--server', 'gpumode', file('p.py', SOLUTION), '--mode', 'profile']);
  assert.equal(first.code, 0, first.stderr);
  const streamed = await home.cli(['submit', '--server', 'gpumode', file('p.py', SOLUTION), '--mode', 'profile']);
  assert.equal(streamed.code, 1);
  assert.match(
    streamed.stderr,
    /GPU MODE is rate limiting these requests \(429\) \(Rate limit exceeded: 1\/1 test submissions per hour\. Try again in 3429s\.\): POST http:\/\/127\.0\.0\.1:\d+\/amd-fp8-mm\/MI300\/profile\. Try again in 57 min/,
  );
  const background = await home.cli(['submit', '--server', 'gpumode', file('b.py', SOLUTION), '--mode', 'leaderboard']);
  assert.equal(background.code, 0, background.stderr);
  const limited = await home.cli(['submit', '--server', 'gpumode', file('b.py', SOLUTION), '--mode', 'leaderboard']);
  assert.match(
    limited.stderr,
    /GPU MODE is rate limiting these requests \(429\) \(Rate limit exceeded: 1\/1 leaderboard submissions per hour\. Try again in 3429s\.\): POST http:\/\/127\.0\.0\.1:\d+\/submission\/amd-fp8-mm\/MI300\/leaderboard\. Try again in 57 min/,
  );
});

test('8: an Nsight Compute profile (NVIDIA, download_url null) is saved and named as such, with no rocprof summary', async (t) => {
  const { home, file } = await contractSetup(t);
  const run = await home.cli([
    'submit',
    '--server',
    'gpumode',
    file('v.py', '#!POPCORN leaderboard vectoradd\n#!POPCORN gpu T4\nx = 1\n'),
    '--mode',
    'profile',
    '--json',
  ]);
  assert.equal(run.code, 0, run.stderr);
  const parsed = JSON.parse(run.stdout) as {
    traces: Array<{ run: string; path: string; summary: unknown; summary_error: unknown }>;
    result: { results: Array<{ runs: Record<string, { profile: { profiler: string; download_url: null } }> }> };
  };
  assert.equal(parsed.result.results[0]?.runs['profile.0']?.profile.profiler, 'Nsight-Compute');
  assert.equal(parsed.result.results[0]?.runs['profile.0']?.profile.download_url, null);
  assert.deepEqual(
    parsed.traces.map((x) => [x.run, path.basename(x.path).replace(/\d{8}-\d{6}/, 'T'), x.summary, x.summary_error]),
    [
      ['profile.0', 'v-vectoradd-T4-T-profile.0-nsight-compute.zip', null, null],
      ['profile.1', 'v-vectoradd-T4-T-profile.1-nsight-compute.zip', null, null],
    ],
  );
  assert.ok(
    parsed.traces.every((x) => existsSync(x.path) && readFileSync(x.path).includes('profile_data/profile.ncu-rep')),
  );
  const text = await home.cli([
    'submit',
    '--server',
    'gpumode',
    file('v.py', '#!POPCORN leaderboard vectoradd\n#!POPCORN gpu T4\nx = 1\n'),
    '--mode',
    'profile',
  ]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    /Nsight Compute report: kernel-runner-traces\/v-vectoradd-T4-\S+-profile\.0-nsight-compute(-2)?\.zip\n +an Nsight Compute report \(profile_data\/profile\.ncu-rep inside\): open it with NVIDIA Nsight Compute/,
  );
  assert.doesNotMatch(text.stdout + text.stderr, /Perfetto|could not be summarised|Kernel +Calls/);
  assert.equal(readdirSync(path.join(home.dir, 'kernel-runner-traces')).length, 4);
});
