// One part of a kernel_trace CSV on disk, scanned into KernelRowCollector batches (in a worker thread, or on the
// calling thread as a fallback). A part is a byte range [start, end): it holds the rows that START in it, so
// its last row may run past `end`, and it reports where the first row at or after `end` starts (`stop`).
//
// A part other than the first does not know where its first row starts: it guesses the byte after the first
// line feed at or after `start` (a line feed inside a quoted name fools it). The caller checks every guess
// against the previous part's `stop` and has the part scanned again from there when they differ, so the
// result is exact whatever the guess.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { Columns } from './csvFile';
import { CsvFormatError, createCsvScanner, type CsvScanner } from './csvScanner';
import { FileRows } from './fileRows';
import { kernelColumns, type KernelBatch, type KernelColumns, type KernelRowCollector } from './kernelRows';
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
  /** Scanned by a worker before it was asked for it (kernelTraceWorker.ts). */
  early?: boolean;
}

const LF = 0x0a;

/** How a span of `span` bytes is cut for `threads` workers: bytes per part (default: 16 MiB, less for a smaller span so that every worker gets several) and parts. */
export function partPlan(span: number, threads: number, partBytes?: number): { partBytes: number; count: number } {
  const bytes = Math.max(
    1,
    partBytes ?? Math.min(16 << 20, Math.max(4 << 20, Math.ceil(span / (Math.max(1, threads) * 4)))),
  );
  return { partBytes: bytes, count: Math.max(1, Math.ceil(span / bytes)) };
}

/**
 * The part `index` of a kernel_trace file as the parallel read of a summary of that one file will ask for it with
 * `threads` workers (no dispatches kept, the epoch from its first row: traceClock.ts), for a worker that starts on
 * it before it is asked (kernelTraceWorker.ts); null when the file is not one the read would cut so.
 */
export function speculativeTask(file: string, index: number, threads: number): PartTask | null {
  const size = statSync(file).size;
  const head = simpleHead(file);
  if (!head) return null;
  const names = new Columns(head.names);
  const startText = head.first[names.find('Start_Timestamp', 'BeginNs')] ?? '';
  if (!/^\d{1,24}$/.test(startText)) return null;
  const high = startText.length > 9 ? Number(startText.slice(0, -9)) : 0;
  const epochSeconds = high * 1e9 + Number(startText.slice(-9)) >= 2 ** 52 ? high : 0;
  const columns = kernelColumns(names, false, epochSeconds);
  if (columns.name < 0 || columns.start < 0 || columns.end < 0) return null;
  const { partBytes, count } = partPlan(size - head.dataStart, threads);
  if (index >= count) return null;
  const boundary = (k: number): number => (k >= count ? size : head.dataStart + k * partBytes);
  return {
    index,
    path: file,
    fileSize: size,
    start: boundary(index),
    end: boundary(index + 1),
    exactStart: index === 0,
    columns,
  };
}

/**
 * The header and first row of a CSV whose first two lines hold no line feed inside quotes (else null: no guess), by
 * a string split rather than the scanner: a second scanner in a worker would cost its scanner's optimised code.
 */
function simpleHead(file: string): { names: string[]; first: string[]; dataStart: number } | null {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(1 << 16);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const bom = n >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
    const end1 = buf.indexOf(LF, bom);
    const end2 = end1 < 0 || end1 + 1 >= n ? -1 : buf.indexOf(LF, end1 + 1);
    if (end2 < 0 || end2 >= n) return null;
    const fields = (from: number, to: number): string[] | null => {
      const text = buf.toString('utf8', from, to).replace(/\r$/, '');
      const out: string[] = [];
      for (const m of text.matchAll(/(?:^|,)(?:"((?:[^"]|"")*)"|([^",]*))/g))
        out.push(m[1] !== undefined ? m[1].replaceAll('""', '"') : (m[2] ?? ''));
      return out.join('') === '' ? null : out;
    };
    const names = fields(bom, end1);
    const first = fields(end1 + 1, end2);
    return names && first ? { names, first, dataStart: end1 + 1 } : null;
  } finally {
    closeSync(fd);
  }
}

/** Whether two tasks are the same part with the same columns. */
export function sameTask(a: PartTask, b: PartTask): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
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
  const scan = scanFileRange(task, scannerFor(collector), () => collector.flush());
  return { index: task.index, ...scan, batches };
}

/** Where a scan of a part's rows started and stopped (see PartResult). */
export type RangeScan = Pick<PartResult, 'start' | 'stop' | 'lines' | 'error' | 'failure'>;

/**
 * The rows that start in [task.start, task.end) of the file through `scanner` (reset here; its onRow takes them),
 * then `done` (unless nothing was scanned); I/O failures and format errors are returned, not thrown. Also used by
 * the parallel read of PC samples (pcSampling/pcSampleParts.ts).
 */
export function scanFileRange(
  task: Pick<PartTask, 'path' | 'fileSize' | 'start' | 'end' | 'exactStart'>,
  scanner: CsvScanner,
  done: () => void,
): RangeScan {
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
    if (limit <= 0) return { start, stop: start, lines: 0, error, failure };
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
    done();
  } catch (err) {
    failure = (err as Error).message;
  } finally {
    if (fd >= 0) closeSync(fd);
  }
  return { start, stop, lines, error, failure };
}
