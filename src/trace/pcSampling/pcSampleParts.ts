// A large PC-sample CSV on disk read in parts by parallelParts.ts, as a kernel trace is, with this thread scanning
// parts too (`scanHereToo`: its scanner code is warm from the kernel trace it read): each part is tallied
// (sampleTally.ts; in a worker, kernelTraceWorker.ts runs scanPcMessage) and this thread applies the parts' batches
// in file order, so the result is the one-thread read's. The file's columns and kernels go to each worker once.
import { createCsvScanner, type CsvScanner } from '../csvScanner';
import { scanSpan, type PartOutcome, type PartSpan } from '../fileParts';
import {
  defaultThreads,
  readPartsParallel,
  type FileSpan,
  type ParallelOptions,
  type ParallelRun,
  type PartReader,
} from '../parallelParts';
import {
  SampleTally,
  dispatchKernelMap,
  sampleBatchBuffers,
  type DispatchKernels,
  type PcColumns,
  type PcCsvProblems,
  type SampleBatch,
} from './sampleTally';

export interface PcPartInit {
  columns: PcColumns;
  kernels: DispatchKernels;
}

type PcPartTask = PartSpan & { pcPart: true };

export interface PcPartResult extends PartOutcome {
  batches: SampleBatch[];
  /** Line numbers count from the part's first line (1). */
  problems: PcCsvProblems;
}

/** A message of the PC-sample read to a trace worker: the file's columns and kernels first, then parts. */
export type PcWorkerMessage = { pcInit: PcPartInit } | PcPartTask;

interface ThreadState {
  columns: PcColumns;
  kernels: Map<number, number>;
}

let state: ThreadState | null = null;
let tally: SampleTally | null = null;
/** One scanner per thread, reset for each part (a new one per part would run unoptimised again: kernelTraceParts.ts). */
let scanner: CsvScanner | null = null;

/** Scans one part with the columns and kernels of `init`. */
function scanPcPart(init: ThreadState, task: PartSpan): PcPartResult {
  const batches: SampleBatch[] = [];
  const t = new SampleTally(init.columns, init.kernels, (b) => batches.push(b));
  tally = t;
  scanner ??= createCsvScanner({ fileStart: false, onRow: (row) => (tally as SampleTally).add(row) });
  const scan = scanSpan(task, scanner);
  // also after a malformed row: the rows before it count
  if (scan.failure === null && task.end > scan.start) t.flush();
  return { ...scan, batches, problems: t.problems };
}

/** A worker's answer to a message (null: none), with the buffers to transfer. */
export function scanPcMessage(message: PcWorkerMessage): { result: PcPartResult; transfer: ArrayBuffer[] } | null {
  if ('pcInit' in message) {
    state = { columns: message.pcInit.columns, kernels: dispatchKernelMap(message.pcInit.kernels) };
    return null;
  }
  if (!state) throw new Error('a PC-sample part came before its file');
  const result = scanPcPart(state, message);
  return { result, transfer: result.batches.flatMap(sampleBatchBuffers) };
}

export function isPcWorkerMessage(message: object): message is PcWorkerMessage {
  return 'pcInit' in message || 'pcPart' in message;
}

export type { ParallelRun as PcParallelRun } from '../parallelParts';

/**
 * Reads the data rows of `file` in parts; every batch is applied in file order and `problems` the parts' counts
 * (lines made absolute). Returns the rows read. Throws a CsvFormatError at a malformed row (after applying the
 * rows before it) and an Error when a part could not be read.
 */
export async function readPcCsvParallel(
  file: FileSpan,
  init: PcPartInit,
  /** The applier of one scan's batches (ids count from each scan's start). */
  newScan: () => (b: SampleBatch) => void,
  problems: PcCsvProblems,
  options: ParallelOptions,
  onRun?: (run: ParallelRun) => void,
): Promise<number> {
  const threads = options.threads ?? defaultThreads();
  // two parts per thread (at least 4 MiB): each part's tallies are applied here, and a part holds about as many
  // as a whole file (a few per distinct site), so fewer parts are less work for this thread
  const partBytes =
    options.partBytes ?? Math.max(4 << 20, Math.ceil((file.size - file.dataStart) / (Math.max(1, threads) * 2)));
  const local: ThreadState = { columns: init.columns, kernels: dispatchKernelMap(init.kernels) };
  const reader: PartReader<{ pcPart: true }, PcPartResult> = {
    init: { pcInit: init } satisfies PcWorkerMessage,
    payload: { pcPart: true },
    scanHere: (task) => scanPcPart(local, task),
    apply: (result, _from, lineBase) => {
      const apply = newScan();
      for (const b of result.batches) apply(b);
      const p = result.problems;
      problems.badRows += p.badRows;
      problems.badMasks += p.badMasks;
      problems.badIssued += p.badIssued;
      problems.longFields += p.longFields;
      problems.foldedSites += p.foldedSites;
      problems.foldedNames += p.foldedNames;
      if (p.firstBadLine !== undefined) problems.firstBadLine ??= lineBase + p.firstBadLine - 1;
      if (p.firstBadMask) problems.firstBadMask ??= { ...p.firstBadMask, line: lineBase + p.firstBadMask.line - 1 };
    },
    rows: (result) => result.problems.rowsRead,
  };
  return readPartsParallel(file, reader, problems, { ...options, partBytes, scanHereToo: true }, onRun);
}
