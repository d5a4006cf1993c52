// Profile mode on an MI300x8 slot: the bundled multi-process example (examples/problems/distributed/alltoall_py,
// eight rank processes started with multiprocessing spawn) under the rocprofv3 stand-in, on a real loopback runner
// whose eight MI300X come from a stand-in `rocminfo`. Every rank process gets its own output set on its own
// device's agent; the archive keeps them apart and its process manifest names pid, ppid, rank and device of each.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { resultEventSchema } from '../../../src/core/protocol/api';
import { PROCESS_MANIFEST_NAME, processManifestSchema } from '../../../src/core/protocol/processManifest';
import { eightGpuRocminfo, readZip } from './counterHelpers';
import {
  problemsDir,
  pythonOnlyBin,
  startTestRunner,
  submitAndRead,
  terminal,
  testBin,
  type TestRunner,
} from './helpers';
import { checkRankOutputs, checkSummaryCoversRanks } from './rankOutputs';

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

  test('one output set per rank process, each on its own device, named in the manifest and kept apart', async () => {
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
  });
});
