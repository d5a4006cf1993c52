#!/usr/bin/env node
// Holds our numbers for a rocpd profile to rocpd's own summary (`rocpd summary --summary-by-rank`, the python package of
// rocprofiler-sdk in ROCm/rocm-systems): per kernel over the whole run (calls, total, average, min, max, standard
// deviation, share) and per rank (process id: its kernels' calls, totals and shares, its copies).
//
//   node scripts/rocpd-summary-check.mjs <rocm-systems checkout or bare git dir> <profile folder> [--python python3]
//
// rocpd's summary needs `libpyrocpd`, a compiled extension built with ROCm. What its summary uses of it is small:
// a sqlite3 connection with each database ATTACHed and the schema's SQL files (share/rocprofiler-sdk-rocpd/*.sql)
// loaded with their {{uuid}} and {{guid}} filled in. This script writes a python module that provides just that,
// beside the rocpd package and SQL files read from the given checkout (nothing of them is kept: a temporary folder),
// runs rocpd's own importer and summary views over the databases our summary read its timings from, and prints both
// sides per rank and kernel. Exit 0 when they agree, 1 on a difference, 2 when it cannot run. Needs `node
// scripts/build.mjs` first (it runs dist/cli.cjs) and a python3 with sqlite3; not pandas (the views are read here).
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const pyAt = args.indexOf('--python');
const python = pyAt >= 0 ? args.splice(pyAt, 2)[1] : 'python3';
const [checkout, profile] = args;
if (!checkout || !profile) {
  console.error(
    'usage: node scripts/rocpd-summary-check.mjs <rocm-systems checkout or bare git dir> <profile folder> [--python python3]',
  );
  process.exit(2);
}
for (const [what, where] of [
  ['rocm-systems checkout', checkout],
  ['profile', profile],
])
  if (!existsSync(where)) {
    console.error(`${where}: no such ${what}`);
    process.exit(2);
  }

/** The checkout's files: a work tree's, else a git directory's HEAD (a bare mirror). */
function sourceOf(dir) {
  if (existsSync(path.join(dir, 'projects')) || existsSync(path.join(dir, 'source')))
    return {
      list: (folder) => readdirSync(path.join(dir, folder)),
      read: (file) => readFileSync(path.join(dir, file), 'utf8'),
      has: (file) => existsSync(path.join(dir, file)),
    };
  const git = (...a) => execFileSync('git', ['--git-dir', dir, ...a], { encoding: 'utf8', maxBuffer: 1 << 26 });
  return {
    list: (folder) => git('ls-tree', '--name-only', `HEAD:${folder}`).split('\n').filter(Boolean),
    read: (file) => git('show', `HEAD:${file}`),
    has: (file) => spawnSync('git', ['--git-dir', dir, 'cat-file', '-e', `HEAD:${file}`]).status === 0,
  };
}

// libpyrocpd as far as rocpd's importer, schema and summary use it (libpyrocpd.cpp, rocprofiler-sdk-rocpd/sql.cpp)
const SHIM = `import enum, os, sqlite3
_SQL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sql")
class sql_engine(enum.Enum):
    sqlite3 = 1
class sql_schema(enum.Enum):
    rocpd_tables = "rocpd_tables.sql"
    rocpd_indexes = "rocpd_indexes.sql"
    rocpd_views = "rocpd_views.sql"
    data_views = "data_views.sql"
    summary_views = "summary_views.sql"
    marker_views = "marker_views.sql"
class sql_option(enum.Enum):
    none = 0
    sqlite3_pragma_foreign_keys = 1
class agent_indexing(enum.Enum):
    node = 0
    logical_node = 1
    logical_node_type = 2
class schema_jinja_variables:
    uuid = None
    guid = None
class output_config:
    pass
def load_schema(engine, kind, options, variables):
    with open(os.path.join(_SQL, kind.value), encoding="utf-8") as f:
        text = f.read()
    if options == sql_option.sqlite3_pragma_foreign_keys:
        text = "PRAGMA foreign_keys = ON;\\n\\n" + text
    if variables is not None and variables.uuid is not None:
        uuid = str(variables.uuid)
        uuid = ("_" + uuid if uuid and not uuid.startswith("_") else uuid).replace("-", "_")
        text = text.replace("{{uuid}}", uuid)
    if variables is not None and variables.guid is not None:
        text = text.replace("{{guid}}", str(variables.guid))
    return text
def connect(path, *args, **kwargs):
    return sqlite3.connect(path, *args, **kwargs)
def format_path(path, tag=""):
    return path
class RocpdImportData:
    def __init__(self, connection=None, databases=None):
        if isinstance(connection, RocpdImportData):
            connection, databases = connection.connection, connection.databases
        if not isinstance(connection, sqlite3.Connection):
            raise TypeError("RocpdImportData takes a sqlite3.Connection")
        self.connection, self.databases = connection, list(databases or [])
`;

// rocpd's importer (every database ATTACHed, a view per table over all of them) and its summary views, read back
const DRIVER = `import json, sys
from rocpd.importer import RocpdImportData
from rocpd import summary
db = RocpdImportData(sys.argv[1:])
summary.create_summary_views(db, by_rank=True)
views = set(summary.get_temp_view_names(db))
out = {}
for view in ("kernels_summary", "kernels_summary_by_rank", "memory_copies_summary_by_rank"):
    if view in views:
        cur = db.execute(f"SELECT * FROM {view}")
        names = [d[0] for d in cur.description]
        out[view] = [dict(zip(names, row)) for row in cur.fetchall()]
print(json.dumps(out))
`;

function buildShim(src) {
  const sdk = ['projects/rocprofiler-sdk/source', 'source'].find((p) => src.has(`${p}/lib/python/rocpd/summary.py`));
  if (!sdk) throw new Error(`${checkout}: no rocprofiler-sdk rocpd package (lib/python/rocpd/summary.py)`);
  const dir = mkdtempSync(path.join(tmpdir(), 'kr-rocpd-'));
  mkdirSync(path.join(dir, 'rocpd'));
  mkdirSync(path.join(dir, 'sql'));
  for (const name of src.list(`${sdk}/lib/python/rocpd`).filter((n) => n.endsWith('.py'))) {
    // __init__.py is a CMake template: its version numbers as CMake would fill them
    const text = src.read(`${sdk}/lib/python/rocpd/${name}`).replace(/int\("@[A-Z_]+@"\)/g, '0');
    writeFileSync(path.join(dir, 'rocpd', name), text);
  }
  writeFileSync(path.join(dir, 'rocpd', 'libpyrocpd.py'), SHIM);
  for (const name of src.list(`${sdk}/share/rocprofiler-sdk-rocpd`).filter((n) => n.endsWith('.sql')))
    writeFileSync(path.join(dir, 'sql', name), src.read(`${sdk}/share/rocprofiler-sdk-rocpd/${name}`));
  writeFileSync(path.join(dir, 'driver.py'), DRIVER);
  return dir;
}

function ourSummary() {
  const cli = path.join(root, 'dist/cli.cjs');
  if (!existsSync(cli)) throw new Error('dist/cli.cjs is missing: node scripts/build.mjs first');
  const run = spawnSync(process.execPath, [cli, 'summarize', profile, '--json'], { maxBuffer: 1 << 28 });
  if (run.status !== 0) throw new Error(`kernel-runner summarize failed (exit ${run.status}): ${run.stderr}`);
  return JSON.parse(run.stdout.toString('utf8'));
}

/** The databases our summary took its timings from (of a multi-pass run, the timings pass's). */
function databasesOf(ours) {
  const pass = ours.passes?.timingsFrom;
  const base = statSync(profile).isDirectory() ? profile : path.dirname(profile);
  const files = ours.sources
    .filter((s) => s.format === 'rocpd' && (!pass || s.path.startsWith(`${pass}/`)))
    .map((s) => path.join(base, s.path));
  const missing = files.find((f) => !existsSync(f));
  if (missing) throw new Error(`${missing}: not a file (unpack a zip into a folder first)`);
  return files;
}

const differences = [];
const rows = [];
const close = (a, b) =>
  (a === null || a === undefined) && (b === null || b === undefined)
    ? true
    : typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/** One line of the table: what rocpd says and what we say, each field compared. */
function compare(where, name, fields) {
  const cells = [];
  for (const [field, theirs, ours] of fields) {
    const same = close(theirs, ours);
    if (!same) differences.push(`${where} ${name.slice(0, 60)}: ${field} rocpd ${theirs}, ours ${ours}`);
    cells.push(`${field} ${fmt(theirs)}${same ? '' : ` ≠ ${fmt(ours)}`}`);
  }
  rows.push(`${where.padEnd(10)} ${name.slice(0, 48).padEnd(48)} ${cells.join('  ')}`);
}
const fmt = (v) => (typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(3) : String(v));

function check(rocpd, ours) {
  for (const r of rocpd.kernels_summary ?? []) {
    const k = ours.kernels.find((x) => x.name === r.Name);
    compare('run', r.Name, [
      ['calls', r.Calls, k?.calls],
      ['total', r['DURATION (nsec)'], k?.totalNs],
      ['avg', r['AVERAGE (nsec)'], k?.avgNs],
      ['min', r['MIN (nsec)'], k?.minNs],
      ['max', r['MAX (nsec)'], k?.maxNs],
      ['stddev', r.STD_DEV, r.Calls > 1 ? k?.stddevNs : null],
      ['%', r['PERCENT (INC)'], k?.percent],
    ]);
  }
  for (const k of ours.kernels)
    if (!(rocpd.kernels_summary ?? []).some((r) => r.Name === k.name))
      differences.push(`run ${k.name}: not in rocpd's`);
  const processes = ours.ranks?.processes ?? [];
  const pids = new Set([
    ...(rocpd.kernels_summary_by_rank ?? []).map((r) => r.ProcessID),
    ...(rocpd.memory_copies_summary_by_rank ?? []).map((r) => r.ProcessID),
    ...processes.filter((p) => p.kernelCalls > 0 || p.copyNs > 0).map((p) => p.pid),
  ]);
  for (const pid of [...pids].sort((a, b) => a - b)) {
    // one process: no ranks section, the run's totals are its own
    const rank = ours.ranks
      ? processes.find((p) => p.pid === pid)
      : { kernelCalls: ours.kernelTotals.calls, kernelNs: ours.kernelTotals.totalNs, topKernels: ours.kernels };
    const where = `pid ${pid}`;
    const kernels = (rocpd.kernels_summary_by_rank ?? []).filter((r) => r.ProcessID === pid);
    for (const r of kernels) {
      const k = rank?.topKernels.find((x) => x.name === r.Name);
      if (!k && rank && rank.topKernels.length >= 10) continue; // below our top ten: in the rank's totals only
      compare(where, r.Name, [
        ['calls', r.Calls, k?.calls],
        ['total', r['DURATION (nsec)'], k?.totalNs],
        ['%', r['PERCENT (INC)'], k?.percent],
      ]);
    }
    const sum = (list, f) => list.reduce((n, r) => n + r[f], 0);
    compare(where, '(all kernels)', [
      ['calls', sum(kernels, 'Calls'), rank?.kernelCalls],
      ['total', sum(kernels, 'DURATION (nsec)'), rank?.kernelNs],
    ]);
    const copies = (rocpd.memory_copies_summary_by_rank ?? []).filter((r) => r.ProcessID === pid);
    for (const r of copies) {
      const c = rank?.copies?.find((x) => x.direction === r.Name.replace(/^MEMORY_COPY_/, ''));
      compare(where, r.Name, [
        ['calls', r.Calls, c?.calls],
        ['total', r['DURATION (nsec)'], c?.totalNs],
      ]);
    }
    if (ours.ranks) compare(where, '(all copies)', [['total', sum(copies, 'DURATION (nsec)'), rank?.copyNs]]);
  }
}

let dir;
try {
  const ours = ourSummary();
  const databases = databasesOf(ours);
  if (databases.length === 0) throw new Error(`${profile}: our summary read no rocpd database`);
  dir = buildShim(sourceOf(checkout));
  const run = spawnSync(python, [path.join(dir, 'driver.py'), ...databases], {
    cwd: dir,
    env: { ...process.env, PYTHONPATH: dir },
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (run.status !== 0) throw new Error(`rocpd's summary failed (exit ${run.status}):\n${run.stderr}`);
  console.log(`rocpd summary of ${databases.length} database(s) vs kernel-runner summarize ${profile}`);
  check(JSON.parse(run.stdout), ours);
  for (const line of rows) console.log(line);
  if (differences.length > 0) {
    console.log(`\n${differences.length} difference(s):`);
    for (const d of differences) console.log(`  ${d}`);
    process.exitCode = 1;
  } else console.log(`\nno difference (${rows.length} rows compared)`);
} catch (e) {
  console.error(e instanceof Error ? e.message : String(e));
  process.exitCode = 2;
} finally {
  if (dir) rmSync(dir, { recursive: true, force: true });
}
