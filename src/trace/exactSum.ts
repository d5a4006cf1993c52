// A sum of doubles kept exactly, so that it is the same whatever the grouping and order of its terms (a file's
// parts summed by worker threads, then together): while every term is an integer and the sum stays below 2^53 it
// is one double (each addition exact); past that, Shewchuk's non-overlapping partials (as Python's math.fsum),
// rounded once at the end to the nearest double.

const LIMIT = 2 ** 53;

export class ExactSum {
  /** The sum while it is exact in one double (then `partials` is null). */
  sum = 0;
  partials: number[] | null = null;

  /** Starts from `start` (an earlier sum taken as exact). */
  constructor(start = 0) {
    if (Number.isInteger(start) && Math.abs(start) < LIMIT) this.sum = start;
    else this.partials = [start];
  }

  add(x: number): void {
    if (this.partials === null) {
      const s = this.sum + x;
      if (Number.isInteger(x) && s < LIMIT && s > -LIMIT) {
        this.sum = s;
        return;
      }
      this.partials = [this.sum];
    }
    addPartial(this.partials, x);
  }

  /** Adds another exact sum (its terms, exactly). */
  addSum(other: { sum: number; partials: number[] | null }): void {
    if (other.partials === null) this.add(other.sum);
    else for (const p of other.partials) this.add(p);
  }

  /** The exact sum rounded to the nearest double (ties to even). */
  value(): number {
    return this.partials === null ? this.sum : roundPartials(this.partials);
  }
}

/** Adds `x` to the non-overlapping partials `p` (Shewchuk's grow-expansion, in place). */
function addPartial(p: number[], x: number): void {
  let i = 0;
  for (let j = 0; j < p.length; j++) {
    let y = p[j] as number;
    if (Math.abs(x) < Math.abs(y)) {
      const t = x;
      x = y;
      y = t;
    }
    const hi = x + y;
    const lo = y - (hi - x);
    if (lo !== 0) p[i++] = lo;
    x = hi;
  }
  p.length = i;
  p.push(x);
}

/** The partials' sum rounded once (math.fsum's last step, with its correction for a half-way case). */
function roundPartials(p: number[]): number {
  let n = p.length;
  if (n === 0) return 0;
  let hi = p[--n] as number;
  let lo = 0;
  while (n > 0) {
    const x = hi;
    const y = p[--n] as number;
    hi = x + y;
    lo = y - (hi - x);
    if (lo !== 0) break;
  }
  if (n > 0 && ((lo < 0 && (p[n - 1] as number) < 0) || (lo > 0 && (p[n - 1] as number) > 0))) {
    const y = lo * 2;
    const x = hi + y;
    if (y === x - hi) hi = x;
  }
  return hi;
}
