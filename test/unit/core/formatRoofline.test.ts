// Where a kernel sits under its roof and how that reads (the CLI's roofline table, the timing lens, the webview):
// the roof at the kernel's HBM intensity is min(peak compute, AI × peak HBM), the compute peak the FP32 one of the
// bound rule (min of VALU and MFMA FP32); the wording says which roof and how much of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computePeak, roofAtIntensity } from '../../../src/core/protocol/roofline';
import {
  formatFlopRate,
  formatIntensity,
  formatPeakBandwidth,
  formatRoofPercent,
  roofText,
} from '../../../src/core/format/index';

const PEAKS = { hbmGBps: 5000, valuFp32: 80000, mfmaFp32: 160000 };

test("the compute peak of the bound rule: the lower FP32 peak; unknown when either is (as the summary's bound)", () => {
  assert.equal(computePeak(PEAKS), 80000);
  assert.equal(computePeak({ ...PEAKS, valuFp32: null }), null);
  assert.equal(computePeak({ ...PEAKS, mfmaFp32: 0 }), null);
});

test('memory-bound below the ridge: a share of the HBM slope at its intensity', () => {
  // ridge 80000 / 5000 = 16 FLOP/B; at AI 0.02 the roof is 100 GFLOP/s, the kernel does 71
  const r = roofAtIntensity({ aiHbm: 0.02, gflopsPerSecond: 71 }, PEAKS);
  assert.ok(r);
  assert.equal(r.limit, 'hbm');
  assert.equal(r.roofGflops, 100);
  assert.ok(Math.abs((r.percent ?? 0) - 71) < 1e-9);
  assert.equal(roofText(r), 'memory-bound, 71% of HBM roof');
});

test('compute-bound at and above the ridge: a share of the FP32 peak', () => {
  const r = roofAtIntensity({ aiHbm: 16, gflopsPerSecond: 36000 }, PEAKS);
  assert.equal(r?.limit, 'compute', 'the ridge itself is compute-bound, as aiHbm < ridge is memory');
  assert.equal(r?.roofGflops, 80000);
  assert.equal(roofText(r!), 'compute-bound, 45% of FP32 roof');
  assert.equal(
    roofText(roofAtIntensity({ aiHbm: 100, gflopsPerSecond: 3.5 }, PEAKS)!),
    'compute-bound, 0.0044% of FP32 roof',
  );
});

test('no FLOPs is memory-bound with no share; unknown peaks or values give nothing', () => {
  const none = roofAtIntensity({ aiHbm: 0, gflopsPerSecond: 0 }, PEAKS);
  assert.deepEqual(none, { roofGflops: 0, limit: 'hbm', percent: null });
  assert.equal(roofText(none!), 'memory-bound (no FLOPs counted)');
  assert.equal(roofAtIntensity({ aiHbm: 1, gflopsPerSecond: 10 }, { ...PEAKS, hbmGBps: null }), null);
  assert.equal(roofAtIntensity({ aiHbm: 1, gflopsPerSecond: 10 }, { ...PEAKS, valuFp32: null, mfmaFp32: null }), null);
  for (const bad of [null, NaN, Infinity, -1]) {
    assert.equal(roofAtIntensity({ aiHbm: bad, gflopsPerSecond: 10 }, PEAKS), null, `AI ${bad}`);
    assert.equal(roofAtIntensity({ aiHbm: 1, gflopsPerSecond: bad }, PEAKS), null, `GFLOP/s ${bad}`);
  }
});

test('formatters: shares, FLOP rates, intensities and peak bandwidths', () => {
  assert.deepEqual(
    [71.2, 9.96, 4.24, 0.314, 0, 250, null, NaN].map((p) => formatRoofPercent(p)),
    ['71%', '10%', '4.2%', '0.31%', '0%', '250%', '–', '–'],
  );
  assert.deepEqual(
    [1.307e6, 81715, 512, 3.2e-3, 0, 5e-10, null].map((g) => formatFlopRate(g)),
    ['1.31 PFLOP/s', '81.7 TFLOP/s', '512 GFLOP/s', '3.20 MFLOP/s', '0 FLOP/s', '0.50 FLOP/s', '–'],
  );
  assert.deepEqual(
    [0.025, 1, 12.5, 601, 1.2e-5, 3e6, 0, Infinity].map((a) => formatIntensity(a)),
    ['0.0250 FLOP/B', '1.00 FLOP/B', '12.5 FLOP/B', '601 FLOP/B', '1.20e-5 FLOP/B', '3.00e+6 FLOP/B', '0 FLOP/B', '–'],
  );
  assert.deepEqual(
    [5324.8, 81.9, 999.6, null].map((b) => formatPeakBandwidth(b)),
    ['5.32 TB/s', '81.9 GB/s', '1.00 TB/s', '–'],
  );
  assert.equal(formatFlopRate(null, { missing: '-' }), '-');
});

test("the summary's percentOfRoof is the lens's roof share: one computation (core/protocol/roofline.ts)", async () => {
  const { percentOfRoof } = await import('../../../src/trace/counters/roofline');
  const full = {
    ...PEAKS,
    l2GBps: null,
    l1GBps: null,
    ldsGBps: null,
    valuFp64: null,
    mfmaFp16: null,
    mfmaBf16: null,
    mfmaFp64: null,
    mfmaFp8: null,
    mfmaI8: null,
  };
  for (const [ai, gflops] of [
    [0.02, 71],
    [16, 36000],
    [100, 3.5],
    [0, 0],
    [1, 0],
  ] as const) {
    assert.equal(
      percentOfRoof(ai, gflops, full),
      roofAtIntensity({ aiHbm: ai, gflopsPerSecond: gflops }, full)?.percent ?? null,
      `AI ${ai}, ${gflops} GFLOP/s`,
    );
  }
  assert.equal(percentOfRoof(1, 10, { ...full, hbmGBps: null }), null);
});
