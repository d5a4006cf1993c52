// A counter collection's rows (one per dispatch and counter) collected into what can be merged in file order: a
// collector takes the rows of one part of the file (a worker thread's, or the whole file on the calling thread),
// and CounterMerge applies the parts one after the other to the summary's tables, as the rows would have been
// one by one. What a row does that depends on the rows before it in other parts (whether its dispatch is new to
// the file, and so a dispatch of its kernel or a bad row) is left to the merge: a part lists the dispatches it
// saw first with what their first row said. The per-kernel sums are exact (exactSum.ts), so any grouping of the
// rows into parts gives the same summary to the last bit.
import type { AgentState } from '../accumulator';
import type { Columns } from '../csvFile';
import {
  createCsvScanner,
  fieldNumber,
  rowExcerpt,
  type CsvRow,
  type CsvScanner,
  type RepeatedFields,
} from '../csvScanner';
import { ExactSum } from '../exactSum';
import { FOLDED_NAMES, keyWithin } from '../keyLimits';
import { MAX_DISTINCT_NAMES } from '../limits';
import { scanSpan, type PartOutcome, type PartSpan } from '../fileParts';
import {
  BytesInterner,
  LAUNCH_WIDTH,
  addLaunch,
  type CounterAgg,
  type KernelAgg,
  type KernelCounterAgg,
} from '../tables';
import { timestampAt } from '../traceClock';
import { CounterTableBuilder, type CounterColumn, type CounterTablePart } from '../counters/counterTable';
import { DispatchTimings, PassSpread, pickPassTiming } from './counterDispatches';
import { addDuration, mergeStats, statsFromTotals } from '../durationStats';
import type { CsvReadContext, RowProblems } from './rocprofv3Csv';

/** Where a counter collection's fields are and what its reader keeps (sent to worker threads: plain data). */
export interface CounterSpec {
  dispatch: number;
  name: number;
  counter: number;
  value: number;
  start: number;
  end: number;
  agent: number;
  /** [launch slot (tables.ts LAUNCH_FIELDS), column] of the launch values a file of this layout has. */
  launch: Array<[number, number]>;
  /** The file has start/end timestamps (ROCm >= 7). */
  timed: boolean;
  /** What the scanner may take over from the row before (see RepeatedFields); null: nothing. */
  repeat: RepeatedFields | null;
  /** The summary's epoch (traceClock.ts). */
  epoch: number;
  /** A kernel trace of the same run was read: then only the counters are taken from here. */
  kernelsTraced: boolean;
  /** Counters kept per dispatch for the roofline; null: no per-dispatch table. */
  wanted: string[] | null;
}

export function counterSpec(c: Columns, epoch: number, kernelsTraced: boolean, wanted: string[] | null): CounterSpec {
  const dispatch = c.find('Dispatch_Id', 'Correlation_Id');
  const name = c.find('Kernel_Name');
  const counter = c.find('Counter_Name');
  const value = c.find('Counter_Value');
  const start = c.find('Start_Timestamp');
  const end = c.find('End_Timestamp');
  // The fields before the counter's own (Counter_Name, Counter_Value, the timestamps) are the dispatch's: a row
  // whose scanner says they repeat the row before's bytes is another counter of the dispatch of that row.
  const firstPerCounter = Math.min(...[counter, value, start, end].filter((i) => i >= 0));
  const repeatable = counter >= 0 && dispatch >= 0 && name >= 0 && dispatch < firstPerCounter && name < firstPerCounter;
  // and the timestamps after the counter's name and value are the dispatch's too
  const tail = start > value && start > counter && end > value && end > counter ? Math.min(start, end) : -1;
  return {
    dispatch,
    name,
    counter,
    value,
    start,
    end,
    agent: c.find('Agent_Id'),
    // launch values this file has (grid and workgroup sizes here are products, not x/y/z: left out)
    launch: [
      [6, c.find('VGPR_Count', 'Arch_VGPR_Count')],
      [7, c.find('Accum_VGPR_Count')],
      [8, c.find('SGPR_Count')],
      [9, c.find('LDS_Block_Size', 'Group_Segment_Size')],
      [10, c.find('Scratch_Size', 'Private_Segment_Size')],
    ],
    timed: start >= 0 && end >= 0,
    // (CounterPartCollector.add reads a repeated field's bytes, values or text, not where the row has them)
    repeat: repeatable ? { head: firstPerCounter, tail, offsetsUnread: true } : null,
    epoch,
    kernelsTraced,
    wanted,
  };
}

/** One kernel's one counter over a part's rows. */
export interface CounterPairSum {
  kernel: number;
  counter: number;
  samples: number;
  /** An ExactSum (a plain object once it has crossed threads). */
  sum: { sum: number; partials: number[] | null };
  min: number;
  max: number;
}

/** What a part's rows left to merge (see the top of the file). Dispatches are in the order the part first saw them. */
export interface CounterRows {
  /** Data rows handed to the collector. */
  rows: number;
  kernels: string[];
  counters: string[];
  pairs: CounterPairSum[];
  ids: Float64Array;
  kernelOf: Int32Array;
  /** Line of the dispatch's first row here (from the part's first line, 1). */
  lineOf: Float64Array;
  /** Start and end of that row (NaN when untimed). */
  firstStart: Float64Array;
  firstEnd: Float64Array;
  /** Timed files without a kernel trace: the spec's launch values of that row (spec.launch.length each). */
  launches: Float64Array;
  /** Its Agent_Id as an index in `agents`, -1: none. */
  agentOf: Int32Array;
  agents: string[];
  /** The first valid (end >= start) timing of the dispatch's rows here (NaN: none). */
  timingStart: Float64Array;
  timingEnd: Float64Array;
  /**
   * The dispatches whose rows here have several distinct valid timings (rocprof-compute's passes), with all of
   * them in file order: those of dispatch severalOf[i] are severalAt[i] .. severalAt[i + 1] of severalStart/End.
   */
  severalOf: Int32Array;
  severalAt: Int32Array;
  severalStart: Float64Array;
  severalEnd: Float64Array;
  /** Those of the dispatches above (indexes in severalOf) that had timings left out (MAX_PASS_TIMINGS). */
  severalTruncated: Int32Array;
  /** The first rows with End < Start, as written: a bad row if the dispatch is new to the file. */
  firstText: Array<[number, string]>;
  /** Rows that could not be used whatever came before. */
  badRows: number;
  firstBadLine: number;
  firstBadText: string;
  table: CounterTablePart | null;
}

export interface CounterTask extends PartSpan {
  kind: 'counters';
  spec: CounterSpec;
}

export type CounterPart = PartOutcome & CounterRows;

/** The rows of one part (or of a whole file): the same code on every thread. */
export class CounterPartCollector {
  rows = 0;
  private readonly kernels = new BytesInterner();
  private readonly counterNames = new BytesInterner();
  /** Per kernel id, per counter id: the pair's sums. */
  private readonly pairOf: Array<Array<CounterPairSum | undefined>> = [];
  private readonly pairs: CounterPairSum[] = [];
  /** Raw bytes of each counter id, and the id that followed each id (index id + 1; -1 for the first row). */
  private readonly counterRaw: DataView[] = [];
  private readonly nextCounter: number[] = [];
  /** A view of the scanner's buffer, for comparing counter names 4 bytes at a time. */
  private viewOf: Buffer | null = null;
  private view: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));
  private lastCounterId = -1;
  private lastName: Buffer = Buffer.alloc(0);
  private lastNameId = -1;
  /** Per counter id: its column in the table, null when the table does not keep it. */
  private readonly sinkColumns: Array<CounterColumn | null> = [];
  private readonly table: CounterTableBuilder | null;
  private readonly wanted: ReadonlySet<string>;
  private readonly dispatchAt = new Map<number, number>();
  /** The valid (end >= start) timings of each dispatch. */
  private readonly timings = new DispatchTimings();
  private readonly agentIds = new Map<string, number>();
  private readonly out: Growing = {
    ids: [],
    kernelOf: [],
    lineOf: [],
    firstStart: [],
    firstEnd: [],
    launches: [],
    agentOf: [],
    agents: [],
    firstText: [],
    badRows: 0,
    firstBadLine: 0,
    firstBadText: '',
  };
  /** The row before was read whole (not a bad row): its dispatch, name id and timings are those of a repeat. */
  private lastOk = false;
  private lastDispatch = NaN;
  private lastD = -1;
  private lastStart = NaN;
  private lastEnd = NaN;
  /** The agent of the last new dispatch, and its bytes. */
  private lastAgent = -1;
  private lastAgentRaw: Buffer = Buffer.alloc(0);

  constructor(private readonly spec: CounterSpec) {
    this.table = spec.wanted ? new CounterTableBuilder() : null;
    this.wanted = new Set(spec.wanted ?? []);
  }

  /**
   * Ready for the next part of the same file, as new. The arrays are emptied, not replaced: a new collector's
   * empty arrays would make V8 drop the optimised row code again at each part (its first object or double in an
   * empty array changes the array's element kind), recompiling it about once a part.
   */
  clear(): void {
    this.rows = 0;
    this.kernels.clear();
    this.counterNames.clear();
    this.pairOf.length = 0;
    this.pairs.length = 0;
    this.counterRaw.length = 0;
    this.nextCounter.length = 0;
    this.viewOf = null;
    this.lastCounterId = -1;
    this.lastName = Buffer.alloc(0);
    this.lastNameId = -1;
    this.sinkColumns.length = 0;
    this.table?.clear();
    this.dispatchAt.clear();
    this.timings.clear();
    this.agentIds.clear();
    const out = this.out;
    out.ids.length = 0;
    out.kernelOf.length = 0;
    out.lineOf.length = 0;
    out.firstStart.length = 0;
    out.firstEnd.length = 0;
    out.launches.length = 0;
    out.agentOf.length = 0;
    out.agents.length = 0;
    out.firstText.length = 0;
    out.badRows = 0;
    out.firstBadLine = 0;
    out.firstBadText = '';
    this.lastOk = false;
    this.lastDispatch = NaN;
    this.lastD = -1;
    this.lastStart = NaN;
    this.lastEnd = NaN;
    this.lastAgent = -1;
    this.lastAgentRaw = Buffer.alloc(0);
  }

  add(row: CsvRow): void {
    this.rows++;
    const spec = this.spec;
    const lastOk = this.lastOk;
    const repeat = lastOk && row.repeated;
    this.lastOk = false;
    const cName = spec.name;
    const cCounter = spec.counter;
    const dispatch = repeat ? this.lastDispatch : fieldNumber(row, spec.dispatch);
    const value = fieldNumber(row, spec.value);
    if (
      cName < 0 ||
      cName >= row.fieldCount ||
      cCounter < 0 ||
      cCounter >= row.fieldCount ||
      Number.isNaN(value) ||
      Number.isNaN(dispatch)
    ) {
      this.badRow(row);
      return;
    }
    // a dispatch's rows follow one another: the same name bytes as the row before need no lookup
    let id: number;
    if (repeat) id = this.lastNameId;
    else {
      const nStart = row.starts[cName] as number;
      const nEnd = row.ends[cName] as number;
      if (this.lastNameId >= 0 && sameBytes(row.buf, nStart, nEnd, this.lastName)) id = this.lastNameId;
      else {
        id = this.kernels.idFor(row.buf, nStart, nEnd, row.escaped[cName] as number);
        this.lastNameId = id;
        // the interner's own copy of these bytes (a folded name's are the row's: copied, the buffer is reused)
        const raw = this.kernels.lastRaw;
        this.lastName = raw.buffer === row.buf.buffer ? Buffer.from(raw) : raw;
      }
    }
    // counters come in the same order for every dispatch: the one that followed the last counter last time first
    const cStartAt = row.starts[cCounter] as number;
    const cEndAt = row.ends[cCounter] as number;
    const guess = this.nextCounter[this.lastCounterId + 1] ?? -1;
    if (row.buf !== this.viewOf) {
      this.viewOf = row.buf;
      this.view = new DataView(row.buf.buffer, row.buf.byteOffset, row.buf.length);
    }
    let counterId: number;
    if (guess >= 0 && sameView(this.view, cStartAt, cEndAt, this.counterRaw[guess] as DataView)) counterId = guess;
    else {
      counterId = this.counterNames.idFor(row.buf, cStartAt, cEndAt, row.escaped[cCounter] as number);
      if (this.counterRaw[counterId] === undefined) {
        const raw = Buffer.from(row.buf.subarray(cStartAt, cEndAt));
        this.counterRaw[counterId] = new DataView(raw.buffer, raw.byteOffset, raw.length);
      }
      this.nextCounter[this.lastCounterId + 1] = row.escaped[cCounter] ? -1 : counterId;
    }
    this.lastCounterId = counterId;
    // timestamps once a row: relative to the summary's epoch they are exact (see traceClock.ts); the same bytes as
    // the row before's are the same timestamps
    const timed = spec.timed;
    let start = this.lastStart;
    let end = this.lastEnd;
    if (!(lastOk && row.tailRepeated)) {
      start = this.lastStart = timed ? timestampAt(row, spec.start, spec.epoch) : NaN;
      end = this.lastEnd = timed ? timestampAt(row, spec.end, spec.epoch) : NaN;
    }
    const table = this.table;
    if (table) {
      const i = table.dispatchOf(dispatch, this.kernels.texts[id] as string, end - start);
      let col = this.sinkColumns[counterId];
      if (col === undefined) {
        const counter = this.counterNames.texts[counterId] as string;
        col = this.sinkColumns[counterId] = this.wanted.has(counter) ? table.column(counter) : null;
      }
      if (col !== null) CounterTableBuilder.put(col, i, value);
    }
    const byCounter = (this.pairOf[id] ??= []);
    let pair = byCounter[counterId];
    if (!pair) {
      pair = { kernel: id, counter: counterId, samples: 0, sum: new ExactSum(), min: Infinity, max: -Infinity };
      byCounter[counterId] = pair;
      this.pairs.push(pair);
    }
    pair.samples++;
    (pair.sum as ExactSum).add(value);
    if (value < pair.min) pair.min = value;
    if (value > pair.max) pair.max = value;

    const keepTimings = timed && !spec.kernelsTraced;
    const d = repeat ? this.lastD : (this.dispatchAt.get(dispatch) ?? -1);
    this.lastDispatch = dispatch;
    this.lastOk = spec.repeat !== null;
    if (d >= 0) {
      // another counter of the dispatch: the same timing, or (pmc_perf.csv) another pass's
      this.lastD = d;
      // (a row with the row before's timestamps adds the timing that row added)
      if (keepTimings && end >= start && !(repeat && row.tailRepeated)) this.timings.add(d, start, end);
      return;
    }
    const out = this.out;
    const n = out.ids.length;
    this.dispatchAt.set(dispatch, n);
    this.lastD = n;
    out.ids.push(dispatch);
    out.kernelOf.push(id);
    out.lineOf.push(row.line);
    out.firstStart.push(start);
    out.firstEnd.push(end);
    this.timings.push();
    if (!keepTimings) return;
    const launch = spec.launch;
    for (let j = 0; j < launch.length; j++) {
      const col = (launch[j] as [number, number])[1];
      out.launches.push(col >= 0 ? fieldNumber(row, col) : NaN);
    }
    let agent = -1;
    const cAgent = spec.agent;
    if (cAgent >= 0 && cAgent < row.fieldCount) {
      const aStart = row.starts[cAgent] as number;
      const aEnd = row.ends[cAgent] as number;
      if (this.lastAgent >= 0 && sameBytes(row.buf, aStart, aEnd, this.lastAgentRaw)) agent = this.lastAgent;
      else {
        const raw = row.buf.toString('utf8', aStart, aEnd);
        agent = this.agentIds.get(raw) ?? -1;
        if (agent < 0) {
          agent = out.agents.push(raw) - 1;
          this.agentIds.set(raw, agent);
        }
        this.lastAgent = agent;
        this.lastAgentRaw = Buffer.from(row.buf.subarray(aStart, aEnd));
      }
    }
    out.agentOf.push(agent);
    if (end >= start) this.timings.add(n, start, end);
    else out.firstText.push([n, rowExcerpt(row)]);
  }

  private badRow(row: CsvRow): void {
    if (this.out.badRows++ === 0) {
      this.out.firstBadLine = row.line;
      this.out.firstBadText = rowExcerpt(row);
    }
  }

  /** What the rows left (the collector is done with). */
  take(): CounterRows {
    const out = this.out;
    return {
      rows: this.rows,
      kernels: this.kernels.texts.slice(),
      counters: this.counterNames.texts.slice(),
      pairs: this.pairs.slice(),
      ids: Float64Array.from(out.ids),
      kernelOf: Int32Array.from(out.kernelOf),
      lineOf: Float64Array.from(out.lineOf),
      firstStart: Float64Array.from(out.firstStart),
      firstEnd: Float64Array.from(out.firstEnd),
      launches: Float64Array.from(out.launches),
      agentOf: Int32Array.from(out.agentOf),
      agents: out.agents.slice(),
      timingStart: Float64Array.from(this.timings.starts),
      timingEnd: Float64Array.from(this.timings.ends),
      ...severalTimings(this.timings),
      firstText: out.firstText.slice(),
      badRows: out.badRows,
      firstBadLine: out.firstBadLine,
      firstBadText: out.firstBadText,
      table: this.table?.part() ?? null,
    };
  }
}

/** The dispatches with several timings as CounterRows holds them. */
function severalTimings(
  timings: DispatchTimings,
): Pick<CounterRows, 'severalOf' | 'severalAt' | 'severalStart' | 'severalEnd' | 'severalTruncated'> {
  const severalOf = new Int32Array(timings.several.size);
  const severalAt = new Int32Array(timings.several.size + 1);
  const starts: number[] = [];
  const ends: number[] = [];
  const truncated: number[] = [];
  let i = 0;
  for (const [d, passes] of timings.several) {
    if (passes.truncated) truncated.push(i);
    severalOf[i] = d;
    severalAt[i++] = starts.length;
    for (let t = 0; t < passes.starts.length; t++) {
      starts.push(passes.starts[t] as number);
      ends.push(passes.ends[t] as number);
    }
  }
  severalAt[i] = starts.length;
  return {
    severalOf,
    severalAt,
    severalStart: Float64Array.from(starts),
    severalEnd: Float64Array.from(ends),
    severalTruncated: Int32Array.from(truncated),
  };
}

/** CounterRows' per-dispatch arrays while they grow (timings: DispatchTimings until take()). */
interface Growing {
  ids: number[];
  kernelOf: number[];
  lineOf: number[];
  firstStart: number[];
  firstEnd: number[];
  launches: number[];
  agentOf: number[];
  agents: string[];
  firstText: Array<[number, string]>;
  badRows: number;
  firstBadLine: number;
  firstBadText: string;
}

/** A part's bad rows while it is applied. */
interface BadRows {
  rows: number;
  /** The first one's line and text. */
  line: number;
  text: string;
  /** The part's first rows with End < Start, by dispatch. */
  texts: Map<number, string>;
  lineBase: number;
}

/** One scanner per thread for counter parts (made once: V8 keeps its optimised code), rows to the current collector. */
let scanner: CsvScanner | null = null;
let current: CounterPartCollector | null = null;
/** The collector of this thread's last part, cleared for the next part of a file of the same spec. */
let reusable: { spec: string; collector: CounterPartCollector } | null = null;

/** Scans one part of a counter collection (in a worker thread, or on the calling thread when none can). */
export function scanCounterPart(task: CounterTask): CounterPart {
  const spec = JSON.stringify(task.spec);
  let collector: CounterPartCollector;
  if (reusable?.spec === spec) {
    collector = reusable.collector;
    collector.clear();
  } else {
    collector = new CounterPartCollector(task.spec);
    reusable = { spec, collector };
  }
  current = collector;
  scanner ??= createCsvScanner({ fileStart: false, onRow: (row) => (current as CounterPartCollector).add(row) });
  scanner.setRepeat(task.spec.repeat ?? undefined);
  const outcome = scanSpan(task, scanner);
  current = null;
  return { ...outcome, ...collector.take() };
}

/** The buffers a part's answer can hand over instead of copying. */
export function counterPartBuffers(part: CounterPart): ArrayBuffer[] {
  const arrays = [
    part.ids,
    part.kernelOf,
    part.lineOf,
    part.firstStart,
    part.firstEnd,
    part.launches,
    part.agentOf,
    part.timingStart,
    part.timingEnd,
    part.severalOf,
    part.severalAt,
    part.severalStart,
    part.severalEnd,
    part.severalTruncated,
  ];
  const t = part.table;
  if (t) arrays.push(t.kernelOf, t.keys, t.sampleAt, t.sampleValues, t.sampleCounts, ...t.columns.map((c) => c.data));
  return arrays.map((a) => a.buffer as ArrayBuffer);
}

/** The parts of one file applied in file order to the summary's tables (on the calling thread). */
export class CounterMerge {
  /** Each dispatch of the file: its ordinal among the timed ones (below), -1 when not timed here. */
  private readonly seen = new Map<number, number>();
  /**
   * The first part's dispatches (each once: all new) with their ordinals, in `seen` only once another part comes:
   * a file read in one pass needs no lookups.
   */
  private firstPart: { ids: Float64Array; slots: Int32Array } | null = null;
  // The timed dispatches without a kernel trace, in the order first seen: what the first row gave, each pass's timing.
  private readonly timedIds: number[] = [];
  private readonly timedKernels: KernelAgg[] = [];
  private readonly timedAgents: Array<AgentState | null> = [];
  private readonly timings = new DispatchTimings();
  private readonly untimedCalls = new Map<string, number>();
  private readonly sums = new Map<CounterAgg, ExactSum>();
  private readonly agentCache = new Map<string, AgentState | null>();
  private readonly launch = new Float64Array(LAUNCH_WIDTH).fill(NaN);

  constructor(
    private readonly ctx: CsvReadContext,
    private readonly problems: RowProblems,
    private readonly spec: CounterSpec,
    private readonly table: CounterTableBuilder | null,
    /** Another pass of the same program (pass_<n>/): its dispatches were counted in the timing pass. */
    private readonly repeatPass: boolean,
  ) {}

  /** Applies the next part; `lineBase`: the line number of its first line. */
  apply(p: CounterRows, lineBase: number): void {
    const { tables } = this.ctx;
    const aggs = p.kernels.map((name) => tables.kernelCounters(name));
    for (const pair of p.pairs) {
      const agg = aggs[pair.kernel] as KernelCounterAgg;
      // each part's names are bounded (BytesInterner), their union across parts here
      const counter = keyWithin(agg.counters, p.counters[pair.counter] as string, MAX_DISTINCT_NAMES, FOLDED_NAMES);
      let known = agg.counters.get(counter);
      if (!known) agg.counters.set(counter, (known = { samples: 0, sum: 0, min: Infinity, max: -Infinity }));
      let sum = this.sums.get(known);
      if (!sum) this.sums.set(known, (sum = new ExactSum(known.sum)));
      sum.addSum(pair.sum);
      known.samples += pair.samples;
      if (pair.min < known.min) known.min = pair.min;
      if (pair.max > known.max) known.max = pair.max;
    }
    if (this.table && p.table) this.table.merge(p.table);

    // the part's own bad rows, and the first rows below that are bad rows because their dispatch is new here
    const bad: BadRows = {
      rows: p.badRows,
      line: p.badRows > 0 ? lineBase + p.firstBadLine - 1 : Infinity,
      text: p.firstBadText,
      texts: new Map(p.firstText),
      lineBase,
    };
    if (this.firstPart) this.indexFirstPart();
    const fresh = this.seen.size === 0;
    const n = p.ids.length;
    const slots = new Int32Array(n);
    // filled, not grown: reading past the end would make V8 drop the optimised loop
    const kernels: Array<KernelAgg | null> = p.kernels.map(() => null);
    for (let d = 0; d < n; d++) {
      const dispatch = p.ids[d] as number;
      const known = fresh ? undefined : this.seen.get(dispatch);
      if (known !== undefined) {
        slots[d] = known;
        continue;
      }
      const slot = this.firstSeen(p, d, aggs, kernels, bad);
      slots[d] = slot;
      if (!fresh) this.seen.set(dispatch, slot);
    }
    if (fresh) this.firstPart = { ids: p.ids, slots };
    if (this.spec.timed && !this.spec.kernelsTraced) this.addTimings(p, slots);
    if (bad.rows > 0) {
      const problems = this.problems;
      if (problems.badRows === 0) {
        problems.firstBadLine = bad.line;
        problems.firstBadText = bad.text;
      }
      problems.badRows += bad.rows;
    }
  }

  /** A dispatch new to the file (part dispatch `d`): counted, and kept when timed; its timed ordinal, or -1. */
  private firstSeen(
    p: CounterRows,
    d: number,
    aggs: KernelCounterAgg[],
    kernels: Array<KernelAgg | null>,
    bad: BadRows,
  ): number {
    const spec = this.spec;
    const kernel = p.kernelOf[d] as number;
    if (!this.repeatPass) (aggs[kernel] as KernelCounterAgg).dispatches++;
    if (spec.kernelsTraced) return -1;
    const name = p.kernels[kernel] as string;
    if (!spec.timed) {
      this.untimedCalls.set(name, (this.untimedCalls.get(name) ?? 0) + 1);
      return -1;
    }
    if (!((p.firstEnd[d] as number) >= (p.firstStart[d] as number))) {
      const line = bad.lineBase + (p.lineOf[d] as number) - 1;
      bad.rows++;
      if (line < bad.line) {
        bad.line = line;
        bad.text = bad.texts.get(d) ?? '';
      }
      return -1;
    }
    const k = (kernels[kernel] ??= this.ctx.tables.kernel(name));
    const width = spec.launch.length;
    for (let j = 0; j < width; j++)
      this.launch[(spec.launch[j] as [number, number])[0]] = p.launches[d * width + j] as number;
    addLaunch(k, this.launch);
    const agent = this.agentOf(p.agents[p.agentOf[d] as number]);
    if (agent) k.agentIds.add(agent.id);
    this.timedKernels.push(k);
    this.timedAgents.push(agent);
    this.timings.push();
    return this.timedIds.push(p.ids[d] as number) - 1;
  }

  /** The part's timings of the timed dispatches (`slots`: each part dispatch's timed ordinal, -1: not timed). */
  private addTimings(p: CounterRows, slots: Int32Array): void {
    const timings = this.timings;
    for (let d = 0; d < slots.length; d++) {
      const slot = slots[d] as number;
      const start = p.timingStart[d] as number;
      if (slot >= 0 && start === start) timings.add(slot, start, p.timingEnd[d] as number);
    }
    for (let i = 0; i < p.severalOf.length; i++) {
      const slot = slots[p.severalOf[i] as number] as number;
      if (slot < 0) continue;
      for (let t = p.severalAt[i] as number; t < (p.severalAt[i + 1] as number); t++)
        timings.add(slot, p.severalStart[t] as number, p.severalEnd[t] as number);
    }
    for (const i of p.severalTruncated) {
      const slot = slots[p.severalOf[i] as number] as number;
      if (slot >= 0) timings.markTruncated(slot);
    }
  }

  private indexFirstPart(): void {
    const { ids, slots } = this.firstPart as { ids: Float64Array; slots: Int32Array };
    this.firstPart = null;
    for (let d = 0; d < ids.length; d++) this.seen.set(ids[d] as number, slots[d] as number);
  }

  private agentOf(raw: string | undefined): AgentState | null {
    if (raw === undefined) return null;
    let agent = this.agentCache.get(raw);
    if (agent === undefined) {
      agent = this.ctx.agents.resolve(raw);
      this.agentCache.set(raw, agent);
    }
    return agent;
  }

  /** The per-kernel sums, rounded once (also after a part that broke). */
  finishSums(): void {
    for (const [known, sum] of this.sums) known.sum = sum.value();
    this.sums.clear();
  }

  /** Dispatches in the file. */
  get dispatches(): number {
    return this.seen.size + (this.firstPart?.ids.length ?? 0);
  }

  /** The dispatches' durations and busy time, once every part is applied. */
  finish(path: string): void {
    const { acc, tables } = this.ctx;
    const spread = new PassSpread();
    const { starts, ends, several } = this.timings;
    for (let d = 0; d < this.timedIds.length; d++) {
      let start = starts[d] as number;
      let end = ends[d] as number;
      const passes = several.size > 0 ? several.get(d) : undefined;
      if (passes) {
        ({ start, end } = pickPassTiming(passes.starts, passes.ends));
        spread.add(this.timedIds[d] as number, passes);
      }
      addDuration((this.timedKernels[d] as KernelAgg).stats, end - start);
      acc.addGpuWork(this.timedAgents[d] as AgentState | null, start, end, 'kernel');
    }
    const passes = spread.warning(path);
    if (passes) acc.warnings.push(passes);
    for (const [name, calls] of this.untimedCalls)
      mergeStats(tables.kernel(name).stats, statsFromTotals(calls, 0, null, null, null));
  }
}

/** The bytes `view[start..end)` equal `raw`, 4 at a time (a native compare costs more to call on short names). */
function sameView(view: DataView, start: number, end: number, raw: DataView): boolean {
  const n = end - start;
  if (n !== raw.byteLength) return false;
  let i = 0;
  for (; i + 4 <= n; i += 4) if (view.getInt32(start + i, true) !== raw.getInt32(i, true)) return false;
  for (; i < n; i++) if (view.getUint8(start + i) !== raw.getUint8(i)) return false;
  return true;
}

/** Field bytes `buf[start..end)` equal `raw` (a JS loop: names are short, a native compare costs more to call). */
function sameBytes(buf: Buffer, start: number, end: number, raw: Buffer): boolean {
  const n = end - start;
  if (n !== raw.length) return false;
  for (let i = 0; i < n; i++) if (buf[start + i] !== raw[i]) return false;
  return true;
}
