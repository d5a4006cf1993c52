// Durations as people read them: GPU times in ns/µs/ms/s, scores, a running clock, waits. Pure (no Node, no DOM).
import { isShown, MISSING, type FormatOptions } from './numbers';

export interface DurationOptions extends FormatOptions {
  /**
   * The column-aligned form of CLI tables: fixed decimals per unit (whole ns, 2 in µs and ms, 3 in s: "999 ns",
   * "1.50 µs", "2.58 ms", "1.343 s") instead of three significant digits ("999 ns", "1.50 µs", "2.58 ms", "1.34 s").
   */
  align?: boolean;
  /** Fixed decimals in µs, ms and s (ns stay whole); wins over align. 3 is GPU MODE's score: "123.457 µs". */
  decimals?: number;
}

const UNITS = ['ns', 'µs', 'ms', 's'] as const;
const ALIGNED_DECIMALS = [0, 2, 2, 3] as const;

function text(shown: number, unit: 0 | 1 | 2 | 3, opts: DurationOptions): string {
  let digits: number;
  if (opts.decimals !== undefined) digits = unit === 0 ? 0 : opts.decimals;
  else if (opts.align) digits = ALIGNED_DECIMALS[unit];
  else {
    const a = Math.abs(shown);
    digits = a >= 100 ? 0 : a >= 10 ? 1 : 2;
  }
  return `${shown.toFixed(digits)} ${UNITS[unit]}`;
}

/** Nanoseconds in the unit that suits them: "812 ns", "12.3 µs", "4.56 ms", "1.20 s" (see DurationOptions). */
export function formatNs(ns: number | null | undefined, opts: DurationOptions = {}): string {
  if (!isShown(ns)) return opts.missing ?? MISSING;
  const a = Math.abs(ns);
  if (a < 1e3) return text(ns, 0, opts);
  if (a < 1e6) return text(ns / 1e3, 1, opts);
  if (a < 1e9) return text(ns / 1e6, 2, opts);
  return text(ns / 1e9, 3, opts);
}

/** Seconds (wall times, scores) in the unit that suits them, as formatNs; scaled from seconds directly. */
export function formatSeconds(seconds: number | null | undefined, opts: DurationOptions = {}): string {
  if (!isShown(seconds)) return opts.missing ?? MISSING;
  const a = Math.abs(seconds);
  if (a < 1e-6) return text(seconds * 1e9, 0, opts);
  if (a < 1e-3) return text(seconds * 1e6, 1, opts);
  if (a < 1) return text(seconds * 1e3, 2, opts);
  return text(seconds, 3, opts);
}

/** A ranked score (seconds) as GPU MODE shows it: "812 ns", "123.457 µs", "4.210 ms", "1.500 s". */
export function formatScore(seconds: number): string {
  return formatSeconds(seconds, { decimals: 3, missing: `${seconds.toFixed(3)} s` });
}

/** `mean ± err` of a benchmark case (ns), each in the unit that suits it: "2.50 µs ± 12.0 ns". */
export function formatMeanErr(
  meanNs: number | null | undefined,
  errNs: number | null | undefined,
  opts: DurationOptions = {},
): string {
  if (meanNs === undefined || meanNs === null) return opts.missing ?? MISSING;
  return errNs === undefined || errNs === null
    ? formatNs(meanNs, opts)
    : `${formatNs(meanNs, opts)} ± ${formatNs(errNs, opts)}`;
}

/** A running clock (milliseconds): "0:07", "12:34", "75:00"; padMinutes: "00:07". */
export function formatElapsed(ms: number, opts: { padMinutes?: boolean } = {}): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const min = String(Math.floor(s / 60));
  return `${opts.padMinutes ? min.padStart(2, '0') : min}:${String(s % 60).padStart(2, '0')}`;
}

/** How long to wait (milliseconds, e.g. a Retry-After), rounded: "3 s", "2 min", "1 h 5 min"; at least "1 s". */
export function formatWait(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  const min = Math.round(s / 60);
  return min < 120 ? `${min} min` : `${Math.floor(min / 60)} h ${min % 60} min`;
}

/** A long span (milliseconds, e.g. to a deadline), coarsely: "12 min", "5 h", "3 days"; at least "1 min". */
export function formatTimeLeft(ms: number): string {
  const abs = Math.abs(ms);
  const min = Math.round(abs / 60_000);
  if (min < 60) return `${Math.max(1, min)} min`;
  const h = Math.round(abs / 3_600_000);
  if (h < 48) return `${h} h`;
  return `${Math.round(abs / 86_400_000)} days`;
}
