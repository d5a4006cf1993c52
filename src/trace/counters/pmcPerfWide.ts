// rocprof-compute's pmc_perf.csv in its default (wide) layout: one row per dispatch, one column per counter
// (`TCC_EA0_RDREQ_sum`, ...; the per-channel `TCC_X[n]` columns are not used), thousands of columns. Every row
// counts, whatever its GPU_ID. Durations are End_Timestamp - Start_Timestamp, exact past 2^53 and read from
// `8.1097E+14` or fractional forms too.
import { streamCsv } from '../csvFile';
import { fieldNumber, type CsvRow } from '../csvScanner';
import type { FileSource } from '../sources';
import { BytesInterner } from '../tables';
import { timestampAt } from '../traceClock';
import { CounterTableBuilder } from './counterTable';

/** Most columns a wide pmc_perf.csv may have. */
const MAX_FIELDS = 1 << 15;

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

/**
 * Reads the counters named in `wanted` (other columns are not kept) into `into`, one dispatch per row; `onDispatch`
 * gets each dispatch's name and timing (for the summary's kernel table).
 */
export async function readPmcPerfWide(
  source: FileSource,
  wanted: ReadonlySet<string>,
  into: CounterTableBuilder,
  epochSeconds: number,
  onDispatch?: (d: WideDispatch) => void,
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
        const duration = rowDuration(row, cStart, cEnd);
        const i = into.addDispatch(name, duration, fieldNumber(row, cDispatch));
        for (const [counter, col] of kept) into.set(i, counter, fieldNumber(row, col));
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
    MAX_FIELDS,
  );
  return { rows, badRows };
}
