// rocTX ranges with their kernels from a rocpd database: ranges are `regions` rows of a marker category; a
// dispatch (`kernels` row) names its launch call (a `regions` row) by `stack_id`, rocprofiler's internal
// correlation id (`corr_id` there is the external one, 0 unless the app set it: all 151 dispatches of the real
// batched_gemm database link to their hipLaunchKernel / hipMemset region by stack_id, with corr_id 0).
import type { Database } from 'sql.js';
import { RangeAttributor, RangeIndex } from '../ranges';
import { isMarkerDomain, type RunTables } from '../tables';
import { columnsOf, each } from '../sqlite';

/**
 * Fills `tables.markers[*].kernels` when the database has marker ranges and dispatches. `epoch`: the summary's epoch
 * in ns as an SQL integer (timestamps are taken less it, exactly: traceClock.ts). `counterRanges`: where each
 * dispatch's range goes by its process (pid) and Dispatch_Id, for the roofline's ranges (the first range a dispatch
 * is put in, as the CSV's counter ranges take it).
 */
export function attributeRocpdRanges(
  db: Database,
  views: Set<string>,
  tables: RunTables,
  epoch = '0',
  counterRanges?: (pid: number | null) => Map<number, string>,
): void {
  if (!views.has('regions') || !views.has('kernels')) return;
  const regionCols = columnsOf(db, 'regions');
  const kernelCols = columnsOf(db, 'kernels');
  const index = new RangeIndex();
  const tid = (c: Set<string>): string => (c.has('tid') ? 'tid' : 'NULL');
  each(db, `SELECT category, name, ${tid(regionCols)}, start - ${epoch}, "end" - ${epoch} FROM regions`, (r) => {
    const category = r[0] === null || r[0] === undefined ? '' : String(r[0]);
    const name = String(r[1] ?? '');
    if (!isMarkerDomain(category) || /^roctx[A-Z]/.test(name)) return;
    index.add(
      tables.marker(name),
      r[2] === null || r[2] === undefined ? NaN : Number(r[2]),
      Number(r[3]),
      Number(r[4]),
    );
  });
  if (index.count === 0) return;

  const key = linkColumn(db, regionCols, kernelCols);
  const attributor = new RangeAttributor(index, tables);
  if (key) {
    each(db, `SELECT category, ${key}, ${tid(regionCols)}, start - ${epoch} FROM regions`, (r) => {
      const category = r[0] === null || r[0] === undefined ? '' : String(r[0]);
      if (isMarkerDomain(category)) return;
      attributor.addLaunch(Number(r[1]), r[2] === null || r[2] === undefined ? NaN : Number(r[2]), Number(r[3]));
    });
  }
  const ids = counterRanges && kernelCols.has('dispatch_id');
  const pid = kernelCols.has('pid') ? 'pid' : 'NULL';
  each(
    db,
    `SELECT name, ${key ?? 'NULL'}, ${tid(kernelCols)}, start - ${epoch}, "end" - ${epoch}${ids ? `, dispatch_id, ${pid}` : ''} FROM kernels`,
    (r) => {
      const start = Number(r[3]);
      const end = Number(r[4]);
      if (!(end >= start)) return;
      const marker = attributor.addDispatch(
        String(r[0] ?? ''),
        Number(r[1]),
        r[2] === null || r[2] === undefined ? NaN : Number(r[2]),
        start,
        end,
      );
      if (!marker || !ids || r[5] === null || r[5] === undefined) return;
      const ranges = (counterRanges as NonNullable<typeof counterRanges>)(
        r[6] === null || r[6] === undefined ? null : Number(r[6]),
      );
      if (!ranges.has(Number(r[5]))) ranges.set(Number(r[5]), marker.name);
    },
  );
  attributor.done();
}

/** `stack_id` when the dispatches carry it, else `corr_id`; null when neither links dispatches to calls. */
function linkColumn(db: Database, regionCols: Set<string>, kernelCols: Set<string>): string | null {
  for (const col of ['stack_id', 'corr_id']) {
    if (!regionCols.has(col) || !kernelCols.has(col)) continue;
    let linked = false;
    each(db, `SELECT 1 FROM kernels WHERE ${col} > 0 LIMIT 1`, () => {
      linked = true;
    });
    if (linked) return col;
  }
  return null;
}
