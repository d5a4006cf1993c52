// rocpd (rocprofv3's SQLite output, the ROCm 7 default), read through the database's own views: `kernels`
// (one row a dispatch), `memory_copies` (with sizes), `regions` (API calls and rocTX ranges), `processes`,
// `rocpd_info_agent`; then cross-checked against its summary views `top_kernels` (microseconds) and `busy`.
import type { Database, SqlValue } from 'sql.js';
import type { AgentState, TraceAccumulator } from '../accumulator';
import { addDuration, mergeStats, statsFromTotals } from '../durationStats';
import { columnsOf, each, loadSqlJs } from '../sqlite';
import { LAUNCH_WIDTH, addLaunch, isMarkerDomain, normalizeDirection, type RunTables } from '../tables';
import { attributeRocpdRanges } from './rangeRocpd';
import { isProfilerControl } from '../profilerControl';
import { decimalParts } from '../traceClock';
import type { CounterSink } from './counterCollection';
import { readRocpdCounters } from '../counters/rocpdCounters';
import { gpuEndOfCopy } from './rocprofv3Csv';
import { KernelRunnerError } from '../../core/errors';
import { rankInEnvironment } from '../../core/protocol/processManifest';

export class NotRocpdError extends KernelRunnerError {
  override readonly name = 'NotRocpdError';
  readonly code = 'TRACE_NOT_ROCPD';
}

export interface RocpdReadResult {
  variant: string;
  rows: number;
  /** The profiled process, when the database holds exactly one. */
  process: DbProcess | null;
  /** A database of several processes read per process (`perProcess` given): each one's tables. */
  parts: Array<{ process: DbProcess; tables: RunTables; rows: number }>;
}

/** A process of the database: its pid, host, and the rank its recorded environment announced. */
export interface DbProcess {
  pid: number;
  host: string | null;
  rank: number | null;
}

/** The views read per process of a merged database: each has the process's OS pid in a `pid` column. */
const PER_PROCESS_VIEWS = ['kernels', 'memory_copies', 'regions', 'processes'];

const SQLITE_MAGIC = 'SQLite format 3\u0000';

function looksLikeSqlite(head: Buffer): boolean {
  return head.subarray(0, 16).toString('latin1') === SQLITE_MAGIC;
}

export async function readRocpd(
  bytes: Buffer,
  acc: TraceAccumulator,
  tables: RunTables,
  /** Before its agents' names (`<host>/` in a multi-node profile); a function: chosen by the database's host. */
  agentPrefix: string | ((host: string | null) => string),
  label: string,
  /** Where the database's hardware counters go, per dispatch, for the roofline (src/trace/counters/). */
  counters?: CounterSink,
  /**
   * For a database holding several processes (all processes writing one `-o`): called before each
   * process is read, returns the tables its rows go into. Without it, the processes are read as one.
   */
  perProcess?: (process: DbProcess) => RunTables,
): Promise<RocpdReadResult & { counterRows: number }> {
  if (!looksLikeSqlite(bytes)) throw new NotRocpdError('not an SQLite database');
  const SQL = await loadSqlJs();
  const db = new SQL.Database(bytes);
  try {
    const views = new Set(
      all(db, "SELECT name FROM sqlite_master WHERE type IN ('view', 'table')").map((r) => String(r[0])),
    );
    if (!views.has('kernels') && !views.has('regions')) {
      if (views.has('KERN') || views.has('OPS')) {
        throw new NotRocpdError(
          'legacy rocprof v1 database (tables KERN, OPS, COPY, HIP): another format, not read; the results.csv, results.json and results.*stats.csv of the same run hold the same data',
        );
      }
      throw new NotRocpdError('SQLite database without rocpd views (kernels, memory_copies, regions)');
    }
    const schema = views.has('rocpd_metadata')
      ? all(db, "SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'")[0]?.[0]
      : undefined;
    const variant = schema !== undefined && schema !== null ? `rocpd-schema-${String(schema)}` : 'rocpd';

    // timestamps are taken less the summary's epoch in SQLite's 64-bit integers, so they come out exact as doubles
    // (traceClock.ts); the epoch from the first timestamp when no other file fixed it
    acc.clock.settleFrom(firstTimestamp(db, views));
    acc.clock.use();
    const epoch = acc.clock.epochSql;

    const ranks = recordedRanks(db, views);
    const listed: DbProcess[] = [];
    if (views.has('processes'))
      for (const r of objects(db, 'SELECT pid, hostname FROM processes'))
        if (r.pid !== null && r.pid !== undefined && !listed.some((p) => p.pid === Number(r.pid)))
          listed.push({
            pid: Number(r.pid),
            host: typeof r.hostname === 'string' ? r.hostname : null,
            rank: ranks.get(Number(r.pid)) ?? null,
          });
    // a prefix chosen by the database's node: its one host's, or none when it holds several (or none)
    const hosts = new Set(listed.map((p) => p.host));
    const prefix =
      typeof agentPrefix === 'string' ? agentPrefix : agentPrefix(hosts.size === 1 ? (listed[0]?.host ?? null) : null);
    const agentByIndex = new Map<number, AgentState>();
    const agentFor = (absIndex: SqlValue): AgentState | null => {
      if (absIndex === null || absIndex === undefined) return null;
      const n = Number(absIndex);
      let a = agentByIndex.get(n);
      if (!a) {
        a = acc.agent(`${prefix}Agent ${n}`);
        agentByIndex.set(n, a);
      }
      return a;
    };
    const absIndexById = new Map<number, number>();
    if (views.has('rocpd_info_agent')) {
      for (const r of objects(db, 'SELECT * FROM rocpd_info_agent')) {
        const abs = Number(r.absolute_index ?? r.id);
        absIndexById.set(Number(r.id), abs);
        const type = String(r.type ?? '').toUpperCase();
        let cu: number | null = null;
        try {
          const ext = JSON.parse(String(r.extdata ?? '{}')) as { cu_count?: unknown };
          if (typeof ext.cu_count === 'number' && ext.cu_count > 0) cu = ext.cu_count;
        } catch {
          // extdata is optional
        }
        acc.describeAgent(`${prefix}Agent ${abs}`, {
          type: type === 'GPU' ? 'GPU' : type === 'CPU' ? 'CPU' : 'unknown',
          name: typeof r.name === 'string' && r.name ? r.name : null,
          productName: typeof r.product_name === 'string' && r.product_name ? r.product_name : null,
          cuCount: type === 'GPU' ? cu : null,
        });
        agentFor(abs);
      }
    }
    // a database of several processes whose counters name their pid: each one's dispatches numbered from 1, in a
    // scope of its own
    const pids = listed.map((p) => p.pid);
    const counted = counters !== undefined && views.has('pmc_events');
    const scopeOfPid = counters?.scopeOfPid;
    const scopeOf =
      counted && scopeOfPid && listed.length > 1 && columnsOf(db, 'pmc_events').has('pid')
        ? (pid: number): number => scopeOfPid(pid, pids)
        : undefined;
    const rangesOf = counted ? counters.rangesOf : undefined;
    const counterRanges = rangesOf
      ? (pid: number | null): Map<number, string> => rangesOf(pid !== null && scopeOf ? scopeOf(pid) : null)
      : undefined;
    const splittable =
      perProcess !== undefined &&
      listed.length > 1 &&
      listed.every((p) => Number.isSafeInteger(p.pid)) &&
      PER_PROCESS_VIEWS.every((v) => !views.has(v) || columnsOf(db, v).has('pid'));
    const parts: RocpdReadResult['parts'] = [];
    let rows = 0;
    let processes: DbProcess[] = [];
    if (splittable) {
      // each process through temporary views of its rows that stand in for the database's own (SQLite looks in
      // `temp` first); the whole database's top_kernels and busy views sum every process: not checked per process
      for (const p of listed) {
        for (const v of PER_PROCESS_VIEWS)
          if (views.has(v)) db.run(`CREATE TEMP VIEW ${v} AS SELECT * FROM main.${v} WHERE pid = ${p.pid}`);
        try {
          const partTables = perProcess(p);
          const read = readRows(db, views, acc, partTables, epoch, agentFor, label, counterRanges);
          parts.push({ process: p, tables: partTables, rows: read.rows });
          rows += read.rows;
        } finally {
          for (const v of PER_PROCESS_VIEWS) if (views.has(v)) db.run(`DROP VIEW IF EXISTS temp.${v}`);
        }
      }
      processes = listed;
    } else {
      const read = readRows(db, views, acc, tables, epoch, agentFor, label, counterRanges);
      rows = read.rows;
      processes = read.processes.map((p) => ({ ...p, rank: ranks.get(p.pid) ?? null }));
      checkTopKernels(db, views, tables, acc, label);
      checkBusy(db, views, absIndexById, read.busySumByAbs, read.localStart, read.localEnd, acc, label);
    }
    const counterRows = counted ? readRocpdCounters(db, counters.table, counters.wanted, scopeOf) : 0;
    return {
      variant,
      rows,
      process: processes.length === 1 ? (processes[0] ?? null) : null,
      parts,
      counterRows,
    };
  } finally {
    db.close();
  }
}

/** Per pid, the rank in the environment rocpd recorded when the process started (RANK, OMPI_COMM_WORLD_RANK, ...). */
function recordedRanks(db: Database, views: Set<string>): Map<number, number> {
  const ranks = new Map<number, number>();
  if (!views.has('rocpd_info_process') || !columnsOf(db, 'rocpd_info_process').has('environment')) return ranks;
  each(db, 'SELECT pid, environment FROM rocpd_info_process', ([pid, env]) => {
    const rank = rankInEnvironment(env);
    if (rank !== null && pid !== null && !ranks.has(Number(pid))) ranks.set(Number(pid), rank);
  });
  return ranks;
}

/** One process's rows (or all of them): kernels, copies, API calls and ranges into `tables`. */
function readRows(
  db: Database,
  views: Set<string>,
  acc: TraceAccumulator,
  tables: RunTables,
  epoch: string,
  agentFor: (absIndex: SqlValue) => AgentState | null,
  label: string,
  /** The Dispatch_Id -> rocTX range map of a process's counter dispatches (see attributeRocpdRanges). */
  counterRanges?: (pid: number | null) => Map<number, string>,
): {
  rows: number;
  processes: Array<{ pid: number; host: string | null }>;
  busySumByAbs: Map<number, number>;
  localStart: number;
  localEnd: number;
} {
  const processes: Array<{ pid: number; host: string | null }> = [];
  if (views.has('processes')) {
    for (const r of objects(db, 'SELECT * FROM processes')) {
      if (r.pid !== null && r.pid !== undefined) {
        const host = typeof r.hostname === 'string' ? r.hostname : null;
        processes.push({ pid: Number(r.pid), host });
        acc.addProcess(Number(r.pid), host, typeof r.command === 'string' ? r.command : null);
      }
    }
  }

  let rows = 0;
  let skippedKernels = 0;
  let skippedCopies = 0;
  let localStart = Infinity;
  let localEnd = -Infinity;
  // rocpd's `busy` view: per agent, the SUM of kernel and copy durations (copies on their destination agent)
  const busySumByAbs = new Map<number, number>();
  const addBusySum = (abs: SqlValue, d: number): void => {
    if (abs === null || abs === undefined) return;
    busySumByAbs.set(Number(abs), (busySumByAbs.get(Number(abs)) ?? 0) + d);
  };

  // roctxProfilerPause / Resume: regions of a marker category (rocprofv3 writes a call that took no time as a
  // `samples` row, whose name is its category only: those cannot be told apart and are not read)
  if (views.has('regions')) {
    each(
      db,
      `SELECT category, name, start - ${epoch} FROM regions WHERE name IN ('roctxProfilerPause', 'roctxProfilerResume') ORDER BY start`,
      (r) => {
        const name = String(r[1] ?? '');
        if (isMarkerDomain(String(r[0] ?? '')) && isProfilerControl(name)) tables.control.note(name, Number(r[2]));
      },
    );
  }
  const paused = tables.control.windows().length > 0;

  if (views.has('kernels')) {
    const cols = columnsOf(db, 'kernels');
    const pick = (name: string): string => (cols.has(name) ? name : 'NULL');
    const launchCols = [
      'grid_x',
      'grid_y',
      'grid_z',
      'workgroup_x',
      'workgroup_y',
      'workgroup_z',
      'vgpr_count',
      'accum_vgpr_count',
      'sgpr_count',
      'lds_size',
      'scratch_size',
    ].map(pick);
    const sql = `SELECT name, ${pick('agent_abs_index')}, start - ${epoch}, "end" - ${epoch}, ${launchCols.join(', ')} FROM kernels ORDER BY start`;
    const launch = new Float64Array(LAUNCH_WIDTH);
    each(db, sql, (r) => {
      const start = Number(r[2]);
      const end = Number(r[3]);
      if (!(end >= start)) {
        skippedKernels++;
        return;
      }
      rows++;
      const k = tables.kernel(String(r[0] ?? ''));
      addDuration(k.stats, end - start);
      if (paused) tables.control.addDispatch(k.name, start, end - start);
      for (let i = 0; i < LAUNCH_WIDTH; i++) {
        const v = r[4 + i];
        launch[i] = v === null || v === undefined ? NaN : Number(v);
      }
      addLaunch(k, launch);
      const agent = agentFor(r[1] ?? null);
      if (agent) k.agentIds.add(agent.id);
      acc.addGpuWork(agent, start, end, 'kernel');
      addBusySum(r[1] ?? null, end - start);
      if (start < localStart) localStart = start;
      if (end > localEnd) localEnd = end;
    });
  }

  if (views.has('memory_copies')) {
    const cols = columnsOf(db, 'memory_copies');
    // the ends' absolute indices: `*_abs_index` in released rocpd, `*_absolute_index` in rocprofiler-sdk's first views
    const pick = (...names: string[]): string => names.find((n) => cols.has(n)) ?? 'NULL';
    const src = pick('src_agent_abs_index', 'src_agent_absolute_index');
    const dst = pick('dst_agent_abs_index', 'dst_agent_absolute_index');
    const sql = `SELECT name, start - ${epoch}, "end" - ${epoch}, ${pick('size')}, ${src}, ${dst} FROM memory_copies ORDER BY start`;
    each(db, sql, (r) => {
      const start = Number(r[1]);
      const end = Number(r[2]);
      if (!(end >= start)) {
        skippedCopies++;
        return;
      }
      rows++;
      const direction = normalizeDirection(String(r[0] ?? 'UNKNOWN'));
      const size = r[3];
      const srcAgent = agentFor(r[4] ?? null);
      const dstAgent = agentFor(r[5] ?? null);
      tables.addCopy(
        direction,
        end - start,
        size === null || size === undefined ? null : Number(size),
        srcAgent?.id ?? null,
        dstAgent?.id ?? null,
      );
      acc.addGpuWork(gpuEndOfCopy(direction, srcAgent, dstAgent), start, end, 'copy');
      addBusySum(r[5] ?? null, end - start);
      if (start < localStart) localStart = start;
      if (end > localEnd) localEnd = end;
    });
  }

  if (views.has('regions')) {
    const sql = `SELECT category, name, COUNT(*), SUM("end" - start), MIN("end" - start), MAX("end" - start)
                   FROM regions GROUP BY category, name`;
    each(db, sql, (r) => {
      const category = r[0] === null || r[0] === undefined ? null : String(r[0]);
      const name = String(r[1] ?? '');
      const count = Number(r[2]);
      rows += count;
      const stats = statsFromTotals(count, Number(r[3]), Number(r[4]), Number(r[5]), null);
      if (category !== null && isMarkerDomain(category)) {
        if (!/^roctx[A-Z]/.test(name)) mergeStats(tables.marker(name).stats, stats);
      } else {
        mergeStats(tables.apiCall(name, category).stats, stats);
      }
    });
  }

  attributeRocpdRanges(db, views, tables, epoch, counterRanges);
  // SQL rows have no line numbers: the count says how many
  if (skippedKernels > 0)
    acc.warnings.push(`${label}: ${skippedKernels} kernel row(s) without a valid start/end were skipped`);
  if (skippedCopies > 0)
    acc.warnings.push(`${label}: ${skippedCopies} memory copy row(s) without a valid start/end were skipped`);
  return { rows, processes, busySumByAbs, localStart, localEnd };
}

/** Our per-kernel calls and totals against the database's own `top_kernels` view (durations in µs). */
function checkTopKernels(
  db: Database,
  views: Set<string>,
  tables: RunTables,
  acc: TraceAccumulator,
  label: string,
): void {
  if (!views.has('top_kernels')) return;
  const mismatches: string[] = [];
  let compared = 0;
  for (const r of objects(db, 'SELECT name, total_calls, total_duration FROM top_kernels')) {
    compared++;
    const name = String(r.name ?? '');
    const ours = tables.kernels.get(name);
    const calls = Number(r.total_calls);
    const totalUs = Number(r.total_duration);
    if (!ours) {
      mismatches.push(`${name}: in top_kernels, not in kernels`);
    } else if (ours.stats.count !== calls || !closeTo(ours.stats.sum / 1000, totalUs)) {
      mismatches.push(
        `${name}: ours ${ours.stats.count} calls ${ours.stats.sum / 1000} us, top_kernels ${calls} calls ${totalUs} us`,
      );
    }
  }
  acc.checks.push({ what: `kernel calls and totals vs ${label} top_kernels view`, compared, mismatches });
}

/**
 * The `busy` view SUMS kernel and copy durations per agent (overlaps counted twice) over the wall time; we report
 * the UNION. Here we check that the same sum and wall come out of the rows we read.
 */
function checkBusy(
  db: Database,
  views: Set<string>,
  absIndexById: Map<number, number>,
  sums: Map<number, number>,
  localStart: number,
  localEnd: number,
  acc: TraceAccumulator,
  label: string,
): void {
  if (!views.has('busy')) return;
  const mismatches: string[] = [];
  let compared = 0;
  for (const r of objects(db, 'SELECT agent_id, GpuTime, WallTime FROM busy')) {
    compared++;
    const abs = absIndexById.get(Number(r.agent_id)) ?? Number(r.agent_id);
    const ours = sums.get(abs) ?? 0;
    if (ours !== Number(r.GpuTime))
      mismatches.push(`Agent ${abs}: sum of durations ${ours} ns, busy.GpuTime ${String(r.GpuTime)} ns`);
    const wall = localEnd - localStart;
    if (Number.isFinite(wall) && wall !== Number(r.WallTime))
      mismatches.push(`wall ${wall} ns, busy.WallTime ${String(r.WallTime)} ns`);
  }
  acc.checks.push({ what: `per-agent GPU time and wall time vs ${label} busy view`, compared, mismatches });
}

function closeTo(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

/** The first timestamp of the database (of a kernel, else a copy, else a region), exactly; null when none is an integer. */
function firstTimestamp(db: Database, views: Set<string>): { high: number; low: number } | null {
  for (const view of ['kernels', 'memory_copies', 'regions']) {
    if (!views.has(view)) continue;
    // as text: sql.js gives a 64-bit integer as a double
    const first = all(db, `SELECT CAST(start AS TEXT) FROM ${view} WHERE typeof(start) = 'integer' LIMIT 1`)[0]?.[0];
    if (typeof first === 'string') return decimalParts(first);
  }
  return null;
}

function all(db: Database, sql: string): SqlValue[][] {
  const res = db.exec(sql);
  return res[0]?.values ?? [];
}

function objects(db: Database, sql: string): Array<Record<string, SqlValue>> {
  const out: Array<Record<string, SqlValue>> = [];
  const stmt = db.prepare(sql);
  try {
    while (stmt.step()) out.push(stmt.getAsObject());
  } finally {
    stmt.free();
  }
  return out;
}
