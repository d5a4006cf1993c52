// Profile mode on an MI300x8 slot: the bundled multi-process example (examples/problems/distributed/alltoall_py,
// eight rank processes started with multiprocessing spawn) under the rocprofv3 stand-in, on a real loopback runner
// whose eight MI300X come from a stand-in `rocminfo`. Every rank process gets its own output set on its own
// device's agent; the archive keeps them apart and its process manifest names pid, ppid, rank and device of each.
// The example's test mode is checked here too (it needs the same eight-GPU runner).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { EXTENSIONS_HEADER, resultEventSchema } from '../../../src/core/protocol/api';
import {
  PROCESS_MANIFEST_NAME,
  processManifestSchema,
  type ProcessManifest,
} from '../../../src/core/protocol/processManifest';
import { eightGpuRocminfo, readZip } from './counterHelpers';
import {
  problemsDir,
  pythonOnlyBin,
  readSse,
  startTestRunner,
  submitAndRead,
  terminal,
  testBin,
  type TestRunner,
} from './helpers';
import { checkRankOutputs, checkSummaryCoversRanks } from './rankOutputs';
import { checkRanksEndToEnd } from './rankSummary';
import { decodePftrace } from '../../support/pftrace';
import { checkRankCounters } from './rankCounters';

const template = readFileSync(path.join(problemsDir, 'distributed/alltoall_py/submission.py'), 'utf8');

describe('profile of a multi-process problem on MI300x8', { skip: process.platform === 'win32' }, () => {
  let runner: TestRunner;
  let bin: string;
  before(async () => {
    bin = pythonOnlyBin();
    eightGpuRocminfo(bin);
    runner = await startTestRunner({
      profiler: 'rocprofv3',
      rocpd: true,
      env: { ...process.env, PATH: `${bin}${path.delimiter}${testBin}`, KR_FAKE_ROCPROF_NOISE: 'none' },
    });
  });
  after(async () => {
    await runner.dispose();
    rmSync(bin, { recursive: true, force: true });
  });

  test('the example is a multi-GPU leaderboard served on MI300x8', async () => {
    const gpus = (await (await fetch(`${runner.url}/gpus/alltoall_py`)).json()) as string[];
    assert.ok(gpus.includes('MI300x8'), gpus.join(', '));
  });

  test('test mode: the eight rank processes pass; a submission that does not exchange fails, naming the ranks', async () => {
    const ok = resultEventSchema.parse(
      terminal(
        await submitAndRead(`${runner.url}/alltoall_py/MI300x8/test`, { fileName: 'submission.py', content: template }),
      ).data,
    ).results[0]!.runs.test!.run!;
    assert.equal(ok.passed, true, ok.stderr);
    assert.equal(ok.result['test.1.spec'], 'world_size: 8; size: 16; seed: 5236');
    assert.equal(ok.result['test.1.status'], 'pass');
    const wrong = readFileSync(
      path.join(problemsDir, 'distributed/alltoall_py/solutions/wrong/no_exchange.py'),
      'utf8',
    );
    const bad = resultEventSchema.parse(
      terminal(await submitAndRead(`${runner.url}/alltoall_py/MI300x8/test`, { fileName: 'wrong.py', content: wrong }))
        .data,
    ).results[0]!.runs.test!.run!;
    assert.equal(bad.passed, false);
    assert.equal(bad.result['test.0.status'], 'fail');
    // the first case has two ranks, the second eight: every rank fails its check, the first two are named
    assert.match(bad.result['test.0.error'] ?? '', /^rank 0: 3 mismatched elements: .*; rank 1: 3 mismatched [^;]*$/);
    assert.equal(bad.result['test.1.status'], 'fail');
    assert.match(
      bad.result['test.1.error'] ?? '',
      /^rank 0: 112 mismatched .*; rank 1: 112 mismatched .*; \(and 6 more ranks\)$/,
    );
  });

  test('one output set per rank process, each on its own device, named in the manifest and kept apart; read per rank by the CLI and the digest', async () => {
    const events = await submitAndRead(`${runner.url}/alltoall_py/MI300x8/profile`, {
      fileName: 'submission.py',
      content: template,
      extensions: true, // the trace summary is our extension
    });
    const full = resultEventSchema.parse(terminal(events).data).results[0]!;
    const run = full.runs['profile.0']!;
    assert.equal(run.run!.passed, true, run.run!.stderr);
    const profile = run.profile!;
    assert.ok(profile.trace, 'the archive is inline');
    const zip = await readZip(Buffer.from(profile.trace, 'base64'));
    const manifest = processManifestSchema.parse(JSON.parse(zip.get(PROCESS_MANIFEST_NAME)!.toString('utf8')));
    checkRankOutputs(manifest, (name) => zip.get(name)?.toString('utf8'), 8);
    checkSummaryCoversRanks(profile.summary, manifest, (name) => zip.get(name)?.toString('utf8'));
    const read = await checkRanksEndToEnd(Buffer.from(profile.trace, 'base64'), manifest, 8);
    assert.deepEqual(profile.summary?.ranks, read.ranks, "the runner's summary is the CLI's");
    checkGpuTracks(zip, manifest);
  });

  test('counters, a kernel filter and PC sampling apply to every rank: each pass traces all eight, each its own; roofline and hot spots read per rank', async () => {
    const fd = new FormData();
    fd.append('file', new Blob([new TextEncoder().encode(template)]), 'submission.py');
    // `Gemm`: the kernel of the recorded rocpd database each rank's is a copy of
    const fields = { counters: 'roofline', kernel_regex: 'addition|subtract|Gemm', pc_sampling: 'host_trap' };
    for (const [k, v] of Object.entries(fields)) fd.append(k, v);
    const res = await fetch(`${runner.url}/alltoall_py/MI300x8/profile`, {
      method: 'POST',
      body: fd,
      headers: { [EXTENSIONS_HEADER]: '1' },
    });
    assert.equal(res.status, 200, await res.clone().text());
    const run = resultEventSchema.parse(terminal(await readSse(res)).data).results[0]!.runs['profile.0']!;
    assert.equal(run.run!.passed, true, run.run!.stderr);
    const zip = await readZip(Buffer.from(run.profile!.trace, 'base64'));
    const manifest = processManifestSchema.parse(JSON.parse(zip.get(PROCESS_MANIFEST_NAME)!.toString('utf8')));
    const passOf = (out: string) => /^(pass_\d+)\//.exec(out)?.[1] ?? '';
    const passes = [...new Set(manifest.processes.flatMap((p) => p.outputs.map(passOf)))].sort();
    assert.deepEqual(passes, ['pass_1', 'pass_2', 'pass_3'], 'roofline on gfx942: three passes, each a whole run');
    for (const pass of passes) {
      const ranks = manifest.processes.filter((p) => p.rank !== null && passOf(p.outputs[0]!) === pass);
      assert.deepEqual(ranks.map((p) => p.rank).sort(), [0, 1, 2, 3, 4, 5, 6, 7]);
      for (const p of ranks) {
        assert.deepEqual(p.devices, [p.rank]);
        const counters = zip.get(p.outputs.find((o) => o.endsWith('_counter_collection.csv'))!)!.toString('utf8');
        const rows = counters.trim().split('\n').slice(1);
        assert.ok(rows.length > 0, `${pass} rank ${p.rank}: counter rows`);
        const agent = `"Agent ${p.rank! + 2}"`;
        assert.ok(
          rows.every((r) => r.includes(agent) && /addition|subtract/.test(r)),
          `${pass} rank ${p.rank}: only its own agent's dispatches of the selected kernels`,
        );
        assert.ok(
          p.outputs.some((o) => o.endsWith('_pc_sampling_host_trap.csv')),
          `${pass} rank ${p.rank}: PC samples of its own`,
        );
      }
    }
    await checkRankCounters(Buffer.from(run.profile!.trace, 'base64'), manifest, 8);
  });
});

/** combined.pftrace: one parent track per rank's GPU, every queue track under its GPU, every rank's events kept. */
function checkGpuTracks(zip: Map<string, Buffer>, manifest: ProcessManifest): void {
  const merged = decodePftrace(zip.get('combined.pftrace')!);
  const inputs = manifest.processes.flatMap((p) =>
    p.outputs.filter((o) => o.endsWith('_results.pftrace')).map((o) => decodePftrace(zip.get(o)!)),
  );
  assert.equal(inputs.length, 8, 'each rank keeps its own trace');
  const uuids = merged.tracks.map((t) => t.uuid);
  assert.equal(new Set(uuids).size, uuids.length, 'no track uuid defined twice');
  const gpus = merged.tracks.filter((t) => t.parent === undefined);
  const expected = manifest.processes
    .filter((p) => p.rank !== null && p.devices.length === 1)
    .map((p) => `GPU ${p.devices[0]} (Agent ${p.devices[0]! + 2}) · rank ${p.rank}`)
    .sort();
  assert.equal(expected.length, 8);
  assert.deepEqual(gpus.map((t) => t.name).sort(), expected);
  const queues = merged.tracks.filter((t) => t.parent !== undefined);
  assert.equal(
    queues.length,
    inputs.reduce((n, d) => n + d.tracks.length, 0),
    'every queue track kept',
  );
  for (const q of queues) {
    const gpu = gpus.find((g) => g.uuid === q.parent);
    assert.ok(gpu, `${q.name}: under a GPU track`);
    assert.ok(gpu.name.includes(`(${/Agent \d+/.exec(q.name)![0]})`), `${q.name} under ${gpu.name}`);
  }
  assert.equal(
    merged.events.length,
    inputs.reduce((n, d) => n + d.events.length, 0),
    'every event kept',
  );
}
