// One part of a kernel_trace CSV on disk, scanned into KernelRowCollector batches (in a worker thread, or on the
// calling thread as a fallback); how a file is cut into parts and a part scanned is fileParts.ts.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { Columns } from './csvFile';
import { createCsvScanner, type CsvScanner } from './csvScanner';
import { partPlan, scanSpan, type PartOutcome, type PartSpan } from './fileParts';
import { kernelColumns, type KernelBatch, type KernelColumns, type KernelRowCollector } from './kernelRows';

export interface PartTask extends PartSpan {
  columns: KernelColumns;
}

export interface PartResult extends PartOutcome {
  batches: KernelBatch[];
}

const LF = 0x0a;

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
  if (names.has('Counter_Name')) return null; // a counter collection: its parts are another kind of task
  const epochSeconds = firstRowEpoch(head.first[names.find('Start_Timestamp', 'BeginNs')] ?? '');
  if (epochSeconds === null) return null;
  const columns = kernelColumns(names, false, epochSeconds);
  if (columns.name < 0 || columns.start < 0 || columns.end < 0) return null;
  const { count, boundary } = partPlan(head.dataStart, size, threads);
  if (index >= count) return null;
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

/** The summary's epoch (traceClock.ts) when the first row's start time is this text; null: not a time. */
export function firstRowEpoch(startText: string): number | null {
  if (!/^\d{1,24}$/.test(startText)) return null;
  const high = startText.length > 9 ? Number(startText.slice(0, -9)) : 0;
  return high * 1e9 + Number(startText.slice(-9)) >= 2 ** 52 ? high : 0;
}

/**
 * The header and first row of a CSV whose first two lines hold no line feed inside quotes (else null: no guess), by
 * a string split rather than the scanner: a second scanner in a worker would cost its scanner's optimised code.
 */
export function simpleHead(file: string): { names: string[]; first: string[]; dataStart: number } | null {
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
  const outcome = scanSpan(task, scannerFor(collector));
  if (outcome.failure === null && task.end > outcome.start) collector.flush();
  return { ...outcome, batches };
}
