// rocTX ranges with their kernels from rocprofv3 CSVs: ranges from `*_marker_api_trace.csv`, launch calls from
// the other API traces (`*_hip_api_trace.csv`, ...), dispatches from `*_kernel_trace.csv`, all joined on
// Correlation_Id and Thread_Id. A second, light pass over those files, made only when a run has ranges, so that
// the kernel trace's hot path (readKernelTrace) keeps no per-dispatch state.
import { streamCsv } from '../csvFile';
import type { FileSource } from '../sources';
import { RangeAttributor, RangeIndex } from '../ranges';
import { BytesInterner, isMarkerDomain, type RunTables } from '../tables';
import { fieldNumber, fieldText, type CsvRow } from '../csvScanner';
import { timestampAt } from '../traceClock';
import { pickPassTiming, readCounterDispatchTimes } from './counterDispatches';
import type { DispatchLog } from '../kernelBatches';
import { KernelNameGuess } from '../kernelNameGuess';

export interface RangeCsvFiles {
  /** API traces of the run: marker rows give the ranges, the other rows the launch calls. */
  api: FileSource[];
  kernels: FileSource[];
  /** Counter collections: the dispatches of a run without a kernel trace (each dispatch once, see counterDispatches). */
  counters?: FileSource[];
  /** The summary's epoch (traceClock.ts). */
  epochSeconds?: number;
  /** Filled with the range of each counter dispatch put in one, by Dispatch_Id (for the roofline per range). */
  counterRanges?: Map<number, string>;
}

type OnDispatch = (
  kernel: string,
  correlationId: number,
  tid: number,
  start: number,
  end: number,
  dispatchId?: number,
) => void;

/**
 * Fills `tables.markers[*].kernels`; returns false when the run has no ranges or no dispatches (nothing done).
 * Kernel traces whose dispatches were logged while they were read (`logs`) are not read again, unless the run has
 * no launch calls (then a dispatch needs its thread and start time, which the log does not keep).
 */
export async function attributeCsvRanges(
  files: RangeCsvFiles,
  tables: RunTables,
  logs?: ReadonlyMap<FileSource, DispatchLog>,
): Promise<boolean> {
  const counters = files.kernels.length === 0 ? (files.counters ?? []) : [];
  if (files.kernels.length === 0 && counters.length === 0) return false;
  const epoch = files.epochSeconds ?? 0;
  const index = new RangeIndex();
  const launches = new LaunchBuffer();
  for (const f of files.api) await readApiRows(f, tables, index, launches, epoch);
  const control = tables.control;
  const paused = control.windows().length > 0;
  if (index.count === 0 && !paused) return false;
  const attributor = index.count > 0 ? new RangeAttributor(index, tables) : null;
  if (attributor) launches.replay((corr, tid, start) => attributor.addLaunch(corr, tid, start));
  launches.clear();
  const onDispatch: OnDispatch = (kernel, corr, tid, start, end, dispatchId) => {
    const marker = attributor?.addDispatch(kernel, corr, tid, start, end);
    if (marker && dispatchId !== undefined && files.counterRanges && !files.counterRanges.has(dispatchId))
      files.counterRanges.set(dispatchId, marker.name);
    if (paused) control.addDispatch(kernel, start, end - start);
  };
  for (const f of files.kernels) {
    // the log keeps no start times: read again when they are needed (GPU-time ranges, paused windows)
    // (nor the Dispatch_Id that counterRanges needs)
    const log = attributor?.by === 'correlation' && !paused && !files.counterRanges ? logs?.get(f) : undefined;
    if (log && attributor) replayDispatches(log, attributor);
    else await readDispatches(f, onDispatch, epoch);
  }
  for (const f of counters) await readCounterDispatches(f, onDispatch, epoch);
  attributor?.done();
  return true;
}

/** Launch calls (correlation id, thread, start) kept in typed arrays until every range is known. */
class LaunchBuffer {
  private data = new Float64Array(3 * 1024);
  private n = 0;

  push(corr: number, tid: number, start: number): void {
    if (3 * this.n + 3 > this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    const i = 3 * this.n++;
    this.data[i] = corr;
    this.data[i + 1] = tid;
    this.data[i + 2] = start;
  }

  clear(): void {
    this.data = new Float64Array(0);
    this.n = 0;
  }

  replay(onLaunch: (corr: number, tid: number, start: number) => void): void {
    for (let i = 0; i < 3 * this.n; i += 3)
      onLaunch(this.data[i] as number, this.data[i + 1] as number, this.data[i + 2] as number);
  }
}

async function readApiRows(
  source: FileSource,
  tables: RunTables,
  index: RangeIndex,
  launches: LaunchBuffer,
  epoch: number,
): Promise<void> {
  const domains = new BytesInterner();
  const domainIsMarker: boolean[] = [];
  await streamCsv(source, (c) => {
    const cDomain = c.find('Domain');
    const cFunction = c.find('Function');
    const cCorr = c.find('Correlation_Id');
    const cTid = c.find('Thread_Id');
    const cStart = c.find('Start_Timestamp');
    const cEnd = c.find('End_Timestamp');
    return (row) => {
      const start = timestampAt(row, cStart, epoch);
      const tid = cTid >= 0 ? (row.values[cTid] as number) : NaN;
      let marker = false;
      if (cDomain >= 0 && cDomain < row.fieldCount) {
        const d = domains.idFor(
          row.buf,
          row.starts[cDomain] as number,
          row.ends[cDomain] as number,
          row.escaped[cDomain] as number,
        );
        marker = domainIsMarker[d] ??= isMarkerDomain(domains.texts[d] as string);
      }
      if (!marker) {
        if (cCorr >= 0) launches.push(row.values[cCorr] as number, tid, start);
        return;
      }
      if (cFunction < 0 || cFunction >= row.fieldCount) return;
      const name = fieldText(row, cFunction);
      if (/^roctx[A-Z]/.test(name)) return; // roctx API entry points, not user ranges
      index.add(tables.marker(name), tid, start, timestampAt(row, cEnd, epoch));
    };
  });
}

function replayDispatches(log: DispatchLog, attributor: RangeAttributor): void {
  const names = log.names.texts;
  for (const { corr, name, duration } of log.chunks) {
    for (let i = 0; i < name.length; i++)
      attributor.addDispatch(names[name[i] as number] as string, corr[i] as number, NaN, 0, duration[i] as number);
  }
}

async function readDispatches(source: FileSource, onDispatch: OnDispatch, epoch: number): Promise<void> {
  const names = new BytesInterner();
  await streamCsv(source, (c) => {
    const cName = c.find('Kernel_Name', 'KernelName');
    const cCorr = c.find('Correlation_Id');
    const cTid = c.find('Thread_Id');
    const cStart = c.find('Start_Timestamp', 'BeginNs');
    const cEnd = c.find('End_Timestamp', 'EndNs');
    const cDispatch = c.find('Dispatch_Id');
    const nameGuess = new KernelNameGuess(c.find('Kernel_Id'), cName, names);
    const onRow = (row: CsvRow): void => {
      const start = timestampAt(row, cStart, epoch);
      const end = timestampAt(row, cEnd, epoch);
      if (cName < 0 || cName >= row.fieldCount || !(end >= start)) return;
      const id = nameGuess.nameId(row);
      const corr = cCorr >= 0 ? (row.values[cCorr] as number) : NaN;
      const tid = cTid >= 0 ? (row.values[cTid] as number) : NaN;
      onDispatch(
        names.texts[id] as string,
        corr,
        tid,
        start,
        end,
        cDispatch >= 0 ? fieldNumber(row, cDispatch) : undefined,
      );
    };
    return Object.assign(onRow, { guess: nameGuess.guess });
  });
}

/** The dispatches of a counter collection, each once, timed by the pass counterCollection.ts uses (untimed: NaN). */
async function readCounterDispatches(source: FileSource, onDispatch: OnDispatch, epoch: number): Promise<void> {
  const dispatches = await readCounterDispatchTimes(source, epoch);
  for (const [id, d] of dispatches) {
    const t = pickPassTiming(d.starts, d.ends);
    onDispatch(d.name, d.corr, d.tid, t.start, t.end, id);
  }
}
