// The ranked score of a run, as GPU MODE computes it: shared by our runner (which scores) and clients (which show it).
export type RankingBy = 'last' | 'mean' | 'geom';

/** Upstream's default when a task does not say (kernelbot `RankCriterion.LAST`). */
const DEFAULT_RANKING_BY: RankingBy = 'last';

export function rankingByOf(value: string | null | undefined): RankingBy {
  return value === 'mean' || value === 'geom' || value === 'last' ? value : DEFAULT_RANKING_BY;
}

/**
 * A ranked score in seconds from a run's `result` map: the benchmark means (ns) combined as the leaderboard ranks
 * them — `last` case, arithmetic `mean`, or `geom`etric mean. Null when any case lacks a positive mean.
 */
export function scoreFromResultValues(
  values: Readonly<Record<string, string>>,
  rankingBy?: string | null,
): number | null {
  const count = Number(values['benchmark-count']);
  if (!Number.isInteger(count) || count <= 0) return null;
  const means: number[] = [];
  for (let i = 0; i < count; i++) {
    const mean = Number(values[`benchmark.${i}.mean`]);
    if (!Number.isFinite(mean) || mean <= 0) return null;
    means.push(mean / 1e9);
  }
  const by = rankingByOf(rankingBy);
  if (by === 'last') return means[means.length - 1] ?? null;
  if (by === 'mean') return means.reduce((a, b) => a + b, 0) / means.length;
  return Math.exp(means.reduce((a, b) => a + Math.log(b), 0) / means.length);
}
