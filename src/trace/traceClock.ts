// Timestamps as exact doubles whatever the host's uptime. rocprofv3 writes nanoseconds of a monotonic clock: past
// 2^53 (104 days of uptime) a double cannot hold them all, and `end - start` of two rounded values is off by a
// few ns. So every timestamp of a summary is taken relative to one epoch, a whole second fixed from the first
// timestamp read when that is past 2^52 (else 0: values as written): the scanner gives a long integer as
// high * 1e9 + low, and (high - epochSeconds) * 1e9 + low is exact for any time within 104 days of the epoch.
import { streamCsv } from './csvFile';
import { fieldNumber, type CsvRow } from './csvScanner';
import type { FileSource } from './sources';

/** From this first timestamp on, the summary takes an epoch. */
const EPOCH_FROM = 2 ** 52;

/** The timestamp in field `col` less the epoch (`epochSeconds` * 1e9), exactly; NaN when it is no number. */
export function timestampAt(row: CsvRow, col: number, epochSeconds: number): number {
  if (col < 0 || col >= row.fieldCount) return NaN;
  const v = row.values[col] as number;
  if (v === v) return v - epochSeconds * 1e9;
  if (row.wide[col]) return ((row.high[col] as number) - epochSeconds) * 1e9 + (row.low[col] as number);
  // a decimal or spaced value: as exact as its double
  return fieldNumber(row, col) - epochSeconds * 1e9;
}

export class TraceClock {
  /** Whole seconds subtracted from every timestamp of the summary. */
  epochSeconds = 0;
  private fixed = false;

  get epochNs(): number {
    return this.epochSeconds * 1e9;
  }

  /** The epoch as it is (fixed from now on: a reader is using it). */
  use(): number {
    this.fixed = true;
    return this.epochSeconds;
  }

  /** Before the first reader: fixes the epoch from the first data row's `startColumn` (first of the names present). */
  async settle(source: FileSource, startColumns: string[]): Promise<void> {
    if (this.fixed) return;
    const stop = new Error('first row read');
    let found: { high: number; low: number } | null = null;
    try {
      await streamCsv(source, (c) => {
        const col = c.find(...startColumns);
        return (row) => {
          if (col < 0) throw stop;
          const v = row.values[col] as number;
          if (v === v) found = { high: Math.floor(v / 1e9), low: v % 1e9 };
          else if (row.wide[col]) found = { high: row.high[col] as number, low: row.low[col] as number };
          else return; // a row without a timestamp: the next one
          throw stop;
        };
      });
    } catch (err) {
      if (err !== stop) return; // the reader will say what is wrong with the file
    }
    const first = found as { high: number; low: number } | null;
    if (!first) return;
    this.fixed = true;
    this.epochSeconds = first.high * 1e9 + first.low >= EPOCH_FROM ? first.high : 0;
  }
}
