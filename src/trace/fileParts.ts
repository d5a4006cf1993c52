// A CSV file on disk cut into parts for worker threads (any kind of rows: kernel_trace, counter_collection). A part
// is a byte range [start, end): it holds the rows that START in it, so its last row may run past `end`, and it
// reports where the first row at or after `end` starts (`stop`).
//
// A part other than the first does not know where its first row starts: it guesses the byte after the first
// line feed at or after `start` (a line feed inside a quoted name fools it). The caller checks every guess
// against the previous part's `stop` and has the part scanned again from there when they differ, so the
// result is exact whatever the guess.
import { closeSync, openSync, readSync } from 'node:fs';
import { CsvFormatError, type CsvScanner } from './csvScanner';
import { FileRows } from './fileRows';
import { READ_BYTES } from './limits';

export interface PartSpan {
  /** Position of the part in the file (0 = first). */
  index: number;
  path: string;
  fileSize: number;
  start: number;
  end: number;
  /** `start` is known to be a row start (else it is guessed, see above). */
  exactStart: boolean;
}

/** Where a scanned part began and ended, and how its scan went. */
export interface PartOutcome {
  index: number;
  /** Where the part's first row starts (the guess, unless the task was exact). */
  start: number;
  /** Where the first row at or after `end` starts (the file size when none). */
  stop: number;
  /** Lines from `start` to `stop`. */
  lines: number;
  /** A CSV format error in the part; line numbers count from the part's first line (1). */
  error: { reason: string; line: number } | null;
  /** Any other failure (I/O). */
  failure: string | null;
  /** Scanned by a worker before it was asked for it (kernelTraceWorker.ts). */
  early?: boolean;
}

const LF = 0x0a;

/**
 * How a file's data rows [dataStart, size) are cut for `threads` workers: bytes per part (default: 16 MiB, less for a
 * smaller span so that every worker gets several), parts, and where part k starts (the file size from the last on).
 * The parallel read and a worker that guesses its parts before it is asked cut the same way through this.
 */
export function partPlan(
  dataStart: number,
  size: number,
  threads: number,
  partBytes?: number,
): { partBytes: number; count: number; boundary: (k: number) => number } {
  const span = size - dataStart;
  const bytes = Math.max(
    1,
    partBytes ?? Math.min(16 << 20, Math.max(4 << 20, Math.ceil(span / (Math.max(1, threads) * 4)))),
  );
  const count = Math.max(1, Math.ceil(span / bytes));
  return { partBytes: bytes, count, boundary: (k) => (k >= count ? size : dataStart + k * bytes) };
}

/** The byte after the first line feed at or after `at - 1`, or the file size. */
function guessRowStart(fd: number, at: number, fileSize: number, buf: Buffer): number {
  if (at <= 0) return 0;
  let pos = at - 1;
  while (pos < fileSize) {
    const n = readSync(fd, buf, 0, buf.length, pos);
    if (n <= 0) break;
    const i = buf.subarray(0, n).indexOf(LF);
    if (i >= 0) return pos + i + 1;
    pos += n;
  }
  return fileSize;
}

/** The read buffer of this thread, kept: a new one per part is garbage that V8 frees late. It grows for a longer row. */
let readBuffer: Buffer | null = null;

/**
 * Scans the rows of one part through `scanner` (made with `fileStart: false`; reset here), which hands them to
 * whatever collects them. The collector's rows before a format error are kept: the caller applies them first.
 */
export function scanSpan(task: PartSpan, scanner: CsvScanner): PartOutcome {
  const buf = (readBuffer ??= Buffer.allocUnsafeSlow(READ_BYTES));
  let fd = -1;
  let start = task.start;
  let stop = -1;
  let lines = 0;
  let error: PartOutcome['error'] = null;
  let failure: string | null = null;
  try {
    fd = openSync(task.path, 'r');
    if (!task.exactStart) start = guessRowStart(fd, task.start, task.fileSize, buf);
    const limit = task.end - start;
    if (limit <= 0) return { index: task.index, start, stop: start, lines: 0, error, failure };
    scanner.reset(limit);
    try {
      const rows = new FileRows(fd, start, scanner, buf);
      try {
        while (rows.next() > 0);
      } finally {
        readBuffer = rows.buffer;
      }
      // a part ends where the next one starts (or at the end of the file)
      stop = scanner.stoppedAt >= 0 ? start + scanner.stoppedAt : task.fileSize;
      lines = scanner.line - 1;
    } catch (err) {
      if (err instanceof CsvFormatError && err.offset >= limit) {
        stop = start + err.offset; // the bad row belongs to the next part
        lines = err.line - 1;
      } else if (err instanceof CsvFormatError) {
        error = { reason: err.reason, line: err.line };
      } else {
        throw err;
      }
    }
  } catch (err) {
    failure = (err as Error).message;
  } finally {
    if (fd >= 0) closeSync(fd);
  }
  return { index: task.index, start, stop, lines, error, failure };
}
