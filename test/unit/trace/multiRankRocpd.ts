// The multi-rank profile of multiRankRun.ts as rocpd databases: one `<pid>_results.db` per process (rocprofv3's
// default), or one database holding every process (rocpd's merge, or every process writing one fixed `-o`). The
// tables carry the columns of rocpd's own views (`kernels`, `memory_copies`, `regions`, `processes`,
// `rocpd_info_agent`), the OS pid in each, which is what the reader queries.
import Database from 'better-sqlite3';
import { A2A, CASES, COUNTERS, GEMM, HOST, RANKS, RCCL, counterValue, peerOf, type RankSpec } from './multiRankRun';

const T0 = 1_000_000_000n;

const SCHEMA = `
CREATE TABLE rocpd_info_agent (id INTEGER PRIMARY KEY, absolute_index INTEGER, type TEXT, name TEXT, product_name TEXT, extdata TEXT);
CREATE TABLE processes (pid INTEGER, ppid INTEGER, hostname TEXT, command TEXT);
CREATE TABLE kernels (name TEXT, pid INTEGER, tid INTEGER, agent_abs_index INTEGER, stack_id INTEGER, start INTEGER, "end" INTEGER,
  grid_x INTEGER, grid_y INTEGER, grid_z INTEGER, workgroup_x INTEGER, workgroup_y INTEGER, workgroup_z INTEGER,
  vgpr_count INTEGER, accum_vgpr_count INTEGER, sgpr_count INTEGER, lds_size INTEGER, scratch_size INTEGER,
  dispatch_id INTEGER);
CREATE TABLE memory_copies (name TEXT, pid INTEGER, start INTEGER, "end" INTEGER, size INTEGER,
  src_agent_abs_index INTEGER, dst_agent_abs_index INTEGER);
CREATE TABLE regions (category TEXT, name TEXT, pid INTEGER, tid INTEGER, stack_id INTEGER, start INTEGER, "end" INTEGER);
`;

/** The columns of rocpd's pmc_events view the reader selects (a row per dispatch, counter and instance). */
const PMC_SCHEMA = `CREATE TABLE pmc_events (guid TEXT, event_id INTEGER, pmc_id INTEGER, dispatch_id INTEGER, name TEXT,
  pid INTEGER, duration INTEGER, counter_name TEXT, counter_value REAL)`;

function writeRank(db: Database.Database, r: RankSpec, host: string, counters: boolean): void {
  db.prepare('INSERT INTO processes VALUES (?, ?, ?, ?)').run(r.pid, 3000, host, `python3 eval.py rank ${r.pid}`);
  const kernel = db.prepare(
    'INSERT INTO kernels VALUES (?, ?, 1, ?, ?, ?, ?, 65536, 1, 1, 256, 1, 1, 32, 0, 16, 0, 0, ?)',
  );
  const pmc = counters ? db.prepare('INSERT INTO pmc_events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)') : null;
  let dispatch = 0;
  const region = db.prepare('INSERT INTO regions VALUES (?, ?, ?, 1, ?, ?, ?)');
  const copy = db.prepare('INSERT INTO memory_copies VALUES (?, ?, ?, ?, ?, ?, ?)');
  // stack ids unique across the processes of one database, as a merge keeps them apart
  let stack = r.pid * 1000;
  let gpu = T0 + 10_000n;
  CASES.forEach((name, c) => {
    const caseStart = T0 + 1000n + BigInt(c) * 100_000n;
    region.run('MARKER_CORE_API', name, r.pid, 0, caseStart, caseStart + 90_000n);
    for (let i = 0; i < 3; i++) {
      for (const [k, ns] of [
        [GEMM, r.gemmNs[c]],
        [A2A, 400 + r.agent * 10],
        [RCCL, 600 + (4 - r.agent) * 50],
      ] as Array<[string, number]>) {
        stack++;
        const launchAt = caseStart + 100n + BigInt(stack - r.pid * 1000) * 50n;
        region.run('HIP_RUNTIME_API_EXT', 'hipLaunchKernel', r.pid, stack, launchAt, launchAt + 20n);
        if (gpu < launchAt + 30n) gpu = launchAt + 30n;
        dispatch++;
        kernel.run(k, r.pid, r.agent, stack, gpu, gpu + BigInt(ns), dispatch);
        // two instances of each counter, summed per dispatch as rocpd's counters_collection view does
        COUNTERS.forEach((counter, c) => {
          const value = counterValue(r, dispatch, counter);
          for (const part of [value - Math.floor(value / 2), Math.floor(value / 2)])
            pmc?.run(`guid-${r.pid}`, r.pid * 1000 + dispatch, c + 1, dispatch, k, r.pid, ns, counter, part);
        });
        gpu += BigInt(ns) + 100n;
      }
    }
  });
  const peer = peerOf(r.agent);
  copy.run('MEMORY_COPY_HOST_TO_DEVICE', r.pid, T0 + 500n, T0 + 900n + BigInt(r.agent), 1 << 20, 0, r.agent);
  copy.run('MEMORY_COPY_DEVICE_TO_DEVICE', r.pid, gpu + 10n, gpu + 210n, 1 << 16, r.agent, peer);
  copy.run('MEMORY_COPY_DEVICE_TO_HOST', r.pid, gpu + 300n, gpu + 700n, 1 << 12, r.agent, 0);
}

/**
 * Writes a rocpd database at `file` holding the given ranks' processes (one, or several as a merge does).
 * `environment`: each process's environment as rocpd records it (`rocpd_info_process.environment`, JSON); `host`:
 * the node it ran on; `counters`: `--pmc` counters of every dispatch (pmc_events, the CSV's counterValue).
 */
export function writeRocpdRanks(
  file: string,
  ranks: RankSpec[] = RANKS,
  opts: { environment?: (r: RankSpec) => Record<string, string>; host?: string; counters?: boolean } = {},
): void {
  const db = new Database(file);
  try {
    db.defaultSafeIntegers(true);
    db.exec(SCHEMA);
    if (opts.counters) db.exec(PMC_SCHEMA);
    if (opts.environment) {
      db.exec('CREATE TABLE rocpd_info_process (id INTEGER PRIMARY KEY, ppid INTEGER, pid INTEGER, environment TEXT)');
      const row = db.prepare('INSERT INTO rocpd_info_process VALUES (?, 3000, ?, ?)');
      for (const r of ranks) row.run(r.pid, r.pid, JSON.stringify(opts.environment(r)));
    }
    const agent = db.prepare('INSERT INTO rocpd_info_agent VALUES (?, ?, ?, ?, ?, ?)');
    agent.run(100, 0, 'CPU', 'AMD EPYC 9654', 'AMD EPYC 9654', '{}');
    for (let n = 1; n <= 4; n++) agent.run(100 + n, n, 'GPU', 'gfx942', 'AMD Instinct MI300X', '{"cu_count":304}');
    db.transaction(() => {
      for (const r of ranks) writeRank(db, r, opts.host ?? HOST, opts.counters === true);
    })();
  } finally {
    db.close();
  }
}
