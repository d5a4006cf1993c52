// What a GPU MODE client sees of a background submission, as kernelbot gives it (background_submission_manager,
// run_eval, submission): `succeeded` when the evaluation ran, whatever the tests said; `failed` with upstream's text
// only when a leaderboard submission's ranked (or secret) validation fails; `timed_out` when the job as a whole
// passes the hard timeout. Also: the secret run's fixed seed and score, the `python3 submission.py` compile step,
// a .cpp upload to a Python leaderboard, preparation errors inside the plain stream, and /auth/init, /user/join.
// Served from the reference-kernels fixture on a CPU named MI300 (--gpu-name), real python3 evaluators.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  resultEventSchema,
  userSubmissionDetailSchema,
  type ResultEvent,
  type UserSubmissionDetail,
} from '../../../src/core/protocol/api';
import { holdTimers } from '../../support/heldClock';
import {
  post,
  readSse,
  repoRoot,
  startTestRunner,
  submitAndRead,
  tempDir,
  terminal,
  untilPrinted,
  waitFor,
  type TestRunner,
} from './helpers';

const fixture = path.join(repoRoot, 'test/fixtures/reference-kernels/problems');
const sumlist = path.join(fixture, 'kr/sumlist_py');
const code = (name: string) =>
  readFileSync(name === 'submission.py' ? path.join(sumlist, name) : path.join(sumlist, 'solutions', name), 'utf8');
/** Without its `#!POPCORN leaderboard kr-sumlist` line, for the other leaderboards of the folder. */
const template = code('submission.py').replace(/^#!POPCORN[^\n]*\n/, '');

const RANKED_FAILED = 'ranked validation failed on MI300; submission will not appear on the leaderboard';
const SECRET_FAILED = 'secret validation failed on MI300; submission will not appear on the leaderboard';

/**
 * popcorn-cli's handling of a polled submission (src/service/mod.rs, submit_solution_background, at 886932d): a job
 * status of failed, timed_out or hacked ends it with `Submission N <status>: <error or "No error details were
 * provided">`; otherwise, once done, it prints the runs (mode, secret, runner, score, passed).
 */
function popcornCliShows(
  detail: UserSubmissionDetail,
):
  | { kind: 'error'; text: string }
  | { kind: 'runs'; runs: Array<{ mode: string; secret: boolean; passed: boolean; score: unknown }> }
  | { kind: 'waiting' } {
  const status = detail.job?.status ?? (detail.done ? 'done' : 'pending');
  if (status === 'failed' || status === 'timed_out' || status === 'hacked') {
    return {
      kind: 'error',
      text: `Submission ${detail.id} ${status}: ${detail.job?.error ?? 'No error details were provided'}`,
    };
  }
  if (!detail.done) return { kind: 'waiting' };
  return {
    kind: 'runs',
    runs: detail.runs.map((r) => ({ mode: r.mode, secret: r.secret, passed: r.passed, score: r.score })),
  };
}

/** Submits in the background; `whileRunning` is awaited (with the job's id) before the wait for the job to be done. */
async function submitBackground(
  runner: TestRunner,
  lb: string,
  mode: string,
  fileName: string,
  content: string,
  whileRunning?: (id: number) => Promise<void>,
): Promise<UserSubmissionDetail> {
  const res = await post(`${runner.url}/submission/${lb}/MI300/${mode}`, { fileName, content });
  assert.equal(res.status, 202, await res.clone().text());
  const id = ((await res.json()) as { details: { id: number } }).details.id;
  await whileRunning?.(id);
  return waitFor(
    `submission ${id}`,
    async () => {
      const d = userSubmissionDetailSchema.parse(await (await fetch(`${runner.url}/user/submissions/${id}`)).json());
      return d.done ? d : undefined;
    },
    120_000,
  );
}

/** The full result of a job (our extension route: every run's stdout, stderr and result map, secret ones too). */
async function fullResult(runner: TestRunner, id: number): Promise<ResultEvent> {
  const rec = (await (await fetch(`${runner.url}/jobs/${id}`)).json()) as { result: unknown };
  return resultEventSchema.parse(rec.result);
}

describe('job status and runs as upstream gives them', () => {
  let runner: TestRunner;
  before(async () => {
    runner = await startTestRunner({ problemsDir: fixture, gpuName: 'MI300' });
  });
  after(() => runner.dispose());

  test('a failing test-mode submission: job succeeded, its run passed: false with the result map; popcorn-cli shows the runs', async () => {
    const detail = await submitBackground(runner, 'kr-sumlist', 'test', 'wrong.py', code('wrong.py'));
    assert.equal(detail.job?.status, 'succeeded');
    assert.equal(detail.job?.error, null);
    assert.equal(detail.job?.state, 'failed', 'our own finer state still says the tests failed');
    assert.deepEqual(
      detail.runs.map((r) => [r.mode, r.secret, r.passed, r.score]),
      [['test', false, false, null]],
    );
    const result = detail.runs[0]!.result as Record<string, string>;
    assert.equal(result.check, 'fail');
    assert.equal(result['test-count'], '3');
    assert.equal(result['test.0.status'], 'fail');
    assert.match(result['test.0.error']!, /got -11, expected -12/);
    assert.deepEqual(popcornCliShows(detail), {
      kind: 'runs',
      runs: [{ mode: 'test', secret: false, passed: false, score: null }],
    });
  });

  test("leaderboard mode whose ranked run fails: failed, with upstream's text; nothing ranked", async () => {
    const detail = await submitBackground(
      runner,
      'kr-sumlist',
      'leaderboard',
      'ranked_only_wrong.py',
      code('ranked_only_wrong.py'),
    );
    assert.equal(detail.job?.status, 'failed');
    assert.equal(detail.job?.error, RANKED_FAILED);
    assert.deepEqual(popcornCliShows(detail), {
      kind: 'error',
      text: `Submission ${detail.id} failed: ${RANKED_FAILED}`,
    });
    const publicRuns = detail.runs.filter((r) => !r.secret).map((r) => [r.mode, r.passed, r.score]);
    assert.deepEqual(publicRuns, [
      ['test', true, null],
      ['benchmark', true, null],
      ['leaderboard', false, null],
    ]);
    const board = (await (await fetch(`${runner.url}/submissions/kr-sumlist/MI300`)).json()) as Array<{
      submission_id: number;
    }>;
    assert.ok(
      !board.some((e) => e.submission_id === detail.id),
      'a failed ranked validation is not on the leaderboard',
    );
  });

  test('leaderboard mode whose secret copy fails: failed, "secret validation failed"; the public run still has its score', async () => {
    const detail = await submitBackground(
      runner,
      'kr-sumlist',
      'leaderboard',
      'secret_only_wrong.py',
      code('secret_only_wrong.py'),
    );
    assert.equal(detail.job?.status, 'failed');
    assert.equal(detail.job?.error, SECRET_FAILED);
    const ranked = detail.runs.find((r) => r.mode === 'leaderboard' && !r.secret)!;
    assert.ok(ranked.passed && typeof ranked.score === 'number' && ranked.score > 0);
    const secret = detail.runs.find((r) => r.mode === 'leaderboard' && r.secret)!;
    assert.equal(secret.passed, false);
    assert.equal(secret.score, null);
    const board = (await (await fetch(`${runner.url}/submissions/kr-sumlist/MI300`)).json()) as Array<{
      submission_id: number;
    }>;
    assert.ok(!board.some((e) => e.submission_id === detail.id));
  });

  test("a passing leaderboard submission: the secret copy runs with the leaderboard's fixed secret seed and is scored like the public run", async () => {
    const first = await submitBackground(runner, 'kr-sumlist', 'leaderboard', 'submission.py', code('submission.py'));
    assert.equal(first.job?.status, 'succeeded');
    assert.equal(first.job?.error, null);
    const seeds = JSON.parse(readFileSync(path.join(runner.dataDir, 'secret-seeds.json'), 'utf8')) as Record<
      string,
      number
    >;
    const seed = seeds['kr-sumlist'];
    assert.ok(Number.isInteger(seed) && seed! > 0 && seed! < 2 ** 31);
    const [pub, secret] = (await fullResult(runner, first.id)).results;
    for (const key of ['test', 'benchmark', 'leaderboard']) {
      assert.equal(pub!.runs[key]!.run!.result['kr.seed'], 'none', 'the task has no seed: the public run gets none');
      assert.equal(secret!.runs[key]!.run!.result['kr.seed'], String(seed), `secret ${key} run`);
    }
    // scored as the public run is (ranking_by: last: the one benchmark case's mean, in seconds)
    const secretRun = first.runs.find((r) => r.mode === 'leaderboard' && r.secret)!;
    assert.equal(secretRun.score, Number(secret!.runs.leaderboard!.run!.result['benchmark.0.mean']) / 1e9);
    assert.deepEqual(popcornCliShows(first).kind, 'runs');

    // fixed: the next submission's secret copy has the same seed; another leaderboard (same folder) has its own
    const second = await submitBackground(runner, 'kr-sumlist', 'leaderboard', 'submission.py', code('submission.py'));
    assert.equal((await fullResult(runner, second.id)).results[1]!.runs.test!.run!.result['kr.seed'], String(seed));
    const other = await submitBackground(runner, 'kr-sumlist-v2', 'leaderboard', 'submission.py', template);
    const otherSeed = JSON.parse(readFileSync(path.join(runner.dataDir, 'secret-seeds.json'), 'utf8'))[
      'kr-sumlist-v2'
    ] as number;
    assert.equal((await fullResult(runner, other.id)).results[1]!.runs.test!.run!.result['kr.seed'], String(otherSeed));
  });

  test('the compile step: `python3 submission.py` once before the run (seed 1), a CompileResult when it shows a torch extension build', async () => {
    const events = await submitAndRead(`${runner.url}/kr-sumlist/MI300/test`, {
      fileName: 'fake_inline_build.py',
      content: code('fake_inline_build.py'),
    });
    const ev = resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!;
    assert.equal(ev.run!.passed, true);
    const comp = ev.compilation!;
    assert.deepEqual(
      { ...comp, stdout: undefined },
      {
        nvcc_found: true,
        nvcc_version: '',
        success: true,
        command: 'python3 submission.py',
        stdout: undefined,
        stderr: '',
        exit_code: 0,
      },
    );
    assert.match(comp.stdout, /-DTORCH_EXTENSION_NAME=kr_fake/);
    assert.match(comp.stdout, /compile step: POPCORN_SEED=1 POPCORN_FD=set/);
    // a submission whose step prints no such line gets no CompileResult
    const plain = await submitAndRead(`${runner.url}/kr-sumlist/MI300/test`, {
      fileName: 'submission.py',
      content: code('submission.py'),
    });
    assert.equal(resultEventSchema.parse(terminal(plain).data).results[0]!.runs.test!.compilation, null);
  });

  test('a .cpp upload to a Python leaderboard is taken as upstream takes it: its text runs as submission.py', async () => {
    const events = await submitAndRead(`${runner.url}/kr-sumlist/MI300/test`, {
      fileName: 'kernel.cpp',
      content: code('submission.py'),
    });
    const result = resultEventSchema.parse(terminal(events).data);
    assert.equal(result.results[0]!.runs.test!.run!.passed, true);
    const list = (await (await fetch(`${runner.url}/user/submissions?limit=1`)).json()) as Array<{ file_name: string }>;
    assert.equal(list[0]!.file_name, 'kernel.cpp');
  });

  test('preparation errors on the plain streaming route: 200, then `event: error` with status_code 400; nothing runs', async () => {
    const before = ((await (await fetch(`${runner.url}/user/submissions?limit=100`)).json()) as unknown[]).length;
    for (const [fileName, content, detail] of [
      ['notes.txt', 'x = 1\n', /\.py/],
      ['a.py', '#!POPCORN leaderboard kr-sumlist-v2\n' + template, /doesn't match/],
    ] as const) {
      const res = await post(`${runner.url}/kr-sumlist/MI300/test`, { fileName, content });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
      const events = await readSse(res);
      assert.deepEqual(
        events.map((e) => e.event),
        ['status', 'error'],
      );
      const error = events[1]!.data as { status: string; detail: string; status_code: number };
      assert.equal(error.status, 'error');
      assert.equal(error.status_code, 400);
      assert.match(error.detail, detail);
      // our extension clients keep the HTTP answer
      const ext = await post(`${runner.url}/kr-sumlist/MI300/test`, { fileName, content, extensions: true });
      assert.equal(ext.status, 400);
      assert.match(((await ext.json()) as { detail: string }).detail, detail);
    }
    const after = ((await (await fetch(`${runner.url}/user/submissions?limit=100`)).json()) as unknown[]).length;
    assert.equal(after, before, 'no job was made for a refused upload');
  });
});

describe('timeouts as upstream reports them', () => {
  // the timeouts are the test's to fire, once the evaluator runs the submission, however slow the machine
  const clock = holdTimers();
  let hard: TestRunner;
  let perRun: TestRunner;
  let problems: string;
  before(async () => {
    hard = await startTestRunner({
      problemsDir: fixture,
      gpuName: 'MI300',
      hardTimeoutSec: clock.seconds,
      killGraceMs: 300,
    });
    // the fixture with its own test_timeout on kr/sumlist_py (the default would be 180 s)
    problems = tempDir('kr-fixture-');
    cpSync(fixture, problems, { recursive: true });
    const task = path.join(problems, 'kr/sumlist_py/task.yml');
    writeFileSync(
      task,
      readFileSync(task, 'utf8').replace(/^ranking_by: "last"$/m, `ranking_by: "last"\ntest_timeout: ${clock.seconds}`),
    );
    perRun = await startTestRunner({ problemsDir: problems, gpuName: 'MI300', killGraceMs: 300 });
  });
  after(async () => {
    clock.release();
    await hard.dispose();
    await perRun.dispose();
    rmSync(problems, { recursive: true, force: true });
  });

  /** Times the job out once its submission runs in the evaluator (has printed its line). */
  const timeOutWhenHanging = (runner: TestRunner) => async (id: number) => {
    await untilPrinted(runner.url, id, 'hang: sleeping forever');
    assert.equal(clock.fire(), 1, 'the job timed out now');
  };

  test('past the runner\'s hard timeout: timed_out, "hard timeout reached", with the runs so far', async () => {
    const detail = await submitBackground(
      hard,
      'kr-sumlist',
      'test',
      'hang.py',
      code('hang.py'),
      timeOutWhenHanging(hard),
    );
    assert.equal(detail.job?.status, 'timed_out');
    assert.equal(detail.job?.error, 'hard timeout reached');
    assert.equal(detail.done, true);
    assert.deepEqual(popcornCliShows(detail), {
      kind: 'error',
      text: `Submission ${detail.id} timed_out: hard timeout reached`,
    });
    assert.deepEqual(
      detail.runs.map((r) => [r.mode, r.passed]),
      [['test', false]],
    );
    // stopped in the evaluator
    const run = (await fullResult(hard, detail.id)).results[0]!.runs.test!.run!;
    assert.match(
      run.stderr,
      new RegExp(
        `hard timeout reached \\(a job may run ${clock.seconds} s in all\\): sent SIGINT to the process group`,
      ),
    );
  });

  test("a run stopped at the task's own test_timeout is a run (exit 114, passed: false), the job succeeded", async () => {
    const detail = await submitBackground(
      perRun,
      'kr-sumlist',
      'test',
      'hang.py',
      code('hang.py'),
      timeOutWhenHanging(perRun),
    );
    assert.equal(detail.job?.status, 'succeeded');
    assert.equal(detail.job?.state, 'timed_out', 'our own state says which run timed out');
    const run = (await fullResult(perRun, detail.id)).results[0]!.runs.test!.run!;
    assert.equal(run.exit_code, 114);
    assert.equal(run.passed, false);
    assert.match(run.stderr, new RegExp(`timed out after ${clock.seconds} s`));
    assert.deepEqual(popcornCliShows(detail), {
      kind: 'runs',
      runs: [{ mode: 'test', secret: false, passed: false, score: null }],
    });
  });
});

describe('registration and invites belong to GPU MODE', () => {
  const token = 'kr-test-token-7f3a';
  let runner: TestRunner;
  before(async () => {
    runner = await startTestRunner({ problemsDir: fixture, gpuName: 'MI300', token });
  });
  after(() => runner.dispose());

  test('GET /auth/init (popcorn-cli register, which has no id yet) says to use the token as cli_id, and gives the token to no one', async () => {
    const res = await fetch(`${runner.url}/auth/init?provider=discord`);
    assert.equal(res.status, 400);
    const body = (await res.json()) as { detail: string; state?: unknown };
    assert.equal(body.state, undefined, 'no registration state was handed out');
    assert.match(body.detail, /cli_id: <token>/);
    assert.match(body.detail, new RegExp(`POPCORN_API_URL=${runner.url.replace(/[.]/g, '\\.')}`));
    assert.ok(!JSON.stringify(body).includes(token), 'the token is not in the answer');
    // the exemption is this one route: everything else still needs the token
    assert.equal((await fetch(`${runner.url}/leaderboards`)).status, 401);
  });

  test('POST /user/join: a clear {detail} for a caller with the token, 401 without', async () => {
    const join = (headers: Record<string, string>) =>
      fetch(`${runner.url}/user/join`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify({ code: 'INVITE-1' }),
      });
    const ok = await join({ 'X-Popcorn-Cli-Id': token });
    assert.equal(ok.status, 400);
    assert.match(((await ok.json()) as { detail: string }).detail, /no invite codes: every leaderboard on it is open/);
    assert.equal((await join({})).status, 401);
  });
});
