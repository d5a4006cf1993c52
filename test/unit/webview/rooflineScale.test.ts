// The roofline chart's geometry as numbers: what a log axis can place, domains, decade ticks and labels, the
// value-to-pixel scale, and the ceiling segments (slopes up to the highest flat roof, flat roofs from the fastest
// slope), plus the model's choice of ceilings and points.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ceilingSegments,
  decadeLabel,
  decadeTicks,
  logDomain,
  logScale,
  paddedLogDomain,
  plottable,
  ridgePoints,
  rooflineDomains,
  type Ceiling,
} from '../../../src/webview/rooflineScale';
import { missingNotes, rooflineCeilings, rooflinePoints, rooflineRows } from '../../../src/webview/rooflineModel';
import { MI300X_PEAKS, roofline, rooflineKernel } from '../../support/rooflineSummary';

const close = (a: number, b: number, what = '') =>
  assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what} ${a} vs ${b}`);

test('plottable: finite and above zero only', () => {
  assert.deepEqual([1, 1e-300, 0, -1, NaN, Infinity, -Infinity, null, undefined].map(plottable), [
    true,
    true,
    false,
    false,
    false,
    false,
    false,
    false,
    false,
  ]);
});

test('log domains: decades around the values, skipping what a log axis cannot show, at least minDecades wide', () => {
  assert.deepEqual(logDomain([0.025, 601]), [0.01, 1000]);
  assert.deepEqual(logDomain([0, -5, NaN, Infinity, 3, null]), [1, 10], 'only 3 counts');
  assert.deepEqual(logDomain([]), [1, 10]);
  assert.deepEqual(logDomain([5], 3), [0.1, 100]);
  const [lo, hi] = paddedLogDomain([1, 100], 0.5, 1);
  close(lo, 10 ** -0.5);
  close(hi, 10 ** 2.5);
  const [a, b] = paddedLogDomain([10, 10, 0, -1], 0, 4);
  close(a, 0.1);
  close(b, 1000, 'widened evenly about its middle');
  assert.deepEqual(paddedLogDomain([NaN], 0.3, 3), [1, 1000]);
});

test('decade ticks and their labels', () => {
  assert.deepEqual(decadeTicks([0.01, 1000]).map(decadeLabel), ['0.01', '0.1', '1', '10', '100', '1k']);
  assert.deepEqual(decadeTicks([0.5, 20]).map(decadeLabel), ['1', '10']);
  assert.deepEqual([1e-5, 1e-3, 1e4, 1e6, 1e8, 1e9, 1e12].map(decadeLabel), [
    '1e-5',
    '0.001',
    '10k',
    '1M',
    '100M',
    '1e+9',
    '1e+12',
  ]);
});

test('log scale: equal ratios are equal distances; y axes run backwards', () => {
  const x = logScale([0.01, 1000], [0, 500]);
  close(x(0.01), 0);
  close(x(1000), 500);
  close(x(1), 200);
  close(x(10) - x(1), x(1000) - x(100));
  const y = logScale([10, 1e6], [400, 0]);
  close(y(10), 400);
  close(y(1e6), 0);
  close(y(1000), 240);
});

const CEILINGS: Ceiling[] = [
  { key: 'hbmGBps', label: 'HBM', kind: 'bandwidth', value: 5000 },
  { key: 'l2GBps', label: 'L2', kind: 'bandwidth', value: 20000 },
  { key: 'valuFp32', label: 'VALU FP32', kind: 'compute', value: 80000 },
  { key: 'mfmaFp16', label: 'MFMA FP16', kind: 'compute', value: 1.3e6 },
  { key: 'mfmaFp8', label: 'MFMA FP8', kind: 'compute', value: NaN },
];

test('ceiling segments: slopes to the highest flat roof, flat roofs from the fastest slope to the right edge', () => {
  const segs = ceilingSegments(CEILINGS, [0.01, 1000]);
  const by = new Map(segs.map((s) => [s.key, s]));
  assert.equal(segs.length, 4, 'the unknown FP8 peak is not drawn');
  const hbm = by.get('hbmGBps')!;
  assert.deepEqual([hbm.x1, hbm.y1], [0.01, 50]);
  close(hbm.x2, 1.3e6 / 5000);
  close(hbm.y2, 1.3e6, 'the slope meets the highest roof');
  const valu = by.get('valuFp32')!;
  close(valu.x1, 80000 / 20000, 'a flat roof starts on the fastest slope');
  assert.deepEqual([valu.y1, valu.x2, valu.y2], [80000, 1000, 80000]);
  // a ridge past the right edge stops at the edge
  assert.equal(
    ceilingSegments(
      [
        { key: 'h', label: 'h', kind: 'bandwidth', value: 1 },
        { key: 'c', label: 'c', kind: 'compute', value: 1e9 },
      ],
      [0.01, 1000],
    )[0]!.x2,
    1000,
  );
  // no compute ceiling: slopes run to the right edge; no bandwidth: flat roofs from the left edge
  assert.equal(ceilingSegments([CEILINGS[0]!], [0.01, 1000])[0]!.x2, 1000);
  assert.equal(ceilingSegments([CEILINGS[2]!], [0.01, 1000])[0]!.x1, 0.01);
  assert.deepEqual(ridgePoints(CEILINGS), [80000 / 20000, 1.3e6 / 5000]);
  assert.deepEqual(ridgePoints([CEILINGS[0]!]), []);
});

test('domains hold the points, both ridges, the slopes where they enter and the highest roof', () => {
  const { x, y } = rooflineDomains(
    [
      { x: 0.025, y: 100 },
      { x: 0, y: 5 },
      { x: NaN, y: 1 },
    ],
    CEILINGS,
  );
  assert.ok(x[0] < 0.025 && x[1] > 1.3e6 / 5000, `x ${x}`);
  assert.ok(y[0] <= x[0] * 5000 && y[0] < 100 && y[1] > 1.3e6, `y ${y}`);
  assert.ok(Math.log10(x[1] / x[0]) >= 4 - 1e-9 && Math.log10(y[1] / y[0]) >= 3 - 1e-9);
});

test('model: every bandwidth and the FP32 roofs always; other types when used; unknown peaks said with why', () => {
  const fp16 = rooflineKernel({
    name: 'g',
    durationNs: 1e6,
    mfma: { f16: 1e12, bf16: 1e9 },
    hbmBytes: 1e9,
    l2Bytes: 1e9,
    l1Bytes: 1e9,
    ldsBytes: 0,
  });
  const { ceilings, unknown } = rooflineCeilings(
    roofline([fp16], {
      peaks: { ...MI300X_PEAKS, mfmaBf16: null, ldsGBps: null },
      missing: [{ quantity: 'peaks.ldsGBps', counters: ['max_sclk'] }],
    }),
  );
  assert.deepEqual(
    ceilings.map((c) => c.key),
    ['hbmGBps', 'l2GBps', 'l1GBps', 'valuFp32', 'mfmaFp32', 'mfmaFp16'],
  );
  assert.deepEqual(unknown, [
    { label: 'LDS', why: 'the spec peak needs GPU facts this profile did not record (max_sclk)' },
    { label: 'MFMA BF16', why: 'the spec peak needs GPU facts this profile did not record' },
  ]);
  const csv = rooflineCeilings(
    roofline([fp16], { peaksFrom: 'roofline.csv', peaks: { ...MI300X_PEAKS, mfmaFp16: null } }),
  );
  assert.deepEqual(csv.unknown, [{ label: 'MFMA FP16', why: 'roofline.csv has no MFMAF16Flops value' }]);
});

test('model: a point per kernel and level; unplottable ones set apart; per case with one colour per kernel', () => {
  const k = rooflineKernel({
    name: 'a',
    durationNs: 1e3,
    valu: { f32: 1e6 },
    hbmBytes: 1e6,
    l2Bytes: 0,
    l1Bytes: 1e5,
    ldsBytes: 1e4,
  });
  const z = rooflineKernel({ name: 'z', durationNs: 1e3, hbmBytes: 1e6, l2Bytes: 1e6, l1Bytes: 1e6, ldsBytes: 1e6 });
  const { points, skipped } = rooflinePoints(rooflineRows(roofline([k, z])));
  assert.deepEqual(
    points.map((p) => [p.id, p.x, p.y]),
    [
      ['0:hbm', 1, 1000],
      ['0:l1', 10, 1000],
      ['0:lds', 100, 1000],
    ],
  );
  assert.deepEqual(
    skipped.map((s) => `${s.row}:${s.level}`),
    ['0:l2', '1:hbm', '1:l2', '1:l1', '1:lds'],
  );
  const rows = rooflineRows(
    roofline([k, z], {
      ranges: [
        { name: 'case 0', kernels: [z, k] },
        { name: 'case 1', kernels: [k] },
      ],
    }),
  );
  assert.deepEqual(
    rows.map((r) => [r.range, r.kernel.name, r.colour]),
    [
      ['case 0', 'z', 1],
      ['case 0', 'a', 0],
      ['case 1', 'a', 0],
    ],
  );
});

test("model: missing counters as notes, a single peak left to its ceiling, the reader's remarks as they are", () => {
  assert.deepEqual(
    missingNotes([
      { quantity: 'mfmaFlops', counters: ['SQ_INSTS_VALU_MFMA_MOPS_F8'] },
      { quantity: 'peaks.hbmGBps', counters: ['sysinfo.max_mclk'] },
      { quantity: 'peaks', counters: ['sysinfo.csv'] },
      { quantity: 'formulas for gfx1100 (those of gfx942 were used)', counters: [] },
    ]),
    [
      'mfmaFlops could not be computed: missing SQ_INSTS_VALU_MFMA_MOPS_F8',
      'peaks could not be computed: missing sysinfo.csv',
      'formulas for gfx1100 (those of gfx942 were used)',
    ],
  );
});
