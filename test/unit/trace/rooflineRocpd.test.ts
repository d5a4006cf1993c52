// Counters of a rocpd database (rocprofv3 --pmc with rocpd output): read through its pmc_events view, a counter's
// instances summed per dispatch (as rocpd's counters_collection view), into the same roofline as the CSV layouts.
// The database is a real rocpd file (GPU MODE batched_gemm, 151 dispatches on gfx942) with counter rows added in
// its own tables.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import initSqlJs from 'sql.js';
import { summarizePath } from '../../../src/trace/index';
import { fixture, tempDir } from './helpers';

test('rocpd counters: per kernel means of the summed instances, duration from the dispatch, arch from the agents', async () => {
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(fixture('batched_gemm__28_results.db')));
  const suffix = String(
    db.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_pmc_event_%'")[0]?.values[0]?.[0],
  ).slice('rocpd_pmc_event'.length);
  const dispatches = (db.exec('SELECT event_id, dispatch_id, guid, nid, pid, agent_id FROM rocpd_kernel_dispatch')[0]
    ?.values ?? []) as Array<[number, number, string, number, number, number]>;
  const [, , guid, nid, pid, agent] = dispatches[0] as [number, number, string, number, number, number];
  const counters = ['TCP_TOTAL_CACHE_ACCESSES_sum', 'TCC_EA0_RDREQ_sum', 'SQ_INSTS_VALU_ADD_F32'];
  counters.forEach((name, i) => {
    db.run(
      `INSERT INTO rocpd_info_pmc${suffix} (id, guid, nid, pid, agent_id, target_arch, name, symbol, value_type, is_constant, is_derived) VALUES (?, ?, ?, ?, ?, 'GPU', ?, ?, 'ABS', 0, 0)`,
      [i + 1, guid, nid, pid, agent, name, name],
    );
  });
  for (const [eventId, dispatchId] of dispatches) {
    // two instances of one counter: summed
    db.run(`INSERT INTO rocpd_pmc_event${suffix} (guid, event_id, pmc_id, value) VALUES (?, ?, 1, ?)`, [
      guid,
      eventId,
      dispatchId * 10,
    ]);
    db.run(`INSERT INTO rocpd_pmc_event${suffix} (guid, event_id, pmc_id, value) VALUES (?, ?, 1, ?)`, [
      guid,
      eventId,
      5,
    ]);
    db.run(`INSERT INTO rocpd_pmc_event${suffix} (guid, event_id, pmc_id, value) VALUES (?, ?, 2, ?)`, [
      guid,
      eventId,
      3,
    ]);
    db.run(`INSERT INTO rocpd_pmc_event${suffix} (guid, event_id, pmc_id, value) VALUES (?, ?, 3, ?)`, [
      guid,
      eventId,
      1,
    ]);
  }
  const expected = new Map<string, { n: number; l1: number; dur: number }>();
  for (const [
    name,
    dispatchId,
    dur,
  ] of (db.exec(`SELECT S.display_name, K.dispatch_id, K."end" - K.start FROM rocpd_kernel_dispatch K
      JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid`)[0]?.values ?? []) as Array<
    [string, number, number]
  >) {
    const e = expected.get(name) ?? { n: 0, l1: 0, dur: 0 };
    e.n++;
    e.l1 += (dispatchId * 10 + 5) * 64;
    e.dur += dur;
    expected.set(name, e);
  }
  const dir = tempDir('rocpd-pmc');
  const file = path.join(dir, 'run_results.db');
  writeFileSync(file, Buffer.from(db.export()));
  db.close();

  const s = await summarizePath(file);
  const r = s.roofline;
  assert.ok(r);
  assert.equal(r.source.format, 'rocpd-db');
  assert.equal(r.source.arch, 'gfx942');
  assert.equal(r.kernels.length, expected.size);
  for (const k of r.kernels) {
    const e = expected.get(k.name);
    assert.ok(e, k.name);
    assert.equal(k.dispatches, e.n);
    assert.equal(k.l1Bytes, e.l1 / e.n);
    assert.equal(k.durationNs, e.dur / e.n);
    // VALU F32 only: the 16-counter FLOP stage lacks its other counters, so FLOPs are 0 and the lack is said
    assert.equal(k.flops, 0);
  }
  const missing = new Map(r.missing.map((m) => [m.quantity, m.counters]));
  assert.ok(missing.get('flops')?.includes('SQ_INSTS_VALU_ADD_F16'));
  assert.ok(missing.get('hbmBytes')?.includes('TCC_BUBBLE_sum'));
  assert.ok(s.speedOfLight?.missing.some((m) => m.quantity === 'L2-Fabric Read BW'));
});
