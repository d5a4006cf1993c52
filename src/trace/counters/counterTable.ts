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
export interface DurationSamples {
  values: number[];
  counts: number[];
}

/** A CounterTableBuilder's long-layout dispatches as data (see part()): typed arrays, cheap to pass between threads. */
export interface CounterTablePart {
  kernels: string[];
  /** Kernel name of each dispatch, as an index in `kernels`. */
  kernelOf: Int32Array;
  keys: Float64Array;
  /** Duration samples of dispatch i: [sampleAt[i], sampleAt[i + 1]) of sampleValues / sampleCounts. */
  sampleAt: Int32Array;
  sampleValues: Float64Array;
  sampleCounts: Float64Array;
  columns: Array<{ counter: string; data: Float64Array; length: number }>;
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

  /** Empty again, keeping its arrays and maps (see BytesInterner.clear); part()'s columns are not touched. */
  clear(): void {
    this.names.length = 0;
    this.keys.length = 0;
    this.samples.length = 0;
    this.columns.clear();
    this.byKey.clear();
    this.byNumber.clear();
    this.last = -1;
    this.lastKey = NaN;
    this.lastName = '';
  }

  private dispatchOfSlow(key: number, name: string, durationNs: number): number {
    const found = this.find(key, name);
    if (found < 0) return this.newLongDispatch(key, name, { values: [durationNs], counts: [1] });
    addSample(this.samples[found] as DurationSamples, durationNs, 1);
    return found;
  }

  /** The long-layout dispatch of (key, name), or -1. */
  private find(key: number, name: string): number {
    const i = this.byNumber.get(key);
    if (i === undefined || this.names[i] === name) return i ?? -1;
    // the same Dispatch_Id under another kernel name: a dispatch of its own
    return this.byKey.get(`${key}\u0000${name}`) ?? -1;
  }

  private newLongDispatch(key: number, name: string, samples: DurationSamples): number {
    const i = this.names.length;
    this.names.push(name);
    this.keys.push(key);
    this.samples.push(samples);
    if (!this.byNumber.has(key)) this.byNumber.set(key, i);
    else this.byKey.set(`${key}\u0000${name}`, i);
    return i;
  }

  /** The long-layout dispatches and columns as data (a worker thread's part of a file), for merge(). */
  part(): CounterTablePart {
    const kernels: string[] = [];
    const kernelIds = new Map<string, number>();
    const n = this.names.length;
    const kernelOf = new Int32Array(n);
    const sampleAt = new Int32Array(n + 1);
    let samples = 0;
    for (let i = 0; i < n; i++) {
      const name = this.names[i] as string;
      let k = kernelIds.get(name);
      if (k === undefined) kernelIds.set(name, (k = kernels.push(name) - 1));
      kernelOf[i] = k;
      sampleAt[i] = samples;
      samples += (this.samples[i] as DurationSamples).values.length;
    }
    sampleAt[n] = samples;
    const sampleValues = new Float64Array(samples);
    const sampleCounts = new Float64Array(samples);
    for (let i = 0; i < n; i++) {
      const s = this.samples[i] as DurationSamples;
      sampleValues.set(s.values, sampleAt[i]);
      sampleCounts.set(s.counts, sampleAt[i]);
    }
    return {
      kernels,
      kernelOf,
      keys: Float64Array.from(this.keys),
      sampleAt,
      sampleValues,
      sampleCounts,
      columns: [...this.columns].map(([counter, c]) => ({ counter, data: c.data, length: c.length })),
    };
  }

  /**
   * Adds a part's dispatches and values as if its rows had come here after the rows before (each row's
   * dispatchOf and put, in order): a dispatch already here gets its duration samples, a value replaces this one.
   */
  merge(part: CounterTablePart): void {
    const n = part.kernelOf.length;
    const at = new Int32Array(n);
    const before = this.names.length;
    for (let i = 0; i < n; i++) {
      const key = part.keys[i] as number;
      const name = part.kernels[part.kernelOf[i] as number] as string;
      const from = part.sampleAt[i] as number;
      const to = part.sampleAt[i + 1] as number;
      const found = this.find(key, name);
      if (found < 0) {
        const values = Array.from(part.sampleValues.subarray(from, to));
        const counts = Array.from(part.sampleCounts.subarray(from, to));
        at[i] = this.newLongDispatch(key, name, { values, counts });
      } else {
        at[i] = found;
        const t = this.samples[found] as DurationSamples;
        for (let j = from; j < to; j++) addSample(t, part.sampleValues[j] as number, part.sampleCounts[j] as number);
      }
    }
    // the part's last dispatches are mostly new here, one after the other: their values are copied as they are
    // (NaN where none, as put leaves it); the others (a dispatch cut by the part's start) are put one by one
    let run = n;
    while (run > 0 && (at[run - 1] as number) >= before && (run === n || at[run] === (at[run - 1] as number) + 1))
      run--;
    for (const c of part.columns) {
      const col = this.column(c.counter);
      const data = c.data;
      for (let i = 0; i < c.length && i < run; i++) {
        const v = data[i] as number;
        if (v === v) CounterTableBuilder.put(col, at[i] as number, v); // NaN: no value (a value is never NaN)
      }
      if (c.length > run) {
        CounterTableBuilder.put(col, at[c.length - 1] as number, data[c.length - 1] as number);
        col.data.set(data.subarray(run, c.length - 1), at[run] as number);
      }
    }
    this.last = -1;
    this.lastKey = NaN;
    this.lastName = '';
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

function addSample(s: DurationSamples, durationNs: number, count: number): void {
  const at = Number.isNaN(durationNs) ? s.values.findIndex((v) => Number.isNaN(v)) : s.values.indexOf(durationNs);
  if (at >= 0) (s.counts[at] as number) += count;
  else {
    s.values.push(durationNs);
    s.counts.push(count);
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
