// Where a kernel sits under its roofline, and how that reads: the CLI's roofline table, the timing CodeLens
// ("memory-bound, 71% of HBM roof") and the results webview all take it from here. Pure (no Node, no DOM, no
// imports outside this folder: the webview bundles it), so its inputs are structural: a summary's
// `roofline.peaks` and `roofline.kernels[]` fit them as they are.
import { isShown, MISSING, type FormatOptions } from './numbers';

/** The peaks the roof at an intensity needs (GB/s and GFLOP/s; null when unknown). */
export interface RoofPeaks {
  hbmGBps: number | null;
  valuFp32: number | null;
  mfmaFp32: number | null;
}

/** A kernel's HBM point: FLOP per HBM byte, and the FLOP rate it reached. */
export interface RoofPoint {
  aiHbm: number | null;
  gflopsPerSecond: number | null;
}

/** The roof above a kernel's point: the lower of the HBM slope at its intensity and the compute peak. */
export interface RoofAtIntensity {
  /** GFLOP/s the roof allows at the kernel's intensity. */
  roofGflops: number;
  /** Which roof that is: the HBM bandwidth slope (memory-bound) or the flat compute peak (compute-bound). */
  limit: 'hbm' | 'compute';
  /** The kernel's GFLOP/s as a share of `roofGflops`, 0..100 (more when the kernel beats the peak it is held to); null with no FLOPs. */
  percent: number | null;
}

/**
 * The compute ceiling of the bound rule: the FP32 peaks as rocprof-compute takes them by default
 * (`min(VALU FP32, MFMA FP32)`, shared/docs/roofline.md "bound"); unknown when either is, as the summary's
 * `bound` and `percentOfRoof` are (src/trace/counters/roofline.ts).
 */
export function computePeak(peaks: RoofPeaks): number | null {
  const { valuFp32: v, mfmaFp32: m } = peaks;
  return isShown(v) && v > 0 && isShown(m) && m > 0 ? Math.min(v, m) : null;
}

/**
 * The roof at the kernel's HBM intensity, `min(peak compute, AI × peak HBM)`, and how much of it the kernel
 * reached. Null when a peak it needs is unknown or the point is not a number. A kernel with no FLOPs (AI 0) is
 * memory-bound, as the bound rule has it, with no share of the roof.
 */
export function roofAtIntensity(point: RoofPoint, peaks: RoofPeaks): RoofAtIntensity | null {
  const compute = computePeak(peaks);
  const hbm = peaks.hbmGBps;
  const ai = point.aiHbm;
  const achieved = point.gflopsPerSecond;
  if (compute === null || !isShown(hbm) || hbm <= 0 || !isShown(ai) || ai < 0 || !isShown(achieved) || achieved < 0) return null;
  const slope = ai * hbm;
  // aiHbm < ridge (compute / hbm) is memory-bound: the same test as AI × hbm < compute
  const limit = slope < compute ? 'hbm' : 'compute';
  const roofGflops = Math.min(slope, compute);
  return { roofGflops, limit, percent: roofGflops > 0 && achieved > 0 ? (achieved / roofGflops) * 100 : roofGflops > 0 ? 0 : null };
}

/** A share of the roof: "71%", "4.2%", "0.31%" (two digits are all a roofline is good for). */
export function formatRoofPercent(p: number | null | undefined, opts: FormatOptions = {}): string {
  if (!isShown(p)) return opts.missing ?? MISSING;
  const a = Math.abs(p);
  if (a >= 9.95 || a === 0) return `${Math.round(p)}%`;
  return `${p.toPrecision(2)}%`;
}

/** "memory-bound, 71% of HBM roof", "compute-bound, 45% of FP32 roof", "memory-bound (no FLOPs counted)". */
export function roofText(r: RoofAtIntensity): string {
  const bound = r.limit === 'hbm' ? 'memory-bound' : 'compute-bound';
  if (r.percent === null) return `${bound} (no FLOPs counted)`;
  return `${bound}, ${formatRoofPercent(r.percent)} of ${r.limit === 'hbm' ? 'HBM' : 'FP32'} roof`;
}

const FLOP_UNITS: Array<[number, string]> = [
  [1e6, 'PFLOP/s'],
  [1e3, 'TFLOP/s'],
  [1, 'GFLOP/s'],
  [1e-3, 'MFLOP/s'],
  [1e-6, 'kFLOP/s'],
];

function threeDigits(v: number): string {
  const a = Math.abs(v);
  return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : v.toFixed(2);
}

/** A FLOP rate given in GFLOP/s, in the unit that suits it: "1.31 PFLOP/s", "81.7 TFLOP/s", "512 GFLOP/s", "3.20 MFLOP/s". */
export function formatFlopRate(gflops: number | null | undefined, opts: FormatOptions = {}): string {
  if (!isShown(gflops)) return opts.missing ?? MISSING;
  if (gflops === 0) return '0 FLOP/s';
  const a = Math.abs(gflops);
  for (const [scale, unit] of FLOP_UNITS) if (a >= scale * 0.9995) return `${threeDigits(gflops / scale)} ${unit}`;
  return `${threeDigits(gflops * 1e9)} FLOP/s`;
}

/** Arithmetic intensity (FLOP per byte) to three significant digits: "0.250 FLOP/B", "12.5 FLOP/B", "1.20e-5 FLOP/B". */
export function formatIntensity(ai: number | null | undefined, opts: FormatOptions = {}): string {
  if (!isShown(ai)) return opts.missing ?? MISSING;
  if (ai === 0) return '0 FLOP/B';
  const a = Math.abs(ai);
  const text = a >= 1e5 || a < 1e-3 ? ai.toExponential(2) : a >= 100 ? ai.toFixed(0) : ai.toPrecision(3);
  return `${text} FLOP/B`;
}

/** A bandwidth peak given in GB/s: "5.30 TB/s", "81.9 GB/s" (roofline peaks run to tens of TB/s). */
export function formatPeakBandwidth(gbps: number | null | undefined, opts: FormatOptions = {}): string {
  if (!isShown(gbps)) return opts.missing ?? MISSING;
  const a = Math.abs(gbps);
  return a >= 999.5 ? `${threeDigits(gbps / 1e3)} TB/s` : `${threeDigits(gbps)} GB/s`;
}
