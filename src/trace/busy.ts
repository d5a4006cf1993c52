// GPU busy time of one agent: the length of the UNION of its kernel and copy intervals (time with at least one
// operation in flight), and a busy-fraction timeline, computed in bounded memory.
//
// Approach. Intervals arrive roughly in time order (rocprofv3 writes records as buffers complete; queues
// interleave, so a file is not sorted by start). We keep a compacted list of disjoint busy islands, sorted by
// start, in two Float64Arrays. A new interval is merged into it: appended or extended at the tail in O(1) (the
// common case), else placed by binary search (islands that it touches are fused, so the list only holds gaps).
// The list holds `maxIslands` islands (default 65,536 = 1 MiB) when a new one is appended; an interval placed
// inside the list may take it up to half as many more (so that only appends retire, see BusyRuns). When it is
// full, all but the newest `maxIslands / 2` islands are retired: their lengths are added to the busy total and their coverage to a fixed-size histogram whose bin width
// doubles (pairs of bins merge) as time runs on; the end of the last retired island becomes a watermark.
// Result: exact whenever no interval reaches back behind the watermark, i.e. when no record arrives more than
// about `maxIslands / 2` idle gaps late; otherwise the part behind the watermark is left out (a lower bound) and
// `exact` turns false (the summary then says so in `agents[].busyExact` and `warnings`). Memory is O(maxIslands + histogramBins) per agent whatever the number of rows.
//
// The timeline is exact (computed from islands) when nothing was retired; otherwise the retired part comes from
// the histogram, spread uniformly within each bin (error at most one bin per output bucket edge).

/**
 * Intervals merged into runs before they reach a BusyTracker: consecutive intervals of one key (an agent) while
 * each starts inside the run so far. Adding the run gives the tracker the state that adding its intervals one by
 * one gives: the first interval decides the path (append, extend the last island, insert) by its start, which is
 * the run's; after an append or an extension the others only extend the last island; after an insertion the
 * others are insertions too (they start before the last island) and the union does not depend on grouping,
 * since insertions retire nothing below the hard cap. Two things differ, both only where the result is already
 * flagged inexact or the list is at its hard cap: `lateNs` counts a run's late part once, not each interval's.
 */
export class BusyRuns {
  count = 0;
  private key = 0;
  private s = 0;
  private e = 0;
  private open = false;

  /** Runs are written to the arrays (as many as they hold between two `reset`s). */
  constructor(
    readonly keys: Int32Array,
    readonly starts: Float64Array,
    readonly ends: Float64Array,
  ) {}

  static withCapacity(n: number): BusyRuns {
    return new BusyRuns(new Int32Array(n), new Float64Array(n), new Float64Array(n));
  }

  add(key: number, s: number, e: number): void {
    if (this.open && key === this.key && s >= this.s && s <= this.e) {
      if (e > this.e) this.e = e;
      return;
    }
    this.close();
    this.key = key;
    this.s = s;
    this.e = e;
    this.open = true;
  }

  /** Ends the open run (call before reading the arrays). */
  close(): void {
    if (!this.open) return;
    const i = this.count++;
    this.keys[i] = this.key;
    this.starts[i] = this.s;
    this.ends[i] = this.e;
    this.open = false;
  }

  reset(): void {
    this.count = 0;
    this.open = false;
  }
}

export interface BusyOptions {
  maxIslands?: number;
  histogramBins?: number;
}

export class BusyTracker {
  private readonly cap: number;
  /** Islands an insertion may take the list to before it retires (appends retire at `cap`). */
  private readonly hardCap: number;
  /** The interval being inserted (see addRange). */
  private readonly pending = new Float64Array(2);
  private readonly bins: number;
  private starts: Float64Array;
  private ends: Float64Array;
  private n = 0;
  private retiredNs = 0;
  private watermark = -Infinity;
  private hist: Float64Array | null = null;
  private histOrigin = 0;
  private histWidth = 1;
  /** Total length of interval parts dropped because they fell behind the watermark. */
  lateNs = 0;
  exact = true;
  timelineExact = true;

  constructor(options: BusyOptions = {}) {
    this.cap = Math.max(4, options.maxIslands ?? 65536);
    this.hardCap = this.cap + (this.cap >> 1);
    this.bins = Math.max(16, options.histogramBins ?? 4096);
    // small at first (an agent with few islands costs little; a trace may name many agents), doubled as needed
    const initial = Math.min(this.cap, 64);
    this.starts = new Float64Array(initial);
    this.ends = new Float64Array(initial);
  }

  add(start: number, end: number): void {
    let s = start;
    const e = end;
    if (!(e > s)) return;
    if (s < this.watermark) {
      this.exact = false;
      this.lateNs += Math.min(e, this.watermark) - s;
      if (e <= this.watermark) return;
      s = this.watermark;
    }
    const n = this.n;
    const starts = this.starts;
    const ends = this.ends;
    if (n > 0) {
      const lastEnd = ends[n - 1] as number;
      if (s <= lastEnd && s >= (starts[n - 1] as number)) {
        if (e > lastEnd) ends[n - 1] = e;
        return;
      }
      if (s > lastEnd) {
        this.push(s, e);
        return;
      }
      this.insert(s, e);
      return;
    }
    this.push(s, e);
  }

  /**
   * add(starts[i], ends[i]) for i in [from, to), in order. Appends and extensions happen here; an insertion gets
   * its interval through `pending` (a call with two numbers would box both, for a third of a trace's runs).
   */
  addRange(starts: Float64Array, ends: Float64Array, from: number, to: number): void {
    for (let i = from; i < to; i++) {
      const s = starts[i] as number;
      const e = ends[i] as number;
      const n = this.n;
      if (!(e > s) || s < this.watermark || n === 0) {
        this.add(s, e); // rare: empty, late or first
        continue;
      }
      const lastEnd = this.ends[n - 1] as number;
      if (s > lastEnd) {
        if (n >= this.cap) this.retire(n - (this.cap >> 1));
        else if (n === this.starts.length) this.grow();
        this.starts[this.n] = s;
        this.ends[this.n] = e;
        this.n++;
      } else if (s >= (this.starts[n - 1] as number)) {
        if (e > lastEnd) this.ends[n - 1] = e;
      } else {
        this.pending[0] = s;
        this.pending[1] = e;
        this.insertPending();
      }
    }
  }

  /** Busy ns so far (union length). */
  get busyNs(): number {
    let total = this.retiredNs;
    for (let i = 0; i < this.n; i++) total += (this.ends[i] as number) - (this.starts[i] as number);
    return total;
  }

  /** Number of disjoint islands currently held (for tests and diagnostics). */
  get islandCount(): number {
    return this.n;
  }

  /** Busy ns inside each of `buckets` equal buckets over [t0, t1). */
  coverage(t0: number, t1: number, buckets: number): Float64Array {
    const out = new Float64Array(buckets);
    const width = (t1 - t0) / buckets;
    if (!(width > 0)) return out;
    const spread = (s: number, e: number, amount: number): void => {
      // spreads `amount` uniformly over [s, e) into the buckets it overlaps
      const a = Math.max(s, t0);
      const b = Math.min(e, t1);
      if (!(b > a)) return;
      const density = amount / (e - s);
      let i = Math.min(buckets - 1, Math.floor((a - t0) / width));
      for (; i < buckets; i++) {
        const bs = t0 + i * width;
        const be = i === buckets - 1 ? t1 : bs + width;
        if (bs >= b) break;
        const ov = Math.min(be, b) - Math.max(bs, a);
        if (ov > 0) out[i] = (out[i] as number) + ov * density;
      }
    };
    for (let i = 0; i < this.n; i++) {
      const s = this.starts[i] as number;
      const e = this.ends[i] as number;
      spread(s, e, e - s);
    }
    if (this.hist) {
      for (let i = 0; i < this.bins; i++) {
        const v = this.hist[i] as number;
        if (v > 0) {
          // retired coverage lies before the watermark and inside the wall: spread it over that part of the bin
          const s = Math.max(this.histOrigin + i * this.histWidth, t0);
          const e = Math.min(this.histOrigin + (i + 1) * this.histWidth, this.watermark, t1);
          if (e > s) spread(s, e, v);
        }
      }
    }
    return out;
  }

  private push(s: number, e: number): void {
    if (this.n >= this.cap) this.retire(this.n - (this.cap >> 1));
    else if (this.n === this.starts.length) this.grow();
    this.starts[this.n] = s;
    this.ends[this.n] = e;
    this.n++;
  }

  private grow(): void {
    const size = Math.min(this.hardCap, this.starts.length * 2);
    const ns = new Float64Array(size);
    const ne = new Float64Array(size);
    ns.set(this.starts.subarray(0, this.n));
    ne.set(this.ends.subarray(0, this.n));
    this.starts = ns;
    this.ends = ne;
  }

  /** General case: [s, e) starts before the last island. Islands are disjoint and sorted, so ends are sorted. */
  private insert(s: number, e: number): void {
    this.pending[0] = s;
    this.pending[1] = e;
    this.insertPending();
  }

  /** insert() of the interval in `pending`. */
  private insertPending(): void {
    const s = this.pending[0] as number;
    const e = this.pending[1] as number;
    const starts = this.starts;
    const ends = this.ends;
    const n = this.n;
    // first island whose end >= s (it may touch or overlap)
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((ends[mid] as number) < s) lo = mid + 1;
      else hi = mid;
    }
    const i = lo;
    // last island whose start <= e
    lo = i;
    hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((starts[mid] as number) <= e) lo = mid + 1;
      else hi = mid;
    }
    const j = lo - 1;
    if (j < i) {
      // no overlap: open a gap at i
      if (this.n === this.starts.length) {
        if (this.n >= this.hardCap) {
          this.retire(this.n - (this.cap >> 1));
          this.add(s, e);
          return;
        }
        this.grow();
      }
      this.starts.copyWithin(i + 1, i, this.n);
      this.ends.copyWithin(i + 1, i, this.n);
      this.starts[i] = s;
      this.ends[i] = e;
      this.n++;
      return;
    }
    starts[i] = Math.min(s, starts[i] as number);
    ends[i] = Math.max(e, ends[j] as number);
    const removed = j - i;
    if (removed > 0) {
      starts.copyWithin(i + 1, j + 1, n);
      ends.copyWithin(i + 1, j + 1, n);
      this.n -= removed;
    }
  }

  private retire(k: number): void {
    if (k <= 0) return;
    this.timelineExact = false;
    if (!this.hist) {
      this.hist = new Float64Array(this.bins);
      this.histOrigin = this.starts[0] as number;
      const span = (this.ends[this.n - 1] as number) - this.histOrigin;
      this.histWidth = 1;
      while (this.histWidth * this.bins < span) this.histWidth *= 2;
    }
    for (let i = 0; i < k; i++) {
      const s = this.starts[i] as number;
      const e = this.ends[i] as number;
      this.retiredNs += e - s;
      this.addToHistogram(s, e);
    }
    this.watermark = this.ends[k - 1] as number;
    this.starts.copyWithin(0, k, this.n);
    this.ends.copyWithin(0, k, this.n);
    this.n -= k;
  }

  private addToHistogram(s: number, e: number): void {
    const hist = this.hist as Float64Array;
    while (e - this.histOrigin > this.histWidth * this.bins) {
      for (let i = 0; i < this.bins / 2; i++) hist[i] = (hist[2 * i] as number) + (hist[2 * i + 1] as number);
      hist.fill(0, this.bins / 2);
      this.histWidth *= 2;
    }
    const w = this.histWidth;
    const o = this.histOrigin;
    let i = Math.max(0, Math.floor((s - o) / w));
    for (; i < this.bins; i++) {
      const bs = o + i * w;
      if (bs >= e) break;
      const ov = Math.min(bs + w, e) - Math.max(bs, s);
      if (ov > 0) hist[i] = (hist[i] as number) + ov;
    }
  }
}
