// rocprofv3 `counter_collection.csv` (`--pmc`): one row per (dispatch, counter) with `Dispatch_Id`,
// `Kernel_Name`, `Counter_Name`, `Counter_Value`, and from ROCm 7 also `Start_Timestamp` / `End_Timestamp`.
// Every dispatch is counted once however many counters it has. When no kernel trace of the same run was read,
// the dispatches are the kernel data (calls; times only when the file has timestamps). A large file on disk is
// read by worker threads over parts of it (parallelParts.ts), anything else in one pass here; both go through
// the same collector and merge (counterParts.ts), so the figures are the same.
import { Columns, readCsvHead, streamCsv } from '../csvFile';
import type { CsvRow } from '../csvScanner';
import { readPartsParallel, readsInParallel } from '../parallelParts';
import { counterReadThreads } from '../traceWorkerPool';
import type { FileSource } from '../sources';
import type { CounterTableBuilder } from '../counters/counterTable';
import {
  CounterMerge,
  CounterPartCollector,
  counterSpec,
  scanCounterPart,
  type CounterPart,
  type CounterSpec,
} from './counterParts';
import type { CsvReadContext, RowProblems } from './rocprofv3Csv';

/** Where each row's counter also goes, per dispatch, for the roofline (src/trace/counters/). */
export interface CounterSink {
  table: CounterTableBuilder;
  /** Counters kept (the others are only aggregated per kernel). */
  wanted: ReadonlySet<string>;
  /** Another pass of the same program (pass_<n>/): its dispatches were counted in the timing pass. */
  repeatPass?: boolean;
  /** A rocpd database of several processes (`pids`): the table's scope of each one's dispatches (see useScope). */
  scopeOfPid?: (pid: number, pids: readonly number[]) => number;
  /**
   * A rocpd database's counter dispatches by rocTX range: the map (Dispatch_Id -> range) of scope `scope`, null for
   * the set's own (the database's counters do not name their pid).
   */
  rangesOf?: (scope: number | null) => Map<number, string>;
}

export interface CounterReadResult {
  rows: number;
  dispatches: number;
  /** The file has start/end timestamps (ROCm >= 7). */
  timed: boolean;
}

export async function readCounterCollection(
  source: FileSource,
  ctx: CsvReadContext,
  problems: RowProblems,
  /** True when a kernel trace of the same run was read: then only the counters are taken from here. */
  kernelsTraced: boolean,
  sink?: CounterSink,
): Promise<CounterReadResult> {
  const epoch = ctx.acc.clock.use();
  const wanted = sink ? [...sink.wanted] : null;
  const parallel = { ...ctx.parallel, threads: ctx.parallel?.threads ?? counterReadThreads() };
  let spec: CounterSpec | null = null;
  let merge: CounterMerge | null = null;
  const start = (columns: Columns): { spec: CounterSpec; merge: CounterMerge } => {
    spec = counterSpec(columns, epoch, kernelsTraced, wanted);
    merge = new CounterMerge(ctx, problems, spec, sink?.table ?? null, sink?.repeatPass ?? false);
    return { spec, merge };
  };
  let rows: number;
  try {
    const head =
      source.diskPath && readsInParallel(source.size, parallel)
        ? await readCsvHead(source.diskPath, source.size)
        : null;
    if (source.diskPath && head) {
      const { spec, merge } = start(new Columns(head.names));
      const file = { path: source.diskPath, size: source.size, dataStart: head.dataStart, dataLine: head.dataLine };
      rows = await readPartsParallel(
        file,
        {
          payload: { kind: 'counters' as const, spec },
          scanHere: scanCounterPart,
          apply: (part: CounterPart, _from, lineBase) => merge.apply(part, lineBase),
          rows: (part) => part.rows,
        },
        problems,
        // this thread scans parts too: one worker fewer to start and warm up (the launcher starts that many)
        { ...parallel, scanHereToo: parallel.scanHereToo ?? true },
        ctx.onParallelRun,
      );
    } else {
      let collector: CounterPartCollector | null = null;
      try {
        rows = await streamCsv(
          source,
          (c) => {
            const rows = new CounterPartCollector(start(c).spec);
            collector = rows;
            const handler = (row: CsvRow): void => rows.add(row);
            return (spec as CounterSpec | null)?.repeat
              ? Object.assign(handler, { repeat: (spec as CounterSpec).repeat ?? undefined })
              : handler;
          },
          problems,
        );
      } finally {
        // rows read before a malformed one still count
        const rest = (collector as CounterPartCollector | null)?.take();
        if (rest) (merge as CounterMerge | null)?.apply(rest, 1);
      }
    }
  } finally {
    // also when a malformed row ended the read: the dispatches of the rows before it count, as their sums do
    (merge as CounterMerge | null)?.finishSums();
    (merge as CounterMerge | null)?.finish(source.path);
  }
  const done = merge as CounterMerge | null;
  if (!done) return { rows, dispatches: 0, timed: false };
  return { rows, dispatches: done.dispatches, timed: (spec as CounterSpec | null)?.timed ?? false };
}
