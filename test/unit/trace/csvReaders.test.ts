// rocprofv3 CSV variants through summarizePath, checked against a reference computed in the test from the same
// files (reference CSV parser + plain arithmetic), never against copied output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { summarizePath } from '../../../src/trace/index';
import { traceSummarySchema, type TraceSummary } from '../../../src/core/protocol/traceSummary';
import {
  fixture,
  parseCsvReference,
  referenceKernels,
  reshapeCsv,
  tempDir,
  toRocprofCsv,
  unionLength,
} from './helpers';

function assertKernelsMatchReference(summary: TraceSummary, file: string): void {
  const ref = referenceKernels(file);
  assert.equal(summary.kernels.length, ref.kernels.size);
  let total = 0;
  for (const [name, r] of ref.kernels) {
    const k = summary.kernels.find((x) => x.name === name);
    assert.ok(k, `kernel ${name}`);
    assert.equal(k.calls, r.calls, name);
    assert.equal(k.totalNs, r.total, name);
    assert.equal(k.minNs, r.min, name);
    assert.equal(k.maxNs, r.max, name);
    assert.ok(
      Math.abs((k.stddevNs as number) - r.stddev) < 1e-6 * Math.max(1, r.stddev),
      `${name} stddev ${k.stddevNs} vs ${r.stddev}`,
    );
    assert.ok(Math.abs(k.avgNs - r.total / r.calls) < 1e-9 * r.total, name);
    total += r.total;
  }
  assert.equal(summary.kernelTotals.totalNs, total);
  const pct = summary.kernels.reduce((s, k) => s + k.percent, 0);
  assert.ok(Math.abs(pct - 100) < 1e-9, `percents sum to ${pct}`);
  for (let i = 1; i < summary.kernels.length; i++) {
    assert.ok(
      (summary.kernels[i - 1]?.totalNs as number) >= (summary.kernels[i]?.totalNs as number),
      'sorted by totalNs',
    );
  }
  const starts = ref.intervals.map((i) => i[0]);
  const ends = ref.intervals.map((i) => i[1]);
  assert.deepEqual(summary.wall, {
    startNs: Math.min(...starts),
    endNs: Math.max(...ends),
    spanNs: Math.max(...ends) - Math.min(...starts),
  });
}

test('ROCm 7.0 kernel_trace.csv: per-kernel numbers, launch configurations, busy union, timeline', async () => {
  const file = fixture('rocm-systems__sdkdocs__kernel_trace.csv');
  const s = traceSummarySchema.parse(await summarizePath(file, { buckets: 20 }));
  assertKernelsMatchReference(s, file);
  assert.deepEqual(
    s.sources.map((x) => [x.kind, x.variant, x.rows]),
    [['kernel_trace', 'rocm-7.0', 9]],
  );

  const divide = s.kernels.find((k) => k.shortName === 'divide_kernel');
  assert.deepEqual(divide?.launches, [
    {
      grid: [1024, 1024, 1],
      workgroup: [64, 1, 1],
      vgpr: 12,
      accumVgpr: 4,
      sgpr: 16,
      ldsBytes: 0,
      scratchBytes: 0,
      calls: 2,
    },
  ]);
  assert.deepEqual(divide?.agentIds, ['Agent 4']);
  assert.equal(s.kernels.find((k) => k.name.startsWith('void addition_kernel'))?.shortName, 'addition_kernel<float>');

  const ref = referenceKernels(file);
  const agent = s.agents.find((a) => a.id === 'Agent 4');
  assert.equal(agent?.busyNs, unionLength(ref.intervals));
  assert.equal(agent?.kernelNs, s.kernelTotals.totalNs);
  assert.equal(agent?.kernelCalls, 9);
  assert.equal(agent?.busyPercent, ((agent?.busyNs as number) / (s.wall?.spanNs as number)) * 100);

  assert.equal(s.timeline?.buckets, 20);
  assert.equal(s.timeline?.exact, true);
  const lane = s.timeline?.agents[0]?.busyFraction ?? [];
  assert.equal(lane.length, 20);
  // the lane integrates back to the busy time
  const integrated = lane.reduce((a, f) => a + f * (s.timeline?.bucketNs as number), 0);
  assert.ok(Math.abs(integrated - (agent?.busyNs as number)) < 1, `${integrated} vs ${agent?.busyNs}`);
});

test('ROCm 6.3 kernel_trace.csv (integer agents, segment sizes) and a 6.2 header built from it', async () => {
  const file = fixture('rocprofiler-sdk-0.5.0__sdkdocs__kernel_trace.csv');
  const s = await summarizePath(file);
  assertKernelsMatchReference(s, file);
  assert.equal(s.sources[0]?.variant, 'rocm-6.3');
  assert.deepEqual(s.kernels.find((k) => k.shortName === 'subtract_kernel')?.launches, [
    {
      grid: [1024, 1024, 1],
      workgroup: [64, 1, 1],
      vgpr: null,
      accumVgpr: null,
      sgpr: null,
      ldsBytes: 0,
      scratchBytes: 0,
      calls: 2,
    },
  ]);
  assert.deepEqual(
    s.agents.map((a) => a.id),
    ['Agent 1'],
  );
  // rows of different queues overlap here: the union is less than the sum
  const a = s.agents[0];
  assert.ok(a && a.busyNs < a.kernelNs);
  assert.equal(a?.busyNs, unionLength(referenceKernels(file).intervals));

  // ROCm 6.2: same without Thread_Id and Dispatch_Id
  const dir = tempDir('v62');
  const v62 = path.join(dir, '1234_kernel_trace.csv');
  writeFileSync(
    v62,
    reshapeCsv(readFileSync(file, 'utf8'), (h, rows) => {
      const keep = h.map((name, i) => (name === 'Thread_Id' || name === 'Dispatch_Id' ? -1 : i)).filter((i) => i >= 0);
      return [keep.map((i) => h[i] as string), rows.map((r) => keep.map((i) => r[i] as string))];
    }),
  );
  const s62 = await summarizePath(v62);
  assert.equal(s62.sources[0]?.variant, 'rocm-6.2');
  assert.equal(s62.sources[0]?.pid, 1234);
  assertKernelsMatchReference(s62, v62);
});

test('rocpd convert CSVs: the Guid API trace fixture and a Guid kernel trace', async () => {
  const api = fixture('rocm-systems__sdkdocs__rocpd-to-csv.csv');
  const s = await summarizePath(api);
  assert.equal(s.sources[0]?.variant, 'rocpd-convert');
  assert.equal(s.sources[0]?.kind, 'api_trace');
  const [header, ...rows] = parseCsvReference(readFileSync(api, 'utf8'));
  const h = header as string[];
  const fn = h.indexOf('Function');
  const expected = new Map<string, { calls: number; total: number }>();
  for (const r of rows) {
    const e = expected.get(r[fn] as string) ?? { calls: 0, total: 0 };
    e.calls++;
    e.total += Number(r[h.indexOf('End_Timestamp')]) - Number(r[h.indexOf('Start_Timestamp')]);
    expected.set(r[fn] as string, e);
  }
  assert.equal(s.api.length, expected.size);
  for (const a of s.api) assert.deepEqual({ calls: a.calls, total: a.totalNs }, expected.get(a.name), a.name);
  assert.equal(s.apiTotals.calls, 13);
  const hipFamilyPct = s.api.reduce((t, a) => t + a.percent, 0);
  assert.ok(Math.abs(hipFamilyPct - 100) < 1e-9);
  assert.deepEqual(s.processes, [{ pid: 137, host: null, command: null }]);
  assert.equal(s.kernels.length, 0);
  assert.equal(s.wall, null);

  // `rocpd convert` kernel CSV: a leading Guid column (header as in rocpd's csv.cpp)
  const dir = tempDir('guid');
  const guidKernels = path.join(dir, 'out_kernel_trace.csv');
  writeFileSync(
    guidKernels,
    reshapeCsv(readFileSync(fixture('rocm-systems__sdkdocs__kernel_trace.csv'), 'utf8'), (hh, rr) => [
      ['Guid', ...hh],
      rr.map((r) => ['0000ddb5-8903-7903-b269-cd8d3745bb8a', ...r]),
    ]),
  );
  const sk = await summarizePath(guidKernels);
  assert.equal(sk.sources[0]?.variant, 'rocpd-convert');
  assertKernelsMatchReference(sk, guidKernels);
});

test('memory copies by direction (7.0 and 6.3), attributed to the GPU end', async () => {
  for (const [name, variant, gpu] of [
    ['rocm-systems__sdkdocs__memory_copy_trace.csv', 'rocm-7.0', 'Agent 4'],
    ['rocprofiler-sdk-0.5.0__sdkdocs__memory_copy_trace.csv', 'rocm-6.x', 'Agent 1'],
  ] as const) {
    const file = fixture(name);
    const s = await summarizePath(file);
    assert.equal(s.sources[0]?.variant, variant);
    const [header, ...rows] = parseCsvReference(readFileSync(file, 'utf8'));
    const h = header as string[];
    const byDir = new Map<string, { calls: number; total: number }>();
    let sum = 0;
    for (const r of rows) {
      const dir = (r[h.indexOf('Direction')] as string).replace('MEMORY_COPY_', '');
      const d = Number(r[h.indexOf('End_Timestamp')]) - Number(r[h.indexOf('Start_Timestamp')]);
      const e = byDir.get(dir) ?? { calls: 0, total: 0 };
      e.calls++;
      e.total += d;
      sum += d;
      byDir.set(dir, e);
    }
    assert.deepEqual(new Map(s.memoryCopies.map((c) => [c.direction, { calls: c.calls, total: c.totalNs }])), byDir);
    assert.ok(
      s.memoryCopies.every((c) => c.bytes === null && c.bandwidthGBps === null),
      'CSV has no byte counts',
    );
    const agent = s.agents.find((a) => a.id === gpu);
    assert.equal(agent?.copyNs, sum);
    assert.equal(agent?.kernelCalls, 0);
    assert.deepEqual(
      s.agents.map((a) => a.id),
      [gpu],
      'the host side of a copy is not a busy GPU',
    );
  }
});

test('rocTX marker ranges and HIP/HSA API traces', async () => {
  const dir = tempDir('api');
  copyFileSync(fixture('rocm-systems__sdkdocs__marker_api_trace.csv'), path.join(dir, '717_marker_api_trace.csv'));
  copyFileSync(fixture('rocm-systems__sdkdocs__hip_runtime_trace.csv'), path.join(dir, '238_hip_api_trace.csv'));
  copyFileSync(fixture('rocm-systems__sdkdocs__hsa_api_trace.csv'), path.join(dir, '197_hsa_api_trace.csv'));
  const s = traceSummarySchema.parse(await summarizePath(dir));
  assert.deepEqual(
    s.markers.map((m) => [m.name, m.calls, m.totalNs]),
    [
      ['hipLaunchKernel range', 1, 1520113901495882 - 1520113899682208],
      ['hipLaunchKernel', 1, 1520113901491622 - 1520113899684965],
      ['hipMemcpy', 1, 1520113901483408 - 1520113900141100],
      ['after hipLaunchKernel', 1, 0],
      ['before hipLaunchKernel', 1, 0],
    ],
  );
  const memcpy = s.api.find((a) => a.name === 'hipMemcpy' && a.domain === 'HIP_RUNTIME_API_EXT');
  assert.deepEqual(
    [memcpy?.calls, memcpy?.totalNs],
    [2, 1191916547828448 - 1191915691439107 + (1191916550217834 - 1191916548412677)],
  );
  const hsa = s.api.filter((a) => a.domain?.startsWith('HSA'));
  assert.equal(
    hsa.reduce((t, a) => t + a.calls, 0),
    10,
  );
  assert.ok(Math.abs(hsa.reduce((t, a) => t + a.percent, 0) - 100) < 1e-9, 'percent is within the API family');
  assert.deepEqual(
    s.processes.map((p) => p.pid),
    [197, 238, 717],
  );
  assert.deepEqual(s.sources.map((x) => x.kind).sort(), ['hip_api_trace', 'hsa_api_trace', 'marker_api_trace']);
});

test('a stats file alone stands in for its trace (min, max and stddev from the file)', async () => {
  const s = await summarizePath(fixture('rocm-systems__sdkdocs__hip_api_stats.csv'));
  assert.equal(s.sources[0]?.format, 'rocprofv3-stats');
  const [header, ...rows] = parseCsvReference(
    readFileSync(fixture('rocm-systems__sdkdocs__hip_api_stats.csv'), 'utf8'),
  );
  const h = header as string[];
  assert.equal(s.api.length, rows.length);
  for (const r of rows) {
    const a = s.api.find((x) => x.name === r[0]);
    assert.equal(a?.calls, Number(r[h.indexOf('Calls')]));
    assert.equal(a?.totalNs, Number(r[h.indexOf('TotalDurationNs')]));
    assert.equal(a?.minNs, Number(r[h.indexOf('MinNs')]));
    assert.equal(a?.maxNs, Number(r[h.indexOf('MaxNs')]));
    // the tool rounds its percentage to 4 significant digits
    const pct = Number(r[h.indexOf('Percentage')]);
    assert.ok(
      Math.abs((a?.percent as number) - pct) <= 0.005 * Math.max(pct, 0.01),
      `${r[0]}: ${a?.percent} vs ${pct}`,
    );
  }
});

test('agent_info.csv names the GPU (gfx942, CU count) and types the agents of copies', async () => {
  const dir = tempDir('agents');
  // synthetic agent_info.csv with rocprofv3's header (generateCSV.cpp) and the MI300X values of the rocpd fixture
  const header = [
    'Node_Id',
    'Logical_Node_Id',
    'Agent_Type',
    'Cpu_Cores_Count',
    'Simd_Count',
    'Cu_Count',
    'Wave_Front_Size',
    'Name',
    'Vendor_Name',
    'Product_Name',
    'Model_Name',
  ];
  writeFileSync(
    path.join(dir, '99_agent_info.csv'),
    toRocprofCsv(header, [
      [
        '0',
        '0',
        'CPU',
        '112',
        '0',
        '0',
        '0',
        'Intel(R) Xeon(R) Platinum 8480C',
        'CPU',
        'Intel(R) Xeon(R) Platinum 8480C',
        '',
      ],
      ['4', '4', 'GPU', '0', '1216', '304', '64', 'gfx942', 'AMD', 'AMD Instinct MI300X', 'ip discovery'],
    ]),
  );
  copyFileSync(fixture('rocm-systems__sdkdocs__kernel_trace.csv'), path.join(dir, '99_kernel_trace.csv'));
  copyFileSync(fixture('rocm-systems__sdkdocs__memory_copy_trace.csv'), path.join(dir, '99_memory_copy_trace.csv'));
  const s = await summarizePath(dir);
  assert.deepEqual(
    s.agents.map((a) => [a.id, a.type, a.name, a.productName, a.cuCount]),
    [['Agent 4', 'GPU', 'gfx942', 'AMD Instinct MI300X', 304]],
  );
  const copyRows = parseCsvReference(
    readFileSync(fixture('rocm-systems__sdkdocs__memory_copy_trace.csv'), 'utf8'),
  ).slice(1);
  const kernelRef = referenceKernels(fixture('rocm-systems__sdkdocs__kernel_trace.csv'));
  const copyIntervals = copyRows.map((r) => [Number(r[6]), Number(r[7])] as [number, number]);
  assert.equal(s.agents[0]?.busyNs, unionLength([...kernelRef.intervals, ...copyIntervals]));
  assert.equal(
    s.agents[0]?.copyNs,
    copyIntervals.reduce((t, [a, b]) => t + b - a, 0),
  );
  assert.deepEqual(
    s.sources.map((x) => x.kind),
    ['agent_info', 'kernel_trace', 'memory_copy_trace'],
  );
});

test('kernel names with commas, doubled quotes and newlines; CRLF line ends', async () => {
  const dir = tempDir('names');
  const header = ['Kind', 'Agent_Id', 'Queue_Id', 'Kernel_Name', 'Start_Timestamp', 'End_Timestamp'];
  const names = ['void k<1, 2>(int, float)', 'say "hi", twice ""', 'two\nlines, here', 'plain'];
  const rows: string[][] = [];
  for (let i = 0; i < 40; i++)
    rows.push([
      'KERNEL_DISPATCH',
      'Agent 1',
      '1',
      names[i % 4] as string,
      String(1000 + i * 100),
      String(1000 + i * 100 + 10 + i),
    ]);
  const file = path.join(dir, 'x_kernel_trace.csv');
  writeFileSync(file, toRocprofCsv(header, rows, '\r\n'));
  const s = await summarizePath(file);
  assert.deepEqual(s.kernels.map((k) => k.name).sort(), [...names].sort());
  assertKernelsMatchReference(s, file);
  assert.equal(s.kernels.find((k) => k.name === 'plain')?.launches[0]?.grid, null);
});

test('rows without usable timestamps are skipped and reported, not fatal', async () => {
  const dir = tempDir('bad');
  const file = path.join(dir, 'y_kernel_trace.csv');
  writeFileSync(
    file,
    toRocprofCsv(
      ['Kernel_Name', 'Start_Timestamp', 'End_Timestamp'],
      [
        ['a', '10', '20'],
        ['a', 'x', '30'],
        ['a', '50', '40'],
        ['a', '60', '65'],
      ],
    ),
  );
  const s = await summarizePath(file);
  assert.deepEqual([s.kernels[0]?.calls, s.kernels[0]?.totalNs], [2, 15]);
  assert.match(
    s.warnings.join('\n'),
    /y_kernel_trace\.csv: 2 row\(s\) without valid fields or timestamps were skipped \(the first on line 3\)/,
  );
});

test('a folder of one of everything: unread files are listed with reasons', async () => {
  const dir = tempDir('mixed');
  mkdirSync(path.join(dir, '.rocprofv3'));
  writeFileSync(path.join(dir, '.rocprofv3', 'tmp.buf'), 'x');
  copyFileSync(fixture('rocm-systems__sdkdocs__kernel_trace.csv'), path.join(dir, '5_kernel_trace.csv'));
  copyFileSync(fixture('rocm-systems__sdkdocs__counter_collection.csv'), path.join(dir, '5_counter_collection.csv'));
  copyFileSync(
    fixture('rocm-systems__sdkdocs__scratch_memory_trace.csv'),
    path.join(dir, '5_scratch_memory_trace.csv'),
  );
  copyFileSync(
    fixture('rocm-systems__sdkdocs__memory_allocation_trace.csv'),
    path.join(dir, '5_memory_allocation_trace.csv'),
  );
  writeFileSync(path.join(dir, '5_results.pftrace'), Buffer.from([0x0a, 0x00]));
  writeFileSync(path.join(dir, 'notes.txt'), 'hello');
  const s = await summarizePath(dir);
  const reasons = new Map(s.skipped.map((x) => [x.path, x.reason]));
  assert.match(reasons.get('.rocprofv3/') ?? '', /temporary/);
  assert.match(reasons.get('5_scratch_memory_trace.csv') ?? '', /scratch/);
  assert.match(reasons.get('5_memory_allocation_trace.csv') ?? '', /allocation/);
  assert.match(reasons.get('5_results.pftrace') ?? '', /Perfetto/);
  assert.match(reasons.get('notes.txt') ?? '', /not a rocprof output/);
  // the counter collection is read for its counters; the kernel trace of the set keeps the dispatches
  assert.deepEqual(
    s.sources.map((x) => [x.path, x.kind]),
    [
      ['5_kernel_trace.csv', 'kernel_trace'],
      ['5_counter_collection.csv', 'counter_collection'],
    ],
  );
  assert.equal(s.kernelTotals.calls, 9);
  assert.equal(s.counters?.length, 4);
});

test('a rocprofv3 kernel_stats.csv of the same run becomes a cross-check, not a second count', async () => {
  const dir = tempDir('stats');
  const trace = fixture('rocm-systems__sdkdocs__kernel_trace.csv');
  copyFileSync(trace, path.join(dir, '7_kernel_trace.csv'));
  // the stats rocprofv3 would write for this trace (header of generateCSV.cpp), computed by the reference
  const ref = referenceKernels(trace);
  const rows = [...ref.kernels].map(([name, k]) => [
    name,
    String(k.calls),
    String(k.total),
    (k.total / k.calls).toFixed(6),
    '0',
    String(k.min),
    String(k.max),
    k.stddev.toFixed(6),
  ]);
  writeFileSync(
    path.join(dir, '7_kernel_stats.csv'),
    toRocprofCsv(['Name', 'Calls', 'TotalDurationNs', 'AverageNs', 'Percentage', 'MinNs', 'MaxNs', 'StdDev'], rows),
  );
  const s = await summarizePath(dir);
  assert.equal(s.kernelTotals.calls, 9, 'not counted twice');
  assert.deepEqual(s.checks, [{ what: 'kernel calls and totals vs 7_kernel_stats.csv', compared: 4, mismatches: [] }]);
  // one call fewer in the stats file: reported
  rows[0] = [rows[0]?.[0] as string, String(Number(rows[0]?.[1]) - 1), ...(rows[0]?.slice(2) ?? [])];
  writeFileSync(
    path.join(dir, '7_kernel_stats.csv'),
    toRocprofCsv(['Name', 'Calls', 'TotalDurationNs', 'AverageNs', 'Percentage', 'MinNs', 'MaxNs', 'StdDev'], rows),
  );
  const bad = await summarizePath(dir);
  assert.equal(bad.checks[0]?.mismatches.length, 1);
  assert.match(bad.checks[0]?.mismatches[0] ?? '', /: trace \d+ calls \d+ ns, stats \d+ calls \d+ ns$/);
});
