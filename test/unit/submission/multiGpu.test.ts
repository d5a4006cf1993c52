// A multi-GPU leaderboard on a GPU of our runner with too few devices: refused before sending, with where it runs
// (a setting in the editor, `serve --gpu-name` on the command line); enough devices, or a single-GPU task, go on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeLeaderboard } from '../../../src/core/gpumode/leaderboards';
import { devicesOfGpu, multiGpuRefusal, ranksNeeded } from '../../../src/core/submission/multiGpu';
import { profileGpuMissing } from '../../../src/core/submission/target';

const alltoall = describeLeaderboard({
  name: 'alltoall_py',
  deadline: null,
  gpu_types: ['CPU'],
  task: {
    multi_gpu: true,
    tests: [
      { world_size: 2, size: 3 },
      { world_size: 8, size: 16 },
    ],
    benchmarks: [{ world_size: 4, size: 64 }],
  },
});

test('a multi-GPU task lists the most ranks its tests and its benchmarks need; a single-GPU task none', () => {
  assert.deepEqual(alltoall.worldSizes, { tests: 8, benchmarks: 4 });
  assert.equal(ranksNeeded(alltoall, 'test'), 8);
  assert.equal(ranksNeeded(alltoall, 'benchmark'), 4);
  assert.equal(ranksNeeded(alltoall, 'profile'), 4);
  assert.equal(ranksNeeded(alltoall, 'leaderboard'), 8, 'leaderboard mode runs the tests too');
  const single = describeLeaderboard({
    name: 'vectoradd_py',
    deadline: null,
    gpu_types: [],
    task: { tests: [{ world_size: 8 }] },
  });
  assert.equal(single.worldSizes, undefined);
  assert.equal(ranksNeeded(single, 'test'), 0);
  // world sizes that are no count are not read as one
  const odd = describeLeaderboard({
    name: 'odd',
    deadline: null,
    gpu_types: [],
    task: { multi_gpu: true, tests: [{ world_size: 'eight' }, { world_size: -3 }, { world_size: 2.5 }] },
  });
  assert.deepEqual(odd.worldSizes, { tests: 0, benchmarks: 0 });
});

test("a GPU's devices on our runner: <GPU>x<n> is n, any other name one", () => {
  assert.equal(devicesOfGpu('MI300x8'), 8);
  assert.equal(devicesOfGpu('L4x4'), 4);
  assert.equal(devicesOfGpu('MI300'), 1);
  assert.equal(devicesOfGpu('CPU'), 1);
  assert.equal(devicesOfGpu('MI300X'), 1, 'a product letter is not a count');
});

test('too few devices: refused with the slot to run on, as a setting in the editor and a serve flag on the command line', () => {
  const editor = multiGpuRefusal(alltoall, 'CPU', 'test', { surface: 'editor', embedded: true });
  assert.ok(editor);
  assert.equal(editor.explanation.kind, 'no-gpu');
  assert.equal(editor.code, 'SUBMISSION_NO_GPU');
  const m = editor.explanation.message;
  assert.match(m, /^Not sent: alltoall_py is a multi-GPU problem: its test cases need 8 GPUs \(world_size up to 8/);
  assert.match(m, /CPU on the embedded runner gives a job one device\./);
  assert.match(m, /set kernelRunner\.embedded\.gpuName to MI300x8/);
  assert.match(m, /point kernelRunner\.server at a runner that has MI300x8/);
  assert.deepEqual(
    editor.explanation.actions.map((a) => a.id),
    ['select-target'],
  );

  const cli = multiGpuRefusal(alltoall, 'MI300', 'test', { surface: 'cli', embedded: true })!.explanation;
  assert.match(cli.message, /MI300 on the embedded runner gives a job one device/);
  assert.match(cli.message, /`kernel-runner serve --gpu-name MI300x8`/);
  assert.match(
    cli.message,
    /`kernel-runner submit FILE --server http:\/\/127\.0\.0\.1:8787 --gpu MI300x8 --mode test`/,
  );
  // the command names the user's file, quoted for the shell where it needs to be
  const named = (file: string) =>
    multiGpuRefusal(alltoall, 'CPU', 'profile', { surface: 'cli', embedded: true, file })!.explanation.message;
  assert.match(named('sub/all2all.py'), /`kernel-runner submit sub\/all2all\.py --server .* --mode profile`/);
  assert.match(named("my 'a2a'.py"), /`kernel-runner submit 'my '\\''a2a'\\''\.py' --server /);
  assert.match(named('x.py'), /its benchmark cases need 4 GPUs/);
  assert.doesNotMatch(cli.message, /kernelRunner\./, 'no editor setting on the command line');
  assert.deepEqual(cli.actions, []);

  const served = multiGpuRefusal(alltoall, 'MI300x2', 'test', {
    surface: 'cli',
    embedded: false,
    baseUrl: 'http://box:8787',
  })!.explanation.message;
  assert.match(served, /MI300x2 on the runner at http:\/\/box:8787 gives a job 2 devices/);
  assert.match(served, /`kernel-runner serve --gpu-name MI300x8`.*then pass --gpu MI300x8\.$/);
});

test('enough devices, or no multi-GPU task: nothing refused', () => {
  assert.equal(multiGpuRefusal(alltoall, 'MI300x8', 'test', { surface: 'cli', embedded: true }), null);
  assert.equal(multiGpuRefusal(alltoall, 'MI300x4', 'benchmark', { surface: 'editor', embedded: false }), null);
  const single = describeLeaderboard({ name: 'vectoradd_py', deadline: null, gpu_types: [], task: {} });
  assert.equal(multiGpuRefusal(single, 'CPU', 'test', { surface: 'cli', embedded: true }), null);
});

test('Profile on MI300 of a multi-GPU leaderboard: too few devices and no AMD GPU says where it runs; MI300x8 offered is offered', () => {
  const where = { surface: 'editor' as const, embedded: true };
  const cpu = profileGpuMissing('MI300', 'alltoall_py', ['CPU'], 'embedded runner', { info: alltoall, where });
  assert.equal(cpu.explanation.kind, 'no-gpu');
  assert.match(cpu.explanation.message, /its benchmark cases need 4 GPUs/);
  assert.match(cpu.explanation.message, /set kernelRunner\.embedded\.gpuName to MI300x4/);
  // a leaderboard that offers its multi-GPU runner: the one-click offer, as for any other AMD GPU
  const offered = profileGpuMissing('MI300', 'alltoall_py', ['MI300x8'], 'embedded runner', { info: alltoall, where });
  assert.deepEqual(
    offered.explanation.actions.map((a) => [a.id, a.gpu]),
    [['profile-on-gpu', 'MI300x8']],
  );
  // not known to be multi-GPU: the message as before
  const plain = profileGpuMissing('MI300', 'alltoall_py', ['CPU'], 'embedded runner');
  assert.match(plain.explanation.message, /has no MI300 GPU \(it offers: CPU\), and no other AMD Instinct GPU/);
});
