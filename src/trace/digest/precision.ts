// Numbers of the digest as short as their precision: durations (`...Ns`) in whole nanoseconds, shares (`percent`,
// `...Percent`) to 0.1 %, any other fraction to 4 significant digits. Every byte of the budget then carries
// information; the summary keeps the exact values.

/** A share in percent to 0.1 %. */
export function roundPercent(percent: number): number {
  return Math.round(percent * 10) / 10;
}

function roundOther(n: number): number {
  return Number.isInteger(n) || !Number.isFinite(n) ? n : Number(n.toPrecision(4));
}

function roundAs(key: string | undefined, n: number): number {
  if (key === undefined) return roundOther(n);
  if (key.endsWith('Ns')) return Math.round(n);
  if (key === 'percent' || key.endsWith('Percent')) return roundPercent(n);
  return roundOther(n);
}

/** The value with every number rounded by its key (array items by their array's key); a new value, the input kept. */
export function withPrecision<T>(value: T, key?: string): T {
  if (typeof value === 'number') return roundAs(key, value) as T;
  if (Array.isArray(value)) return value.map((v) => withPrecision(v, key)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = withPrecision(v, k);
    return out as T;
  }
  return value;
}
