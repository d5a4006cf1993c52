// The dispatches of a counter collection (one row per dispatch and counter), each once with every timing it has.
// rocprofv3 times a dispatch once; rocprof-compute's pmc_perf.csv in the counter_collection layout holds one
// run of the program per counter pass, so each dispatch there has one timing per pass: which is used is
// pickPassTiming's choice, the same in the summary (counterCollection.ts) and the range pass (rangeCsv.ts).
import { streamCsv } from '../csvFile';
import { fieldNumber } from '../csvScanner';
import { timestampAt } from '../traceClock';
import type { FileSource } from '../sources';
import { BytesInterner } from '../tables';
import { MAX_PASS_TIMINGS } from '../limits';

/**
 * Distinct (start, end) pairs of one dispatch, in file order: at most MAX_PASS_TIMINGS of them (a real dispatch has
 * one per counter pass); a hostile file's one dispatch with a timing per row keeps its first ones and is `truncated`.
 */
export class PassTimings {
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  /** A distinct timing past MAX_PASS_TIMINGS was left out. */
  truncated = false;
  /** The timings kept, once there are more than a short scan checks (a lookup each instead of a scan: linear). */
  private index: Set<string> | null = null;

  add(start: number, end: number): void {
    const { starts, ends } = this;
    const n = starts.length;
    if (n < SCAN_TIMINGS) {
      for (let i = n - 1; i >= 0; i--) if (starts[i] === start && ends[i] === end) return;
    } else {
      const index = (this.index ??= new Set(starts.map((s, i) => timingKey(s, ends[i] as number))));
      const key = timingKey(start, end);
      if (index.has(key)) return;
      if (n >= MAX_PASS_TIMINGS) {
        this.truncated = true;
        return;
      }
      index.add(key);
    }
    starts.push(start);
    ends.push(end);
  }
}

/** Timings a dispatch holds before they are looked up in a set rather than scanned. */
const SCAN_TIMINGS = 16;

function timingKey(start: number, end: number): string {
  return `${start}/${end}`;
}

/**
 * The distinct timings of many dispatches (by ordinal), in file order: a dispatch's first inline (two numbers, no
 * object: most dispatches have one timing), all of them in a PassTimings once it has several.
 */
export class DispatchTimings {
  /** Per dispatch: its first timing (NaN: none yet). */
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  /** The dispatches with several timings: all of them. */
  readonly several = new Map<number, PassTimings>();

  get size(): number {
    return this.starts.length;
  }

  /** The next dispatch, with no timing yet. */
  push(): void {
    this.starts.push(NaN);
    this.ends.push(NaN);
  }

  add(d: number, start: number, end: number): void {
    const first = this.starts[d] as number;
    if (first === start && this.ends[d] === end) return;
    if (first !== first) {
      this.starts[d] = start;
      this.ends[d] = end;
      return;
    }
    let passes = this.several.get(d);
    if (!passes) {
      passes = new PassTimings();
      passes.add(first, this.ends[d] as number);
      this.several.set(d, passes);
    }
    passes.add(start, end);
  }

  /** Dispatch `d` had timings left out elsewhere (another part's collector): so it says. */
  markTruncated(d: number): void {
    const passes = this.several.get(d);
    if (passes) passes.truncated = true;
  }

  clear(): void {
    this.starts.length = 0;
    this.ends.length = 0;
    this.several.clear();
  }
}

/** The timing used: the pass of median duration (the shorter of the middle two; the earlier on a tie). */
export function pickPassTiming(starts: number[], ends: number[]): { start: number; end: number } {
  if (starts.length <= 1) return { start: starts[0] ?? NaN, end: ends[0] ?? NaN };
  const order = starts.map((_, i) => i);
  order.sort(
    (a, b) =>
      (ends[a] as number) - (starts[a] as number) - ((ends[b] as number) - (starts[b] as number)) ||
      (starts[a] as number) - (starts[b] as number),
  );
  const i = order[(order.length - 1) >> 1] as number;
  return { start: starts[i] as number, end: ends[i] as number };
}

/** How far apart the passes' durations of the dispatches with several are (for the warning). */
export class PassSpread {
  dispatches = 0;
  maxPasses = 0;
  /** Dispatches with more than MAX_PASS_TIMINGS distinct timings (those past it left out). */
  truncated = 0;
  private spreads: number[] = [];
  private worst: { id: number; min: number; max: number; spread: number } | null = null;

  add(id: number, t: PassTimings): void {
    const n = t.starts.length;
    if (n < 2) return;
    this.dispatches++;
    if (n > this.maxPasses) this.maxPasses = n;
    if (t.truncated) this.truncated++;
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < n; i++) {
      const d = (t.ends[i] as number) - (t.starts[i] as number);
      if (d < min) min = d;
      if (d > max) max = d;
    }
    const spread = min > 0 ? (max - min) / min : 0;
    this.spreads.push(spread);
    if (!this.worst || spread > this.worst.spread) this.worst = { id, min, max, spread };
  }

  warning(path: string): string | null {
    if (this.dispatches === 0 || !this.worst) return null;
    const sorted = [...this.spreads].sort((a, b) => a - b);
    const median = sorted[(sorted.length - 1) >> 1] as number;
    const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
    const w = this.worst;
    const cut =
      this.truncated > 0
        ? `; ${this.truncated} dispatch(es) have more than ${MAX_PASS_TIMINGS} distinct timings: those past the first ${MAX_PASS_TIMINGS} are left out (a real run has one per pass: a corrupt or generated trace?)`
        : '';
    return (
      `${path}: ${this.dispatches} dispatch(es) have one timing per counter pass (up to ${this.maxPasses}; the program ran once per pass): ` +
      `each dispatch's median-duration pass is used; the longest pass is up to ${pct(w.spread)} longer than the shortest (median ${pct(median)}; dispatch ${w.id}: ${w.min} to ${w.max} ns)${cut}`
    );
  }
}

interface CounterDispatch {
  name: string;
  corr: number;
  tid: number;
  timings: PassTimings;
}

/** Every dispatch of the file by Dispatch_Id (else Correlation_Id), with its timings (none when untimed). */
export async function readCounterDispatchTimes(
  source: FileSource,
  epochSeconds: number,
): Promise<Map<number, { name: string; corr: number; tid: number; starts: number[]; ends: number[] }>> {
  const out = new Map<number, CounterDispatch>();
  const names = new BytesInterner();
  await streamCsv(source, (c) => {
    const cDispatch = c.find('Dispatch_Id', 'Correlation_Id');
    const cCorr = c.find('Correlation_Id');
    const cTid = c.find('Thread_Id');
    const cName = c.find('Kernel_Name');
    const cStart = c.find('Start_Timestamp');
    const cEnd = c.find('End_Timestamp');
    return (row) => {
      const id = fieldNumber(row, cDispatch);
      if (Number.isNaN(id) || cName < 0 || cName >= row.fieldCount) return;
      let d = out.get(id);
      if (!d) {
        const n = names.idFor(
          row.buf,
          row.starts[cName] as number,
          row.ends[cName] as number,
          row.escaped[cName] as number,
        );
        d = {
          name: names.texts[n] as string,
          corr: fieldNumber(row, cCorr),
          tid: fieldNumber(row, cTid),
          timings: new PassTimings(),
        };
        out.set(id, d);
      }
      const start = timestampAt(row, cStart, epochSeconds);
      const end = timestampAt(row, cEnd, epochSeconds);
      if (end >= start) d.timings.add(start, end);
    };
  });
  return new Map(
    [...out].map(([id, d]) => [
      id,
      { name: d.name, corr: d.corr, tid: d.tid, starts: d.timings.starts, ends: d.timings.ends },
    ]),
  );
}
