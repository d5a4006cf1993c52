// One part of a kernel_trace CSV on disk, scanned into KernelRowCollector batches (in a worker thread, or on the
// calling thread as a fallback). A part is a byte range [start, end): it holds the rows that START in it, so
// its last row may run past `end`, and it reports where the first row at or after `end` starts (`stop`).
//
// A part other than the first does not know where its first row starts: it guesses the byte after the first
// line feed at or after `start` (a line feed inside a quoted name fools it). The caller checks every guess
// against the previous part's `stop` and has the part scanned again from there when they differ, so the
// result is exact whatever the guess.
import { closeSync, openSync, readSync } from 'node:fs';
import { CsvFormatError, createCsvScanner, type CsvScanner } from './csvScanner';
import { FileRows } from './fileRows';
import type { KernelBatch, KernelColumns, KernelRowCollector } from './kernelRows';
import { READ_BYTES } from './limits';

export interface PartTask {
  /** Position of the part in the file (0 = first). */
  index: number;
  path: string;
  fileSize: number;
  start: number;
  end: number;
  /** `start` is known to be a row start (else it is guessed, see above). */
  exactStart: boolean;
  columns: KernelColumns;
}

export interface PartResult {
  index: number;
  /** Where the part's first row starts (the guess, unless the task was exact). */
  start: number;
  /** Where the first row at or after `end` starts (the file size when none). */
  stop: number;
  /** Lines from `start` to `stop`. */
  lines: number;
  batches: KernelBatch[];
  /** A CSV format error in the part; line numbers count from the part's first line (1). */
  error: { reason: string; line: number } | null;
  /** Any other failure (I/O). */
  failure: string | null;
}

const LF = 0x0a;

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
 * One scanner per collector, reset for each part: V8 optimises the first scanner's closures for their own context,
 * so a new scanner per part ran its second part unoptimised again (as slow as the first).
 */
const scanners = new WeakMap<KernelRowCollector, CsvScanner>();
function scannerFor(collector: KernelRowCollector): CsvScanner {
  let scanner = scanners.get(collector);
  if (!scanner) {
    scanner = createCsvScanner({ fileStart: false, guess: collector.guess, onRow: (row) => collector.add(row) });
    scanners.set(collector, scanner);
  }
  return scanner;
}

export function scanPart(task: PartTask, collector: KernelRowCollector): PartResult {
  const batches: KernelBatch[] = [];
  collector.onBatch = (b) => batches.push(b);
  const buf = (readBuffer ??= Buffer.allocUnsafeSlow(READ_BYTES));
  let fd = -1;
  let start = task.start;
  let stop = -1;
  let lines = 0;
  let error: PartResult['error'] = null;
  let failure: string | null = null;
  try {
    fd = openSync(task.path, 'r');
    if (!task.exactStart) start = guessRowStart(fd, task.start, task.fileSize, buf);
    const limit = task.end - start;
    if (limit <= 0) return { index: task.index, start, stop: start, lines: 0, batches, error, failure };
    const scanner = scannerFor(collector);
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
    collector.flush();
  } catch (err) {
    failure = (err as Error).message;
  } finally {
    if (fd >= 0) closeSync(fd);
  }
  return { index: task.index, start, stop, lines, batches, error, failure };
}
