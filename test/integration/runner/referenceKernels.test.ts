// `serve --problems <checkout>/problems` on a reference-kernels layout (our fixture, test/fixtures/reference-kernels):
// leaderboard names, GPUs and deadlines from the competition file beside the problem folders (a folder under two
// names, a folder in none under its folder name, an entry outside the folder not served), descriptions from
// task.yml, case lines as upstream writes them (Python's repr of lists and booleans), `ranking_by: last`, and a
// multi-GPU task on all eight devices of an MI300x8 slot. The eight MI300X come from a stand-in `rocminfo` that
// this test writes into a PATH folder of its own; the runs are real python3 processes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  leaderboardListSchema,
  resultEventSchema,
  userSubmissionDetailSchema,
  type Leaderboard,
} from '../../../src/core/protocol/api';
import {
  post,
  pythonOnlyBin,
  repoRoot,
  startTestRunner,
  submitAndRead,
  terminal,
  testBin,
  waitFor,
  type TestRunner,
} from './helpers';
import { eightGpuRocminfo } from './counterHelpers';

const fixture = path.join(repoRoot, 'test/fixtures/reference-kernels/problems');
const folder = (name: string) => path.join(fixture, 'kr', name);
const template = (name: string) => readFileSync(path.join(folder(name), 'submission.py'), 'utf8');
const description = (name: string) =>
  (parseYaml(readFileSync(path.join(folder(name), 'task.yml'), 'utf8')) as { description: string }).description.trim();

describe('a reference-kernels problems folder with a competition file', { skip: process.platform === 'win32' }, () => {
  let runner: TestRunner;
  let bin: string;
  let leaderboards: Leaderboard[];
  const board = (name: string) => leaderboards.find((l) => l.name === name) as Leaderboard;
  before(async () => {
    bin = pythonOnlyBin();
    eightGpuRocminfo(bin);
    // test/bin holds the rocprofv3 stand-in, for profile mode
    runner = await startTestRunner({
      problemsDir: fixture,
      profiler: 'rocprofv3',
      env: { ...process.env, PATH: `${bin}${path.delimiter}${testBin}` },
    });
    leaderboards = leaderboardListSchema.parse(await (await fetch(`${runner.url}/leaderboards`)).json());
  });
  after(async () => {
    await runner.dispose();
    rmSync(bin, { recursive: true, force: true });
  });

  test('the runner has eight single-device slots and one MI300x8 slot of all of them', () => {
    assert.deepEqual(runner.info.gpus, ['MI300', 'MI300x8']);
  });

  test('names, GPUs and deadlines from the competition file; descriptions from task.yml; a folder in none keeps its name', () => {
    assert.deepEqual(leaderboards.map((l) => l.name).sort(), [
      'kr-all2all',
      'kr-allgather',
      'kr-sumlist',
      'kr-sumlist-v2',
      'scratch_py',
      'script',
    ]);
    const rows = ['kr-sumlist', 'kr-sumlist-v2', 'kr-allgather', 'scratch_py'].map((n) => [
      n,
      board(n).gpu_types,
      board(n).deadline,
    ]);
    assert.deepEqual(rows, [
      ['kr-sumlist', ['MI300'], '2099-01-31T12:30:00+00:00'],
      ['kr-sumlist-v2', ['MI300', 'MI300x8'], '2099-06-30T00:00:00+00:00'],
      ['kr-allgather', ['MI300x8'], '2099-03-01T07:00:00+00:00'],
      // in no competition: the runner's single-device GPUs, no deadline
      ['scratch_py', ['MI300'], null],
    ]);
    // kernelbot's leaderboard description is its task.yml's; both names of one folder share it
    assert.equal(board('kr-sumlist').description, description('sumlist_py'));
    assert.equal(board('kr-sumlist-v2').description, description('sumlist_py'));
    assert.equal(board('kr-allgather').description, description('allgather_py'));
    assert.equal(board('kr-allgather').task.multi_gpu, true);
    assert.equal(board('kr-sumlist').task.ranking_by, 'last');
    // a task.yml in the layout of GPU MODE's amd_distributed problems is served as it is
    const all2all = board('kr-all2all');
    assert.deepEqual(all2all.gpu_types, ['MI300x8']);
    assert.equal(all2all.deadline, '2099-10-15T07:00:00+00:00');
    assert.equal(all2all.task.multi_gpu, true);
    assert.equal(all2all.task.ranking_by, 'geom');
    assert.equal(all2all.description, description('../kr_distributed/alltoall'));
    assert.deepEqual(all2all.task.tests?.[1], { world_size: 8, m: 64, n: 128, k: 256, has_bias: false, seed: 1234 });
    assert.equal(all2all.task.benchmarks?.length, 2);
    // spec values are served as task.yml has them: lists, booleans, strings, floats
    assert.deepEqual(board('kr-sumlist').task.tests?.[0], { xs: [1, 2, 3], scale: 2, negate: true, seed: 11 });
    assert.deepEqual(board('kr-sumlist').task.benchmarks?.[0], { xs: [5, 6], scale: 2.5, negate: false, seed: 21 });
  });

  test('an entry whose directory leaves the problems folder is not served, and the runner says why', async () => {
    assert.ok(!leaderboards.some((l) => l.name === 'kr-escape'));
    assert.ok(
      runner.info.warnings.some((w) => /kr-escape.*outside the problems folder/.test(w)),
      runner.info.warnings.join('\n'),
    );
    const res = await post(`${runner.url}/kr-escape/MI300/test`, { fileName: 'a.py', content: 'x = 1\n' });
    assert.equal(res.status, 404);
  });

  test("GET /gpus/{lb} is the leaderboard's list; a GPU it does not list is refused with upstream's text", async () => {
    assert.deepEqual(await (await fetch(`${runner.url}/gpus/kr-sumlist-v2`)).json(), ['MI300', 'MI300x8']);
    assert.deepEqual(await (await fetch(`${runner.url}/gpus/kr-allgather`)).json(), ['MI300x8']);
    const res = await post(`${runner.url}/kr-allgather/MI300/test`, {
      fileName: 'submission.py',
      content: template('allgather_py'),
    });
    assert.equal(res.status, 400);
    assert.equal(
      ((await res.json()) as { detail: string }).detail,
      "GPU type 'MI300' is not supported for leaderboard 'kr-allgather'. Supported GPUs: MI300x8",
    );
  });

  test("case lines are written as upstream writes them: str() of each value, repr inside lists (True, [96, 128], 'a')", async () => {
    const events = await submitAndRead(`${runner.url}/kr-sumlist/MI300/test`, {
      fileName: 'submission.py',
      content: template('sumlist_py'),
    });
    const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!.run!;
    assert.equal(run.passed, true, run.stderr);
    assert.deepEqual(
      [0, 1, 2].map((i) => run.result[`test.${i}.spec`]),
      [
        'xs: [1, 2, 3]; scale: 2; negate: True; seed: 11',
        'xs: [96, 128]; scale: 1; negate: False; dtype: fp32; seed: 12',
        `xs: []; scale: 3.0; negate: False; tags: ['a', "it's"]; seed: 13`,
      ],
    );
    // a single-device job sees one device; a task without multi_gpu gets no POPCORN_GPUS, one without a seed no seed
    assert.match(run.result['kr.devices']!, /^[0-7]$/);
    assert.equal(run.result['kr.gpus'], 'none');
    assert.equal(run.result['kr.seed'], 'none');
  });

  test('ranking_by: last: benchmark and leaderboard runs get only the last benchmark case, and the score is its mean', async () => {
    const res = await post(`${runner.url}/submission/kr-sumlist/MI300/leaderboard`, {
      fileName: 'submission.py',
      content: template('sumlist_py'),
    });
    assert.equal(res.status, 202);
    const id = ((await res.json()) as { details: { id: number } }).details.id;
    const detail = await waitFor(
      'the leaderboard job',
      async () => {
        const d = userSubmissionDetailSchema.parse(await (await fetch(`${runner.url}/user/submissions/${id}`)).json());
        return d.done ? d : undefined;
      },
      120_000,
    );
    assert.equal(detail.job?.status, 'succeeded');
    const rec = (await (await fetch(`${runner.url}/jobs/${id}`)).json()) as { result: unknown };
    const [pub, secret] = resultEventSchema.parse(rec.result).results;
    for (const full of [pub!, secret!]) {
      for (const key of ['benchmark', 'leaderboard']) {
        const r = full.runs[key]!.run!.result;
        assert.equal(r['benchmark-count'], '1', key);
        assert.equal(r['benchmark.0.spec'], 'xs: [7, 8, 9]; scale: 1; negate: True; seed: 22', key);
      }
      assert.equal(full.runs.test!.run!.result['test-count'], '3', 'tests are never cut');
    }
    const ranked = detail.runs.find((r) => r.mode === 'leaderboard' && !r.secret)!;
    assert.equal(ranked.score, Number(pub!.runs.leaderboard!.run!.result['benchmark.0.mean']) / 1e9);
  });

  test('profile mode is not cut by ranking_by: a run per benchmark case, each with its ProfileResult', async () => {
    const events = await submitAndRead(`${runner.url}/kr-sumlist/MI300/profile`, {
      fileName: 'submission.py',
      content: template('sumlist_py'),
    });
    const runs = resultEventSchema.parse(terminal(events).data).results[0]!.runs;
    assert.deepEqual(Object.keys(runs), ['profile.0', 'profile.1']);
    assert.equal(runs['profile.0']!.run!.result['benchmark.0.spec'], 'xs: [5, 6]; scale: 2.5; negate: False; seed: 21');
    assert.equal(runs['profile.1']!.run!.result['benchmark.0.spec'], 'xs: [7, 8, 9]; scale: 1; negate: True; seed: 22');
    for (const ev of Object.values(runs)) {
      assert.equal(ev.run!.success, true);
      assert.equal(ev.profile?.profiler, 'rocPROF');
    }
  });

  test('a profiled run that does not succeed (the submission crashes) has no ProfileResult, as upstream', async () => {
    const crash = 'def custom_kernel(data):\n    raise RuntimeError("boom")\n';
    const events = await submitAndRead(`${runner.url}/kr-sumlist/MI300/profile`, {
      fileName: 'crash.py',
      content: crash,
    });
    const runs = resultEventSchema.parse(terminal(events).data).results[0]!.runs;
    for (const ev of Object.values(runs)) {
      assert.equal(ev.run!.success, false);
      assert.match(ev.run!.stderr, /RuntimeError: boom/);
      assert.equal(ev.profile, null);
    }
  });

  test('a multi-GPU task on MI300x8: POPCORN_GPUS=8 and all eight devices', async () => {
    const events = await submitAndRead(`${runner.url}/kr-allgather/MI300x8/test`, {
      fileName: 'submission.py',
      content: template('allgather_py'),
    });
    const full = resultEventSchema.parse(terminal(events).data).results[0]!;
    const run = full.runs.test!.run!;
    assert.equal(run.passed, true, run.stderr);
    assert.equal(run.result['kr.gpus'], '8');
    assert.equal(run.result['kr.devices'], '0,1,2,3,4,5,6,7');
    assert.equal(full.system.device_count, 8);
    assert.equal(full.system.runtime, 'ROCm');
  });

  test('the same folder under its second name is a leaderboard of its own: multi-GPU slot allowed there, no POPCORN_GPUS (not a multi-GPU task)', async () => {
    const content = template('sumlist_py').replace(/^#!POPCORN[^\n]*\n/, '');
    const events = await submitAndRead(`${runner.url}/kr-sumlist-v2/MI300x8/test`, {
      fileName: 'submission.py',
      content,
    });
    const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!.run!;
    assert.equal(run.passed, true, run.stderr);
    assert.equal(run.result['kr.devices'], '0,1,2,3,4,5,6,7');
    assert.equal(run.result['kr.gpus'], 'none');
  });
});

describe('a leaderboard GPU this runner does not have', () => {
  let runner: TestRunner;
  let bin: string;
  before(async () => {
    // no stand-in rocminfo: a CPU runner
    bin = pythonOnlyBin();
    runner = await startTestRunner({ problemsDir: fixture, env: { ...process.env, PATH: bin } });
  });
  after(async () => {
    await runner.dispose();
    rmSync(bin, { recursive: true, force: true });
  });

  test('is listed (the competition says MI300) but refused, saying how to serve it', async () => {
    assert.deepEqual(await (await fetch(`${runner.url}/gpus/kr-sumlist`)).json(), ['MI300']);
    const res = await post(`${runner.url}/kr-sumlist/MI300/test`, {
      fileName: 'submission.py',
      content: template('sumlist_py'),
    });
    assert.equal(res.status, 400);
    assert.match(
      ((await res.json()) as { detail: string }).detail,
      /runs on MI300, which this runner does not have \(it has CPU\): start the runner with --gpu-name MI300/,
    );
    const multi = await post(`${runner.url}/kr-allgather/MI300x8/test`, {
      fileName: 'submission.py',
      content: template('allgather_py'),
    });
    assert.match(
      ((await multi.json()) as { detail: string }).detail,
      /a runner with 8 GPUs serves them as MI300x8 when started with --gpu-name MI300/,
    );
  });
});
