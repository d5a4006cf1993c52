// Per-dispatch hardware counters as rocprof-compute holds them (one pandas row per dispatch, one column per
// counter): a column is present when any dispatch has it, a dispatch without a value in it has NaN there.
// Both counter layouts feed it: wide pmc_perf.csv (a row per dispatch) and the long layout (a row per dispatch
// and counter: rocprofv3 counter_collection.csv, rocprof-compute's rocpd pmc_perf.csv), whose rows are grouped
// into a dispatch by (Dispatch_Id, Kernel_Name) and whose duration is the median over the group's rows, as
// rocprof-compute's process_rocpd_csv does.

export interface CounterTable {
  /** Kernel name of each dispatch, as written. */
  names: string[];
  /** Duration of each dispatch (ns); NaN when the file had no valid timestamps. */
  durations: Float64Array;
  /** Counter name -> value per dispatch (NaN where the dispatch had none). */
  columns: Map<string, Float64Array>;
  /** Dispatch key (Dispatch_Id) of each dispatch, for range attribution; NaN for wide rows without one. */
  keys: Float64Array;
}

/** Durations of one dispatch's rows: distinct values with their row counts (a few passes each). */
interface DurationSamples {
  values: number[];
  counts: number[];
}

/** One counter's values by dispatch, grown as dispatches come (off the JS heap: the collector does not copy them). */
export interface CounterColumn {
  data: Float64Array;
  /** Dispatches filled (NaN where one had no value). */
  length: number;
}

export class CounterTableBuilder {
  private readonly names: string[] = [];
  private readonly keys: number[] = [];
  private readonly samples: Array<DurationSamples | number> = [];
  private readonly columns = new Map<string, CounterColumn>();
  private readonly byKey = new Map<string, number>();
  private readonly byNumber = new Map<number, number>();

  get size(): number {
    return this.names.length;
  }

  /** A new dispatch (wide layout: one row each); returns its ordinal. */
  addDispatch(name: string, durationNs: number, key = NaN): number {
    const i = this.names.length;
    this.names.push(name);
    this.keys.push(key);
    this.samples.push(durationNs);
    return i;
  }

  /** The dispatch of a long-layout row (created on its first row); each row adds one duration sample. */
  dispatchOf(key: number, name: string, durationNs: number): number {
    // a dispatch's rows mostly follow one another, with one timing per pass
    if (key === this.lastKey && name === this.lastName) {
      const s = this.samples[this.last] as DurationSamples;
      if (s.values[s.values.length - 1] === durationNs) {
        (s.counts[s.counts.length - 1] as number)++;
        return this.last;
      }
    }
    const i = this.dispatchOfSlow(key, name, durationNs);
    this.last = i;
    this.lastKey = key;
    this.lastName = name;
    return i;
  }

  private last = -1;
  private lastKey = NaN;
  private lastName = '';

  private dispatchOfSlow(key: number, name: string, durationNs: number): number {
    let i = this.byNumber.get(key);
    if (i === undefined) {
      i = this.newLongDispatch(key, name, durationNs);
      this.byNumber.set(key, i);
      return i;
    }
    if (this.names[i] !== name) {
      // the same Dispatch_Id under another kernel name: a dispatch of its own
      const k = `${key}\u0000${name}`;
      const j = this.byKey.get(k);
      if (j === undefined) {
        const n = this.newLongDispatch(key, name, durationNs);
        this.byKey.set(k, n);
        return n;
      }
      i = j;
    }
    const s = this.samples[i] as DurationSamples;
    const at = Number.isNaN(durationNs) ? s.values.findIndex((v) => Number.isNaN(v)) : s.values.indexOf(durationNs);
    if (at >= 0) (s.counts[at] as number)++;
    else {
      s.values.push(durationNs);
      s.counts.push(1);
    }
    return i;
  }

  private newLongDispatch(key: number, name: string, durationNs: number): number {
    const i = this.names.length;
    this.names.push(name);
    this.keys.push(key);
    this.samples.push({ values: [durationNs], counts: [1] });
    return i;
  }

  /** Sets counter `counter` of dispatch `i` (a later value of the same counter replaces it, as a dict would). */
  set(i: number, counter: string, value: number): void {
    CounterTableBuilder.put(this.column(counter), i, value);
  }

  /** The column of `counter` (created empty), for readers that set many values of it (see put). */
  column(counter: string): CounterColumn {
    let col = this.columns.get(counter);
    if (!col) {
      col = { data: new Float64Array(1024), length: 0 };
      this.columns.set(counter, col);
    }
    return col;
  }

  static put(col: CounterColumn, i: number, value: number): void {
    if (i >= col.data.length) {
      const data = new Float64Array(Math.max(2 * col.data.length, i + 1));
      data.set(col.data.subarray(0, col.length));
      col.data = data;
    }
    if (i > col.length) col.data.fill(NaN, col.length, i);
    col.data[i] = value;
    if (i >= col.length) col.length = i + 1;
  }

  build(): CounterTable {
    const n = this.names.length;
    const durations = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const s = this.samples[i] as DurationSamples | number;
      durations[i] = typeof s === 'number' ? s : s.values.length === 1 ? (s.values[0] as number) : weightedMedian(s);
    }
    const columns = new Map<string, Float64Array>();
    for (const [name, col] of this.columns) {
      const out = new Float64Array(n);
      out.set(col.data.subarray(0, col.length)); // put() leaves no holes: NaN where a dispatch had no value
      out.fill(NaN, col.length);
      columns.set(name, out);
    }
    return { names: this.names, durations, columns, keys: Float64Array.from(this.keys) };
  }
}

/** pandas' median of the rows' durations: the middle row, or the mean of the middle two; NaN rows are left out. */
export function weightedMedian(s: DurationSamples): number {
  const order = s.values.map((_, i) => i).filter((i) => !Number.isNaN(s.values[i]));
  order.sort((a, b) => (s.values[a] as number) - (s.values[b] as number));
  let total = 0;
  for (const i of order) total += s.counts[i] as number;
  if (total === 0) return NaN;
  const at = (rank: number): number => {
    let seen = 0;
    for (const i of order) {
      seen += s.counts[i] as number;
      if (rank < seen) return s.values[i] as number;
    }
    return NaN;
  };
  return total % 2 === 1 ? at((total - 1) / 2) : (at(total / 2 - 1) + at(total / 2)) / 2;
}
