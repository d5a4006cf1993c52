// Hardware counters of a rocpd database (rocprofv3 `--pmc` with rocpd output): its `pmc_events` view, one row per
// dispatch, counter and instance, joined to the dispatch's kernel name and duration. Instances are summed per
// dispatch and counter, as rocpd's own `counters_collection` view (and so rocprofv3's counter_collection.csv) does.
import type { Database } from 'sql.js';
import { each } from '../sqlite';
import type { CounterTableBuilder } from './counterTable';

/**
 * Reads the database's counters into `into` (only those in `wanted`); returns the rows read (0 without any).
 * `scopeOfPid`: a database of several processes (every process writing one `-o`) numbers each one's dispatches from 1; each row's
 * dispatch is then looked up in the scope of its process (the view's pid).
 */
export function readRocpdCounters(
  db: Database,
  into: CounterTableBuilder,
  wanted: ReadonlySet<string>,
  scopeOfPid?: (pid: number) => number,
): number {
  let rows = 0;
  const byPid = scopeOfPid !== undefined;
  each(
    db,
    `SELECT dispatch_id, name, duration, counter_name, SUM(counter_value)${byPid ? ', pid' : ''} FROM pmc_events
            GROUP BY guid, event_id, pmc_id ORDER BY ${byPid ? 'pid, ' : ''}dispatch_id`,
    (r) => {
      rows++;
      if (byPid) into.useScope(scopeOfPid(Number(r[5])));
      const name = typeof r[1] === 'string' ? r[1] : String(r[1]);
      const counter = String(r[3]);
      const i = into.dispatchOf(Number(r[0]), name, r[2] === null ? NaN : Number(r[2]));
      if (wanted.has(counter)) into.set(i, counter, r[4] === null ? NaN : Number(r[4]));
    },
  );
  return rows;
}
