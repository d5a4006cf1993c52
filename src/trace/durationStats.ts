// Running statistics of durations (ns): count, sum, min, max and a Welford mean/M2 for the standard deviation
// (numerically stable where a sum of squares of 1e9-ns durations would lose precision). Sums of integer ns stay
// exact in a double up to 2^53 ns (104 days).

export interface DurationStats {
  count: number;
  sum: number;
  min: number;
  max: number;
  mean: number;
  m2: number;
  /** False when min/max/stddev are unknown (a legacy stats file gave only count and total). */
  detailed: boolean;
  /** Sample stddev given by a stats file, used when the dispatches themselves were not read. */
  givenStddev: number | null;
}

export function emptyStats(): DurationStats {
  return { count: 0, sum: 0, min: Infinity, max: -Infinity, mean: 0, m2: 0, detailed: true, givenStddev: null };
}

export function addDuration(s: DurationStats, d: number): void {
  const n = ++s.count;
  s.sum += d;
  if (d < s.min) s.min = d;
  if (d > s.max) s.max = d;
  const delta = d - s.mean;
  s.mean += delta / n;
  s.m2 += delta * (d - s.mean);
}

/** Merges `b` into `a` (Chan et al. parallel variance). */
export function mergeStats(a: DurationStats, b: DurationStats): void {
  if (b.count === 0) return;
  if (a.count === 0) {
    Object.assign(a, b);
    return;
  }
  const n = a.count + b.count;
  const delta = b.mean - a.mean;
  a.m2 += b.m2 + (delta * delta * a.count * b.count) / n;
  a.mean += (delta * b.count) / n;
  a.count = n;
  a.sum += b.sum;
  a.min = Math.min(a.min, b.min);
  a.max = Math.max(a.max, b.max);
  a.detailed = a.detailed && b.detailed;
  a.givenStddev = null;
}

/** Stats as a stats CSV row gives them (no per-call data). */
export function statsFromTotals(
  count: number,
  sum: number,
  min: number | null,
  max: number | null,
  stddev: number | null,
): DurationStats {
  const detailed = min !== null && max !== null;
  return {
    count,
    sum,
    min: min ?? Infinity,
    max: max ?? -Infinity,
    mean: count > 0 ? sum / count : 0,
    m2: stddev !== null && count > 1 ? stddev * stddev * (count - 1) : 0,
    detailed,
    givenStddev: stddev,
  };
}

export interface StatsOut {
  calls: number;
  totalNs: number;
  avgNs: number;
  minNs: number | null;
  maxNs: number | null;
  stddevNs: number | null;
}

export function statsOut(s: DurationStats): StatsOut {
  const known = s.detailed && s.count > 0;
  let stddev: number | null = null;
  if (s.givenStddev !== null) stddev = s.givenStddev;
  else if (known) stddev = s.count > 1 ? Math.sqrt(Math.max(0, s.m2 / (s.count - 1))) : 0;
  return {
    calls: s.count,
    totalNs: s.sum,
    avgNs: s.count > 0 ? s.sum / s.count : 0,
    minNs: known ? s.min : null,
    maxNs: known ? s.max : null,
    stddevNs: stddev,
  };
}
