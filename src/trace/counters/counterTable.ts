// Per-dispatch hardware counters as rocprof-compute holds them (one pandas row per dispatch, one column per
// counter): a column is present when any dispatch has it, a dispatch without a value in it has NaN there.
// Both counter layouts feed it: wide pmc_perf.csv (a row per dispatch) and the long layout (a row per dispatch
// and counter: rocprofv3 counter_collection.csv, rocprof-compute's rocpd pmc_perf.csv), whose rows are grouped
// into a dispatch by (Dispatch_Id, Kernel_Name) and whose duration is the median over the group's rows, as
// rocprof-compute's process_rocpd_csv does. Every process numbers its dispatches from 1: the dispatches of a
// profile of several processes are keyed within a scope (useScope), one per process, so that rank 1's dispatch 3 is
// not rank 0's.
import { MAX_PASS_TIMINGS } from '../limits';

export interface CounterTable {
  /** Kernel name of each dispatch, as written. */
  names: string[];
  /** The kernel names in first-seen order, each dispatch's kernel as an index in them, and their dispatch counts. */
  kernels: string[];
  kernelOf: Int32Array;
  kernelCounts: Int32Array;
  /** Duration of each dispatch (ns); NaN when the file had no valid timestamps. */
  durations: Float64Array;
  /** Counter name -> value per dispatch (NaN where the dispatch had none). */
  columns: Map<string, Float64Array>;
  /** Dispatch key (Dispatch_Id) of each dispatch, for range attribution; NaN for wide rows without one. */
  keys: Float64Array;
  /** The scope (useScope: the process) each dispatch was read in; all 0 in a table of one. */
  scopes: Int32Array;
}

/** Durations of one dispatch's rows: distinct values with their row counts (a few passes each). */
export interface DurationSamples {
  values: number[];
  counts: number[];
  /** Each value's place, once there are many (a hostile dispatch's duration per row: a lookup, not a scan). */
  index?: Map<number, number>;
}

/** A CounterTableBuilder's long-layout dispatches as data (see part()): typed arrays, cheap to pass between threads. */
export interface CounterTablePart {
  kernels: string[];
  /** Kernel name of each dispatch, as an index in `kernels`, and the dispatches of each kernel. */
  kernelOf: Int32Array;
  kernelCounts: Int32Array;
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
  /** Each dispatch's kernel, numbered while reading (a lookup per new dispatch instead of a pass later). */
  private kernels = new KernelIndex();
  private kernelOf: KernelColumn = { data: new Int32Array(1024), length: 0 };
  private keys: CounterColumn = emptyColumn();
  // A dispatch's duration samples: its first distinct value and that value's row count, inline; a dispatch with
  // several distinct values (a pass each) has all of them in `several` instead (an object per dispatch only there).
  private sampleValue: CounterColumn = emptyColumn();
  private sampleCount: CounterColumn = emptyColumn();
  private readonly several = new Map<number, DurationSamples>();
  private readonly columns = new Map<string, CounterColumn>();
  private readonly byKey = new Map<string, number>();
  /** The long-layout dispatches of the current scope by Dispatch_Id (byNumberOf's entry of `scope`). */
  private byNumber = new Map<number, number>();
  private readonly byNumberOf = new Map<number, Map<number, number>>([[0, this.byNumber]]);
  private scope = 0;
  /** Each dispatch's scope, once a scope other than 0 was used (a table of one process keeps none). */
  private scopeOf: KernelColumn | null = null;
  /** Long-layout dispatches [from, to) of `scope` not yet in byNumber/byKey (a part taken over whole by merge()). */
  private unindexed = { from: 0, to: 0, scope: 0 };

  get size(): number {
    return this.names.length;
  }

  /** How many of the wanted counters the dispatches have (a collection of other counters has none). */
  get counterCount(): number {
    return this.columns.size;
  }

  /**
   * The dispatches that follow (rows, merges) are of scope `scope` (a process of the profile; 0 by default): a
   * Dispatch_Id finds only a dispatch of the same scope.
   */
  useScope(scope: number): void {
    if (scope === this.scope) return;
    this.forgetLast();
    this.scope = scope;
    let map = this.byNumberOf.get(scope);
    if (!map) this.byNumberOf.set(scope, (map = new Map()));
    this.byNumber = map;
    if (!this.scopeOf) {
      const n = this.names.length;
      this.scopeOf = { data: new Int32Array(n + 1024), length: n };
    }
  }

  /** A new dispatch (wide layout: one row each); returns its ordinal. */
  addDispatch(name: string, durationNs: number, key = NaN): number {
    return this.push(name, key, durationNs, 1);
  }

  /** The dispatch of a long-layout row (created on its first row); each row adds one duration sample. */
  dispatchOf(key: number, name: string, durationNs: number): number {
    // a dispatch's rows mostly follow one another, with one timing per pass
    if (key === this.lastKey && name === this.lastName) {
      const last = this.last;
      const s = this.lastSeveral;
      if (s === null) {
        if (this.sampleValue.data[last] === durationNs) {
          (this.sampleCount.data[last] as number)++;
          return last;
        }
      } else if (s.values[s.values.length - 1] === durationNs) {
        (s.counts[s.counts.length - 1] as number)++;
        return last;
      }
    }
    const i = this.dispatchOfSlow(key, name, durationNs);
    this.last = i;
    this.lastKey = key;
    this.lastName = name;
    this.lastSeveral = this.several.size > 0 ? (this.several.get(i) ?? null) : null;
    return i;
  }

  private last = -1;
  private lastKey = NaN;
  private lastName = '';
  private lastSeveral: DurationSamples | null = null;

  /** Empty again, keeping its maps (see BytesInterner.clear); part()'s arrays are not touched. */
  clear(): void {
    this.names.length = 0;
    this.kernels = new KernelIndex();
    this.kernelOf = { data: new Int32Array(1024), length: 0 };
    this.keys = emptyColumn();
    this.sampleValue = emptyColumn();
    this.sampleCount = emptyColumn();
    this.several.clear();
    this.columns.clear();
    this.byKey.clear();
    this.byNumberOf.clear();
    this.byNumber = new Map();
    this.byNumberOf.set(0, this.byNumber);
    this.scope = 0;
    this.scopeOf = null;
    this.unindexed = { from: 0, to: 0, scope: 0 };
    this.forgetLast();
  }

  private forgetLast(): void {
    this.last = -1;
    this.lastKey = NaN;
    this.lastName = '';
    this.lastSeveral = null;
  }

  private dispatchOfSlow(key: number, name: string, durationNs: number): number {
    const found = this.find(key, name);
    if (found < 0) return this.newLongDispatch(key, name, durationNs, 1);
    this.addSample(found, durationNs, 1);
    return found;
  }

  /** The long-layout dispatch of (key, name), or -1. */
  private find(key: number, name: string): number {
    if (this.unindexed.to > this.unindexed.from) this.indexUnindexed();
    const i = this.byNumber.get(key);
    if (i === undefined || this.names[i] === name) return i ?? -1;
    // the same Dispatch_Id under another kernel name: a dispatch of its own
    return this.byKey.get(keyOf(this.scope, key, name)) ?? -1;
  }

  private push(name: string, key: number, durationNs: number, count: number): number {
    const i = this.names.length;
    this.names.push(name);
    pushKernel(this.kernelOf, this.kernels.of(name));
    if (this.scopeOf) pushKernel(this.scopeOf, this.scope);
    CounterTableBuilder.put(this.keys, i, key);
    CounterTableBuilder.put(this.sampleValue, i, durationNs);
    CounterTableBuilder.put(this.sampleCount, i, count);
    return i;
  }

  private newLongDispatch(key: number, name: string, durationNs: number, count: number): number {
    const i = this.push(name, key, durationNs, count);
    this.index(this.byNumber, this.scope, i, key, name);
    return i;
  }

  private index(byNumber: Map<number, number>, scope: number, i: number, key: number, name: string): void {
    if (!byNumber.has(key)) byNumber.set(key, i);
    else this.byKey.set(keyOf(scope, key, name), i);
  }

  private indexUnindexed(): void {
    const { from, to, scope } = this.unindexed;
    this.unindexed = { from: 0, to: 0, scope: 0 };
    const byNumber = this.byNumberOf.get(scope) as Map<number, number>;
    for (let i = from; i < to; i++)
      this.index(byNumber, scope, i, this.keys.data[i] as number, this.names[i] as string);
  }

  /** One more row of duration `durationNs` (`count` rows) for dispatch `i`. */
  private addSample(i: number, durationNs: number, count: number): void {
    let s = this.several.get(i);
    if (!s) {
      const value = this.sampleValue.data[i] as number;
      if (sameDuration(value, durationNs)) {
        (this.sampleCount.data[i] as number) += count;
        return;
      }
      s = { values: [value], counts: [this.sampleCount.data[i] as number] };
      this.several.set(i, s);
    }
    const at = sampleAt(s, durationNs);
    if (at >= 0) (s.counts[at] as number) += count;
    else if (s.values.length < MAX_PASS_TIMINGS) {
      s.values.push(durationNs);
      s.counts.push(count);
      s.index?.set(durationNs, s.values.length - 1);
    }
  }

  /** The long-layout dispatches and columns as data (a worker thread's part of a file), for merge(). */
  part(): CounterTablePart {
    const n = this.names.length;
    const samples = this.samplesAsRuns();
    return {
      kernels: [...this.kernels.names],
      kernelOf: this.kernelOf.data.slice(0, n),
      kernelCounts: Int32Array.from(this.kernels.counts),
      keys: this.keys.data.slice(0, n),
      ...samples,
      columns: [...this.columns].map(([counter, c]) => ({ counter, data: c.data, length: c.length })),
    };
  }

  /** The duration samples as CounterTablePart holds them (a run of samples per dispatch). */
  private samplesAsRuns(): Pick<CounterTablePart, 'sampleAt' | 'sampleValues' | 'sampleCounts'> {
    const n = this.names.length;
    const sampleAt = new Int32Array(n + 1);
    if (this.several.size === 0) {
      for (let i = 0; i <= n; i++) sampleAt[i] = i;
      return {
        sampleAt,
        sampleValues: this.sampleValue.data.slice(0, n),
        sampleCounts: this.sampleCount.data.slice(0, n),
      };
    }
    let total = 0;
    for (let i = 0; i < n; i++) {
      sampleAt[i] = total;
      total += this.several.get(i)?.values.length ?? 1;
    }
    sampleAt[n] = total;
    const sampleValues = new Float64Array(total);
    const sampleCounts = new Float64Array(total);
    for (let i = 0; i < n; i++) {
      const at = sampleAt[i] as number;
      const s = this.several.get(i);
      if (s) {
        sampleValues.set(s.values, at);
        sampleCounts.set(s.counts, at);
      } else {
        sampleValues[at] = this.sampleValue.data[i] as number;
        sampleCounts[at] = this.sampleCount.data[i] as number;
      }
    }
    return { sampleAt, sampleValues, sampleCounts };
  }

  /**
   * Adds a part's dispatches and values as if its rows had come here after the rows before (each row's
   * dispatchOf and put, in order): a dispatch already here gets its duration samples, a value replaces this one.
   */
  merge(part: CounterTablePart): void {
    this.forgetLast();
    if (this.names.length === 0 && this.columns.size === 0) {
      this.takeOver(part);
      return;
    }
    const n = part.kernelOf.length;
    const at = new Int32Array(n);
    const before = this.names.length;
    for (let i = 0; i < n; i++) {
      const key = part.keys[i] as number;
      const name = part.kernels[part.kernelOf[i] as number] as string;
      const from = part.sampleAt[i] as number;
      const to = part.sampleAt[i + 1] as number;
      let found = this.find(key, name);
      let j = from;
      if (found < 0) {
        found = this.newLongDispatch(key, name, part.sampleValues[j] as number, part.sampleCounts[j] as number);
        j++;
      }
      at[i] = found;
      for (; j < to; j++) this.addSample(found, part.sampleValues[j] as number, part.sampleCounts[j] as number);
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
  }

  /**
   * merge() into an empty table (a file read in one pass): the part's dispatches, in order, are this table's (a
   * part has each (key, name) once), so its arrays are taken as they are; the dispatches are indexed for a later
   * merge or row only when one comes.
   */
  private takeOver(part: CounterTablePart): void {
    const n = part.kernelOf.length;
    for (let i = 0; i < n; i++) this.names.push(part.kernels[part.kernelOf[i] as number] as string);
    // the part's dispatches are this table's, in order: so are its kernel numbers (first seen in the part)
    this.kernels = KernelIndex.of(part.kernels, part.kernelCounts);
    this.kernelOf = { data: part.kernelOf, length: n };
    this.keys = { data: part.keys, length: n };
    if (part.sampleAt[n] === n) {
      // one sample each
      this.sampleValue = { data: part.sampleValues, length: n };
      this.sampleCount = { data: part.sampleCounts, length: n };
    } else {
      for (let i = 0; i < n; i++) {
        const from = part.sampleAt[i] as number;
        const to = part.sampleAt[i + 1] as number;
        CounterTableBuilder.put(this.sampleValue, i, part.sampleValues[from] as number);
        CounterTableBuilder.put(this.sampleCount, i, part.sampleCounts[from] as number);
        if (to - from > 1)
          this.several.set(i, {
            values: Array.from(part.sampleValues.subarray(from, to)),
            counts: Array.from(part.sampleCounts.subarray(from, to)),
          });
      }
    }
    this.unindexed = { from: 0, to: n, scope: this.scope };
    if (this.scopeOf) this.scopeOf = { data: new Int32Array(n + 1024).fill(this.scope, 0, n), length: n };
    for (const c of part.columns) this.columns.set(c.counter, { data: c.data, length: c.length });
  }
  /** Sets counter `counter` of dispatch `i` (a later value of the same counter replaces it, as a dict would). */
  set(i: number, counter: string, value: number): void {
    CounterTableBuilder.put(this.column(counter), i, value);
  }

  /** The column of `counter` (created empty), for readers that set many values of it (see put). */
  column(counter: string): CounterColumn {
    let col = this.columns.get(counter);
    if (!col) {
      col = emptyColumn();
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
    const durations = this.sampleValue.data.slice(0, n);
    for (const [i, s] of this.several) durations[i] = weightedMedian(s);
    const columns = new Map<string, Float64Array>();
    for (const [name, col] of this.columns) {
      const out = new Float64Array(n);
      out.set(col.data.subarray(0, col.length)); // put() leaves no holes: NaN where a dispatch had no value
      out.fill(NaN, col.length);
      columns.set(name, out);
    }
    return {
      names: this.names,
      kernels: [...this.kernels.names],
      kernelOf: this.kernelOf.data.slice(0, n),
      kernelCounts: Int32Array.from(this.kernels.counts),
      durations,
      columns,
      keys: this.keys.data.slice(0, n),
      scopes: this.scopeOf ? this.scopeOf.data.slice(0, n) : new Int32Array(n),
    };
  }
}

/** byKey's key of a dispatch whose Dispatch_Id another kernel's dispatch of its scope has. */
function keyOf(scope: number, key: number, name: string): string {
  return `${scope}\u0000${key}\u0000${name}`;
}

/** A number per dispatch (its kernel, its scope), grown as dispatches come. */
interface KernelColumn {
  data: Int32Array;
  length: number;
}

function pushKernel(col: KernelColumn, k: number): void {
  if (col.length === col.data.length) {
    const data = new Int32Array(2 * col.data.length + 1024);
    data.set(col.data);
    col.data = data;
  }
  col.data[col.length++] = k;
}

/** Kernel names numbered in first-seen order, with their dispatch counts. */
class KernelIndex {
  readonly names: string[] = [];
  readonly counts: number[] = [];
  private readonly ids = new Map<string, number>();
  private last = '';
  private lastId = -1;

  /** An index of these kernels (numbered in this order) and dispatch counts. */
  static of(names: readonly string[], counts: Int32Array): KernelIndex {
    const index = new KernelIndex();
    names.forEach((name, k) => {
      index.names.push(name);
      index.counts.push(counts[k] as number);
      index.ids.set(name, k);
    });
    return index;
  }

  /** The kernel of a new dispatch of `name`. */
  of(name: string): number {
    if (name !== this.last) {
      let k = this.ids.get(name);
      if (k === undefined) {
        this.ids.set(name, (k = this.names.push(name) - 1));
        this.counts.push(0);
      }
      this.last = name;
      this.lastId = k;
    }
    (this.counts[this.lastId] as number)++;
    return this.lastId;
  }
}

function emptyColumn(): CounterColumn {
  // `data` stored twice here, so that V8 takes the field as one that changes from the start: its first change in
  // put() (the first column to grow, mid-scan) would otherwise throw away the collector's optimised row code,
  // which V8 then compiles again (about 13 ms of this thread, --trace-opt)
  const col = { data: NO_DATA, length: 0 };
  col.data = new Float64Array(1024);
  return col;
}

const NO_DATA = new Float64Array(0);

/**
 * The place of `duration` among a dispatch's samples, or -1. At most MAX_PASS_TIMINGS distinct ones are kept (a
 * real dispatch has one per counter pass); a value past them is left out, as PassTimings leaves out its timing.
 */
function sampleAt(s: DurationSamples, duration: number): number {
  const values = s.values;
  if (values.length < 16) {
    for (let i = 0; i < values.length; i++) if (sameDuration(values[i] as number, duration)) return i;
    return -1;
  }
  // a Map's keys compare as sameDuration does (NaN equals NaN)
  s.index ??= new Map(values.map((v, i) => [v, i]));
  return s.index.get(duration) ?? -1;
}

/** Two durations are the same sample (NaN: a row without a valid one, all alike). */
function sameDuration(a: number, b: number): boolean {
  return a === b || (a !== a && b !== b);
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

/**
 * The dispatches of `scopes` alone (one process's, in the whole profile's table), as a table of that process's own
 * files would hold them: kernels numbered in its own first-seen order, and only the counters it has a value of.
 */
export function tableOfScopes(table: CounterTable, scopes: ReadonlySet<number>): CounterTable {
  const picked: number[] = [];
  table.scopes.forEach((scope, i) => {
    if (scopes.has(scope)) picked.push(i);
  });
  const n = picked.length;
  const kernels = new KernelIndex();
  const kernelOf = new Int32Array(n);
  const durations = new Float64Array(n);
  const keys = new Float64Array(n);
  const ownScopes = new Int32Array(n);
  const names: string[] = new Array<string>(n);
  picked.forEach((i, j) => {
    names[j] = table.names[i] as string;
    kernelOf[j] = kernels.of(table.names[i] as string);
    durations[j] = table.durations[i] as number;
    keys[j] = table.keys[i] as number;
    ownScopes[j] = table.scopes[i] as number;
  });
  const columns = new Map<string, Float64Array>();
  for (const [name, all] of table.columns) {
    const out = new Float64Array(n);
    let any = false;
    picked.forEach((i, j) => {
      const v = all[i] as number;
      out[j] = v;
      if (v === v) any = true;
    });
    if (any) columns.set(name, out);
  }
  return {
    names,
    kernels: kernels.names,
    kernelOf,
    kernelCounts: Int32Array.from(kernels.counts),
    durations,
    columns,
    keys,
    scopes: ownScopes,
  };
}
