// What the roofline chart shows of a summary's `roofline` object, as plain data (no DOM, tested as numbers): the
// ceilings to draw (every bandwidth, and the compute ceilings of the data types the kernels use), the ceilings
// that cannot be drawn and why, and the points, one per kernel and memory level (per benchmark case when the
// profile has ranges), with the ones a log axis cannot place set apart.
import type { Roofline, RooflineKernel, RooflineMissing, RooflinePeaks } from '../core/protocol/roofline';
import { plottable, type Ceiling } from './rooflineScale';

export type Level = 'hbm' | 'l2' | 'l1' | 'lds';

export const LEVELS: ReadonlyArray<{
  level: Level;
  label: string;
  peak: keyof RooflinePeaks;
  ai: 'aiHbm' | 'aiL2' | 'aiL1' | 'aiLds';
  csv: string;
}> = [
  { level: 'hbm', label: 'HBM', peak: 'hbmGBps', ai: 'aiHbm', csv: 'HBMBw' },
  { level: 'l2', label: 'L2', peak: 'l2GBps', ai: 'aiL2', csv: 'L2Bw' },
  { level: 'l1', label: 'L1', peak: 'l1GBps', ai: 'aiL1', csv: 'L1Bw' },
  { level: 'lds', label: 'LDS', peak: 'ldsGBps', ai: 'aiLds', csv: 'LDSBw' },
];

interface ComputeCeiling {
  peak: keyof RooflinePeaks;
  label: string;
  csv: string;
  /** Whether a kernel does FLOPs of this type; FP32 is always drawn (the bound rule's ceilings). */
  used: (k: RooflineKernel) => boolean;
}

const some = (v: number | null | undefined): boolean => typeof v === 'number' && v > 0;

const COMPUTE: readonly ComputeCeiling[] = [
  { peak: 'valuFp32', label: 'VALU FP32', csv: 'FP32Flops', used: () => true },
  { peak: 'valuFp64', label: 'VALU FP64', csv: 'FP64Flops', used: (k) => some(k.valuByType.f64) },
  { peak: 'mfmaFp32', label: 'MFMA FP32', csv: 'MFMAF32Flops', used: () => true },
  { peak: 'mfmaFp64', label: 'MFMA FP64', csv: 'MFMAF64Flops', used: (k) => some(k.mfmaByType.f64) },
  { peak: 'mfmaFp16', label: 'MFMA FP16', csv: 'MFMAF16Flops', used: (k) => some(k.mfmaByType.f16) },
  { peak: 'mfmaBf16', label: 'MFMA BF16', csv: 'MFMABF16Flops', used: (k) => some(k.mfmaByType.bf16) },
  { peak: 'mfmaFp8', label: 'MFMA FP8', csv: 'MFMAF8Flops', used: (k) => some(k.mfmaByType.f8) },
];

export interface UnknownCeiling {
  label: string;
  why: string;
}

/** Why a peak is null, from where peaks came and what the reader reported missing. */
function whyUnknown(r: Roofline, peak: keyof RooflinePeaks, csv: string): string {
  const missing = r.missing.find((m) => m.quantity === `peaks.${peak}` || m.quantity === peak);
  if (r.peaksFrom === 'roofline.csv') return `roofline.csv has no ${csv} value`;
  const fields = missing?.counters.length ? ` (${missing.counters.join(', ')})` : '';
  return `the spec peak needs GPU facts this profile did not record${fields}`;
}

/** The ceilings to draw, and those that would be drawn but whose peak is unknown. */
export function rooflineCeilings(r: Roofline): { ceilings: Ceiling[]; unknown: UnknownCeiling[] } {
  const ceilings: Ceiling[] = [];
  const unknown: UnknownCeiling[] = [];
  const kernels = [...r.kernels, ...r.ranges.flatMap((x) => x.kernels)];
  const add = (key: keyof RooflinePeaks, label: string, csv: string, kind: Ceiling['kind']) => {
    const v = r.peaks[key];
    if (plottable(v)) ceilings.push({ key, label, kind, value: v });
    else unknown.push({ label, why: whyUnknown(r, key, csv) });
  };
  for (const l of LEVELS) add(l.peak, l.label, l.csv, 'bandwidth');
  for (const c of COMPUTE) if (kernels.length === 0 || kernels.some(c.used)) add(c.peak, c.label, c.csv, 'compute');
  return { ceilings, unknown };
}

export interface ChartPoint {
  /** Stable within one chart: `<row>:<level>`. */
  id: string;
  /** Index of the row (kernel, or kernel in a case) in `rows`. */
  row: number;
  level: Level;
  x: number | null;
  y: number | null;
}

export interface ChartRow {
  kernel: RooflineKernel;
  /** The benchmark case (rocTX range), when the points are per case, and its number (1-based) on the chart. */
  range: string | null;
  caseNo: number | null;
  /** Colour slot of the kernel (the same kernel keeps it in every case). */
  colour: number;
}

export interface SkippedPoint {
  row: number;
  level: Level;
  /** "AI 0 FLOP/B", "no GFLOP/s" ... as values, for the note. */
  x: number | null;
  y: number | null;
}

export const TOP_KERNELS = 25;
export const COLOURS = 8;

/** The rows of the chart and its table: per case when the roofline has ranges, else per kernel (top 25 each). */
export function rooflineRows(r: Roofline): ChartRow[] {
  const order = new Map<string, number>();
  const colourOf = (name: string): number => {
    if (!order.has(name)) order.set(name, order.size);
    return (order.get(name) ?? 0) % COLOURS;
  };
  for (const k of r.kernels.slice(0, TOP_KERNELS)) colourOf(k.name);
  if (r.ranges.length)
    return r.ranges.flatMap((x, i) =>
      x.kernels
        .slice(0, TOP_KERNELS)
        .map((kernel) => ({ kernel, range: x.name, caseNo: i + 1, colour: colourOf(kernel.name) })),
    );
  return r.kernels
    .slice(0, TOP_KERNELS)
    .map((kernel) => ({ kernel, range: null, caseNo: null, colour: colourOf(kernel.name) }));
}

/** A point per row and level; those a log axis cannot show (zero, negative, NaN, infinite, null) set apart. */
export function rooflinePoints(rows: readonly ChartRow[]): { points: ChartPoint[]; skipped: SkippedPoint[] } {
  const points: ChartPoint[] = [];
  const skipped: SkippedPoint[] = [];
  rows.forEach((row, i) => {
    for (const l of LEVELS) {
      const x = row.kernel[l.ai];
      const y = row.kernel.gflopsPerSecond;
      if (plottable(x) && plottable(y)) points.push({ id: `${i}:${l.level}`, row: i, level: l.level, x, y });
      else skipped.push({ row: i, level: l.level, x, y });
    }
  });
  return { points, skipped };
}

/**
 * "mfmaFlops could not be computed: missing SQ_INSTS_VALU_MFMA_MOPS_F8" per missing quantity; a remark without
 * counters (the reader's own words) as it is. A single peak is said at its ceiling instead.
 */
export function missingNotes(missing: readonly RooflineMissing[]): string[] {
  return missing
    .filter((m) => !m.quantity.startsWith('peaks.'))
    .map((m) =>
      m.counters.length ? `${m.quantity} could not be computed: missing ${m.counters.join(', ')}` : m.quantity,
    );
}
