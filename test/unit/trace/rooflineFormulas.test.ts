// The roofline formulas of shared/docs/roofline.md on small hand-made counter tables, with expected values worked
// out by hand from the formulas (rocprof-compute's fixtures are all vecCopy with no FLOPs): VALU, MFMA, F8 on
// gfx942, F6F4 on gfx950, gfx90a's HBM formula, spec peaks per arch, the bound rule, and missing counters.
import test from 'node:test';
import assert from 'node:assert/strict';
import { CounterTableBuilder, weightedMedian } from '../../../src/trace/counters/counterTable';
import { deriveRoofline } from '../../../src/trace/counters/derive';
import { specPeaks } from '../../../src/trace/counters/peaks';
import { copyFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { summarizePath } from '../../../src/trace/index';
import { repoRoot, tempDir } from './helpers';

const VALU_ZERO = Object.fromEntries(
  ['F16', 'F32', 'F64'].flatMap((p) => ['ADD', 'MUL', 'FMA', 'TRANS'].map((op) => [`SQ_INSTS_VALU_${op}_${p}`, 0])),
);
const MOPS_ZERO = {
  SQ_INSTS_VALU_MFMA_MOPS_F16: 0,
  SQ_INSTS_VALU_MFMA_MOPS_BF16: 0,
  SQ_INSTS_VALU_MFMA_MOPS_F32: 0,
  SQ_INSTS_VALU_MFMA_MOPS_F64: 0,
  SQ_INSTS_VALU_MFMA_MOPS_I8: 0,
};
const CACHES = {
  SQ_LDS_IDX_ACTIVE: 0,
  SQ_LDS_BANK_CONFLICT: 0,
  TCP_TOTAL_CACHE_ACCESSES_sum: 0,
  TCP_TCC_WRITE_REQ_sum: 0,
  TCP_TCC_ATOMIC_WITH_RET_REQ_sum: 0,
  TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum: 0,
  TCP_TCC_READ_REQ_sum: 0,
};
const EA0 = {
  TCC_BUBBLE_sum: 0,
  TCC_EA0_RDREQ_32B_sum: 0,
  TCC_EA0_RDREQ_sum: 0,
  TCC_EA0_WRREQ_sum: 0,
  TCC_EA0_WRREQ_64B_sum: 0,
};
const SYS_942 = {
  gpu_arch: 'gfx942',
  max_sclk: '2100',
  max_mclk: '1300',
  cu_per_gpu: '304',
  total_l2_chan: '128',
  num_hbm_channels: '128',
  num_xcd: '8',
  max_waves_per_cu: '32',
};

function table(rows: Array<{ name: string; ns: number; c: Record<string, number> }>) {
  const b = new CounterTableBuilder();
  for (const r of rows) {
    const i = b.addDispatch(r.name, r.ns);
    for (const [k, v] of Object.entries(r.c)) b.set(i, k, v);
  }
  return b.build();
}

const derive = (
  rows: Parameters<typeof table>[0],
  sysinfo: Record<string, string> | null,
  rooflineRow: Record<string, string> | null = null,
) => deriveRoofline({ table: table(rows), source: { format: 'test', path: 'x' }, arch: null, sysinfo, rooflineRow });

test('gfx942: VALU FLOPs (64*(ADD+MUL+2*FMA+TRANS) per precision), MFMA 512*MOPS with F8, HBM from TCC_EA0 and TCC_BUBBLE, means over dispatches', () => {
  const a = {
    ...VALU_ZERO,
    ...MOPS_ZERO,
    ...CACHES,
    ...EA0,
    SQ_INSTS_VALU_MFMA_MOPS_F8: 10,
    SQ_INSTS_VALU_ADD_F32: 1,
    SQ_INSTS_VALU_FMA_F32: 2,
    SQ_INSTS_VALU_MUL_F16: 3,
    SQ_INSTS_VALU_TRANS_F64: 1,
    SQ_INSTS_VALU_MFMA_MOPS_F16: 100,
    SQ_INSTS_VALU_MFMA_MOPS_I8: 7,
    TCC_BUBBLE_sum: 2,
    TCC_EA0_RDREQ_32B_sum: 3,
    TCC_EA0_RDREQ_sum: 100,
    TCC_EA0_WRREQ_sum: 50,
    TCC_EA0_WRREQ_64B_sum: 40,
    TCP_TOTAL_CACHE_ACCESSES_sum: 1000,
    TCP_TCC_READ_REQ_sum: 10,
    TCP_TCC_WRITE_REQ_sum: 5,
    TCP_TCC_ATOMIC_WITH_RET_REQ_sum: 1,
    SQ_LDS_IDX_ACTIVE: 40,
    SQ_LDS_BANK_CONFLICT: 8,
  };
  // dispatch b doubles every counter and takes 3x as long
  const b = Object.fromEntries(Object.entries(a).map(([k, v]) => [k, 2 * v]));
  const { roofline } = derive(
    [
      { name: 'k', ns: 1000, c: a },
      { name: 'k', ns: 3000, c: b },
    ],
    SYS_942,
  );
  const k = roofline.kernels[0]!;
  // valu a: 64*(1+2*2) F32 + 64*3 F16 + 64*1 F64 = 320 + 192 + 64 = 576; mfma a: 512*(10 F8 + 100 F16) = 56320
  const valuA = 576;
  const mfmaA = 512 * 110;
  // hbm a: 2*128 + 3*32 + (100-2-3)*64 + (50-40)*32 + 40*64 = 256 + 96 + 6080 + 320 + 2560 = 9312
  const hbmA = 9312;
  const l2A = (5 + 1 + 0 + 10) * 64;
  const l1A = 1000 * 64;
  const ldsA = (40 - 8) * 4 * 32;
  // means over a and b (b = 2a): 1.5x
  assert.equal(k.dispatches, 2);
  assert.equal(k.valuFlops, 1.5 * valuA);
  assert.equal(k.mfmaFlops, 1.5 * mfmaA);
  assert.equal(k.flops, 1.5 * (valuA + mfmaA));
  assert.equal(k.hbmBytes, 1.5 * hbmA);
  assert.equal(k.l2Bytes, 1.5 * l2A);
  assert.equal(k.l1Bytes, 1.5 * l1A);
  assert.equal(k.ldsBytes, 1.5 * ldsA);
  assert.equal(k.durationNs, 2000);
  assert.equal(k.aiHbm, (valuA + mfmaA) / hbmA);
  assert.equal(k.aiL2, (valuA + mfmaA) / l2A);
  assert.equal(k.aiL1, (valuA + mfmaA) / l1A);
  assert.equal(k.aiLds, (valuA + mfmaA) / ldsA);
  assert.equal(k.gflopsPerSecond, (1.5 * (valuA + mfmaA)) / 2000);
  assert.deepEqual(k.mfmaByType, {
    f6f4: null,
    f8: 1.5 * 5120,
    f16: 1.5 * 51200,
    bf16: 0,
    f32: 0,
    f64: 0,
    i8: 1.5 * 3584,
  });
  assert.deepEqual(k.valuByType, { f16: 1.5 * 192, f32: 1.5 * 320, f64: 1.5 * 64 });
  // ridge = min(81715.2, 163430.4) / 5324.8 = 15.346...; AI 6.1 is below it
  assert.equal(k.bound, 'memory');
  const roof = 5324.8 * (k.aiHbm as number);
  assert.ok(Math.abs((k.percentOfRoof as number) - (100 * (k.gflopsPerSecond as number)) / roof) < 1e-9);
  assert.equal(roofline.peaksFrom, 'spec');
  assert.deepEqual(roofline.missing, []);
});

test('gfx950: F6F4 and F8 MFMA count in the FLOPs; spec peaks use the gfx950 table', () => {
  const c = {
    ...VALU_ZERO,
    ...MOPS_ZERO,
    ...CACHES,
    ...EA0,
    SQ_INSTS_VALU_MFMA_MOPS_F8: 1,
    SQ_INSTS_VALU_MFMA_MOPS_F6F4: 2,
    SQ_INSTS_VALU_MFMA_MOPS_F64: 4,
    TCC_EA0_RDREQ_sum: 10,
  };
  const sys = {
    gpu_arch: 'gfx950',
    max_sclk: '2400',
    max_mclk: '2000',
    cu_per_gpu: '256',
    total_l2_chan: '128',
    num_hbm_channels: '128',
  };
  const { roofline } = derive([{ name: 'mx', ns: 100, c }], sys);
  const k = roofline.kernels[0]!;
  assert.equal(k.flops, 512 * 7);
  assert.equal(k.mfmaFlops, 512 * 7);
  assert.equal(k.mfmaByType.f6f4, 1024);
  assert.equal(k.hbmBytes, 640);
  const p = roofline.peaks;
  assert.equal(p.mfmaFp8, (2400 * 256 * 8192) / 1000);
  assert.equal(p.mfmaFp16, (2400 * 256 * 4096) / 1000);
  assert.equal(p.mfmaFp64, (2400 * 256 * 128) / 1000);
  assert.equal(p.mfmaI8, (2400 * 256 * 8192) / 1000);
  assert.equal(p.l2GBps, 2.4 * 128 * 128);
  assert.equal(p.hbmGBps, 2 * 32 * 128);
});

test('gfx90a: HBM from TCC_EA_* (MI200 formula), no F8 (its column is ignored), spec peaks of the gfx90a table', () => {
  const c = {
    ...VALU_ZERO,
    ...MOPS_ZERO,
    ...CACHES,
    SQ_INSTS_VALU_MFMA_MOPS_F8: 1000,
    SQ_INSTS_VALU_MFMA_MOPS_BF16: 3,
    TCC_EA_RDREQ_32B_sum: 4,
    TCC_EA_RDREQ_sum: 10,
    TCC_EA_WRREQ_sum: 9,
    TCC_EA_WRREQ_64B_sum: 5,
  };
  const sys = {
    gpu_arch: 'gfx90a',
    max_sclk: '1700',
    max_mclk: '1600',
    cu_per_gpu: '104',
    total_l2_chan: '32',
    num_hbm_channels: '32',
  };
  const { roofline } = derive([{ name: 'm', ns: 10, c }], sys);
  const k = roofline.kernels[0]!;
  assert.equal(k.flops, 512 * 3);
  assert.equal(k.mfmaByType.f8, null);
  // 4*32 + (10-4)*64 + 5*64 + (9-5)*32 = 128 + 384 + 320 + 128
  assert.equal(k.hbmBytes, 960);
  const p = roofline.peaks;
  assert.equal(p.mfmaFp8, null);
  assert.equal(p.l2GBps, 1.7 * 64 * 32);
  assert.equal(p.l1GBps, 1.7 * 64 * 104);
  assert.equal(p.mfmaFp16, (1700 * 104 * 1024) / 1000);
  assert.equal(p.hbmGBps, 1.6 * 32 * 32);
});

test("missing counters: a quantity stops at its first absent counter and says which, as rocprof-compute's try blocks", () => {
  // gfx942 without MOPS_F8: flops keep VALU + F16..F64, every MFMA type is 0; no TCC_* at all: HBM 0; no L2 counters: 0
  const c = {
    ...VALU_ZERO,
    ...MOPS_ZERO,
    SQ_INSTS_VALU_ADD_F32: 1,
    SQ_INSTS_VALU_MFMA_MOPS_F16: 2,
    TCP_TOTAL_CACHE_ACCESSES_sum: 10,
    SQ_LDS_IDX_ACTIVE: 1,
    SQ_LDS_BANK_CONFLICT: 0,
  };
  const { roofline, speedOfLight } = derive([{ name: 'k', ns: 100, c }], SYS_942);
  const k = roofline.kernels[0]!;
  assert.equal(k.flops, 64 + 1024);
  assert.equal(k.mfmaFlops, 0);
  assert.equal(k.mfmaByType.f16, 0);
  assert.equal(k.hbmBytes, 0);
  assert.equal(k.l2Bytes, 0);
  assert.equal(k.aiHbm, 0);
  assert.equal(k.aiL2, 0);
  assert.equal(k.bound, 'memory');
  const missing = new Map(roofline.missing.map((m) => [m.quantity, m.counters]));
  assert.deepEqual(missing.get('flops'), ['SQ_INSTS_VALU_MFMA_MOPS_F8']);
  assert.deepEqual(missing.get('mfmaFlops'), ['SQ_INSTS_VALU_MFMA_MOPS_F8']);
  assert.deepEqual(missing.get('hbmBytes'), [
    'TCC_BUBBLE_sum',
    'TCC_EA0_RDREQ_32B_sum',
    'TCC_EA0_RDREQ_sum',
    'TCC_EA0_WRREQ_sum',
    'TCC_EA0_WRREQ_64B_sum',
  ]);
  assert.deepEqual(missing.get('l2Bytes'), [
    'TCP_TCC_WRITE_REQ_sum',
    'TCP_TCC_ATOMIC_WITH_RET_REQ_sum',
    'TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum',
    'TCP_TCC_READ_REQ_sum',
  ]);
  assert.equal(missing.has('valuFlops'), false);
  assert.equal(missing.has('l1Bytes'), false);
  const sol = new Map(speedOfLight.kernels[0]!.metrics.map((m) => [m.metric, m]));
  assert.equal(sol.get('L2 Cache BW')?.value, null);
  assert.ok(speedOfLight.missing.some((m) => m.quantity === 'L2 Cache BW' && m.counters.includes('TCC_REQ_sum')));
});

test('missing peaks: no sysinfo clocks gives null peaks and a null bound, each peak naming the sysinfo field it lacked', () => {
  const c = { ...VALU_ZERO, ...MOPS_ZERO, ...CACHES, ...EA0, SQ_INSTS_VALU_MFMA_MOPS_F8: 0 };
  const { roofline } = derive([{ name: 'k', ns: 100, c }], { gpu_arch: 'gfx942', cu_per_gpu: '304', max_sclk: '2100' });
  assert.equal(roofline.peaks.hbmGBps, null);
  assert.equal(roofline.peaks.valuFp32, 81715.2);
  assert.equal(roofline.kernels[0]!.bound, null);
  assert.deepEqual(roofline.missing, [
    { quantity: 'peaks.hbmGBps', counters: ['sysinfo.max_mclk', 'sysinfo.num_hbm_channels'] },
    { quantity: 'peaks.l2GBps', counters: ['sysinfo.total_l2_chan'] },
  ]);
  const none = derive([{ name: 'k', ns: 100, c }], null);
  assert.ok(none.roofline.missing.some((m) => m.quantity === 'peaks' && m.counters[0] === 'sysinfo.csv'));
  assert.ok(none.roofline.missing.some((m) => m.quantity === 'arch'));
});

test('bound: compute when the HBM intensity reaches min(VALU FP32, MFMA FP32) / HBM of roofline.csv; NaN cells give null, not a number', () => {
  const peaksRow = { device: '0', HBMBw: '1000', FP32Flops: '20000', MFMAF32Flops: '40000', L2Bw: '5000' };
  const heavy = {
    ...VALU_ZERO,
    ...MOPS_ZERO,
    ...CACHES,
    ...EA0,
    SQ_INSTS_VALU_MFMA_MOPS_F8: 0,
    SQ_INSTS_VALU_MFMA_MOPS_F32: 1000,
    TCC_EA0_RDREQ_sum: 400,
  };
  // flops 512000, hbm 400*64 = 25600: AI 20 = ridge 20000/1000: compute (not below the ridge)
  const r = derive([{ name: 'k', ns: 100, c: heavy }], SYS_942, peaksRow).roofline;
  assert.equal(r.peaksFrom, 'roofline.csv');
  assert.equal(r.kernels[0]!.aiHbm, 20);
  assert.equal(r.kernels[0]!.bound, 'compute');
  assert.equal(r.peaks.mfmaFp8, null);
  assert.equal(r.kernels[0]!.percentOfRoof, (100 * 5120) / 20000);
  const nan = derive([{ name: 'k', ns: 100, c: { ...heavy, TCC_EA0_RDREQ_sum: NaN } }], SYS_942, peaksRow).roofline;
  assert.equal(nan.kernels[0]!.hbmBytes, null);
  assert.equal(nan.kernels[0]!.aiHbm, null);
  assert.equal(nan.kernels[0]!.bound, null);
});

test('speed-of-light: AVG of per-dispatch rates, inf for a zero-duration dispatch, null for 0/0', () => {
  const c = {
    ...VALU_ZERO,
    ...MOPS_ZERO,
    ...CACHES,
    ...EA0,
    SQ_INSTS_VALU_MFMA_MOPS_F8: 0,
    TCP_TOTAL_CACHE_ACCESSES_sum: 100,
    TCC_HIT_sum: 0,
    TCC_MISS_sum: 0,
    TCC_REQ_sum: 10,
  };
  const { speedOfLight } = derive(
    [
      { name: 'k', ns: 100, c },
      { name: 'k', ns: 400, c: { ...c, TCP_TOTAL_CACHE_ACCESSES_sum: 200 } },
      { name: 'z', ns: 0, c },
    ],
    SYS_942,
  );
  const k = new Map(speedOfLight.kernels.find((x) => x.name === 'k')!.metrics.map((m) => [m.metric, m]));
  // AVG(100*128/100, 200*128/400) = AVG(128, 64) = 96 (not 300*128/500 = 76.8)
  assert.equal(k.get('vL1D Cache BW')?.value, 96);
  assert.equal(k.get('vL1D Cache BW')?.peak, 2.1 * 128 * 304);
  assert.equal(k.get('L2 Cache Hit Rate')?.value, null);
  assert.equal(k.get('VALU FLOPs')?.value, 0);
  const z = new Map(speedOfLight.kernels.find((x) => x.name === 'z')!.metrics.map((m) => [m.metric, m]));
  assert.equal(z.get('vL1D Cache BW')?.value, 'inf');
  assert.equal(z.get('vL1D Cache BW')?.percentOfPeak, 'inf');
  assert.equal(z.get('VALU FLOPs')?.value, null);
});

test("rocpd long layout: a dispatch's duration is pandas' median over its rows (mean of the middle two when even)", () => {
  assert.equal(weightedMedian({ values: [10, 30, 20], counts: [1, 1, 1] }), 20);
  assert.equal(weightedMedian({ values: [10, 30], counts: [3, 1] }), 10);
  assert.equal(weightedMedian({ values: [10, 30], counts: [2, 2] }), 20);
  const b = new CounterTableBuilder();
  for (const [d, ns] of [
    [7, 100],
    [7, 300],
    [7, 100],
    [7, 500],
    [8, 50],
  ] as const)
    b.set(b.dispatchOf(d, 'k', ns), 'X', d);
  const t = b.build();
  assert.deepEqual([...t.durations], [200, 50]);
  assert.deepEqual(t.names, ['k', 'k']);
});

test("spec peaks of gfx942 are those of rocprof-compute's block 2.1 for MI300X", () => {
  const { peaks, missing } = specPeaks(SYS_942, 'gfx942');
  assert.deepEqual(missing, []);
  assert.deepEqual(peaks, {
    hbmGBps: 5324.8,
    l2GBps: 34406.4,
    l1GBps: 81715.2,
    ldsGBps: 81715.2,
    valuFp32: 81715.2,
    valuFp64: 81715.2,
    mfmaFp16: 1307443.2,
    mfmaBf16: 1307443.2,
    mfmaFp32: 163430.4,
    mfmaFp64: 163430.4,
    mfmaFp8: 2614886.4,
    mfmaI8: 2614886.4,
  });
});

test('wide pmc_perf.csv durations are exact past 2^53 and read from 8.1097E+14 and fractional forms', async () => {
  const s = await summarizePath(path.join(repoRoot, 'test/fixtures/roofline/mi300x-wide'));
  const k = new Map(s.roofline?.kernels.map((x) => [x.name.split('(')[0], x]));
  // gemm: two rows past 2^53 (120007 and 121111 ns) and one with fractions (119999.75 ns)
  assert.equal(k.get('gemm_f16')?.durationNs, (120007 + 121111 + 119999.75) / 3);
  // vecCopy: 14321 ns, and 8.10970000016E+14 - 8.1097E+14 = 16000 ns
  assert.equal(k.get('vecCopy')?.durationNs, (14321 + 16000) / 2);
  assert.deepEqual(s.kernels.map((x) => [x.shortName, x.calls]).sort(), [
    ['gemm_f16', 3],
    ['vecCopy', 2],
  ]);
});

test('a roofline.csv without a device-0 row: spec peaks, and a warning that says so', async () => {
  const dir = tempDir('roof-nodev0');
  const src = path.join(repoRoot, 'test/fixtures/roofline/mi200-roofline');
  for (const f of ['pmc_perf.csv', 'sysinfo.csv']) copyFileSync(path.join(src, f), path.join(dir, f));
  writeFileSync(path.join(dir, 'roofline.csv'), 'device,HBMBw,FP32Flops,MFMAF32Flops\n3,1,2,3\n');
  const s = await summarizePath(dir);
  assert.equal(s.roofline?.peaksFrom, 'spec');
  assert.equal(s.roofline?.peaks.hbmGBps, 1.6 * 32 * 32);
  assert.ok(
    s.warnings.some((w) => w === 'roofline.csv: no row for device 0; spec peaks used'),
    JSON.stringify(s.warnings),
  );
});
