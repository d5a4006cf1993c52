// A large kernel_trace CSV on disk read by worker threads (parallelParts.ts): the workers scan parts of it into
// KernelRowCollector batches (kernelTraceParts.ts), and this thread applies the batches in file order
// (kernelBatches.ts). The ids in a batch are its collector's: each collector (a worker's, or this thread's) has
// its BatchSource, which learns them as its answers arrive.
import { BatchSource, applyBatch, type KernelTraceTotals } from './kernelBatches';
import { KernelRowCollector, runArrays, type KernelColumns } from './kernelRows';
import { scanPart, type PartResult } from './kernelTraceParts';
import {
  HERE,
  readPartsParallel,
  type FileSpan,
  type ParallelOptions,
  type ParallelRun,
  type PartOrigin,
} from './parallelParts';
import type { CsvReadContext, RowProblems } from './readers/rocprofv3Csv';

export { defaultMinBytes, defaultThreads, workerEntry } from './parallelParts';
export type { FileSpan, ParallelOptions, ParallelRun } from './parallelParts';

/** Reads the rows of [dataStart, size) into `ctx`; returns the number of data rows. */
export async function readKernelTraceParallel(
  file: FileSpan,
  columns: KernelColumns,
  ctx: CsvReadContext,
  totals: KernelTraceTotals,
  problems: RowProblems,
  options: ParallelOptions = {},
  onRun?: (run: ParallelRun) => void,
): Promise<number> {
  const here = new KernelRowCollector(columns, () => {});
  const sources = new Map<PartOrigin, BatchSource>();
  const sourceOf = (from: PartOrigin): BatchSource => {
    let s = sources.get(from);
    if (!s) sources.set(from, (s = new BatchSource()));
    return s;
  };
  return readPartsParallel(
    file,
    {
      payload: { columns },
      scanHere: (task) => scanPart(task, here),
      received: (result: PartResult, from) => {
        const source = sourceOf(from);
        for (const b of result.batches) source.learn(b);
      },
      apply: (result, from, lineBase, post) => {
        const source = sourceOf(from);
        let rows = problems.rowsRead;
        for (const b of result.batches) {
          applyBatch(ctx, totals, source, b, problems, lineBase);
          rows += b.rows;
          problems.rowsRead = rows;
          // the run arrays go back to the collector that made them
          const arrays = runArrays(b);
          if (from === HERE) here.recycle(arrays);
          else
            post({ recycle: arrays }, [
              arrays.runAgent.buffer,
              arrays.runStart.buffer,
              arrays.runEnd.buffer,
            ] as ArrayBuffer[]);
        }
      },
      rows: (result) => result.batches.reduce((n, b) => n + b.rows, 0),
    },
    problems,
    options,
    onRun,
  );
}
