// Profile mode with PC sampling on our runner, through the stand-in `test/bin/rocprofv3` (which checks the
// PC-sampling switches as rocprofv3.py does and replays rocprofiler-sdk's recorded samples): the form fields become
// rocprofv3's switches, the summary carries the hot spots with the interval asked for, bad requests are refused
// before anything runs, and an agent without PC sampling leaves the run standing with a note.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { EXTENSIONS_HEADER, resultEventSchema, type ProfileResult } from '../../../src/core/protocol/api';
import { traceSummarySchema } from '../../../src/core/protocol/traceSummary';
import { readSse, repoRoot, startTestRunner, terminal, testBin, type TestRunner } from './helpers';

const env = {
  ...process.env,
  PATH: `${testBin}${path.delimiter}${process.env.PATH ?? ''}`,
  KR_FAKE_ROCPROF_NOISE: 'none',
};
const PROGRAM = 'print("sampled")\n';

function post(url: string, fields: Record<string, string>): Promise<Response> {
  const fd = new FormData();
  fd.append('file', new Blob([new TextEncoder().encode(PROGRAM)]), 'sampled.py');
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  return fetch(url, { method: 'POST', body: fd, headers: { [EXTENSIONS_HEADER]: '1' } });
}

async function profileRun(runner: TestRunner, fields: Record<string, string>) {
  const res = await post(`${runner.url}/script/CPU/profile`, fields);
  assert.equal(res.status, 200, await res.clone().text());
  const result = resultEventSchema.parse(terminal(await readSse(res)).data);
  const ev = result.results[0]!.runs['profile.0']!;
  return { run: ev.run!, profile: ev.profile as ProfileResult };
}

describe('PC sampling in profile mode (stand-in rocprofv3)', () => {
  let runner: TestRunner;
  let unsupported: TestRunner;
  before(async () => {
    runner = await startTestRunner({ profiler: 'auto', env });
    unsupported = await startTestRunner({
      profiler: 'auto',
      env: { ...env, KR_FAKE_ROCPROF_PC_SAMPLING: 'unsupported' },
    });
  });
  after(async () => {
    await runner.dispose();
    await unsupported.dispose();
  });

  test('stochastic: rocprofv3 gets the switches, the summary the hot spots with the interval', async () => {
    const { run, profile } = await profileRun(runner, { pc_sampling: 'stochastic', pc_sampling_interval: '65536' });
    assert.equal(run.passed, true, run.stderr);
    assert.match(
      run.command,
      /--kernel-trace .*--pc-sampling-beta-enabled --pc-sampling-method stochastic --pc-sampling-unit cycles --pc-sampling-interval 65536 --output-format/,
    );
    const summary = traceSummarySchema.parse(profile.summary);
    const hot = summary.hotspots;
    assert.ok(hot, 'hot spots in the summary');
    assert.equal(hot.method, 'stochastic');
    assert.equal(hot.interval, 65536);
    assert.equal(hot.intervalUnit, 'cycles');
    // the recorded file has 97 samples (see its PROVENANCE.md)
    assert.equal(hot.samples, 97);
    assert.ok(hot.kernels[0]!.lines.length > 0);
  });

  test('host-trap with its default interval (1 us); off, or no field, adds nothing', async () => {
    const { run, profile } = await profileRun(runner, { pc_sampling: 'host_trap' });
    assert.match(run.command, /--pc-sampling-method host_trap --pc-sampling-unit time --pc-sampling-interval 1 /);
    const hot = traceSummarySchema.parse(profile.summary).hotspots;
    assert.equal(hot?.samples, 21);
    assert.equal(hot?.intervalUnit, 'time');
    const plain = await profileRun(runner, { pc_sampling: 'off' });
    assert.doesNotMatch(plain.run.command, /pc-sampling/);
    assert.equal(traceSummarySchema.parse(plain.profile.summary).hotspots, undefined);
  });

  test('bad requests are refused with what to send instead, before anything runs', async () => {
    const cases: Array<[Record<string, string>, RegExp, string]> = [
      [{ pc_sampling: 'stochastic', pc_sampling_interval: '1000' }, /power of two from 256/, 'profile'],
      [{ pc_sampling: 'stochastic', pc_sampling_interval: '128' }, /power of two from 256/, 'profile'],
      [{ pc_sampling: 'stochastic', pc_sampling_unit: 'time' }, /counts its interval in cycles/, 'profile'],
      [{ pc_sampling: 'host_trap', pc_sampling_interval: '-5' }, /whole number >= 1/, 'profile'],
      [{ pc_sampling: 'everything' }, /off, host_trap or stochastic/, 'profile'],
      [{ pc_sampling_interval: '256' }, /need pc_sampling=host_trap or stochastic/, 'profile'],
      [
        { pc_sampling: 'host_trap' },
        /pc_sampling, pc_sampling_interval: profile options apply to profile mode only, not test/,
        'test',
      ],
    ];
    for (const [fields, message, mode] of cases) {
      const res = await post(`${runner.url}/script/CPU/${mode}`, fields);
      assert.equal(res.status, 400, JSON.stringify(fields));
      assert.match(((await res.json()) as { detail: string }).detail, message);
    }
    const jobs = (await (await fetch(`${runner.url}/user/submissions`)).json()) as unknown[];
    assert.equal(
      jobs.filter((j) => (j as { file_name: string }).file_name === 'sampled.py').length,
      3,
      'only the three accepted profiles above ran',
    );
  });

  test('an agent without PC sampling: the run stands, the profile says why there are no samples', async () => {
    const { run, profile } = await profileRun(unsupported, { pc_sampling: 'stochastic' });
    assert.equal(run.passed, true, run.stderr);
    const summary = traceSummarySchema.parse(profile.summary);
    assert.equal(summary.hotspots, undefined);
    assert.match(
      run.stderr,
      /\[kernel-runner\] PC sampling \(stochastic, every 1048576 cycles\) gave no samples: this GPU, its driver or firmware may not support/,
    );
  });
});

// A Python submission whose HIP kernel torch's load_inline builds, run against the stand-in torch
// (test/fixtures/fake-torch: it keeps torch's build cache, a build per change of sources or flags, none per change
// of the environment, and says which HIPCC_COMPILE_FLAGS_APPEND the build it loaded had). The compile step's
// `python3 submission.py` makes the build that the profiled run then loads: with PC sampling it must have line
// tables, or the samples carry no source lines.
const INLINE_SUBMISSION = `#!POPCORN leaderboard vectoradd_py
import os

# the build cache in the job's folder (torch's default, ~/.cache, is the runner user's home here)
os.environ["TORCH_EXTENSIONS_DIR"] = os.path.join(os.getcwd(), "torch_extensions")
from torch.utils.cpp_extension import load_inline

CUDA_SRC = r"""
__global__ void add_kernel(const float* a, const float* b, float* c, int n) {
    int i = threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""
module = load_inline(name="kr_inline_add", cpp_sources="", cuda_sources=CUDA_SRC, verbose=True)
print(f"kr-inline: loaded a build made with HIPCC_COMPILE_FLAGS_APPEND={module.build_flags!r}")


def custom_kernel(data):
    a, b = data
    return [x + y for x, y in zip(a, b)]
`;

describe('PC sampling of inline HIP built by load_inline (stand-in rocprofv3 and torch)', () => {
  let runner: TestRunner;
  before(async () => {
    runner = await startTestRunner({
      profiler: 'auto',
      env: { ...env, PYTHONPATH: path.join(repoRoot, 'test/fixtures/fake-torch'), PYTHONDONTWRITEBYTECODE: '1' },
    });
  });
  after(async () => {
    await runner.dispose();
  });

  async function submit(mode: string, fields: Record<string, string>) {
    const fd = new FormData();
    fd.append('file', new Blob([new TextEncoder().encode(INLINE_SUBMISSION)]), 'inline_add.py');
    for (const [k, v] of Object.entries(fields)) fd.append(k, v);
    const res = await fetch(`${runner.url}/vectoradd_py/CPU/${mode}`, {
      method: 'POST',
      body: fd,
      headers: { [EXTENSIONS_HEADER]: '1' },
    });
    assert.equal(res.status, 200, await res.clone().text());
    const result = resultEventSchema.parse(terminal(await readSse(res)).data);
    return result.results[0]!.runs[mode === 'profile' ? 'profile.0' : mode]!;
  }

  test('the compile step builds with line tables, so the profiled run loads a build with them', async () => {
    const ev = await submit('profile', { pc_sampling: 'stochastic' });
    assert.equal(ev.run!.passed, true, ev.run!.stderr);
    assert.match(ev.compilation!.stdout, /-DTORCH_EXTENSION_NAME=kr_inline_add .*\(appended: '-gline-tables-only'\)/);
    assert.match(ev.run!.stdout, /No modifications detected for re-loaded extension module kr_inline_add/);
    assert.match(ev.run!.stdout, /kr-inline: loaded a build made with HIPCC_COMPILE_FLAGS_APPEND='-gline-tables-only'/);
  });

  test('without PC sampling nothing is appended to the build', async () => {
    const ev = await submit('profile', {});
    assert.equal(ev.run!.passed, true, ev.run!.stderr);
    assert.match(ev.compilation!.stdout, /-DTORCH_EXTENSION_NAME=kr_inline_add .*\(appended: ''\)/);
    assert.match(ev.run!.stdout, /kr-inline: loaded a build made with HIPCC_COMPILE_FLAGS_APPEND=''/);
  });
});
