// Legacy rocprof (v1): results.json (chrome trace) read as the data, its stats CSVs of the same run as the check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { summarizePath } from '../../../src/trace/index';
import { traceSummarySchema } from '../../../src/core/protocol/traceSummary';
import { fixture, parseCsvReference, tempDir } from './helpers';

const FILES = [
  'results.json',
  'results.stats.csv',
  'results.copy_stats.csv',
  'results.hip_stats.csv',
  'results.sysinfo.txt',
  'output_vec_add_gpu.csv',
  'input.txt',
];

function v1Folder(): string {
  const dir = tempDir('v1');
  for (const f of FILES) copyFileSync(fixture(`HIP_Programming__${f}`), path.join(dir, f));
  return dir;
}

function stats(name: string): Array<{ name: string; calls: number; total: number; pct: number }> {
  const [, ...rows] = parseCsvReference(readFileSync(fixture(`HIP_Programming__${name}`), 'utf8'));
  return rows.map((r) => ({ name: r[0] as string, calls: Number(r[1]), total: Number(r[2]), pct: Number(r[4]) }));
}

test('totals from results.json equal the stats files of the same run (kernels, copies, HIP API)', async () => {
  const s = traceSummarySchema.parse(await summarizePath(v1Folder()));
  assert.deepEqual(
    s.sources.map((x) => [x.path, x.format, x.variant]),
    [['results.json', 'rocprof-v1-json', 'v1']],
  );

  const kernelStats = stats('results.stats.csv');
  assert.deepEqual(
    s.kernels.map((k) => [k.name, k.calls, k.totalNs]),
    kernelStats.map((r) => [r.name, r.calls, r.total]),
  );
  assert.equal(s.kernels[0]?.shortName, 'vector_add');
  s.kernels.forEach((k, i) => assert.ok(Math.abs(k.percent - (kernelStats[i]?.pct as number)) < 1e-9));

  const copyStats = stats('results.copy_stats.csv');
  assert.deepEqual(
    s.memoryCopies.map((c) => [c.direction, c.calls, c.totalNs]),
    copyStats.map((r) => [r.name === 'CopyDeviceToHost' ? 'DEVICE_TO_HOST' : 'HOST_TO_DEVICE', r.calls, r.total]),
  );

  const hipStats = stats('results.hip_stats.csv');
  assert.equal(s.api.length, hipStats.length);
  for (const r of hipStats) {
    const a = s.api.find((x) => x.name === r.name);
    assert.deepEqual([a?.calls, a?.totalNs], [r.calls, r.total], r.name);
    assert.ok(Math.abs((a?.percent as number) - r.pct) < 1e-9, `${r.name}: ${a?.percent} vs ${r.pct}`);
  }

  // and the toolkit says so itself
  assert.equal(s.checks.length, 3);
  for (const c of s.checks) assert.deepEqual(c.mismatches, [], c.what);
  assert.deepEqual(s.checks.map((c) => c.compared).sort(), [1, 2, 7]);
});

test('agent, busy union and skipped files of the legacy set', async () => {
  const s = await summarizePath(v1Folder());
  // dev-id 4 is HSA agent index 4 = rocminfo's Agent5 (four CPU agents first): gfx942 with 228 CUs
  assert.deepEqual(
    s.agents.map((a) => [a.id, a.type, a.name, a.productName, a.cuCount]),
    [['Agent 4', 'GPU', 'gfx942', 'AMDInstinctMI300A', 228]],
  );
  const doc = JSON.parse(readFileSync(fixture('HIP_Programming__results.json'), 'utf8')) as {
    traceEvents: Array<{ ph?: string; pid?: string; args?: { BeginNs?: string; EndNs?: string } }>;
  };
  const gpuWork = doc.traceEvents
    .filter((e) => e.ph === 'X' && (e.pid === '1' || e.pid === '10'))
    .map((e) => [Number(e.args?.BeginNs), Number(e.args?.EndNs)]);
  assert.equal(gpuWork.length, 4);
  const start = Math.min(...gpuWork.map((w) => w[0] as number));
  const end = Math.max(...gpuWork.map((w) => w[1] as number));
  assert.deepEqual(s.wall, { startNs: start, endNs: end, spanNs: end - start });
  const agent = s.agents[0];
  // the kernel ran between the copies here: nothing overlaps, so union = sum
  assert.equal(
    agent?.busyNs,
    gpuWork.reduce((t, w) => t + (w[1] as number) - (w[0] as number), 0),
  );
  assert.deepEqual(s.processes, [{ pid: 19147, host: null, command: null }]);
  const reasons = new Map(s.skipped.map((x) => [x.path, x.reason]));
  assert.match(reasons.get('output_vec_add_gpu.csv') ?? '', /without start\/end timestamps/);
  assert.match(reasons.get('results.stats.csv') ?? '', /cross-check/);
  assert.match(reasons.get('input.txt') ?? '', /not a rocprof output/);
});

test('legacy stats files alone are the data (count and total, no min/max)', async () => {
  const dir = tempDir('v1stats');
  copyFileSync(fixture('HIP_Programming__results.stats.csv'), path.join(dir, 'results.stats.csv'));
  copyFileSync(fixture('HIP_Programming__results.copy_stats.csv'), path.join(dir, 'results.copy_stats.csv'));
  const s = await summarizePath(dir);
  assert.deepEqual(s.sources.map((x) => [x.format, x.kind]).sort(), [
    ['rocprof-v1-stats', 'copy_stats'],
    ['rocprof-v1-stats', 'kernel_stats'],
  ]);
  assert.deepEqual(
    s.kernels.map((k) => [k.name, k.calls, k.totalNs, k.minNs, k.maxNs, k.stddevNs]),
    [['vector_add(float*, float*, float*, int)', 1, 3431611, null, null, null]],
  );
  assert.deepEqual(
    s.memoryCopies.map((c) => [c.direction, c.calls, c.totalNs]),
    [
      ['DEVICE_TO_HOST', 1, 885689740],
      ['HOST_TO_DEVICE', 2, 180717650],
    ],
  );
  assert.equal(s.wall, null, 'stats have no timestamps');
  assert.equal(s.timeline, null);
});

test('a stats file that disagrees with its trace is reported in checks', async () => {
  const dir = tempDir('v1bad');
  copyFileSync(fixture('HIP_Programming__results.json'), path.join(dir, 'results.json'));
  // the rocprofv3 docs' hip_api_stats.csv comes from another run: every row must be flagged
  copyFileSync(fixture('rocm-systems__sdkdocs__hip_api_stats.csv'), path.join(dir, 'results.hip_stats.csv'));
  const s = await summarizePath(dir);
  const check = s.checks.find((c) => c.what.includes('results.hip_stats.csv'));
  assert.ok(check);
  assert.equal(check.compared, 17);
  assert.ok(check.mismatches.length >= 17, check.mismatches.join('\n'));
  assert.ok(check.mismatches.includes('hipMalloc: in the trace, not in the stats file'));
  assert.ok(check.mismatches.includes('hipFree: trace 3 calls 769039526 ns, stats 12 calls 1994421 ns'));
});
