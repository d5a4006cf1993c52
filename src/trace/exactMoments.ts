// Count, sum, min, max and sum of squares of integer durations (ns), kept exactly, so that batches of dispatches
// can be summed in any grouping and order (by worker threads, over parts of a file) and still give the same
// mean and variance to the last bit. The square of a duration below 2^36 ns (68 s) is split into three
// integer terms below 2^36 (d = h * 2^18 + l: d^2 = h^2 * 2^36 + h*l * 2^19 + l^2), so a batch of up to 2^16
// dispatches sums each term exactly in a double; longer durations are listed apart and squared as BigInt.
import type { DurationStats } from './durationStats';

/** Values per kernel in a batch: name id, count, sum, min, max, sum h^2, sum h*l, sum l^2. */
export const MOMENT_WIDTH = 8;
const SPLIT = 1 << 18;
const SHORT = 2 ** 36;
const SAFE_TERM_SUM = 2 ** 52;

/** One batch's moments per id (worker side). */
export class BatchMoments {
  private values = new Float64Array(64 * MOMENT_WIDTH);
  /** Offset + 1 of each id's entry in `values` during the current batch (0: none yet). */
  private at = new Int32Array(64);
  private used = 0;
  private readonly long: number[] = [];

  /** `d`: a whole number of ns, >= 0. */
  add(id: number, d: number): void {
    if (id >= this.at.length) {
      const at = new Int32Array(Math.max(id + 1, this.at.length * 2));
      at.set(this.at);
      this.at = at;
    }
    let o = (this.at[id] as number) - 1;
    const v = this.values;
    if (o < 0) {
      o = this.used;
      if (o + MOMENT_WIDTH > v.length) {
        const bigger = new Float64Array(v.length * 2);
        bigger.set(v);
        this.values = bigger;
      }
      const w = this.values;
      w[o] = id;
      w[o + 1] = 0;
      w[o + 2] = 0;
      w[o + 3] = Infinity;
      w[o + 4] = -Infinity;
      w[o + 5] = 0;
      w[o + 6] = 0;
      w[o + 7] = 0;
      this.used += MOMENT_WIDTH;
      this.at[id] = o + 1;
    }
    const w = this.values;
    w[o + 1] = (w[o + 1] as number) + 1;
    w[o + 2] = (w[o + 2] as number) + d;
    if (d < (w[o + 3] as number)) w[o + 3] = d;
    if (d > (w[o + 4] as number)) w[o + 4] = d;
    if (d < SHORT) {
      const h = Math.floor(d / SPLIT);
      const l = d - h * SPLIT;
      w[o + 5] = (w[o + 5] as number) + h * h;
      w[o + 6] = (w[o + 6] as number) + h * l;
      w[o + 7] = (w[o + 7] as number) + l * l;
    } else {
      this.long.push(id, d);
    }
  }

  /** The batch's entries (MOMENT_WIDTH values each, in order of first appearance) and its long durations (id, ns). */
  take(): { moments: Float64Array; long: Float64Array } {
    const moments = this.values.slice(0, this.used);
    for (let o = 0; o < this.used; o += MOMENT_WIDTH) this.at[moments[o] as number] = 0;
    this.used = 0;
    const long = Float64Array.from(this.long);
    this.long.length = 0;
    return { moments, long };
  }
}

/** Moments of one kernel summed over batches (main side). */
export class ExactMoments {
  count = 0;
  sum = 0;
  min = Infinity;
  max = -Infinity;
  private hh = 0;
  private hl = 0;
  private ll = 0;
  private squares = 0n;

  /** Adds the entry at `o` of a batch's moments. */
  addEntry(m: Float64Array, o: number): void {
    this.count += m[o + 1] as number;
    this.sum += m[o + 2] as number;
    if ((m[o + 3] as number) < this.min) this.min = m[o + 3] as number;
    if ((m[o + 4] as number) > this.max) this.max = m[o + 4] as number;
    // each batch adds less than 2^52 to each term: below 2^52 before, below 2^53 (exact) after
    this.hh += m[o + 5] as number;
    this.hl += m[o + 6] as number;
    this.ll += m[o + 7] as number;
    if (this.hh >= SAFE_TERM_SUM || this.hl >= SAFE_TERM_SUM || this.ll >= SAFE_TERM_SUM) this.carry();
  }

  /** The square of a duration that `addEntry` counted but could not square (a long one). */
  addLongSquare(d: number): void {
    const b = BigInt(d);
    this.squares += b * b;
  }

  private carry(): void {
    this.squares += (BigInt(this.hh) << 36n) + (BigInt(this.hl) << 19n) + BigInt(this.ll);
    this.hh = 0;
    this.hl = 0;
    this.ll = 0;
  }

  /** As DurationStats: mean = sum / count; m2 = sum of squared deviations, (n * S2 - S1^2) / n with one rounding. */
  toStats(): DurationStats {
    this.carry();
    const n = this.count;
    let m2 = 0;
    if (n > 1) {
      const s1 = BigInt(this.sum);
      m2 = Number(BigInt(n) * this.squares - s1 * s1) / n;
    }
    return {
      count: n,
      sum: this.sum,
      min: this.min,
      max: this.max,
      mean: n > 0 ? this.sum / n : 0,
      m2,
      detailed: true,
      givenStddev: null,
    };
  }
}
