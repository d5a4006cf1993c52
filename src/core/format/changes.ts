// A change from trace A to trace B: a signed duration and the ratio B / A. The readable form (webview) puts the sign
// first always, with a true minus and ±0, and gives the ratio its percentage; the aligned form (CLI tables) keeps
// to ASCII and a short ratio so that columns line up in any terminal.
import { formatNs, type DurationOptions } from './durations';
import { isShown, MISSING, type AlignOptions } from './numbers';

/** "+1.20 ms", "−350 ns", "±0" (align: "+1.20 µs", "-812 ns", "0 ns"). */
export function formatSignedNs(ns: number | null | undefined, opts: DurationOptions = {}): string {
  if (!isShown(ns)) return opts.missing ?? MISSING;
  if (opts.align) return ns > 0 ? `+${formatNs(ns, opts)}` : formatNs(ns, opts);
  if (ns === 0) return '±0';
  return `${ns > 0 ? '+' : '−'}${formatNs(Math.abs(ns), opts)}`;
}

/** B / A: "0.50× (−50%)", "3.00× (+200%)", "12.5× (+1150%)" (align: "0.50x", "3.00x"). */
export function formatRatio(r: number | null | undefined, opts: AlignOptions = {}): string {
  if (!isShown(r)) return opts.missing ?? MISSING;
  if (opts.align) return `${r.toFixed(2)}x`;
  const pct = (r - 1) * 100;
  const a = Math.abs(pct);
  const p = a < 0.05 ? '±0%' : `${pct > 0 ? '+' : '−'}${a < 10 ? a.toFixed(1) : Math.round(a)}%`;
  return `${r.toFixed(r >= 10 ? 1 : 2)}× (${p})`;
}

/** The parts of a judged change (the trace toolkit's DigestChange / TraceChange) a formatter needs. */
export interface JudgedChange {
  ratio: number | null;
  interval: [number, number] | null;
  verdict: string;
  text: string;
}

const signedPercent = (f: number): string => {
  const p = f * 100;
  const a = Math.abs(p);
  return `${p >= 0 ? '+' : '-'}${a < 10 ? a.toFixed(1) : Math.round(a)}%`;
};

/** "+4.8% [+3.1%, +6.5%] slower", "-0.2% [-1.0%, +0.6%] no change detected", "not enough runs to tell". */
export function formatChange(c: JudgedChange | null | undefined, opts: AlignOptions = {}): string {
  if (!c) return opts.missing ?? MISSING;
  if (!c.interval || c.ratio === null) return c.text;
  return `${signedPercent(c.ratio - 1)} [${signedPercent(c.interval[0])}, ${signedPercent(c.interval[1])}] ${c.text}`;
}
