// The counter passes of a rocprof-compute workload folder (SQ_IFETCH_LEVEL.csv, SQ_INST_LEVEL_LDS.csv, ... beside
// pmc_perf.csv and timestamps.csv): rocprof-compute runs the program once per pass, so every file holds the same
// dispatches again. Their dispatches are counted once (timestamps.csv, read as the kernel trace, else pmc_perf.csv);
// a pass file adds its counters to its kernels' list, and is the kernel data only when neither was there.
import type { FileSource } from '../sources';
import type { Columns } from '../csvFile';
import type { CsvReadContext, RowProblems } from '../readers/rocprofv3Csv';
import { addDuration } from '../durationStats';
import { countersUsed } from './countersUsed';
import type { CounterTableBuilder } from './counterTable';
import { readPmcPerfWide, type WideDispatch } from './pmcPerfWide';

/** A wide table's dispatch into the kernel table and the busy time (bad timing: a bad row). */
function addWideDispatch(ctx: CsvReadContext, d: WideDispatch, problems: RowProblems): void {
  if (!(d.end >= d.start)) {
    problems.badRows++;
    return;
  }
  addDuration(ctx.tables.kernel(d.name).stats, d.end - d.start);
  ctx.acc.addGpuWork(null, d.start, d.end, 'kernel');
}

type Guarded = (
  file: FileSource,
  read: (problems: RowProblems) => Promise<void>,
  partial: (rowsRead: number) => void,
) => Promise<void>;

/**
 * One wide table (pmc_perf.csv or a pass file) read under `guarded`: its counters into `table` and each kernel's list,
 * and its dispatches into the kernel table when no kernel data was read before it (`have.kernel`).
 */
export async function readWideTable(
  file: FileSource,
  ctx: CsvReadContext,
  have: { kernel: boolean },
  guarded: Guarded,
  opts: {
    table: CounterTableBuilder | null;
    /** Whether the dispatches count (default: when this file gives the kernels). */
    dispatches?: boolean;
    onlyNew: boolean;
    note: (rows: number, kernelsHere: boolean) => void;
  },
): Promise<void> {
  await ctx.acc.clock.settle(file, ['Start_Timestamp']);
  const epoch = ctx.acc.clock.use();
  const kernelsHere = !have.kernel;
  await guarded(
    file,
    async (problems) => {
      const res = await readPmcPerfWide(
        file,
        countersUsed(),
        opts.table,
        epoch,
        kernelsHere ? (d) => addWideDispatch(ctx, d, problems) : undefined,
        {
          kernelCounters: (name) => ctx.tables.kernelCounters(name),
          dispatches: opts.dispatches ?? kernelsHere,
          onlyNew: opts.onlyNew,
        },
      );
      problems.rowsRead = res.rows;
      problems.badRows += res.badRows;
      opts.note(res.rows, kernelsHere);
      if (kernelsHere) have.kernel = true;
    },
    (rows) => opts.note(rows, kernelsHere),
  );
}

type SourceNote = (file: FileSource, format: string, kind: string, variant: string, rows: number) => void;

export async function readWorkloadPasses(
  passes: ReadonlyArray<{ file: FileSource; columns: Columns }>,
  ctx: CsvReadContext,
  /** A kernel trace or pmc_perf.csv gave the dispatches (else the first pass file does). */
  have: { kernel: boolean },
  guarded: Guarded,
  source: SourceNote,
): Promise<void> {
  for (const p of passes) {
    await readWideTable(p.file, ctx, have, guarded, {
      table: null,
      onlyNew: true,
      note: (rows, kernelsHere) =>
        source(p.file, 'rocprof-compute-csv', 'workload_pass', kernelsHere ? 'dispatches' : 'counters', rows),
    });
  }
}
