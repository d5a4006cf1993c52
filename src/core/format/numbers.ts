// Sizes, counts, percentages and launch dimensions as people read them. Pure (no Node, no DOM): the CLI, the
// extension host and the results webview (which bundles this file) share it.

export interface FormatOptions {
  /** What a missing value (null, undefined, NaN, ±Infinity) shows: '–' (the default, webview and host) or '-' (CLI). */
  missing?: string;
}

export interface AlignOptions extends FormatOptions {
  /**
   * The column-aligned form of CLI tables: the same decimals on every row ("64.0 KiB", "3.7 GiB"; "55.0%", "4.2%")
   * instead of three significant digits ("64.0 KiB", "512 KiB"; "55.0%", "4.20%").
   */
  align?: boolean;
}

/** The default for missing values: an en dash. */
export const MISSING = '–';

/** A finite number (what every formatter shows; the rest is "missing"). */
export function isShown(v: number | null | undefined): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** Binary units: "512 B", "1.0 KiB", "47.7 MiB", "256 MiB" (align: "256.0 MiB"). */
export function formatBytes(bytes: number | null | undefined, opts: AlignOptions = {}): string {
  if (!isShown(bytes)) return opts.missing ?? MISSING;
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < BYTE_UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  if (u === 0) return `${v} B`;
  return `${opts.align || v < 100 ? v.toFixed(1) : v.toFixed(0)} ${BYTE_UNITS[u]}`;
}

/** A percentage (0-100): "42.1%", "1.50%" (align: "1.5%"). */
export function formatPercent(p: number | null | undefined, opts: AlignOptions = {}): string {
  if (!isShown(p)) return opts.missing ?? MISSING;
  return `${opts.align || p >= 10 ? p.toFixed(1) : p.toFixed(2)}%`;
}

/** A count with thousands separators: "1,234,567". */
export function formatCount(n: number | null | undefined, opts: FormatOptions = {}): string {
  if (!isShown(n)) return opts.missing ?? MISSING;
  return n.toLocaleString('en-US');
}

/** Transfer rate: "50.0 GB/s". */
export function formatBandwidth(gbps: number | null | undefined, opts: FormatOptions = {}): string {
  if (!isShown(gbps)) return opts.missing ?? MISSING;
  return `${gbps.toFixed(1)} GB/s`;
}

/** A grid or workgroup size: "4096" when one-dimensional, else "64×4×1". */
export function formatDim(d: readonly [number, number, number] | null | undefined, opts: FormatOptions = {}): string {
  if (!d) return opts.missing ?? MISSING;
  return d[1] === 1 && d[2] === 1 ? String(d[0]) : `${d[0]}×${d[1]}×${d[2]}`;
}

/** A hardware counter value: whole numbers with separators ("16,384"), others to four significant digits ("0.3333", "1.235e+12"). */
export function formatCounterValue(v: number | null | undefined, opts: FormatOptions = {}): string {
  if (!isShown(v)) return opts.missing ?? MISSING;
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return v.toLocaleString('en-US');
  const a = Math.abs(v);
  return a >= 1e6 || a < 1e-3 ? v.toExponential(3) : String(Number(v.toPrecision(4)));
}
