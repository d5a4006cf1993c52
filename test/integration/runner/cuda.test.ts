// `lang: cu` problems, built the way GPU MODE builds its CUDA tasks: the submission saved under the task's name,
// the sources compiled by nvcc into eval.out (kernelbot's flags, task defines), then `./eval.out <mode> <cases>`.
// The test problem is host code, so a real nvcc builds and runs it on a machine without a GPU; the tests that need
// nvcc are skipped where it is not installed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { leaderboardListSchema, resultEventSchema, userSubmissionDetailSchema } from '../../../src/core/protocol/api';
import { findOnPath } from '../../../src/runner/profilers';
import {
  post,
  pythonOnlyBin,
  readSse,
  repoRoot,
  startTestRunner,
  submitAndRead,
  terminal,
  type TestRunner,
} from './helpers';

const problemsDir = path.join(repoRoot, 'test/fixtures/cuda-problems');
const solution = (name: string) => readFileSync(path.join(problemsDir, 'vectorsum_cu/solutions', name), 'utf8');
const nvcc = findOnPath('nvcc', process.env.PATH);

describe('lang: cu problem with nvcc', { skip: nvcc ? false : 'nvcc is not installed here' }, () => {
  let runner: TestRunner;
  before(async () => {
    runner = await startTestRunner({ problemsDir });
  });
  after(() => runner.dispose());

  test('listed with lang cu and its build config', async () => {
    const list = leaderboardListSchema.parse(await (await fetch(`${runner.url}/leaderboards`)).json());
    const lb = list.find((l) => l.name === 'vectorsum_cu');
    assert.ok(lb, list.map((l) => l.name).join(', '));
    assert.equal(lb.task.lang, 'cu');
    assert.deepEqual((lb.task.config as { sources?: string[] }).sources, ['eval.cu', 'submission.cu']);
  });

  test('leaderboard mode: built with nvcc in each run folder, then test, benchmark, ranked run and the secret copy', async () => {
    const events = await submitAndRead(`${runner.url}/vectorsum_cu/CPU/leaderboard`, {
      fileName: 'my_kernel.cu',
      content: solution('correct.cu'),
      extensions: true,
    });
    const result = resultEventSchema.parse(terminal(events).data);
    assert.equal(result.results.length, 2, 'public and secret runs');
    const runs = result.results[0]!.runs;
    assert.deepEqual(Object.keys(runs), ['test', 'benchmark', 'leaderboard']);
    for (const ev of Object.values(runs)) {
      const comp = ev.compilation!;
      assert.equal(comp.success, true, comp.stderr);
      assert.equal(comp.nvcc_found, true);
      assert.match(comp.nvcc_version, /release|V\d/);
      // kernelbot's flags, the task's define, its sources in order, saved under the task's file name
      assert.match(
        comp.command,
        /^nvcc --std=c\+\+20 -DNDEBUG .* -O3 .*-DVECTORSUM_RUNS=20 eval\.cu submission\.cu -arch=native -o eval\.out$/,
      );
      assert.equal(ev.run!.passed, true, ev.run!.stderr);
      assert.match(ev.run!.command, /\/eval\.out (test|benchmark|leaderboard) \S+\.cases$/);
    }
    assert.equal(runs.test!.run!.result['test-count'], '2');
    assert.equal(runs.benchmark!.run!.result['benchmark.0.runs'], '20', 'config.defines reached the compiler');
    assert.equal(result.results[1]!.runs.leaderboard!.run!.passed, true);
    const out = events.filter((e) => e.event === 'output').map((e) => (e.data as { text: string }).text);
    assert.ok(out.includes('eval.out: test on 2 case(s): pass'), "the evaluator's output streams live");
    const statuses = events.filter((e) => e.event === 'status').map((e) => (e.data as { run?: string }).run);
    assert.ok(statuses.includes('compile'), 'the compile step is a run of its own in status events');
    const id = (events[0]!.data as { job_id: number }).job_id;
    const detail = userSubmissionDetailSchema.parse(await (await fetch(`${runner.url}/user/submissions/${id}`)).json());
    assert.equal(detail.job?.state, 'succeeded');
    assert.equal(detail.file_name, 'my_kernel.cu');
  });

  test("a submission that does not compile: the compiler's errors in the result, nothing run", async () => {
    const events = await submitAndRead(`${runner.url}/vectorsum_cu/CPU/test`, {
      fileName: 'broken.cu',
      content: solution('broken.cu'),
    });
    const result = resultEventSchema.parse(terminal(events).data);
    const ev = result.results[0]!.runs.test!;
    assert.equal(ev.run, null);
    assert.equal(ev.compilation!.success, false);
    assert.notEqual(ev.compilation!.exit_code, 0);
    assert.match(ev.compilation!.stderr, /not_declared_anywhere/);
    assert.match(result.reports[0]!, /compilation failed/);
  });
});

describe('lang: cu problem without nvcc', () => {
  let runner: TestRunner;
  let bin: string;
  before(async () => {
    bin = pythonOnlyBin();
    runner = await startTestRunner({ problemsDir, env: { ...process.env, PATH: bin } });
  });
  after(async () => {
    await runner.dispose();
    rmSync(bin, { recursive: true, force: true });
  });

  test('a clear compile error naming nvcc and what to do; the secret run is not attempted', async () => {
    const res = await post(`${runner.url}/submission/vectorsum_cu/CPU/leaderboard`, {
      fileName: 'k.cu',
      content: solution('correct.cu'),
    });
    assert.equal(res.status, 202);
    const id = ((await res.json()) as { details: { id: number } }).details.id;
    const events = await readSse(await fetch(`${runner.url}/jobs/${id}/events`));
    const result = resultEventSchema.parse(terminal(events).data);
    assert.equal(result.results.length, 1, 'no secret run after a failed build');
    const ev = result.results[0]!.runs.test!;
    assert.equal(ev.run, null);
    assert.equal(ev.compilation?.nvcc_found, false);
    assert.match(
      ev.compilation!.stderr,
      /nvcc was not found on this runner's PATH, so the vectorsum_cu task cannot be built here/,
    );
    assert.match(ev.compilation!.stderr, /--server URL/);
    assert.equal(((await (await fetch(`${runner.url}/jobs/${id}`)).json()) as { state: string }).state, 'failed');
  });

  test('a CUDA leaderboard takes .cu files, not Python', async () => {
    const res = await post(`${runner.url}/vectorsum_cu/CPU/test`, {
      fileName: 'k.py',
      content: 'def custom_kernel(d):\n    return sum(d)\n',
      extensions: true,
    });
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as { detail: string }).detail, /takes CUDA submissions/);
  });
});
