// rocprof-compute's pmc_perf.csv in its default (wide) layout: one row per dispatch, one column per counter
// (`TCC_EA0_RDREQ_sum`, ...; the roofline does not use the per-channel `TCC_X[n]` columns, the counter list has
// them), hundreds to thousands of columns; its per-pass files (SQ_IFETCH_LEVEL.csv, ...) have the same layout. Every row
// counts, whatever its GPU_ID. Durations are End_Timestamp - Start_Timestamp, exact past 2^53 and read from
// `8.1097E+14` or fractional forms too.
import { streamCsv } from '../csvFile';
import { fieldNumber, type CsvRow } from '../csvScanner';
import type { FileSource } from '../sources';
import { BytesInterner } from '../tables';
import { timestampAt } from '../traceClock';
import { CounterTableBuilder } from './counterTable';
import { FOLDED_NAMES, keyWithin } from '../keyLimits';
import { MAX_DISTINCT_NAMES } from '../limits';
import type { KernelCounterAgg } from '../tables';

/** Most columns a wide pmc_perf.csv may have (MI300X's: about 590 to 2,700). */
export const MAX_WIDE_FIELDS = 1 << 15;

/**
 * The columns of rocprof-compute's wide tables that describe the dispatch (the rest are counters, per channel as
 * `TCC_HIT[3]`); pandas' join of the passes repeats some as `Wave_Size_1`.
 */
const WIDE_HEAD = new Set([
  'Dispatch_ID',
  'GPU_ID',
  'Queue_ID',
  'PID',
  'TID',
  'Grid_Size',
  'Workgroup_Size',
  'LDS_Per_Workgroup',
  'Scratch_Per_Workitem',
  'Arch_VGPR',
  'Accum_VGPR',
  'SGPR',
  'Wave_Size',
  'Kernel_Name',
  'Kernel_ID',
  'Start_Timestamp',
  'End_Timestamp',
  'Correlation_ID',
  'XCC_Index',
  'Node',
  'Signal',
  'Obj',
]);

export function isWideHeadColumn(name: string): boolean {
  return WIDE_HEAD.has(name) || WIDE_HEAD.has(name.replace(/_\d+$/, ''));
}

/** A header in rocprof-compute's own spelling (`Dispatch_ID`, `GPU_ID`: rocprofv3's are `Dispatch_Id`, `Agent_Id`). */
export function isRocprofComputeWide(header: readonly string[]): boolean {
  return header.includes('Dispatch_ID') && header.includes('GPU_ID') && header.includes('Kernel_Name');
}

/** End - start of a row, exact for long integers (taken relative to the start's whole second). */
function rowDuration(row: CsvRow, cStart: number, cEnd: number): number {
  if (cStart < 0 || cEnd < 0) return NaN;
  const epoch = row.wide[cStart] ? (row.high[cStart] as number) : 0;
  return timestampAt(row, cEnd, epoch) - timestampAt(row, cStart, epoch);
}

export interface WideDispatch {
  name: string;
  /** Start and end less `epochSeconds` (see traceClock.ts), NaN when the row has none. */
  start: number;
  end: number;
  gpuId: number;
}

export interface WideReadResult {
  rows: number;
  /** Rows without a kernel name (skipped). */
  badRows: number;
}

/** Where a wide table's counters go per kernel (the summary's counter list), besides the roofline's table. */
export interface WideCounterSink {
  kernelCounters(name: string): KernelCounterAgg;
  /** Count each row as a dispatch of its kernel (pmc_perf.csv; not another pass of the same dispatches). */
  dispatches: boolean;
  /** Only counters the kernel does not have yet (another pass's file: pmc_perf.csv's values come first). */
  onlyNew: boolean;
}

/** Adds a row's counters to its kernel's list; `skip`: the counters it had before this file (onlyNew). */
function addWideCounters(
  row: CsvRow,
  agg: KernelCounterAgg,
  columns: ReadonlyArray<[string, number]>,
  skip: ReadonlySet<string> | null,
): void {
  for (const [counter, col] of columns) {
    if (skip?.has(counter)) continue;
    const v = fieldNumber(row, col);
    if (!Number.isFinite(v)) continue;
    const name = keyWithin(agg.counters, counter, MAX_DISTINCT_NAMES, FOLDED_NAMES);
    let c = agg.counters.get(name);
    if (!c) agg.counters.set(name, (c = { samples: 0, sum: 0, min: Infinity, max: -Infinity }));
    c.samples++;
    c.sum += v;
    if (v < c.min) c.min = v;
    if (v > c.max) c.max = v;
  }
}

/**
 * Reads the counters named in `wanted` (other columns are not kept) into `into` (null: none), one dispatch per row;
 * `onDispatch` gets each dispatch's name and timing (for the summary's kernel table), `perKernel` every counter.
 */
export async function readPmcPerfWide(
  source: FileSource,
  wanted: ReadonlySet<string>,
  into: CounterTableBuilder | null,
  epochSeconds: number,
  onDispatch?: (d: WideDispatch) => void,
  perKernel?: WideCounterSink,
): Promise<WideReadResult> {
  const names = new BytesInterner();
  let badRows = 0;
  const rows = await streamCsv(
    source,
    (c) => {
      const cName = c.find('Kernel_Name');
      const cStart = c.find('Start_Timestamp');
      const cEnd = c.find('End_Timestamp');
      const cDispatch = c.find('Dispatch_ID');
      const cGpu = c.find('GPU_ID');
      // exact names: `c.find` folds case and underscores, and counters differ only by those at times
      const kept: Array<[string, number]> = [];
      c.names.forEach((n, i) => {
        if (wanted.has(n) && !kept.some(([k]) => k === n)) kept.push([n, i]);
      });
      const seen = new Set<string>();
      const counterColumns: Array<[string, number]> = [];
      c.names.forEach((n, i) => {
        if (isWideHeadColumn(n) || seen.has(n)) return;
        seen.add(n);
        counterColumns.push([n, i]);
      });
      /** Per kernel: the counters it had before this file (perKernel.onlyNew). */
      const before = new Map<string, ReadonlySet<string>>();
      return (row) => {
        if (cName < 0 || cName >= row.fieldCount) {
          badRows++;
          return;
        }
        const id = names.idFor(
          row.buf,
          row.starts[cName] as number,
          row.ends[cName] as number,
          row.escaped[cName] as number,
        );
        const name = names.texts[id] as string;
        if (into) {
          const i = into.addDispatch(name, rowDuration(row, cStart, cEnd), fieldNumber(row, cDispatch));
          for (const [counter, col] of kept) into.set(i, counter, fieldNumber(row, col));
        }
        if (perKernel) {
          const agg = perKernel.kernelCounters(name);
          if (perKernel.dispatches) agg.dispatches++;
          let skip: ReadonlySet<string> | null = null;
          if (perKernel.onlyNew) {
            skip = before.get(name) ?? null;
            if (!skip) before.set(name, (skip = new Set(agg.counters.keys())));
          }
          addWideCounters(row, agg, counterColumns, skip);
        }
        if (onDispatch) {
          onDispatch({
            name,
            start: timestampAt(row, cStart, epochSeconds),
            end: timestampAt(row, cEnd, epochSeconds),
            gpuId: fieldNumber(row, cGpu),
          });
        }
      };
    },
    undefined,
    MAX_WIDE_FIELDS,
  );
  return { rows, badRows };
}
