// Kernels per rocTX range. A dispatch belongs to the innermost range that was open on the launching thread when
// the launch API call (hipLaunchKernel, hipExtModuleLaunchKernel, hipMemset's fill kernel, ...) began: the
// dispatch's Correlation_Id names that call. The GPU runs kernels asynchronously, usually after their range has
// closed, so GPU time says little; it is used only when there is no API trace, and the result says so.
//
// Ranges with thread id 0 (roctxRangeStart/Stop: not tied to a thread) count on every thread.
import type { MarkerAttribution } from '../core/protocol/traceSummary';
import { addRangeKernel, type MarkerAgg, type RunTables } from './tables';

interface RangeList {
  starts: number[];
  ends: number[];
  markers: MarkerAgg[];
  /** Index of the nearest earlier range containing this one, or -1 (filled by `finish`). */
  parents: Int32Array;
}

/** A range picked for a time: its marker and its start (the later start is the inner range). */
export interface RangeHit {
  marker: MarkerAgg;
  start: number;
}

function emptyList(): RangeList {
  return { starts: [], ends: [], markers: [], parents: new Int32Array(0) };
}

/** The ranges of one run, by thread, answering "innermost range open on thread T at time t". */
export class RangeIndex {
  private readonly byThread = new Map<number, RangeList>();
  private anyThread = emptyList();
  private finished = false;
  count = 0;

  /** A range [start, end] on thread `tid` (0 or NaN: any thread). Instant markers (start = end) are not ranges. */
  add(marker: MarkerAgg, tid: number, start: number, end: number): void {
    if (!(end > start)) return;
    let list: RangeList;
    if (!Number.isFinite(tid) || tid === 0) list = this.anyThread;
    else {
      list = this.byThread.get(tid) ?? emptyList();
      this.byThread.set(tid, list);
    }
    list.starts.push(start);
    list.ends.push(end);
    list.markers.push(marker);
    this.count++;
    this.finished = false;
  }

  private finish(): void {
    for (const [tid, list] of this.byThread) this.byThread.set(tid, sortList(list));
    this.anyThread = sortList(this.anyThread);
    this.finished = true;
  }

  /** The innermost range open at `t` on thread `tid` (or on any thread), or null. */
  at(tid: number, t: number): RangeHit | null {
    if (!this.finished) this.finish();
    const own = Number.isFinite(tid) && tid !== 0 ? this.byThread.get(tid) : undefined;
    const a = own ? innermost(own, t) : -1;
    const b = innermost(this.anyThread, t);
    if (a < 0 && b < 0) return null;
    if (b < 0 || (a >= 0 && ((own as RangeList).starts[a] as number) >= (this.anyThread.starts[b] as number))) {
      const list = own as RangeList;
      return { marker: list.markers[a] as MarkerAgg, start: list.starts[a] as number };
    }
    return { marker: this.anyThread.markers[b] as MarkerAgg, start: this.anyThread.starts[b] as number };
  }

  /** The innermost range open at `t` on any thread (GPU-time fallback without a launching thread). */
  atAnyThread(t: number): RangeHit | null {
    if (!this.finished) this.finish();
    let best: RangeHit | null = null;
    for (const list of [...this.byThread.values(), this.anyThread]) {
      const i = innermost(list, t);
      if (i >= 0 && (best === null || (list.starts[i] as number) > best.start)) {
        best = { marker: list.markers[i] as MarkerAgg, start: list.starts[i] as number };
      }
    }
    return best;
  }
}

/** Sorted by start (a longer range first on a tie, so that it is the parent), with parent links. */
function sortList(list: RangeList): RangeList {
  const order = list.starts.map((_, i) => i);
  order.sort(
    (x, y) =>
      (list.starts[x] as number) - (list.starts[y] as number) || (list.ends[y] as number) - (list.ends[x] as number),
  );
  const out: RangeList = {
    starts: order.map((i) => list.starts[i] as number),
    ends: order.map((i) => list.ends[i] as number),
    markers: order.map((i) => list.markers[i] as MarkerAgg),
    parents: new Int32Array(order.length),
  };
  const stack: number[] = [];
  for (let i = 0; i < order.length; i++) {
    // an earlier range that ends before this one does is not its parent (closed, or overlapping without nesting)
    while (stack.length && (out.ends[stack[stack.length - 1] as number] as number) < (out.ends[i] as number))
      stack.pop();
    out.parents[i] = stack.length ? (stack[stack.length - 1] as number) : -1;
    stack.push(i);
  }
  return out;
}

function innermost(list: RangeList, t: number): number {
  const { starts, ends, parents } = list;
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((starts[mid] as number) <= t) lo = mid + 1;
    else hi = mid;
  }
  let c = lo - 1;
  while (c >= 0 && (ends[c] as number) < t) c = parents[c] as number;
  return c;
}

/**
 * Collects, for one run, which range each launch call fell in (by correlation id), then puts each dispatch in the
 * range of its launch, or, without any launch call, in the range open when it started on the GPU.
 */
export class RangeAttributor {
  /** Launches inside some range: correlation ids and the index of their range in `markers` (typed: 1M launches). */
  private corrs = new Float64Array(1024);
  private rangeOf = new Int32Array(1024);
  private kept = 0;
  private readonly markers: MarkerAgg[] = [];
  private readonly markerIndex = new Map<MarkerAgg, number>();
  private lookup: ((corr: number) => MarkerAgg | undefined) | null = null;
  private launches = 0;
  private dispatches = 0;
  private inRanges = 0;
  /** GPU-time dispatches put in a range of another thread (none open on their own). */
  private otherThread = 0;

  constructor(
    readonly ranges: RangeIndex,
    private readonly tables: RunTables,
  ) {}

  /** A non-marker API call (any domain: the one whose correlation id a dispatch carries is its launch). */
  addLaunch(correlationId: number, tid: number, start: number): void {
    if (!Number.isFinite(correlationId) || correlationId <= 0) return;
    this.launches++;
    const hit = this.ranges.at(tid, start);
    if (!hit) return;
    let m = this.markerIndex.get(hit.marker);
    if (m === undefined) {
      m = this.markers.length;
      this.markers.push(hit.marker);
      this.markerIndex.set(hit.marker, m);
    }
    if (this.kept === this.corrs.length) {
      const corrs = new Float64Array(this.kept * 2);
      corrs.set(this.corrs);
      this.corrs = corrs;
      const rangeOf = new Int32Array(this.kept * 2);
      rangeOf.set(this.rangeOf);
      this.rangeOf = rangeOf;
    }
    this.corrs[this.kept] = correlationId;
    this.rangeOf[this.kept++] = m;
    this.lookup = null;
  }

  get by(): MarkerAttribution {
    return this.launches > 0 ? 'correlation' : 'gpu-overlap';
  }

  /** Correlation ids are mostly dense (one counter per process): a table indexed by id, else a Map. */
  private buildLookup(): (corr: number) => MarkerAgg | undefined {
    let max = 0;
    for (let i = 0; i < this.kept; i++) if ((this.corrs[i] as number) > max) max = this.corrs[i] as number;
    const markers = this.markers;
    if (Number.isSafeInteger(max) && max <= 4 * this.kept + 65536) {
      const table = new Int32Array(max + 1).fill(-1);
      for (let i = 0; i < this.kept; i++) table[this.corrs[i] as number] = this.rangeOf[i] as number;
      return (corr) => (corr >= 0 && corr <= max ? markers[table[corr] as number] : undefined);
    }
    const map = new Map<number, number>();
    for (let i = 0; i < this.kept; i++) map.set(this.corrs[i] as number, this.rangeOf[i] as number);
    return (corr) => {
      const m = map.get(corr);
      return m === undefined ? undefined : markers[m];
    };
  }

  /** A kernel dispatch: by its launch call when the run has an API trace, else by GPU start time. */
  addDispatch(kernel: string, correlationId: number, tid: number, start: number, end: number): MarkerAgg | undefined {
    this.dispatches++;
    let marker: MarkerAgg | undefined;
    if (this.launches > 0) {
      this.lookup ??= this.buildLookup();
      marker = Number.isInteger(correlationId) ? this.lookup(correlationId) : undefined;
    } else {
      // the dispatch's Thread_Id is the thread that enqueued it (often the HIP runtime's, not the one that pushed
      // the range): a range open on it first, else the innermost range open at that time in the process
      marker = Number.isFinite(tid) && tid !== 0 ? this.ranges.at(tid, start)?.marker : undefined;
      if (!marker) {
        marker = this.ranges.atAnyThread(start)?.marker;
        if (marker && Number.isFinite(tid) && tid !== 0) this.otherThread++;
      }
    }
    if (!marker) return undefined;
    this.inRanges++;
    const d = end - start;
    addRangeKernel(marker, kernel, 1, d >= 0 ? d : 0); // an untimed counter dispatch counts, without time
    marker.attribution = this.by;
    return marker;
  }

  /** Records the outcome in the run's tables (see RunTables.rangeAttribution). */
  done(): void {
    if (this.dispatches === 0) return;
    this.tables.noteRangeAttribution(this.by, this.dispatches, this.inRanges, this.otherThread);
  }
}
