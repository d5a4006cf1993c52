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

/** `{ high: floor(v / 1e9), low: v mod 1e9 }` of a decimal integer text (`\d+`, at most 24 digits), exactly; null otherwise. */
export function decimalParts(text: string): { high: number; low: number } | null {
  if (!/^\d{1,24}$/.test(text)) return null;
  const cut = Math.max(0, text.length - 9);
  return { high: cut === 0 ? 0 : Number(text.slice(0, cut)), low: Number(text.slice(cut)) };
}

/** A decimal integer text (ns) less `epochSeconds` * 1e9, exactly within 104 days of the epoch; NaN when it is not `\d+`. */
export function relativeNs(text: string, epochSeconds: number): number {
  const p = decimalParts(text);
  return p ? (p.high - epochSeconds) * 1e9 + p.low : NaN;
}

/**
 * The exact decimal digits of a time of the summary (`relNs` after the epoch); undefined when `relNs` is no
 * integer or when the time is below 2^53 (a double holds it exactly: `keepSmall` returns the digits anyway).
 */
export function exactNsText(epochSeconds: number, relNs: number, keepSmall = false): string | undefined {
  if (!Number.isSafeInteger(relNs)) return undefined;
  const exact = BigInt(epochSeconds) * 1_000_000_000n + BigInt(relNs);
  return keepSmall || exact > BigInt(Number.MAX_SAFE_INTEGER) || exact < -BigInt(Number.MAX_SAFE_INTEGER)
    ? String(exact)
    : undefined;
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
    this.settleFrom(found as { high: number; low: number } | null);
  }

  /** Before the first reader: fixes the epoch from the first timestamp (high/low as decimalParts), if any. */
  settleFrom(first: { high: number; low: number } | null): void {
    if (this.fixed || !first) return;
    this.fixed = true;
    this.epochSeconds = first.high * 1e9 + first.low >= EPOCH_FROM ? first.high : 0;
  }

  /** The epoch in ns as an SQL integer literal (exact, whatever its size). */
  get epochSql(): string {
    return String(BigInt(this.epochSeconds) * 1_000_000_000n);
  }
}
