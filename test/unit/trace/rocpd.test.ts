// The real rocpd database: our numbers against the database's own views, queried here with a different SQLite
// (better-sqlite3, native; dev-only) than the reader uses (sql.js, WASM).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { summarizePath } from '../../../src/trace/index';
import { traceSummarySchema } from '../../../src/core/protocol/traceSummary';
import { fixture, unionLength } from './helpers';

const DB = fixture('batched_gemm__28_results.db');

function query<T>(sql: string): T[] {
  const db = new Database(DB, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

test('kernel rows equal the database top_kernels view (microseconds)', async () => {
  const s = traceSummarySchema.parse(await summarizePath(DB));
  const top = query<{ name: string; total_calls: number; total_duration: number; average: number; percentage: number }>(
    'SELECT * FROM top_kernels',
  );
  assert.equal(top.length, 2);
  assert.equal(s.kernels.length, top.length);
  top.forEach((row, i) => {
    const k = s.kernels[i];
    assert.ok(k, `row ${i}`);
    assert.equal(k.name, row.name, 'same order: by total time');
    assert.equal(k.calls, row.total_calls);
    assert.equal(k.totalNs / 1000, row.total_duration);
    // the view divides integers: (SUM / COUNT) truncated, then / 1000.0
    assert.equal(Math.trunc(k.avgNs) / 1000, row.average);
    assert.ok(Math.abs(k.percent - row.percentage) < 1e-9, `${k.percent} vs ${row.percentage}`);
  });
  assert.equal(s.kernels[0]?.name.length, 3519);
  assert.equal(s.kernels[0]?.shortName, 'ck_tile::kentry<1, BatchedGemmKernel<…>, BatchedGemmKernelArgs>');
  assert.deepEqual(
    s.checks.map((c) => [c.compared, c.mismatches]),
    [
      [2, []],
      [1, []],
    ],
  );
});

test('min, max, stddev and launch configurations match the kernels view', async () => {
  const s = await summarizePath(DB);
  const rows = query<{ name: string; n: number; mn: number; mx: number; mean: number; sq: number }>(
    'SELECT name, COUNT(*) AS n, MIN(duration) AS mn, MAX(duration) AS mx, AVG(duration) AS mean, SUM(duration * duration) AS sq FROM kernels GROUP BY name',
  );
  for (const r of rows) {
    const k = s.kernels.find((x) => x.name === r.name);
    assert.equal(k?.minNs, r.mn);
    assert.equal(k?.maxNs, r.mx);
    const sampleVar = r.n > 1 ? (r.sq - r.n * r.mean * r.mean) / (r.n - 1) : 0;
    assert.ok(Math.abs((k?.stddevNs as number) - Math.sqrt(sampleVar)) < 1e-6 * Math.sqrt(sampleVar) + 1e-9);
  }
  const launches = query<{
    name: string;
    grid_x: number;
    grid_y: number;
    grid_z: number;
    workgroup_x: number;
    vgpr_count: number;
    accum_vgpr_count: number;
    sgpr_count: number;
    lds_size: number;
    scratch_size: number;
    n: number;
  }>(
    'SELECT name, grid_x, grid_y, grid_z, workgroup_x, vgpr_count, accum_vgpr_count, sgpr_count, lds_size, scratch_size, COUNT(*) AS n FROM kernels GROUP BY 1,2,3,4,5,6,7,8,9,10',
  );
  assert.equal(launches.length, 2);
  for (const l of launches) {
    const k = s.kernels.find((x) => x.name === l.name);
    assert.deepEqual(k?.launches, [
      {
        grid: [l.grid_x, l.grid_y, l.grid_z],
        workgroup: [l.workgroup_x, 1, 1],
        vgpr: l.vgpr_count,
        accumVgpr: l.accum_vgpr_count,
        sgpr: l.sgpr_count,
        ldsBytes: l.lds_size,
        scratchBytes: l.scratch_size,
        calls: l.n,
      },
    ]);
  }
});

test('GPU busy: union of the dispatches, checked against the busy view (which sums them)', async () => {
  const s = await summarizePath(DB);
  const busy = query<{ agent_id: number; type: string; GpuTime: number; WallTime: number; Busy: number }>(
    'SELECT * FROM busy',
  );
  assert.equal(busy.length, 1);
  const view = busy[0] as { agent_id: number; GpuTime: number; WallTime: number };
  const intervals = query<{ start: number; end: number }>('SELECT start, "end" FROM kernels').map(
    (r) => [r.start, r.end] as [number, number],
  );
  const agent = s.agents.find((a) => a.id === `Agent ${view.agent_id}`);
  assert.ok(agent);
  assert.equal(agent.kernelNs + agent.copyNs, view.GpuTime, 'the same sum as the view');
  assert.equal(s.wall?.spanNs, view.WallTime);
  assert.equal(agent.busyNs, unionLength(intervals));
  assert.ok(agent.busyNs < view.GpuTime, 'this trace has overlapping dispatches: union < sum');
  assert.ok(Math.abs((agent.busyPercent as number) - (100 * agent.busyNs) / view.WallTime) < 1e-9);
  assert.equal(agent.busyExact, true);
});

test('agents, process, API regions and copies come from the database views', async () => {
  const s = await summarizePath(DB);
  const gpus = query<{ absolute_index: number; name: string; product_name: string }>(
    "SELECT absolute_index, name, product_name FROM rocpd_info_agent WHERE type = 'GPU'",
  );
  assert.equal(s.agents.length, gpus.length, 'every GPU of the node is listed, idle ones too');
  for (const g of gpus) {
    const a = s.agents.find((x) => x.id === `Agent ${g.absolute_index}`);
    assert.deepEqual([a?.type, a?.name, a?.productName, a?.cuCount], ['GPU', g.name, g.product_name, 304]);
  }
  assert.equal(s.agents[0]?.id, 'Agent 2', 'the busy one first');
  assert.deepEqual(s.processes, [
    { pid: 28, host: '37ca13315e70', command: './bin/tile_example_batched_gemm -m=128 -k=128 -n=512 -batch_count=128' },
  ]);

  const regions = query<{ name: string; n: number; total: number }>(
    'SELECT name, COUNT(*) AS n, SUM(duration) AS total FROM regions GROUP BY name',
  );
  assert.equal(s.apiTotals.distinct, regions.length);
  assert.equal(
    s.apiTotals.calls,
    regions.reduce((t, r) => t + r.n, 0),
  );
  for (const r of regions) {
    const a = s.api.find((x) => x.name === r.name);
    assert.deepEqual([a?.calls, a?.totalNs], [r.n, r.total], r.name);
  }
  // the `top` view covers API regions too (µs)
  const hipMalloc = query<{ total_calls: number; total_duration: number }>(
    "SELECT * FROM top WHERE name = 'hipMalloc'",
  )[0];
  assert.equal((s.api.find((a) => a.name === 'hipMalloc')?.totalNs as number) / 1000, hipMalloc?.total_duration);
  assert.equal(query<{ n: number }>('SELECT COUNT(*) AS n FROM memory_copies')[0]?.n, 0);
  assert.deepEqual(s.memoryCopies, []);
  assert.deepEqual(
    s.sources.map((x) => [x.format, x.variant]),
    [['rocpd', 'rocpd-schema-3']],
  );
});
