// Is a change of a timing real or noise? Welch's t-test on two samples given by mean, standard deviation and
// count (the evaluator's per-case `mean`, `std`, `runs`; a kernel's per-dispatch avgNs, stddevNs, calls), with the
// confidence interval of the relative change b / a - 1 and a verdict.
//
// Student's t distribution is written here: the one well-kept library for it on npm (@stdlib's t-cdf and
// t-quantile) brings 220+ packages (26 MB) for two functions, and jstat is not maintained. The CDF is the
// regularized incomplete beta function (continued fraction, modified Lentz) with a Lanczos log-gamma; the quantile
// is found by bisection on it. Checked against published t tables in test/unit/trace/significance.test.ts.
//
// 99% intervals by default: a compare table has dozens of rows, and at 95% one row in twenty would be called a
// change in two runs of the same code.
import type { DigestChange, DigestVerdict } from '../core/protocol/profileDigest';

const DEFAULT_CONFIDENCE = 0.99;
/** Fewer dispatches than this on a side: the per-dispatch spread says too little. */
const MIN_DISPATCHES = 10;

const LANCZOS = [
  676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
  -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const z = x - 1;
  let a = 0.99999999999980993;
  const t = z + 7.5;
  for (let i = 0; i < LANCZOS.length; i++) a += (LANCZOS[i] as number) / (z + i + 1);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Continued fraction of the incomplete beta function (modified Lentz). */
function betaContinuedFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return h;
}

/** The regularized incomplete beta function I_x(a, b). */
function regularizedBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2)
    ? (front * betaContinuedFraction(x, a, b)) / a
    : 1 - (front * betaContinuedFraction(1 - x, b, a)) / b;
}

/** P(T <= t) for Student's t with `df` degrees of freedom (df > 0, not necessarily whole). */
export function studentTCdf(t: number, df: number): number {
  if (!Number.isFinite(t)) return t > 0 ? 1 : 0;
  const tail = 0.5 * regularizedBeta(df / (df + t * t), df / 2, 0.5);
  return t > 0 ? 1 - tail : tail;
}

/** The t with P(T <= t) = p. */
export function studentTQuantile(p: number, df: number): number {
  if (p <= 0) return -Infinity;
  if (p >= 1) return Infinity;
  if (p === 0.5) return 0;
  let lo = -1;
  let hi = 1;
  while (studentTCdf(lo, df) > p) lo *= 2;
  while (studentTCdf(hi, df) < p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-12 * Math.max(1, Math.abs(hi)); i++) {
    const mid = (lo + hi) / 2;
    if (studentTCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** A sample given by its moments. */
export interface SampleMoments {
  mean: number;
  /** Sample standard deviation (n - 1). */
  std: number;
  n: number;
}

export interface WelchResult {
  /** b.mean - a.mean. */
  diff: number;
  /** Interval of the difference of means. */
  interval: [number, number];
  df: number;
  /** Two-sided p-value. */
  pValue: number;
}

/** Welch's t-test of b against a; null when a side has fewer than 2 values or its spread is not a number. */
export function welch(a: SampleMoments, b: SampleMoments, confidence = DEFAULT_CONFIDENCE): WelchResult | null {
  if (a.n < 2 || b.n < 2 || !(a.std >= 0) || !(b.std >= 0) || !Number.isFinite(a.mean) || !Number.isFinite(b.mean))
    return null;
  const va = (a.std * a.std) / a.n;
  const vb = (b.std * b.std) / b.n;
  const diff = b.mean - a.mean;
  const se = Math.sqrt(va + vb);
  if (se === 0) return { diff, interval: [diff, diff], df: Infinity, pValue: diff === 0 ? 1 : 0 };
  const df = (va + vb) ** 2 / ((va * va) / (a.n - 1) + (vb * vb) / (b.n - 1));
  const q = studentTQuantile(1 - (1 - confidence) / 2, df);
  const t = diff / se;
  return { diff, interval: [diff - q * se, diff + q * se], df, pValue: 2 * studentTCdf(-Math.abs(t), df) };
}

const VERDICT_TEXT: Record<DigestVerdict, string> = {
  faster: 'faster',
  slower: 'slower',
  'no-change': 'no change detected',
  'not-enough-runs': 'not enough runs to tell',
};

function change(
  aNs: number | null,
  bNs: number | null,
  verdict: DigestVerdict,
  interval: [number, number] | null,
  method: DigestChange['method'],
  confidence: number,
): DigestChange {
  return {
    aNs,
    bNs,
    ratio: aNs !== null && bNs !== null && aNs > 0 ? bNs / aNs : null,
    interval,
    confidence,
    verdict,
    text: VERDICT_TEXT[verdict],
    method,
  };
}

/**
 * The change from a to b of a mean timing, with its interval as a relative change (b / a - 1) and a verdict:
 * `slower` / `faster` when the interval lies above / below 0, else `no-change`.
 */
export function judgeChange(
  a: SampleMoments | null,
  b: SampleMoments | null,
  method: 'welch' | 'dispatch-spread',
  confidence = DEFAULT_CONFIDENCE,
  minN = 2,
): DigestChange {
  const aNs = a?.mean ?? null;
  const bNs = b?.mean ?? null;
  if (!a || !b || a.n < minN || b.n < minN || !(a.mean > 0))
    return change(aNs, bNs, 'not-enough-runs', null, 'none', confidence);
  const w = welch(a, b, confidence);
  if (!w) return change(aNs, bNs, 'not-enough-runs', null, 'none', confidence);
  const interval: [number, number] = [w.interval[0] / a.mean, w.interval[1] / a.mean];
  const verdict: DigestVerdict = interval[0] > 0 ? 'slower' : interval[1] < 0 ? 'faster' : 'no-change';
  return change(aNs, bNs, verdict, interval, method, confidence);
}

/** A change judged from per-dispatch durations (a kernel row's avgNs, stddevNs, calls). */
export function judgeDispatches(
  a: { avgNs: number; stddevNs: number | null; calls: number } | null,
  b: { avgNs: number; stddevNs: number | null; calls: number } | null,
  confidence = DEFAULT_CONFIDENCE,
): DigestChange {
  const moments = (k: typeof a): SampleMoments | null =>
    k && k.stddevNs !== null ? { mean: k.avgNs, std: k.stddevNs, n: k.calls } : null;
  const ma = moments(a);
  const mb = moments(b);
  if (!ma || !mb) return change(a?.avgNs ?? null, b?.avgNs ?? null, 'not-enough-runs', null, 'none', confidence);
  return judgeChange(ma, mb, 'dispatch-spread', confidence, MIN_DISPATCHES);
}

/** The evaluator's timing of one benchmark case (`benchmark.<i>.mean|std|runs` of a result map). */
export interface CaseTiming {
  spec: string;
  runs?: number | null;
  meanNs?: number | null;
  stdNs?: number | null;
}

export interface CaseTimingChange {
  spec: string;
  change: DigestChange;
}

/** Per benchmark case (paired by spec, else by position), the evaluator's timings of b against a. */
export function compareCaseTimings(
  as: readonly CaseTiming[],
  bs: readonly CaseTiming[],
  confidence = DEFAULT_CONFIDENCE,
): CaseTimingChange[] {
  const moments = (c: CaseTiming | undefined): SampleMoments | null =>
    c && typeof c.meanNs === 'number' && typeof c.stdNs === 'number' && typeof c.runs === 'number'
      ? { mean: c.meanNs, std: c.stdNs, n: c.runs }
      : null;
  const bySpec = new Map(bs.map((b) => [b.spec, b]));
  const specsUnique = bySpec.size === bs.length && new Set(as.map((a) => a.spec)).size === as.length;
  const out: CaseTimingChange[] = [];
  as.forEach((a, i) => {
    const b = specsUnique ? bySpec.get(a.spec) : bs[i];
    const ma = moments(a);
    const mb = moments(b);
    const judged =
      ma && mb
        ? judgeChange(ma, mb, 'welch', confidence)
        : change(a.meanNs ?? null, b?.meanNs ?? null, 'not-enough-runs', null, 'none', confidence);
    out.push({ spec: a.spec, change: judged });
  });
  return out;
}

/** One kernel's part of a total: its dispatches' count, mean and spread. */
export interface DispatchPart {
  calls: number;
  avgNs: number;
  stddevNs: number | null;
}

/**
 * The change of a total of dispatch durations (a case's or the run's kernel time): the totals' variances are the
 * sums of calls x variance of their kernels (dispatches taken as independent), the interval a normal one (the
 * totals add up many dispatches). Not told when a part's spread is unknown or a side has too few dispatches.
 */
export function judgeTotals(
  a: readonly DispatchPart[] | null,
  b: readonly DispatchPart[] | null,
  confidence = DEFAULT_CONFIDENCE,
): DigestChange {
  const total = (ps: readonly DispatchPart[]) => ps.reduce((n, p) => n + p.calls * p.avgNs, 0);
  const aNs = a ? total(a) : null;
  const bNs = b ? total(b) : null;
  const known = (ps: readonly DispatchPart[] | null): ps is readonly DispatchPart[] =>
    ps !== null && ps.every((p) => p.stddevNs !== null) && ps.reduce((n, p) => n + p.calls, 0) >= MIN_DISPATCHES;
  if (!known(a) || !known(b) || aNs === null || bNs === null || !(aNs > 0))
    return change(aNs, bNs, 'not-enough-runs', null, 'none', confidence);
  const variance = (ps: readonly DispatchPart[]) => ps.reduce((n, p) => n + p.calls * (p.stddevNs as number) ** 2, 0);
  const se = Math.sqrt(variance(a) + variance(b));
  const z = studentTQuantile(1 - (1 - confidence) / 2, 1e7);
  const diff = bNs - aNs;
  const interval: [number, number] = [(diff - z * se) / aNs, (diff + z * se) / aNs];
  const verdict: DigestVerdict = interval[0] > 0 ? 'slower' : interval[1] < 0 ? 'faster' : 'no-change';
  return change(aNs, bNs, verdict, interval, 'dispatch-spread', confidence);
}
