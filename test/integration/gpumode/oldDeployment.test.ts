// `kernel-runner submit` and `submissions` against a GPU MODE deployment from before mid-June 2026 (the contract
// server's `deployment: 'old'`: no `job` and no `runner_queue` keys anywhere, no GET /runner_queue, a 202 with only
// status and details, no run results): every mode works, the ranked score is the service's (a string), and nothing
// printed says null or undefined.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PUBLIC_MEANS_NS, scoreOf } from '../../contract/gpumodeServer';
import { formatScore } from '../../../src/core/format/index';
import { contractSetup, ensureBuilt } from './helpers';

before(() => ensureBuilt());

const SOLUTION = '#!POPCORN leaderboard amd-fp8-mm\n#!POPCORN gpu MI300\n\ndef custom_kernel(data):\n    return data\n';
const BAD = /\bnull\b|\bundefined\b|NaN/;

test('old deployment: test, benchmark and leaderboard through the background route, the score from its string', async (t) => {
  const { server, home, file } = await contractSetup(t, { deployment: 'old' });
  const name = file('submission.py', SOLUTION);
  for (const mode of ['test', 'benchmark']) {
    const run = await home.cli(['submit', '--server', 'gpumode', name, '--mode', mode]);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    assert.match(run.stderr, new RegExp(`submission \\d+ accepted \\(amd-fp8-mm · MI300 · ${mode}\\); polling`));
    assert.match(run.stdout, /^Submission \d+: done$/m, 'without a job the status is what `done` says');
    assert.match(run.stdout, new RegExp(`^${mode}: passed`, 'm'));
    assert.doesNotMatch(run.stderr + run.stdout, BAD);
    assert.doesNotMatch(run.stderr, /runner queue/, 'a deployment without the queue route is not reported as failing');
  }
  const ranked = await home.cli(['submit', '--server', 'gpumode', name, '--mode', 'leaderboard', '--json']);
  assert.equal(ranked.code, 0, ranked.stderr);
  const json = JSON.parse(ranked.stdout) as {
    ok: boolean;
    score: number;
    submission: { runs: Array<{ mode: string; secret: boolean; score: unknown }>; job?: unknown };
  };
  assert.equal(json.ok, true);
  assert.equal(json.submission.job, null, 'the old deployment sent no job: read as none');
  assert.ok(Math.abs(json.score - scoreOf(PUBLIC_MEANS_NS, 'geom')) < 1e-12, String(json.score));
  const text = await home.cli(['submit', '--server', 'gpumode', name, '--mode', 'leaderboard']);
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    new RegExp(
      `Ranked score: ${formatScore(scoreOf(PUBLIC_MEANS_NS, 'geom')).replace('.', '\\.')} \\(the service's score`,
    ),
  );
  assert.equal(server.requests.filter((r) => r.method === 'POST').length, 4);
});

test('old deployment: profile over the streaming route, and submissions list / show / delete', async (t) => {
  const { home, file } = await contractSetup(t, { deployment: 'old' });
  const name = file('submission.py', SOLUTION);
  const profile = await home.cli(['submit', '--server', 'gpumode', name, '--mode', 'profile']);
  assert.equal(profile.code, 0, profile.stderr + profile.stdout);
  assert.match(
    profile.stdout,
    /trace: kernel-runner-traces[\\/]submission-amd-fp8-mm-MI300-\d{8}-\d{6}-profile\.0\.zip/,
  );
  assert.doesNotMatch(profile.stderr + profile.stdout, BAD);

  const ranked = await home.cli(['submit', '--server', 'gpumode', name, '--mode', 'leaderboard']);
  assert.equal(ranked.code, 0, ranked.stderr);
  const id = /Submission (\d+):/.exec(ranked.stdout)?.[1];
  assert.ok(id, ranked.stdout);
  const list = await home.cli(['submissions', 'list']);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, new RegExp(`^${id} +amd-fp8-mm +submission\\.py +.* done +[\\d.]+ µs$`, 'm'));
  const show = await home.cli(['submissions', 'show', id]);
  assert.equal(show.code, 0, show.stderr);
  assert.match(show.stdout, new RegExp(`^#${id} amd-fp8-mm · submission\\.py · done$`, 'm'));
  assert.match(show.stdout, /^Ranked score: [\d.]+ µs$/m);
  assert.doesNotMatch(show.stdout, /^Job:|^Queue:/m, 'no job and no queue were sent');
  assert.doesNotMatch(show.stdout + list.stdout, BAD);
  const deleted = await home.cli(['submissions', 'delete', id, '--yes']);
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.match(deleted.stdout, new RegExp(`Deleted submission ${id}\\.`));
});
