// Roofline data for the webview and lens tests: kernels given by their counter-derived amounts (mean FLOPs per type,
// bytes per memory level, duration), turned into a summary's `roofline` kernel with the formulas of
// shared/docs/roofline.md (intensities = FLOPs / bytes, 0 when the bytes are 0; GFLOP/s = FLOPs / ns; bound against
// the FP32 ridge min(VALU FP32, MFMA FP32) / HBM). Peaks are an MI300X's spec peaks as rocprof-compute computes them
// (max_sclk 2100 MHz, 304 CUs, 128 L2 channels, max_mclk 1300 MHz and 128 HBM channels).
import type {
  Roofline,
  RooflineKernel,
  RooflinePeaks,
  SolKernel,
  SpeedOfLight,
} from '../../src/core/protocol/roofline';
import type { TraceSummary } from '../../src/core/protocol/traceSummary';

const SCLK = 2100;
const CU = 304;
export const MI300X_PEAKS: RooflinePeaks = {
  hbmGBps: (1300 / 1000) * 32 * 128,
  l2GBps: (SCLK / 1000) * 128 * 128,
  l1GBps: (SCLK / 1000) * 128 * CU,
  ldsGBps: SCLK * CU * 0.128,
  valuFp32: (SCLK * CU * 64 * 2) / 1000,
  valuFp64: (SCLK * CU * 64 * 2) / 1000,
  mfmaFp16: (SCLK * CU * 2048) / 1000,
  mfmaBf16: (SCLK * CU * 2048) / 1000,
  mfmaFp32: (SCLK * CU * 256) / 1000,
  mfmaFp64: (SCLK * CU * 256) / 1000,
  mfmaFp8: (SCLK * CU * 4096) / 1000,
  mfmaI8: (SCLK * CU * 4096) / 1000,
};

export interface KernelAmounts {
  name: string;
  dispatches?: number;
  durationNs: number;
  valu?: { f16?: number; f32?: number; f64?: number };
  mfma?: { f8?: number; f16?: number; bf16?: number; f32?: number; f64?: number };
  hbmBytes: number;
  l2Bytes: number;
  l1Bytes: number;
  ldsBytes: number;
}

const ratio = (a: number, b: number): number => (b === 0 ? 0 : a / b);

export function rooflineKernel(k: KernelAmounts, peaks: RooflinePeaks = MI300X_PEAKS): RooflineKernel {
  const v = { f16: k.valu?.f16 ?? 0, f32: k.valu?.f32 ?? 0, f64: k.valu?.f64 ?? 0 };
  const m = {
    f6f4: 0,
    f8: k.mfma?.f8 ?? 0,
    f16: k.mfma?.f16 ?? 0,
    bf16: k.mfma?.bf16 ?? 0,
    f32: k.mfma?.f32 ?? 0,
    f64: k.mfma?.f64 ?? 0,
    i8: 0,
  };
  const valuFlops = v.f16 + v.f32 + v.f64;
  const mfmaFlops = m.f8 + m.f16 + m.bf16 + m.f32 + m.f64;
  const flops = valuFlops + mfmaFlops;
  const aiHbm = ratio(flops, k.hbmBytes);
  const gflops = ratio(flops, k.durationNs);
  const known = [peaks.valuFp32, peaks.mfmaFp32].filter((p): p is number => p !== null);
  const compute = known.length === 2 ? Math.min(...known) : null;
  const hbm = peaks.hbmGBps;
  const roof = compute === null || hbm === null ? null : Math.min(compute, aiHbm * hbm);
  return {
    name: k.name,
    dispatches: k.dispatches ?? 1,
    durationNs: k.durationNs,
    flops,
    valuFlops,
    mfmaFlops,
    hbmBytes: k.hbmBytes,
    l2Bytes: k.l2Bytes,
    l1Bytes: k.l1Bytes,
    ldsBytes: k.ldsBytes,
    aiHbm,
    aiL2: ratio(flops, k.l2Bytes),
    aiL1: ratio(flops, k.l1Bytes),
    aiLds: ratio(flops, k.ldsBytes),
    gflopsPerSecond: gflops,
    bound: compute === null || hbm === null ? null : aiHbm < compute / hbm ? 'memory' : 'compute',
    percentOfRoof: roof === null || roof === 0 ? null : (gflops / roof) * 100,
    valuByType: v,
    mfmaByType: m,
  };
}

export function roofline(kernels: RooflineKernel[], opts: Partial<Roofline> = {}): Roofline {
  return {
    peaks: MI300X_PEAKS,
    peaksFrom: 'spec',
    kernels,
    ranges: [],
    missing: [],
    source: { format: 'rocprof-compute-wide', path: 'pmc_perf.csv', arch: 'gfx942' },
    ...opts,
  };
}

/** A kernel's block-2 rows: VALU FLOPs, MFMA FLOPs (F16), HBM read bandwidth and the L2 hit rate. */
function solKernel(k: RooflineKernel, peaks: RooflinePeaks = MI300X_PEAKS): SolKernel {
  const rate = (x: number | null) => (x === null || !k.durationNs ? null : x / k.durationNs);
  const pct = (v: number | null, p: number | null) => (v === null || p === null ? null : (100 * v) / p);
  const valu = rate(k.valuFlops);
  const mfma = rate(k.mfmaByType.f16);
  const hbm = rate(k.hbmBytes);
  return {
    name: k.name,
    dispatches: k.dispatches,
    metrics: [
      {
        metric: 'VALU FLOPs',
        value: valu,
        unit: 'GFLOP/s',
        peak: peaks.valuFp32,
        percentOfPeak: pct(valu, peaks.valuFp32),
      },
      {
        metric: 'MFMA FLOPs (F16)',
        value: mfma,
        unit: 'GFLOP/s',
        peak: peaks.mfmaFp16,
        percentOfPeak: pct(mfma, peaks.mfmaFp16),
      },
      {
        metric: 'L2-Fabric Read BW',
        value: hbm,
        unit: 'GB/s',
        peak: peaks.hbmGBps,
        percentOfPeak: pct(hbm, peaks.hbmGBps),
      },
      { metric: 'L2 Cache Hit Rate', value: 62.5, unit: 'Pct', peak: null, percentOfPeak: null },
    ],
  };
}

export function speedOfLight(
  kernels: RooflineKernel[],
  ranges: Array<{ name: string; kernels: RooflineKernel[] }> = [],
): SpeedOfLight {
  return {
    kernels: kernels.map((k) => solKernel(k)),
    ranges: ranges.map((r) => ({ name: r.name, kernels: r.kernels.map((k) => solKernel(k)) })),
    missing: [],
  };
}

/** A summary with no trace data of its own carrying the given roofline and speed of light. */
export function rooflineOnlySummary(r: Roofline, sol?: SpeedOfLight): TraceSummary {
  return {
    version: 1,
    kernels: [],
    kernelTotals: { calls: 0, totalNs: 0, distinct: 0 },
    memoryCopies: [],
    api: [],
    apiTotals: { calls: 0, totalNs: 0, distinct: 0 },
    markers: [],
    rangeAttribution: null,
    agents: [],
    processes: [],
    wall: null,
    timeline: null,
    sources: [],
    skipped: [],
    checks: [],
    warnings: [],
    roofline: r,
    ...(sol ? { speedOfLight: sol } : {}),
  };
}
