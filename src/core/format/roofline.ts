// Where a kernel sits under its roofline, and how that reads: the CLI's roofline table, the timing CodeLens
// ("memory-bound, 71% of HBM roof") and the results webview all take it from here. Pure (no Node, no DOM: the
// webview bundles it; no imports outside this folder). The roof at a point is computed once, in
// core/protocol/roofline.ts (`roofAtIntensity`, behind the summary's `percentOfRoof` too); this file says it.
import { isShown, MISSING, type FormatOptions } from './numbers';

/** A share of the roof: "71%", "4.2%", "0.31%" (two digits are all a roofline is good for). */
export function formatRoofPercent(p: number | null | undefined, opts: FormatOptions = {}): string {
  if (!isShown(p)) return opts.missing ?? MISSING;
  const a = Math.abs(p);
  if (a >= 9.95 || a === 0) return `${Math.round(p)}%`;
  return `${p.toPrecision(2)}%`;
}

/** "memory-bound, 71% of HBM roof", "compute-bound, 45% of FP32 roof", "memory-bound (no FLOPs counted)". */
export function roofText(r: { limit: 'hbm' | 'compute'; percent: number | null }): string {
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

/** A multi-pass counter run, as the CLI and the results panel say it (the summary's `passes`). */
export function counterPassesText(p: { count: number; timingsFrom: string; counters: readonly string[] }): string {
  return `${p.count} counter passes (the program once per counter group): timings from ${p.timingsFrom}, counters from ${p.counters.join(', ') || 'none'}`;
}
