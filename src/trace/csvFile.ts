// Streaming a CSV FileSource through the byte scanner, with columns looked up by header name.
import { closeSync, openSync } from 'node:fs';
import { open } from 'node:fs/promises';
import {
  createCsvScanner,
  fieldText,
  type CsvRow,
  type CsvScanner,
  type FieldGuess,
  type RepeatedFields,
} from './csvScanner';
import { readAheadRows } from './fileRows';
import type { FileSource } from './sources';

/** Header names compare without case, spaces, dashes or underscores: `LDS_Block_Size` = `Lds_Block_Size`. */
function normalizeHeader(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

export class Columns {
  private readonly index = new Map<string, number>();
  constructor(readonly names: string[]) {
    names.forEach((n, i) => {
      const key = normalizeHeader(n);
      if (!this.index.has(key)) this.index.set(key, i);
    });
  }
  /** Index of the first of `aliases` present, else -1. */
  find(...aliases: string[]): number {
    for (const a of aliases) {
      const i = this.index.get(normalizeHeader(a));
      if (i !== undefined) return i;
    }
    return -1;
  }
  has(...aliases: string[]): boolean {
    return this.find(...aliases) >= 0;
  }
}

/** Reads the header row only (stops the stream as soon as it has it). Null for an empty file. */
export async function readCsvHeader(source: FileSource, maxFields?: number): Promise<string[] | null> {
  const stream = await source.open();
  let header: string[] | null = null;
  const stop = new Error('header read');
  const scanner = createCsvScanner({
    maxFields,
    onRow: (row) => {
      header = Array.from({ length: row.fieldCount }, (_, i) => fieldText(row, i));
      throw stop; // rows after the header are not looked at here
    },
  });
  let bytes = 0;
  try {
    for await (const chunk of stream) {
      scanner.feed(chunk as Buffer);
      bytes += (chunk as Buffer).length;
      if (bytes > 1 << 20) break;
    }
    scanner.end();
  } catch (err) {
    if (err !== stop) throw err;
  } finally {
    stream.destroy();
  }
  return header;
}

/**
 * Streams all rows after the header into `onRow`. Returns the number of data rows.
 * `onHeader` gets the parsed header and returns the row handler; `progress.rowsRead` counts rows handed over so
 * far (still valid when a malformed row throws half-way).
 */
/** A row handler; with `guess`, the scanner tries it on every row (see FieldGuess); `repeat`: see RepeatedFields. */
export type RowHandler = ((row: CsvRow) => void) & { guess?: FieldGuess; repeat?: RepeatedFields };

export async function streamCsv(
  source: FileSource,
  onHeader: (columns: Columns) => RowHandler,
  progress: { rowsRead: number } = { rowsRead: 0 },
  /** Most fields a row may have (the scanner's default otherwise): rocprof-compute's wide pmc_perf.csv has thousands. */
  maxFields?: number,
): Promise<number> {
  let handler: RowHandler | null = null;
  let rows = 0;
  const scanner = createCsvScanner({
    maxFields,
    onRow: (row) => {
      if (handler === null) {
        handler = onHeader(new Columns(Array.from({ length: row.fieldCount }, (_, i) => fieldText(row, i))));
        scanner.setGuess(handler.guess);
        scanner.setRepeat(handler.repeat);
        return;
      }
      rows++;
      progress.rowsRead = rows;
      handler(row);
    },
  });
  if (source.diskPath) {
    await scanFile(source.diskPath, scanner);
    return rows;
  }
  const stream = await source.open();
  try {
    for await (const chunk of stream) scanner.feed(chunk as Buffer);
    scanner.end();
  } finally {
    stream.destroy();
  }
  return rows;
}

/** A file on disk, read ahead of the scan (fileRows.ts readAheadRows). */
async function scanFile(absPath: string, scanner: CsvScanner): Promise<void> {
  const fd = openSync(absPath, 'r');
  try {
    await readAheadRows(fd, 0, scanner);
  } finally {
    closeSync(fd);
  }
}

export interface CsvHead {
  names: string[];
  /** Offset of the first row after the header (the file size when there is none). */
  dataStart: number;
  /** Its line number. */
  dataLine: number;
}

/** The header of a CSV file on disk and where its data rows begin; null when the header is not in its first MiB. */
export async function readCsvHead(absPath: string, size: number): Promise<CsvHead | null> {
  const fh = await open(absPath, 'r');
  try {
    const buf = Buffer.alloc(Math.min(size, 1 << 20));
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const stop = new Error('head read');
    let names: string[] | null = null;
    let head: CsvHead | null = null;
    const scanner = createCsvScanner({
      onRow: (row) => {
        if (names === null) {
          names = Array.from({ length: row.fieldCount }, (_, i) => fieldText(row, i));
          return;
        }
        head = { names, dataStart: row.offset, dataLine: row.line };
        throw stop;
      },
    });
    try {
      scanner.feed(buf.subarray(0, bytesRead));
      if (bytesRead === size) {
        scanner.end();
        if (names !== null && head === null) head = { names, dataStart: size, dataLine: scanner.line };
      }
    } catch (err) {
      if (err !== stop) throw err;
    }
    return head;
  } finally {
    await fh.close();
  }
}
