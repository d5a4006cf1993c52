// The counter passes of a rocprof-compute workload folder (SQ_IFETCH_LEVEL.csv, SQ_INST_LEVEL_LDS.csv, ... beside
// pmc_perf.csv and timestamps.csv): rocprof-compute runs the program once per pass, so every file holds the same
// dispatches again. Their dispatches are counted once (timestamps.csv, read as the kernel trace, else pmc_perf.csv);
// a pass file adds its counters to its kernels' list, and is the kernel data only when neither was there.
import type { FileSource } from '../sources';
import type { Columns } from '../csvFile';
import type { CsvReadContext, RowProblems } from '../readers/rocprofv3Csv';
import { addDuration } from '../durationStats';
import { countersUsed } from './countersUsed';
import { readPmcPerfWide, type WideDispatch } from './pmcPerfWide';

/** A wide table's dispatch into the kernel table and the busy time (bad timing: a bad row). */
export function addWideDispatch(ctx: CsvReadContext, d: WideDispatch, problems: RowProblems): void {
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
    await ctx.acc.clock.settle(p.file, ['Start_Timestamp']);
    const epoch = ctx.acc.clock.use();
    const kernelsHere = !have.kernel;
    const note = (rows: number): void =>
      source(p.file, 'rocprof-compute-csv', 'workload_pass', kernelsHere ? 'dispatches' : 'counters', rows);
    await guarded(
      p.file,
      async (problems) => {
        const res = await readPmcPerfWide(
          p.file,
          countersUsed(),
          null,
          epoch,
          kernelsHere ? (d) => addWideDispatch(ctx, d, problems) : undefined,
          { kernelCounters: (name) => ctx.tables.kernelCounters(name), dispatches: kernelsHere, onlyNew: true },
        );
        problems.rowsRead = res.rows;
        problems.badRows += res.badRows;
        note(res.rows);
        if (kernelsHere) have.kernel = true;
      },
      note,
    );
  }
}
