// Kernels per rocTX range, on files written in rocprofv3's real layouts (ROCm 7.0 headers, `<pid>_` prefixes) and
// on the real rocpd database with marker regions added: by correlation id to the launch call, innermost range on
// the launching thread; by GPU time only without an API trace, and flagged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, rmSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { summarizePath, type TraceSummary } from '../../../src/trace/index';
import { fixture, tempDir } from './helpers';
import { A, B, C, LAUNCHES, PID, RANGES, writeRun } from './rangeRuns';

function rangeKernels(s: TraceSummary): Record<string, Array<[string, number, number]>> {
  return Object.fromEntries(
    s.markers.map((m) => [m.name, m.kernels.map((k) => [k.name, k.calls, k.totalNs] as [string, number, number])]),
  );
}

test('by correlation id: kernels that ran after their range closed stay in it; threads and nesting kept apart', async () => {
  const dir = tempDir('ranges');
  try {
    writeRun(dir);
    const s = await summarizePath(dir);
    assert.deepEqual(rangeKernels(s), {
      'benchmark 0: n: 1024; seed: 1': [[A, 2, 300]],
      worker: [[B, 1, 30]],
      checkpoint: [],
      'benchmark 1: n: 2048; seed: 2': [
        [A, 1, 100],
        [C, 1, 40],
      ],
      inner: [[C, 1, 40]],
    });
    for (const m of s.markers) assert.equal(m.kernelAttribution, m.kernels.length ? 'correlation' : null, m.name);
    assert.deepEqual(s.rangeAttribution, { by: 'correlation', dispatches: 8, inRanges: 6 });
    assert.ok(!s.warnings.some((w) => w.includes('rocTX')), 'no fallback warning');
    // the kernel table itself is unchanged by the attribution
    assert.deepEqual(
      s.kernels.map((k) => [k.name, k.calls]),
      [
        [A, 4],
        [C, 2],
        [B, 2],
      ],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('without an API trace: by GPU time on the launching thread, flagged, and kernels after their range are missed', async () => {
  const dir = tempDir('ranges-overlap');
  try {
    writeRun(dir, { hip: false });
    const s = await summarizePath(dir);
    const k = rangeKernels(s);
    // only the dispatch that started on the GPU while its range was open lands in it
    assert.deepEqual(k['benchmark 0: n: 1024; seed: 1'], [[A, 1, 200]]);
    assert.deepEqual(k['benchmark 1: n: 2048; seed: 2'], []);
    assert.equal(s.markers.find((m) => m.name.startsWith('benchmark 0'))?.kernelAttribution, 'gpu-overlap');
    assert.deepEqual(s.rangeAttribution, { by: 'gpu-overlap', dispatches: 8, inRanges: 1, otherThread: 0 });
    const w = s.warnings.find((x) => x.startsWith('rocTX ranges: no API trace'));
    assert.ok(w, `a warning says so: ${s.warnings.join(' | ')}`);
    assert.match(w, /1 of 8 dispatches/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a range not tied to a thread (thread id 0, roctxRangeStart) counts on every thread; the later-started range is inner', async () => {
  const dir = tempDir('ranges-any');
  try {
    const ranges: typeof RANGES = [
      ['whole run', 0, 500, 9000],
      ['benchmark 0: n: 1', 100, 1000, 2000],
    ];
    writeRun(dir, { ranges });
    const s = await summarizePath(dir);
    const k = rangeKernels(s);
    assert.deepEqual(k['benchmark 0: n: 1'], [[A, 2, 300]]);
    // every other launch (threads 200 and 300 included) was made while `whole run` was open
    assert.deepEqual(k['whole run'], [
      [A, 2, 200],
      [C, 2, 80],
      [B, 2, 60],
    ]);
    assert.deepEqual(s.rangeAttribution, { by: 'correlation', dispatches: 8, inRanges: 8 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('no marker trace: no ranges, no attribution, nothing else changes', async () => {
  const dir = tempDir('ranges-none');
  try {
    writeRun(dir);
    unlinkSync(path.join(dir, `${PID}_marker_api_trace.csv`));
    const s = await summarizePath(dir);
    assert.deepEqual(s.markers, []);
    assert.equal(s.rangeAttribution, null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('rocpd: the real database with two marker ranges added; dispatches follow stack_id to their launch region', async () => {
  const dir = tempDir('ranges-rocpd');
  try {
    const db = path.join(dir, `${PID}_results.db`);
    copyFileSync(fixture('batched_gemm__28_results.db'), db);
    const sql = new Database(db);
    const suffix = '00003fdc_92cb_72cb_9169_c7e541b1fcdf';
    // launch calls in time order; the first range holds the first 60, the second the rest
    const launches = sql
      .prepare('SELECT start, "end" FROM regions WHERE stack_id IN (SELECT stack_id FROM kernels) ORDER BY start')
      .all() as Array<{ start: number; end: number }>;
    assert.equal(launches.length, 151);
    const cut = (launches[60] as { start: number }).start;
    const first = (launches[0] as { start: number }).start - 1;
    const last = (launches[150] as { end: number }).end + 1;
    const str = (s: string): number => {
      const known = sql.prepare(`SELECT id FROM rocpd_string_${suffix} WHERE string = ?`).get(s) as
        { id: number } | undefined;
      return known
        ? known.id
        : Number(sql.prepare(`INSERT INTO rocpd_string_${suffix} (string) VALUES (?)`).run(s).lastInsertRowid);
    };
    const category = str('MARKER_CORE_API');
    const region = sql.prepare(`SELECT nid, pid, tid FROM rocpd_region_${suffix} LIMIT 1`).get() as {
      nid: number;
      pid: number;
      tid: number;
    };
    const addRange = (name: string, start: number, end: number): void => {
      const ev = Number(
        sql
          .prepare(
            `INSERT INTO rocpd_event_${suffix} (category_id, stack_id, parent_stack_id, correlation_id) VALUES (?, ?, 0, 0)`,
          )
          .run(category, 900000 + (start % 1000)).lastInsertRowid,
      );
      sql
        .prepare(
          `INSERT INTO rocpd_region_${suffix} (nid, pid, tid, start, "end", name_id, event_id) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(region.nid, region.pid, region.tid, start, end, str(name), ev);
    };
    addRange('benchmark 0: m: 256', first, cut - 1);
    addRange('benchmark 1: m: 512', cut - 1, last);
    // expected from SQL: the kernels whose launch region started inside each range
    const expected = (from: number, to: number) =>
      (
        sql
          .prepare(
            `SELECT k.name AS name, COUNT(*) AS calls, SUM(k."end" - k.start) AS total FROM kernels k JOIN regions r ON r.stack_id = k.stack_id
                    WHERE r.category NOT LIKE 'MARKER%' AND r.start >= ? AND r.start <= ? GROUP BY k.name ORDER BY total DESC`,
          )
          .all(from, to) as Array<{ name: string; calls: number; total: number }>
      ).map((r) => [r.name, r.calls, r.total]);
    const want0 = expected(first, cut - 2);
    const want1 = expected(cut, last);
    sql.close();

    const s = await summarizePath(db);
    const k = rangeKernels(s);
    assert.deepEqual(k['benchmark 0: m: 256'], want0);
    assert.deepEqual(k['benchmark 1: m: 512'], want1);
    assert.equal(
      want0.reduce((n, r) => n + (r[1] as number), 0),
      60,
    );
    assert.equal(
      want1.reduce((n, r) => n + (r[1] as number), 0),
      91,
    );
    assert.deepEqual(s.rangeAttribution, { by: 'correlation', dispatches: 151, inRanges: 151 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('sparse correlation ids (far apart, as after merging processes) give the same attribution', async () => {
  const dir = tempDir('ranges-sparse');
  try {
    writeRun(dir, { launches: LAUNCHES.map((l) => ({ ...l, corr: l.corr * 1_000_000_007 })) });
    const s = await summarizePath(dir);
    assert.deepEqual(rangeKernels(s)['benchmark 1: n: 2048; seed: 2'], [
      [A, 1, 100],
      [C, 1, 40],
    ]);
    assert.deepEqual(rangeKernels(s).inner, [[C, 1, 40]]);
    assert.deepEqual(s.rangeAttribution, { by: 'correlation', dispatches: 8, inRanges: 6 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
