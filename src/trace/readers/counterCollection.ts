// rocprofv3 `counter_collection.csv` (`--pmc`): one row per (dispatch, counter) with `Dispatch_Id`,
// `Kernel_Name`, `Counter_Name`, `Counter_Value`, and from ROCm 7 also `Start_Timestamp` / `End_Timestamp`.
// Every dispatch is counted once however many counters it has. When no kernel trace of the same run was read,
// the dispatches are the kernel data (calls; times only when the file has timestamps).
import type { AgentState } from '../accumulator';
import { streamCsv, type RowHandler } from '../csvFile';
import { fieldNumber, type CsvRow } from '../csvScanner';
import { addDuration, mergeStats, statsFromTotals } from '../durationStats';
import type { FileSource } from '../sources';
import { BytesInterner, LAUNCH_WIDTH, addLaunch, type KernelAgg, type KernelCounterAgg } from '../tables';
import { timestampAt } from '../traceClock';
import { PassSpread, PassTimings, pickPassTiming } from './counterDispatches';
import { noteBadRow, type CsvReadContext, type RowProblems } from './rocprofv3Csv';
import { CounterTableBuilder, type CounterColumn } from '../counters/counterTable';

/** Where each row's counter also goes, per dispatch, for the roofline (src/trace/counters/). */
export interface CounterSink {
  table: CounterTableBuilder;
  /** Counters kept (the others are only aggregated per kernel). */
  wanted: ReadonlySet<string>;
  /** Another pass of the same program (pass_<n>/): its dispatches were counted in the timing pass. */
  repeatPass?: boolean;
}

export interface CounterReadResult {
  rows: number;
  dispatches: number;
  /** The file has start/end timestamps (ROCm >= 7). */
  timed: boolean;
}

export async function readCounterCollection(
  source: FileSource,
  ctx: CsvReadContext,
  problems: RowProblems,
  /** True when a kernel trace of the same run was read: then only the counters are taken from here. */
  kernelsTraced: boolean,
  sink?: CounterSink,
): Promise<CounterReadResult> {
  const { acc, tables, agents } = ctx;
  const kernels = new BytesInterner();
  const counterNames = new BytesInterner();
  /** Per kernel id, per counter id: the kernel's aggregate of that counter (one Map lookup per pair, not per row). */
  const statsById: Array<Array<{ samples: number; sum: number; min: number; max: number } | undefined>> = [];
  /** Raw bytes of each counter id, and the id that followed each id (index id + 1; -1 for the first row). */
  const counterRaw: DataView[] = [];
  /** A view of the scanner's buffer, for comparing counter names 4 bytes at a time. */
  let viewOf: Buffer | null = null;
  let view: DataView = new DataView(new ArrayBuffer(0));
  const nextCounter: number[] = [];
  let lastCounterId = -1;
  let lastName = Buffer.alloc(0);
  let lastNameId = -1;
  /** Per counter id: its column in the sink, null when the sink does not keep it. */
  const sinkColumns: Array<CounterColumn | null> = [];
  const aggById: KernelCounterAgg[] = [];
  const untimedCalls = new Map<string, number>();
  const seen = new Set<number>();
  /** Timed dispatches (no kernel trace): what the first row gave, and each pass's timing. */
  const timedDispatches = new Map<number, { k: KernelAgg; agent: AgentState | null; timings: PassTimings }>();
  const launch = new Float64Array(LAUNCH_WIDTH).fill(NaN);
  const epoch = acc.clock.use();
  let timed = false;
  const rows = await streamCsv(
    source,
    (c) => {
      const cDispatch = c.find('Dispatch_Id', 'Correlation_Id');
      const cName = c.find('Kernel_Name');
      const cCounter = c.find('Counter_Name');
      const cValue = c.find('Counter_Value');
      const cStart = c.find('Start_Timestamp');
      const cEnd = c.find('End_Timestamp');
      const cAgent = c.find('Agent_Id');
      timed = cStart >= 0 && cEnd >= 0;
      // launch values this file has (grid and workgroup sizes here are products, not x/y/z: left out)
      const launchCols: Array<[number, number]> = [
        [6, c.find('VGPR_Count', 'Arch_VGPR_Count')],
        [7, c.find('Accum_VGPR_Count')],
        [8, c.find('SGPR_Count')],
        [9, c.find('LDS_Block_Size', 'Group_Segment_Size')],
        [10, c.find('Scratch_Size', 'Private_Segment_Size')],
      ];
      const agentCache = new Map<string, AgentState | null>();
      // The fields before the counter's own (Counter_Name, Counter_Value, the timestamps) are the dispatch's: a row
      // whose scanner says they repeat the row before's bytes is another counter of the dispatch of that row.
      const firstPerCounter = Math.min(...[cCounter, cValue, cStart, cEnd].filter((i) => i >= 0));
      const repeatable =
        cCounter >= 0 && cDispatch >= 0 && cName >= 0 && cDispatch < firstPerCounter && cName < firstPerCounter;
      /** The row before was read whole (not a bad row): its dispatch, name id and timings are those of a repeat. */
      let lastOk = false;
      let lastDispatch = NaN;
      let lastTimings: PassTimings | null = null;
      const handler = (row: CsvRow): void => {
        const repeat = lastOk && row.repeated;
        lastOk = false;
        const dispatch = repeat ? lastDispatch : fieldNumber(row, cDispatch);
        const value = fieldNumber(row, cValue);
        if (
          cName < 0 ||
          cName >= row.fieldCount ||
          cCounter < 0 ||
          cCounter >= row.fieldCount ||
          Number.isNaN(value) ||
          Number.isNaN(dispatch)
        ) {
          noteBadRow(problems, row);
          return;
        }
        // a dispatch's rows follow one another: the same name bytes as the row before need no lookup
        let id: number;
        if (repeat) id = lastNameId;
        else {
          const nStart = row.starts[cName] as number;
          const nEnd = row.ends[cName] as number;
          if (lastNameId >= 0 && sameBytes(row.buf, nStart, nEnd, lastName)) id = lastNameId;
          else {
            id = kernels.idFor(row.buf, nStart, nEnd, row.escaped[cName] as number);
            lastNameId = id;
            lastName = Buffer.from(row.buf.subarray(nStart, nEnd));
          }
        }
        const name = kernels.texts[id] as string;
        const agg = (aggById[id] ??= tables.kernelCounters(name));
        // counters come in the same order for every dispatch: the one that followed the last counter last time first
        const cStartAt = row.starts[cCounter] as number;
        const cEndAt = row.ends[cCounter] as number;
        const guess = nextCounter[lastCounterId + 1] ?? -1;
        if (row.buf !== viewOf) {
          viewOf = row.buf;
          view = new DataView(viewOf.buffer, viewOf.byteOffset, viewOf.length);
        }
        let counterId: number;
        if (guess >= 0 && sameView(view, cStartAt, cEndAt, counterRaw[guess] as DataView)) counterId = guess;
        else {
          counterId = counterNames.idFor(row.buf, cStartAt, cEndAt, row.escaped[cCounter] as number);
          if (counterRaw[counterId] === undefined) {
            const raw = Buffer.from(row.buf.subarray(cStartAt, cEndAt));
            counterRaw[counterId] = new DataView(raw.buffer, raw.byteOffset, raw.length);
          }
          nextCounter[lastCounterId + 1] = row.escaped[cCounter] ? -1 : counterId;
        }
        lastCounterId = counterId;
        const counter = counterNames.texts[counterId] as string;
        // timestamps once a row: relative to the summary's epoch they are exact (see traceClock.ts)
        const start = timed ? timestampAt(row, cStart, epoch) : NaN;
        const end = timed ? timestampAt(row, cEnd, epoch) : NaN;
        if (sink) {
          const i = sink.table.dispatchOf(dispatch, name, end - start);
          let col = sinkColumns[counterId];
          if (col === undefined)
            col = sinkColumns[counterId] = sink.wanted.has(counter) ? sink.table.column(counter) : null;
          if (col !== null) CounterTableBuilder.put(col, i, value);
        }
        const byCounter = (statsById[id] ??= []);
        let known = byCounter[counterId];
        if (!known) {
          known = agg.counters.get(counter);
          if (!known) agg.counters.set(counter, (known = { samples: 0, sum: 0, min: Infinity, max: -Infinity }));
          byCounter[counterId] = known;
        }
        known.samples++;
        known.sum += value;
        if (value < known.min) known.min = value;
        if (value > known.max) known.max = value;

        if (repeat || seen.has(dispatch)) {
          // another counter of the dispatch: the same timing, or (pmc_perf.csv) another pass's
          if (!repeat) {
            lastDispatch = dispatch;
            lastTimings = timedDispatches.get(dispatch)?.timings ?? null;
          }
          lastOk = repeatable;
          if (timed && !kernelsTraced && end >= start) lastTimings?.add(start, end);
          return;
        }
        seen.add(dispatch);
        lastDispatch = dispatch;
        lastTimings = null;
        lastOk = repeatable;
        if (!sink?.repeatPass) agg.dispatches++;
        if (kernelsTraced) return;
        if (!timed) {
          untimedCalls.set(name, (untimedCalls.get(name) ?? 0) + 1);
          return;
        }
        if (!(end >= start)) {
          noteBadRow(problems, row);
          return;
        }
        const k = tables.kernel(name);
        for (const [slot, col] of launchCols) launch[slot] = col >= 0 ? fieldNumber(row, col) : NaN;
        addLaunch(k, launch);
        let agent: AgentState | null = null;
        if (cAgent >= 0 && cAgent < row.fieldCount) {
          const raw = row.buf.toString('utf8', row.starts[cAgent] as number, row.ends[cAgent] as number);
          agent = agentCache.get(raw) ?? null;
          if (!agentCache.has(raw)) {
            agent = agents.resolve(raw);
            agentCache.set(raw, agent);
          }
        }
        if (agent) k.agentIds.add(agent.id);
        const timings = new PassTimings();
        timings.add(start, end);
        timedDispatches.set(dispatch, { k, agent, timings });
        lastTimings = timings;
      };
      // and the timestamps after the counter's name and value are the dispatch's too
      const tail =
        cStart > cValue && cStart > cCounter && cEnd > cValue && cEnd > cCounter ? Math.min(cStart, cEnd) : -1;
      if (repeatable) (handler as RowHandler).repeat = { head: firstPerCounter, tail };
      return handler;
    },
    problems,
  );
  const spread = new PassSpread();
  for (const [id, d] of timedDispatches) {
    const t = pickPassTiming(d.timings.starts, d.timings.ends);
    spread.add(id, d.timings);
    addDuration(d.k.stats, t.end - t.start);
    acc.addGpuWork(d.agent, t.start, t.end, 'kernel');
  }
  const passes = spread.warning(source.path);
  if (passes) acc.warnings.push(passes);
  for (const [name, calls] of untimedCalls)
    mergeStats(tables.kernel(name).stats, statsFromTotals(calls, 0, null, null, null));
  return { rows, dispatches: seen.size, timed };
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
