// The BUILT CLI on rocprof-compute workload folders: `summarize <dir> --json` prints the roofline and
// speed-of-light objects, the human output a roofline table, and a workload missing counters says which and what
// it could not compute.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatRoofPercent } from '../../src/core/format/roofline';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(repoRoot, 'dist/cli.cjs');
const own = (name: string): string => path.join(repoRoot, 'test/fixtures/roofline', name);
const amd = (name: string): string => path.resolve(repoRoot, '../shared/fixtures/rocprof-compute', name);

before(() => {
  if (!existsSync(cli)) {
    const r = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot, stdio: 'inherit' });
    assert.equal(r.status, 0, 'build failed');
  }
});

function run(...args: string[]) {
  return spawnSync(process.execPath, [cli, 'summarize', ...args], {
    cwd: tmpdir(),
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
}

test('summarize --json on a workload folder with roofline.csv: measured peaks, a point per kernel, speed-of-light', () => {
  const r = run(amd('dispatch_0/MI200'), '--json');
  assert.equal(r.status, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.equal(s.roofline.peaksFrom, 'roofline.csv');
  assert.equal(s.roofline.peaks.hbmGBps, 1388.7638);
  assert.equal(s.roofline.source.arch, 'gfx90a');
  assert.deepEqual(
    s.roofline.kernels.map((k: { name: string; dispatches: number; hbmBytes: number; bound: string }) => [
      k.name,
      k.dispatches,
      k.hbmBytes,
      k.bound,
    ]),
    [['vecCopy(double*, double*, double*, int, int) [clone .kd]', 1, 16777728, 'memory']],
  );
  const l2 = s.speedOfLight.kernels[0].metrics.find((m: { metric: string }) => m.metric === 'L2 Cache Hit Rate');
  assert.ok(Math.abs(l2.value - 35.782104293637) < 1e-6);
  assert.equal(s.kernels[0].calls, 1);
});

test('summarize on a workload missing counters: the table, and which counters were missing and what they left out', () => {
  const json = run(own('mi300x-missing'), '--json');
  assert.equal(json.status, 0, json.stderr);
  const s = JSON.parse(json.stdout);
  const missing = new Map(
    s.roofline.missing.map((m: { quantity: string; counters: string[] }) => [m.quantity, m.counters]),
  );
  assert.deepEqual(missing.get('flops'), ['SQ_INSTS_VALU_MFMA_MOPS_F8']);
  assert.deepEqual(missing.get('hbmBytes'), [
    'TCC_BUBBLE_sum',
    'TCC_EA0_RDREQ_32B_sum',
    'TCC_EA0_RDREQ_sum',
    'TCC_EA0_WRREQ_sum',
    'TCC_EA0_WRREQ_64B_sum',
  ]);
  const gemm = s.roofline.kernels.find((k: { name: string }) => k.name.startsWith('gemm_f16'));
  assert.equal(gemm.hbmBytes, 0);
  assert.ok(gemm.flops > 0);

  const text = run(own('mi300x-missing'));
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /Roofline \(gfx942, spec peaks \(sysinfo\); FP32 roof\)/);
  assert.match(text.stdout, /Kernel\s+Dispatches\s+Bound\s+AI \(HBM\)\s+GFLOP\/s\s+% of roof/);
  assert.match(text.stdout, /gemm_f16\s+1\s+memory\s+0\s+\d+/);
  assert.match(
    text.stdout,
    /Missing: SQ_INSTS_VALU_MFMA_MOPS_F8, .*TCC_BUBBLE_sum.*; so flops, mfmaFlops, hbmBytes, l2Bytes lack that part/,
  );
});

test('summarize --json on a gfx950 rocpd-layout folder: FLOPs with F6F4, compute bound against spec peaks', () => {
  const r = run(own('mi350-rocpd'), '--json');
  assert.equal(r.status, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.equal(s.roofline.source.format, 'rocprof-compute-rocpd');
  assert.equal(s.roofline.peaksFrom, 'spec');
  const gemm = s.roofline.kernels.find((k: { name: string }) => k.name.startsWith('gemm_f16'));
  assert.equal(gemm.dispatches, 2);
  assert.ok(gemm.mfmaByType.f6f4 > 0);
  assert.ok(gemm.aiHbm > 0 && gemm.gflopsPerSecond > 0);
  // AI ~18 against the ridge min(78643.2, 157286.4) / 8192 = 9.6
  assert.equal(gemm.bound, 'compute');
  // the table's % of roof reads as the lens's ("compute-bound, 45% of FP32 roof"): the same formatter
  assert.ok(gemm.percentOfRoof > 0);
  const text = run(own('mi350-rocpd'));
  assert.equal(text.status, 0, text.stderr);
  const pct = formatRoofPercent(gemm.percentOfRoof);
  assert.match(text.stdout, new RegExp(`gemm_f16.*\\s${pct.replace('.', '\\.')}$`, 'm'), text.stdout);
});

test("compare A B --json and its table show both sides' roofline points per kernel", () => {
  const args = [cli, 'compare', own('mi300x-wide'), own('mi200-roofline')];
  const json = spawnSync(process.execPath, [...args, '--json'], {
    cwd: tmpdir(),
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  assert.equal(json.status, 0, json.stderr);
  const c = JSON.parse(json.stdout);
  const gemm = c.roofline.find((r: { name: string }) => r.name.startsWith('gemm_f16'));
  assert.equal(gemm.a.dispatches, 3);
  assert.equal(gemm.b.dispatches, 2);
  assert.ok(gemm.a.aiHbm > 0 && gemm.b.aiHbm > 0);
  assert.ok(['memory', 'compute'].includes(gemm.a.bound) && ['memory', 'compute'].includes(gemm.b.bound));
  const text = spawnSync(process.execPath, args, {
    cwd: tmpdir(),
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  assert.equal(text.status, 0, text.stderr);
  assert.match(
    text.stdout,
    /Roofline points \(HBM intensity, FP32 roof\)\n\s+Kernel\s+A bound\s+A AI\s+A GFLOP\/s\s+B bound\s+B AI\s+B GFLOP\/s/,
  );
});
