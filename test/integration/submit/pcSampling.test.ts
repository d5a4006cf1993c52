// `kernel-runner submit --mode profile --pc-sampling ...` as users run it: the built CLI against a real
// `kernel-runner serve` process with the stand-in rocprofv3 on PATH; the options travel as form fields beside the
// file (our multipart writer, busboy on the runner), the profile's summary carries the hot spots, the saved zip
// holds the samples, and `kernel-runner hotspots` reads that zip.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { PcHotspots } from '../../../src/core/protocol/pcSampling';
import { resultEventSchema, type ProfileResult } from '../../../src/core/protocol/api';
import { ensureBuilt, profilingPath, runCli, startServe, tempDir, type ServeProcess } from './helpers';

let serve: ServeProcess;
let work: string;

before(async () => {
  ensureBuilt();
  serve = await startServe([], { PATH: profilingPath, KR_FAKE_ROCPROF_NOISE: 'none' });
  work = tempDir('kr-submit-pcs-');
  writeFileSync(path.join(work, 'sampled.py'), 'print("sampled")\n');
});

after(async () => {
  await serve?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

test('--pc-sampling stochastic: samples in the summary and the saved zip, the interval as asked', async () => {
  const out = path.join(work, 'traces');
  const r = await runCli(
    [
      'submit',
      'sampled.py',
      '--server',
      serve.url,
      '--mode',
      'profile',
      '--pc-sampling',
      'stochastic',
      '--pc-sampling-interval',
      '512',
      '--out',
      out,
      '--json',
    ],
    { cwd: work },
  );
  assert.equal(r.code, 0, r.stderr);
  const result = resultEventSchema.parse((JSON.parse(r.stdout) as { result: unknown }).result);
  const ev = result.results[0]!.runs['profile.0']!;
  assert.match(ev.run!.command, /--pc-sampling-method stochastic --pc-sampling-unit cycles --pc-sampling-interval 512/);
  const hot = (ev.profile as ProfileResult).summary?.hotspots;
  assert.equal(hot?.interval, 512);
  assert.equal(hot?.samples, 97);
  const zips = readdirSync(out).filter((f) => f.endsWith('.zip')); // beside it: its digest (.digest.json)
  assert.equal(zips.length, 1);
  const again = await runCli(['hotspots', path.join(out, zips[0]!), '--json']);
  assert.equal(again.code, 0, again.stderr);
  assert.equal((JSON.parse(again.stdout) as PcHotspots).samples, 97);
});

test('refusals: a bad interval (from the runner), --pc-sampling outside profile mode, on GPU MODE', async () => {
  const bad = await runCli(
    [
      'submit',
      'sampled.py',
      '--server',
      serve.url,
      '--mode',
      'profile',
      '--pc-sampling',
      'stochastic',
      '--pc-sampling-interval',
      '1000',
    ],
    { cwd: work },
  );
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /power of two from 256/);
  const mode = await runCli(['submit', 'sampled.py', '--server', serve.url, '--pc-sampling', 'host_trap'], {
    cwd: work,
  });
  assert.equal(mode.code, 2);
  assert.match(mode.stderr, /--pc-sampling: only with --mode profile/);
  const gpumode = await runCli(
    ['submit', 'sampled.py', '--server', 'gpumode', '--mode', 'profile', '--pc-sampling', 'host_trap'],
    { cwd: work },
  );
  assert.equal(gpumode.code, 2);
  assert.match(gpumode.stderr, /--pc-sampling is for our runners/);
});
