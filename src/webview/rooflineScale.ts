// The roofline chart's geometry, apart from the DOM so that it can be tested as numbers: log-log domains that hold
// the points and the ceilings, decade ticks, value-to-pixel scales, and the ceiling segments as rocprof-compute
// draws them (each bandwidth slope from the left edge up to the highest compute ceiling, each compute ceiling from
// where it meets the fastest bandwidth slope to the right edge). A log axis cannot show zero, negative, NaN or
// infinite values: callers skip them (plottable) and say so.

/** A value a log axis can place: finite and above zero. */
export function plottable(v: number | null | undefined): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0;
}

/** Powers of ten around the plottable values: [10^floor(log10 min), 10^ceil(log10 max)], at least `minDecades` wide. */
export function logDomain(values: ReadonlyArray<number | null | undefined>, minDecades = 1): [number, number] {
  const shown = values.filter(plottable);
  if (!shown.length) return [1, 10 ** Math.max(1, minDecades)];
  let lo = Math.floor(Math.log10(Math.min(...shown)));
  let hi = Math.ceil(Math.log10(Math.max(...shown)));
  // widen evenly (the extra decade on top when odd) until the axis spans minDecades
  while (hi - lo < Math.max(1, minDecades)) {
    if ((hi - lo) % 2 === 0) hi++;
    else lo--;
  }
  return [10 ** lo, 10 ** hi];
}

/** The decades inside a domain: 0.01, 0.1, 1, 10 ... (the domain's ends included). */
export function decadeTicks([lo, hi]: readonly [number, number]): number[] {
  const out: number[] = [];
  for (let e = Math.ceil(Math.log10(lo) - 1e-9); e <= Math.floor(Math.log10(hi) + 1e-9); e++) out.push(10 ** e);
  return out;
}

/** A log scale from a domain to a pixel range (which may run backwards, as a y axis does). */
export function logScale(
  [d0, d1]: readonly [number, number],
  [r0, r1]: readonly [number, number],
): (v: number) => number {
  const l0 = Math.log10(d0);
  const span = Math.log10(d1) - l0 || 1;
  return (v: number) => r0 + ((Math.log10(v) - l0) / span) * (r1 - r0);
}

/** A ceiling: a bandwidth (GB/s, a slope y = AI × bw) or a compute peak (GFLOP/s, flat). */
export interface Ceiling {
  key: string;
  label: string;
  kind: 'bandwidth' | 'compute';
  value: number;
}

/** A ceiling's segment in data coordinates (AI in FLOP/byte, GFLOP/s). */
export interface CeilingSegment extends Ceiling {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** The intensities where the ceilings meet (and so must be in view): the slowest and fastest ridges. */
export function ridgePoints(ceilings: readonly Ceiling[]): number[] {
  const bw = ceilings.filter((c) => c.kind === 'bandwidth' && plottable(c.value)).map((c) => c.value);
  const fl = ceilings.filter((c) => c.kind === 'compute' && plottable(c.value)).map((c) => c.value);
  if (!bw.length || !fl.length) return [];
  return [Math.min(...fl) / Math.max(...bw), Math.max(...fl) / Math.min(...bw)];
}

/**
 * The segments to draw inside the x domain. A bandwidth slope runs from the left edge to the highest compute
 * ceiling (to the right edge when there is none); a compute ceiling from the fastest slope (the left edge when
 * there is none) to the right edge. Ceilings whose value is not plottable are left out.
 */
export function ceilingSegments(ceilings: readonly Ceiling[], [xLo, xHi]: readonly [number, number]): CeilingSegment[] {
  const ok = ceilings.filter((c) => plottable(c.value));
  const bw = ok.filter((c) => c.kind === 'bandwidth');
  const fl = ok.filter((c) => c.kind === 'compute');
  const topFlops = fl.length ? Math.max(...fl.map((c) => c.value)) : null;
  const fastest = bw.length ? Math.max(...bw.map((c) => c.value)) : null;
  const out: CeilingSegment[] = [];
  for (const c of bw) {
    const x2 = topFlops === null ? xHi : Math.min(xHi, Math.max(xLo, topFlops / c.value));
    out.push({ ...c, x1: xLo, y1: xLo * c.value, x2, y2: x2 * c.value });
  }
  for (const c of fl) {
    const x1 = fastest === null ? xLo : Math.min(xHi, Math.max(xLo, c.value / fastest));
    out.push({ ...c, x1, y1: c.value, x2: xHi, y2: c.value });
  }
  return out;
}

/**
 * A log domain around the plottable values with `pad` decades of room each side, at least `minDecades` wide
 * (widened evenly about its middle); [1, 10^minDecades] when there is nothing to show.
 */
export function paddedLogDomain(
  values: ReadonlyArray<number | null | undefined>,
  pad: number,
  minDecades: number,
): [number, number] {
  const shown = values.filter(plottable);
  if (!shown.length) return [1, 10 ** minDecades];
  let lo = Math.log10(Math.min(...shown)) - pad;
  let hi = Math.log10(Math.max(...shown)) + pad;
  if (hi - lo < minDecades) {
    const mid = (hi + lo) / 2;
    lo = mid - minDecades / 2;
    hi = mid + minDecades / 2;
  }
  return [10 ** lo, 10 ** hi];
}

/** Axes that hold every plottable point and every ceiling where it meets the others, with a little room around. */
export function rooflineDomains(
  points: ReadonlyArray<{ x: number | null; y: number | null }>,
  ceilings: readonly Ceiling[],
): { x: [number, number]; y: [number, number] } {
  const xs: Array<number | null> = points.map((p) => p.x);
  xs.push(...ridgePoints(ceilings));
  const x = paddedLogDomain(xs, 0.3, 4);
  const ys: Array<number | null> = points.map((p) => p.y);
  const compute = ceilings.filter((c) => c.kind === 'compute' && plottable(c.value));
  for (const c of ceilings) {
    if (!plottable(c.value)) continue;
    // a slope where it enters at the left edge; a flat roof as it is
    ys.push(c.kind === 'bandwidth' ? x[0] * c.value : c.value);
    // with no compute ceiling a slope runs on to the right edge
    if (c.kind === 'bandwidth' && !compute.length) ys.push(x[1] * c.value);
  }
  return { x, y: paddedLogDomain(ys, 0.25, 3) };
}

/** A decade as an axis label: "0.001", "0.1", "1", "100", "10k", "1M", "1e-5", "1e+9". */
export function decadeLabel(v: number): string {
  const e = Math.round(Math.log10(v));
  if (e >= -3 && e <= 2) return String(Number((10 ** e).toPrecision(1)));
  if (e >= 3 && e <= 8) return `${10 ** (e % 3)}${['k', 'M', 'G'][Math.floor(e / 3) - 1]}`;
  return `1e${e > 0 ? '+' : ''}${e}`;
}
