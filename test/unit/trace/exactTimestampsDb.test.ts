// Timestamps past 2^53 in rocpd databases and legacy v1 results.json, read exactly (as the CSV readers do, see
// exactNumbers.test.ts), with the wall's ends given as exact digits; and roctxProfilerPause / Resume read from a
// rocpd database. The databases are the real batched_gemm one (rocprofv3, ROCm 7) copied and changed here with
// better-sqlite3 in its own schema: every timestamp moved past 2^53, or pause/resume regions added as
// rocprofv3's generateRocpd.cpp writes a marker call that took time (category MARKER_CONTROL_API, name the
// function, in rocpd_region with its rocpd_event).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { summarizePath, type TraceSummary } from '../../../src/trace/index';
import { traceSummarySchema } from '../../../src/core/protocol/traceSummary';
import { renderTraceTables } from '../../../src/cli/render/traceTables';
import { fixture } from './helpers';
import { tempDirsRemovedAfter } from '../../support/tempDirs';

const tempDir = tempDirsRemovedAfter('kr-trace-exact-db-');
const DB = fixture('batched_gemm__28_results.db');
/** Odd, and past 2^53 once added (doubles are 2 ns apart from 2^53 to 2^54): a rounded figure shows. */
const SHIFT = 12_000_000_000_000_001n;

/** The name of a rocpd table (they carry the run's uuid as a suffix; the views without it cannot be written). */
function table(db: Database.Database, base: string): string {
  const row = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE ?").get(`${base}_%`) as
    { name: string } | undefined;
  assert.ok(row, `table ${base}_<uuid>`);
  return row.name;
}

function copyOfDb(tag: string): string {
  const file = path.join(tempDir(tag), 'run_results.db');
  copyFileSync(DB, file);
  return file;
}

/** Every figure that must not depend on where the clock stands. */
function clockFree(s: TraceSummary): unknown {
  return {
    kernels: s.kernels,
    api: s.api,
    agents: s.agents,
    span: s.wall?.spanNs,
    checks: s.checks.map((c) => [c.compared, c.mismatches]),
    copies: s.memoryCopies,
  };
}

test('rocpd: timestamps past 2^53 give the same durations, busy time and wall span, the wall start as exact digits', async () => {
  const file = copyOfDb('rocpd-wide');
  const db = new Database(file);
  const first = BigInt((db.prepare('SELECT MIN(start) AS m FROM kernels').safeIntegers().get() as { m: bigint }).m);
  for (const t of ['rocpd_kernel_dispatch', 'rocpd_region', 'rocpd_memory_copy']) {
    db.prepare(`UPDATE ${table(db, t)} SET start = start + ?, "end" = "end" + ?`).run(SHIFT, SHIFT);
  }
  // the database's own views, in SQLite's integers: what the summary must equal
  const viewWall = db.prepare('SELECT WallTime AS w FROM busy').safeIntegers().get() as { w: bigint };
  const moved = BigInt((db.prepare('SELECT MIN(start) AS m FROM kernels').safeIntegers().get() as { m: bigint }).m);
  db.close();
  assert.equal(moved, first + SHIFT);
  assert.ok(moved > BigInt(Number.MAX_SAFE_INTEGER));

  const a = traceSummarySchema.parse(await summarizePath(DB));
  const b = traceSummarySchema.parse(await summarizePath(file));
  assert.deepEqual(clockFree(b), clockFree(a));
  assert.deepEqual(
    b.checks.map((c) => c.mismatches),
    [[], []],
    'top_kernels and busy views agree',
  );
  assert.equal(BigInt(b.wall?.spanNs as number), viewWall.w);
  assert.equal(a.wall?.startNsExact, undefined, 'below 2^53 the number is exact: no digits');
  assert.equal(b.wall?.startNsExact, String(first + SHIFT));
  assert.equal(b.wall?.endNsExact, String(BigInt(a.wall?.endNs as number) + SHIFT));
  assert.equal(b.wall?.startNs, Number(first + SHIFT), 'the number: the nearest double');
  // the timeline's buckets start at another double: fractions (rounded to 1e-6) may differ in their last digit
  const fractions = (x: TraceSummary): number[] => x.timeline?.agents.flatMap((g) => g.busyFraction) ?? [];
  assert.equal(fractions(b).length, fractions(a).length);
  fractions(b).forEach((f, i) =>
    assert.ok(Math.abs(f - (fractions(a)[i] as number)) <= 2e-6, `bucket ${i}: ${f} vs ${fractions(a)[i]}`),
  );
});

test('rocpd: roctxProfilerPause / Resume regions are profiler control with the kernels that started while paused', async () => {
  const file = copyOfDb('rocpd-pause');
  const db = new Database(file);
  const starts = (
    db.prepare('SELECT start FROM kernels ORDER BY start').safeIntegers().all() as Array<{ start: bigint }>
  ).map((r) => r.start);
  assert.equal(starts.length, 151);
  const strings = table(db, 'rocpd_string');
  const events = table(db, 'rocpd_event');
  const regions = table(db, 'rocpd_region');
  const stringId = (text: string): bigint => {
    db.prepare(`INSERT OR IGNORE INTO ${strings} (string) VALUES (?)`).run(text);
    return (db.prepare(`SELECT id FROM ${strings} WHERE string = ?`).safeIntegers().get(text) as { id: bigint }).id;
  };
  const owner = db.prepare(`SELECT nid, pid, tid FROM ${regions} LIMIT 1`).safeIntegers().get() as {
    nid: bigint;
    pid: bigint;
    tid: bigint;
  };
  const category = stringId('MARKER_CONTROL_API');
  const call = (name: string, at: bigint): void => {
    const event = db
      .prepare(`INSERT INTO ${events} (category_id, stack_id, parent_stack_id, correlation_id) VALUES (?, 0, 0, 0)`)
      .run(category).lastInsertRowid;
    db.prepare(
      `INSERT INTO ${regions} (nid, pid, tid, start, "end", name_id, event_id) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(owner.nid, owner.pid, owner.tid, at, at + 300n, stringId(name), event);
  };
  // paused from just before the 10th dispatch to just before the 20th, and again before the 150th, never resumed
  const pause1 = (starts[9] as bigint) - 1n;
  const resume1 = (starts[19] as bigint) - 1n;
  const pause2 = (starts[149] as bigint) - 1n;
  call('roctxProfilerPause', pause1);
  call('roctxProfilerResume', resume1);
  call('roctxProfilerPause', pause2);
  const inWindow = (from: bigint, to: bigint | null): Array<{ name: string; calls: number; totalNs: number }> =>
    (
      db
        .prepare(
          `SELECT name, COUNT(*) AS calls, SUM("end" - start) AS totalNs FROM kernels WHERE start >= ? AND (? IS NULL OR start < ?) GROUP BY name ORDER BY totalNs DESC`,
        )
        .all(from, to, to) as Array<{ name: string; calls: number; totalNs: number }>
    ).map((r) => ({ ...r }));
  const expected = [
    { startNs: Number(pause1), endNs: Number(resume1), kernels: inWindow(pause1, resume1) },
    { startNs: Number(pause2), endNs: null, kernels: inWindow(pause2, null) },
  ];
  db.close();
  assert.deepEqual(
    expected.map((w) => w.kernels.reduce((n, k) => n + k.calls, 0)),
    [10, 2],
  );

  const s = traceSummarySchema.parse(await summarizePath(file));
  assert.deepEqual(s.profilerControl?.calls, [
    { name: 'roctxProfilerPause', calls: 2 },
    { name: 'roctxProfilerResume', calls: 1 },
  ]);
  const windows = s.profilerControl?.pausedWindows.map((w) => ({
    ...w,
    kernels: [...w.kernels].sort((x, y) => y.totalNs - x.totalNs),
  }));
  assert.deepEqual(windows, expected);
  assert.ok(!s.markers.some((m) => m.name.startsWith('roctxProfiler')), 'not ranges');
  assert.ok(!s.api.some((x) => x.name.startsWith('roctxProfiler')), 'not API calls');
  // everything else as without the calls
  const plain = await summarizePath(DB);
  assert.deepEqual(s.kernels, plain.kernels);
  assert.deepEqual(s.api, plain.api);
  assert.match(renderTraceTables(s), /Profiler control: roctxProfilerPause ×2, roctxProfilerResume ×1/);
});

const V1 = ['results.json', 'results.stats.csv', 'results.copy_stats.csv', 'results.hip_stats.csv'];

/** The real v1 set with every BeginNs/EndNs moved by SHIFT (exactly), as strings (as rocprof writes them) or numbers. */
function v1Folder(tag: string, shift: bigint, asNumbers: boolean): string {
  const dir = tempDir(tag);
  for (const f of V1.slice(1)) copyFileSync(fixture(`HIP_Programming__${f}`), path.join(dir, f));
  const text = readFileSync(fixture('HIP_Programming__results.json'), 'utf8').replace(
    /"(BeginNs|EndNs)":"(\d+)"/g,
    (_m, key: string, v: string) => (asNumbers ? `"${key}":${BigInt(v) + shift}` : `"${key}":"${BigInt(v) + shift}"`),
  );
  writeFileSync(path.join(dir, 'results.json'), text);
  return dir;
}

test('v1 results.json: BeginNs/EndNs past 2^53, as strings or as JSON numbers, read exactly', async () => {
  const a = await summarizePath(v1Folder('v1-low', 0n, false));
  const doc = JSON.parse(readFileSync(fixture('HIP_Programming__results.json'), 'utf8')) as {
    traceEvents: Array<{ ph?: string; pid?: string; args?: { BeginNs?: string } }>;
  };
  const firstGpu = doc.traceEvents
    .filter((e) => e.ph === 'X' && (e.pid === '1' || e.pid === '10'))
    .map((e) => BigInt(e.args?.BeginNs as string))
    .reduce((m, v) => (v < m ? v : m));
  assert.equal(a.wall?.startNs, Number(firstGpu));
  for (const asNumbers of [false, true]) {
    const b = traceSummarySchema.parse(await summarizePath(v1Folder(`v1-wide-${asNumbers}`, SHIFT, asNumbers)));
    assert.deepEqual(clockFree(b), clockFree(a), asNumbers ? 'numbers' : 'strings');
    assert.deepEqual(
      b.checks.map((c) => c.mismatches),
      [[], [], []],
      'the stats files of the same run agree',
    );
    assert.equal(b.wall?.startNsExact, String(firstGpu + SHIFT));
  }
});
