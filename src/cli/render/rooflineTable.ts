// The roofline lines of `kernel-runner summarize`: per kernel its bound, arithmetic intensity against HBM,
// GFLOP/s and how close it is to the roof at that intensity; then what the counters could not give.
import type { Roofline, RooflineKernel } from '../../core/protocol/roofline';
import { formatRoofPercent } from '../../core/format/roofline';
import { tableLines as table } from './table';

/** 3 significant digits (whole numbers from 100 on); '-' for unknown. */
export function formatMetric(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '-';
  if (x === 0) return '0';
  return Math.abs(x) >= 100 ? x.toFixed(0) : x.toPrecision(3);
}

export const formatBound = (k: Pick<RooflineKernel, 'bound'> | null | undefined): string =>
  k ? (k.bound ?? '?') : '-';

export interface RooflineRenderOptions {
  top: number;
  /** Kernel name as shown (the summary's short name when it has one). */
  label: (name: string) => string;
  heading: (s: string) => string;
}

export function renderRoofline(r: Roofline, opts: RooflineRenderOptions): string[] {
  const out: string[] = [];
  const from = r.peaksFrom === 'roofline.csv' ? 'measured peaks (roofline.csv)' : 'spec peaks (sysinfo)';
  const shown = r.kernels.slice(0, opts.top);
  out.push(
    opts.heading(
      `Roofline (${r.source.arch ?? 'unknown GPU'}, ${from}; FP32 roof)${r.kernels.length > shown.length ? ` (${shown.length} of ${r.kernels.length} kernels)` : ''}`,
    ),
  );
  const rows = shown.map((k) => [
    opts.label(k.name),
    String(k.dispatches),
    formatBound(k),
    formatMetric(k.aiHbm),
    formatMetric(k.gflopsPerSecond),
    formatRoofPercent(k.percentOfRoof, { missing: '-' }),
  ]);
  out.push(
    ...table(['Kernel', 'Dispatches', 'Bound', 'AI (HBM)', 'GFLOP/s', '% of roof'], rows, [
      'l',
      'r',
      'l',
      'r',
      'r',
      'r',
    ]).map((l) => `  ${l}`),
  );
  if (r.ranges.length > 0) {
    out.push(
      `  Per benchmark case (rocTX range): ${r.ranges.map((g) => `${g.name}: ${g.kernels.map((k) => `${opts.label(k.name)} ${formatBound(k)} AI ${formatMetric(k.aiHbm)}, ${formatMetric(k.gflopsPerSecond)} GFLOP/s`).join('; ')}`).join(' | ')}`,
    );
  }
  const counters = [...new Set(r.missing.flatMap((m) => m.counters))];
  if (r.missing.length > 0) {
    const what = r.missing.map((m) => m.quantity).join(', ');
    out.push(
      counters.length
        ? `  Missing: ${counters.join(', ')}; so ${what} lack that part (counted as 0, or unknown for a peak)`
        : `  Not computed: ${what}`,
    );
  }
  return out;
}
