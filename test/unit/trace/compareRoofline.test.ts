// compare: both sides' roofline points per kernel, paired as the kernel rows (exact name, then a one-to-one base
// name), with a side that has no counters (or not that kernel) null.
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { compareSummaries, summarizePath } from '../../../src/trace/index';
import { compareRooflines } from '../../../src/trace/compare';
import type { RooflineKernel } from '../../../src/core/protocol/roofline';
import { renderComparison } from '../../../src/cli/render/compareTables';
import { repoRoot } from './helpers';

const own = (name: string): string => path.join(repoRoot, 'test/fixtures/roofline', name);

function kernel(name: string, aiHbm: number, gflops: number, bound: 'memory' | 'compute'): RooflineKernel {
  const n = null;
  return {
    name,
    dispatches: 2,
    durationNs: 100,
    flops: 1,
    valuFlops: 1,
    mfmaFlops: 0,
    hbmBytes: 1,
    l2Bytes: 1,
    l1Bytes: 1,
    ldsBytes: 0,
    aiHbm,
    aiL2: 0,
    aiL1: 0,
    aiLds: 0,
    gflopsPerSecond: gflops,
    bound,
    percentOfRoof: 50,
    valuByType: { f16: n, f32: n, f64: n },
    mfmaByType: { f6f4: n, f8: n, f16: n, bf16: n, f32: n, f64: n, i8: n },
  };
}

test('roofline points pair by full name, then by base name; one-sided kernels keep null on the other side', () => {
  const a = [kernel('gemm<float, 1>(float*)', 2, 100, 'memory'), kernel('old(int)', 1, 1, 'memory')];
  const b = [kernel('gemm<float, 2>(float*)', 30, 900, 'compute'), kernel('new(int)', 3, 3, 'memory')];
  const d = compareRooflines(a, b);
  const gemm = d.find((x) => x.name === 'gemm<float, 2>(float*)');
  assert.equal(gemm?.aName, 'gemm<float, 1>(float*)');
  assert.deepEqual(
    [gemm?.a?.aiHbm, gemm?.a?.bound, gemm?.b?.aiHbm, gemm?.b?.bound, gemm?.b?.gflopsPerSecond],
    [2, 'memory', 30, 'compute', 900],
  );
  assert.equal(d.find((x) => x.name === 'old(int)')?.b, null);
  assert.equal(d.find((x) => x.name === 'new(int)')?.a, null);
});

test('compare of two workload folders carries both points per kernel and prints them', async () => {
  const a = await summarizePath(own('mi300x-wide'));
  const b = await summarizePath(own('mi300x-missing'));
  const c = compareSummaries(a, b);
  const gemm = c.roofline?.find((r) => r.name.startsWith('gemm_f16'));
  const ka = a.roofline?.kernels.find((k) => k.name.startsWith('gemm_f16'));
  assert.ok(gemm && ka);
  assert.equal(gemm.a?.aiHbm, ka.aiHbm);
  assert.equal(gemm.a?.bound, 'compute');
  assert.equal(gemm.b?.aiHbm, 0); // no TCC counters on B: HBM bytes 0, AI 0 as rocprof-compute
  const text = renderComparison(c);
  assert.match(text, /Roofline points \(HBM intensity, FP32 roof\)/);
  assert.match(text, /gemm_f16\s+compute\s+[\d.]+\s+\d+\s+memory\s+0\s+\d+/);
});

test('a comparison without counters on either side has no roofline field', async () => {
  const s = await summarizePath(own('mi300x-wide'));
  const bare = { ...s, roofline: undefined, speedOfLight: undefined };
  assert.equal('roofline' in compareSummaries(bare, bare), false);
});
