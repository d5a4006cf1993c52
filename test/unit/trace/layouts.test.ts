// Layouts found on real samples (shared/docs/rocprof.md, "Facts found on more real outputs"), written here in
// their real form: legacy v1 stats with unquoted commas and pseudo-rows, one v1 run's results.csv + results.json,
// counter_collection with and without timestamps, a prefixed stats name, rocprofv2 and v1 SQLite outputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import initSqlJs from 'sql.js';
import { summarizePath } from '../../../src/trace/index';
import { traceSummarySchema, type TraceSummary } from '../../../src/core/protocol/traceSummary';
import { fixture, parseCsvReference, toRocprofCsv } from './helpers';
import { tempDirsRemovedAfter } from '../../support/tempDirs';

const tempDir = tempDirsRemovedAfter('kr-trace-');

const GEMM = 'void gemm<float, 2, 4>(float const*, float*, int)';
const ADD = 'vector_add(float*, float*, float*, int)';
const REDUCE = 'void reduce<256, true>(double*, double const*, unsigned long)';
/** The fewest fields a counter collection has that still carries timings: rocprofv3's long layout, cut down. */
const COUNTER_HEADER = [
  'Dispatch_Id',
  'Agent_Id',
  'Kernel_Name',
  'Counter_Name',
  'Counter_Value',
  'Start_Timestamp',
  'End_Timestamp',
];

/** A legacy results.stats.csv as v1 writes it: quoted header, names bare even with commas. */
function v1StatsText(): string {
  return (
    [
      '"Name","Calls","TotalDurationNs","AverageNs","Percentage"',
      `${GEMM} [clone .kd],3,3300,1100,70.0`,
      `${REDUCE} [clone .kd],2,900,450,19.1`,
      '<barrier packet>,4,40,10,0.85',
      `${ADD} [clone .kd],2,120,60,2.5`,
      'Unknown command type,1,5,5,0.1',
      `void scan<int, 64>(int*, int) [clone .kd],1,200,200,4.2`,
      '"plain_kernel",1,100,100,2.1',
      `void copy<1, 2, 3>(char*, char const*) [clone .kd],1,50,50,1.06`,
    ].join('\n') + '\n'
  );
}

const summary = async (p: string, options?: Parameters<typeof summarizePath>[1]): Promise<TraceSummary> =>
  traceSummarySchema.parse(await summarizePath(p, options));

test('v1 stats with unquoted commas: every row kept with its full name, numbers from the end of the line', async () => {
  const dir = tempDir('v1commas');
  writeFileSync(path.join(dir, 'results.stats.csv'), v1StatsText());
  const s = await summary(dir);
  assert.deepEqual(
    s.kernels.map((k) => [k.name, k.calls, k.totalNs]),
    [
      [`${GEMM} [clone .kd]`, 3, 3300],
      [`${REDUCE} [clone .kd]`, 2, 900],
      ['void scan<int, 64>(int*, int) [clone .kd]', 1, 200],
      [`${ADD} [clone .kd]`, 2, 120],
      ['plain_kernel', 1, 100],
      ['void copy<1, 2, 3>(char*, char const*) [clone .kd]', 1, 50],
    ],
  );
  assert.deepEqual(s.kernels.map((k) => k.shortName).slice(0, 2), ['gemm<float, 2, 4>', 'reduce<256, true>']);
  // pseudo-rows apart, and not in the totals or percentages
  assert.deepEqual(s.pseudoRows, [
    { name: '<barrier packet>', calls: 4, totalNs: 40 },
    { name: 'Unknown command type', calls: 1, totalNs: 5 },
  ]);
  assert.equal(s.kernelTotals.totalNs, 3300 + 900 + 200 + 120 + 100 + 50);
  assert.equal(s.kernelTotals.distinct, 6);
  assert.ok(Math.abs(s.kernels.reduce((t, k) => t + k.percent, 0) - 100) < 1e-9);
  assert.ok(!s.kernels.some((k) => k.name === 'type' || k.name.startsWith('<')));
  assert.deepEqual(s.warnings, []);
});

test('a v1 stats row that cannot be read is skipped with the count and its line number', async () => {
  const dir = tempDir('v1bad');
  const lines = v1StatsText().split('\n');
  lines.splice(3, 0, 'half a row,x', 'another,,,,');
  writeFileSync(path.join(dir, 'results.stats.csv'), lines.join('\n'));
  const s = await summary(dir);
  assert.equal(s.kernels.length, 6);
  assert.deepEqual(s.warnings, [
    'results.stats.csv: 2 row(s) without valid fields or timestamps were skipped (the first on line 4)',
  ]);
});

// ---------------------------------------------------------------------------------------------------------------
// One legacy v1 run: results.csv (per dispatch) and results.json (chrome trace) describe the same dispatches.

interface Dispatch {
  name: string;
  begin: number;
  end: number;
}

const DISPATCHES: Dispatch[] = [
  { name: GEMM, begin: 1_000_000, end: 1_001_000 },
  { name: ADD, begin: 1_002_000, end: 1_002_050 },
  { name: GEMM, begin: 1_003_000, end: 1_004_100 },
  { name: GEMM, begin: 1_005_000, end: 1_006_200 },
  { name: ADD, begin: 1_006_100, end: 1_006_170 },
];

/** results.csv of `rocprof --hip-trace --timestamp on`: names with ` [clone .kd]`, timestamps in ns. */
function v1ResultsCsv(dispatches: Dispatch[]): string {
  const header =
    'Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,wave_size,sig,obj,DispatchNs,BeginNs,EndNs,CompleteNs';
  const rows = dispatches.map((d, i) =>
    [
      i,
      `"${d.name} [clone .kd]"`,
      4,
      0,
      i,
      19147,
      19147,
      1024,
      256,
      0,
      0,
      8,
      0,
      16,
      64,
      '0x0',
      '0x7faada620900',
      d.begin - 500,
      d.begin,
      d.end,
      d.end + 100,
    ].join(','),
  );
  return [header, ...rows].join('\n') + '\n';
}

/** results.json: a Chrome trace with a COPY lane and a GPU lane (names without ` [clone .kd]`). */
function v1ResultsJson(dispatches: Dispatch[], extra: Dispatch[] = []): string {
  const ev = (pid: number, d: Dispatch) => ({
    ph: 'X',
    name: d.name,
    pid: String(pid),
    tid: '1',
    ts: String(Math.floor(d.begin / 1000)),
    dur: String(Math.floor((d.end - d.begin) / 1000)),
    args: {
      BeginNs: String(d.begin),
      EndNs: String(d.end),
      'dev-id': '4',
      'queue-id': '0',
      Name: d.name,
      pid: '19147',
      tid: '19147',
    },
  });
  return JSON.stringify({
    traceEvents: [
      { args: { name: 'COPY' }, ph: 'M', pid: 1, name: 'process_name' },
      { args: { name: 'GPU4' }, ph: 'M', pid: 10, name: 'process_name' },
      ev(1, { name: 'CopyHostToDevice', begin: 900_000, end: 950_000 }),
      ...[...dispatches, ...extra].map((d) => ev(10, d)),
    ],
    otherData: { 'Agent5.Name': 'gfx942', 'Agent5.ComputeUnit': '304' },
  });
}

test("one v1 run's results.csv and results.json are read once: kernels from the csv, copies from the json, checked against each other", async () => {
  const dir = tempDir('v1pair');
  writeFileSync(path.join(dir, 'results.csv'), v1ResultsCsv(DISPATCHES));
  writeFileSync(
    path.join(dir, 'results.json'),
    v1ResultsJson(DISPATCHES, [{ name: '<barrier packet>', begin: 1_007_000, end: 1_007_010 }]),
  );
  const s = await summary(dir);
  assert.deepEqual(
    s.sources.map((x) => [x.path, x.format]),
    [
      ['results.csv', 'rocprof-v1-csv'],
      ['results.json', 'rocprof-v1-json'],
    ],
  );
  assert.deepEqual(
    s.kernels.map((k) => [k.shortName, k.calls, k.totalNs]),
    [
      ['gemm<float, 2, 4>', 3, 1000 + 1100 + 1200],
      ['vector_add', 2, 50 + 70],
    ],
  );
  assert.equal(s.kernelTotals.calls, 5, 'not doubled');
  assert.deepEqual(
    s.memoryCopies.map((c) => [c.direction, c.calls]),
    [['HOST_TO_DEVICE', 1]],
  );
  // busy: the dispatches and the copy once each (the last vector_add runs inside the third gemm)
  assert.equal(s.agents[0]?.busyNs, 1000 + 50 + 1100 + 1200 + 50_000);
  assert.equal(s.agents[0]?.kernelCalls, 5);
  assert.deepEqual(s.pseudoRows, [{ name: '<barrier packet>', calls: 1, totalNs: 10 }]);
  const check = s.checks.find((c) => c.what.includes('results.json'));
  assert.deepEqual([check?.compared, check?.mismatches], [2, []]);
  assert.deepEqual(s.warnings, []);
});

test('a results.json that disagrees with its results.csv: the csv is used and the disagreement is a warning', async () => {
  const dir = tempDir('v1pairbad');
  writeFileSync(path.join(dir, 'results.csv'), v1ResultsCsv(DISPATCHES));
  writeFileSync(
    path.join(dir, 'results.json'),
    v1ResultsJson(DISPATCHES.slice(1), [{ name: REDUCE, begin: 2_000_000, end: 2_000_500 }]),
  );
  const s = await summary(dir);
  assert.equal(s.kernelTotals.calls, 5);
  assert.ok(!s.kernels.some((k) => k.name.includes('reduce')), 'the json-only kernel is not added');
  const check = s.checks.find((c) => c.what.includes('results.json'));
  assert.deepEqual(check?.mismatches.sort(), [
    `${GEMM}: csv 3 calls 3300 ns, json 2 calls 2300 ns`,
    `${REDUCE}: in results.json, not in results.csv`,
  ]);
  assert.equal(s.warnings.length, 1);
  assert.match(
    s.warnings[0] ?? '',
    /^results\.json and results\.csv \(one legacy run\) disagree on 2 kernel\(s\), e\.g\. .*; the kernels are from results\.csv$/,
  );
});

test('v1 stats of the same run cross-check the csv kernels despite unquoted commas, [clone .kd] and pseudo-rows', async () => {
  const dir = tempDir('v1triple');
  writeFileSync(path.join(dir, 'results.csv'), v1ResultsCsv(DISPATCHES));
  writeFileSync(
    path.join(dir, 'results.stats.csv'),
    [
      '"Name","Calls","TotalDurationNs","AverageNs","Percentage"',
      `${GEMM},3,3300,1100,95.0`,
      '<barrier packet>,4,40,10,1.2',
      `${ADD},2,120,60,3.8`,
    ].join('\n') + '\n',
  );
  const s = await summary(dir);
  assert.equal(s.kernelTotals.calls, 5);
  assert.deepEqual(
    s.checks.map((c) => [c.compared, c.mismatches]),
    [[3, []]],
  );
});

// ---------------------------------------------------------------------------------------------------------------
// counter_collection.csv

test('a --pmc run (ROCm 7 layout, with timestamps) alone: dispatches, times, busy and counters per kernel', async () => {
  const dir = tempDir('pmc7');
  copyFileSync(
    fixture('rocm-systems__sdkdocs__counter_collection.csv'),
    path.join(dir, '15606_counter_collection.csv'),
  );
  const s = await summary(dir);
  const [header, ...rows] = parseCsvReference(
    readFileSync(fixture('rocm-systems__sdkdocs__counter_collection.csv'), 'utf8'),
  );
  const h = header as string[];
  const col = (n: string) => h.indexOf(n);
  assert.equal(s.kernelTotals.calls, rows.length);
  for (const r of rows) {
    const k = s.kernels.find((x) => x.name === r[col('Kernel_Name')]);
    const d = Number(r[col('End_Timestamp')]) - Number(r[col('Start_Timestamp')]);
    assert.deepEqual([k?.calls, k?.totalNs, k?.minNs, k?.agentIds], [1, d, d, ['Agent 1']]);
    assert.equal(k?.launches[0]?.vgpr, Number(r[col('VGPR_Count')]));
  }
  assert.deepEqual(
    s.sources.map((x) => [x.kind, x.variant, x.rows, x.pid]),
    [['counter_collection', 'rocm-7.0', 4, 15606]],
  );
  assert.equal(s.counters?.length, 4);
  for (const k of s.counters ?? [])
    assert.deepEqual(
      [k.dispatches, k.counters],
      [1, [{ name: 'SQ_WAVES', dispatches: 1, mean: 16384, min: 16384, max: 16384 }]],
    );
  assert.ok((s.agents[0]?.busyNs ?? 0) > 0);
  assert.deepEqual(s.warnings, []);
});

test('ROCm 6.3 layout (no timestamps): dispatch counts per kernel, no times, and a warning saying so', async () => {
  const dir = tempDir('pmc63');
  copyFileSync(
    fixture('rocprofiler-sdk-0.5.0__sdkdocs__counter_collection.csv'),
    path.join(dir, '19396_counter_collection.csv'),
  );
  const s = await summary(dir);
  assert.deepEqual(s.kernels.map((k) => [k.shortName, k.calls, k.totalNs, k.minNs]).sort(), [
    ['addition_kernel<float>', 4, 0, null],
    ['multiply_kernel', 1, 0, null],
    ['subtract_kernel', 2, 0, null],
  ]);
  assert.equal(s.wall, null);
  assert.deepEqual(
    s.sources.map((x) => x.variant),
    ['rocm-6.x'],
  );
  assert.match(s.warnings.join('\n'), /19396_counter_collection\.csv: a counter collection without timestamps/);
  assert.deepEqual(
    s.counters?.map((k) => [k.shortName, k.dispatches]),
    [
      ['addition_kernel<float>', 4],
      ['subtract_kernel', 2],
      ['multiply_kernel', 1],
    ],
  );
});

test('several counters per dispatch: each dispatch counted once, mean/min/max per counter, scientific notation read', async () => {
  const dir = tempDir('pmcmulti');
  const header = [
    'Correlation_Id',
    'Dispatch_Id',
    'Agent_Id',
    'Queue_Id',
    'Process_Id',
    'Thread_Id',
    'Grid_Size',
    'Kernel_Id',
    'Kernel_Name',
    'Workgroup_Size',
    'LDS_Block_Size',
    'Scratch_Size',
    'VGPR_Count',
    'Accum_VGPR_Count',
    'SGPR_Count',
    'Counter_Name',
    'Counter_Value',
    'Start_Timestamp',
    'End_Timestamp',
  ];
  const row = (d: number, name: string, counter: string, value: string, start: number, end: number) => [
    String(d),
    String(d),
    'Agent 4',
    '1',
    '7',
    '7',
    '4096',
    '3',
    name,
    '256',
    '0',
    '0',
    '32',
    '0',
    '24',
    counter,
    value,
    String(start),
    String(end),
  ];
  const rows = [
    row(1, GEMM, 'SQ_WAVES', '64', 100, 300),
    row(1, GEMM, 'GRBM_GUI_ACTIVE', '1.5e+03', 100, 300),
    row(2, GEMM, 'SQ_WAVES', '64', 400, 500),
    row(2, GEMM, 'GRBM_GUI_ACTIVE', '2.5e+03', 400, 500),
    row(3, ADD, 'SQ_WAVES', '16', 600, 610),
    row(3, ADD, 'GRBM_GUI_ACTIVE', '300', 600, 610),
    row(4, GEMM, 'SQ_WAVES', '32', 700, 1000),
    row(4, GEMM, 'GRBM_GUI_ACTIVE', 'n/a', 700, 1000),
  ];
  writeFileSync(path.join(dir, 'run_counter_collection.csv'), toRocprofCsv(header, rows));
  const s = await summary(dir);
  assert.deepEqual(
    s.kernels.map((k) => [k.name, k.calls, k.totalNs, k.minNs, k.maxNs]),
    [
      [GEMM, 3, 200 + 100 + 300, 100, 300],
      [ADD, 1, 10, 10, 10],
    ],
  );
  assert.deepEqual(s.counters, [
    {
      kernel: GEMM,
      shortName: 'gemm<float, 2, 4>',
      dispatches: 3,
      counters: [
        { name: 'GRBM_GUI_ACTIVE', dispatches: 2, mean: 2000, min: 1500, max: 2500 },
        { name: 'SQ_WAVES', dispatches: 3, mean: (64 + 64 + 32) / 3, min: 32, max: 64 },
      ],
    },
    {
      kernel: ADD,
      shortName: 'vector_add',
      dispatches: 1,
      counters: [
        { name: 'GRBM_GUI_ACTIVE', dispatches: 1, mean: 300, min: 300, max: 300 },
        { name: 'SQ_WAVES', dispatches: 1, mean: 16, min: 16, max: 16 },
      ],
    },
  ]);
  assert.equal(s.agents.find((a) => a.id === 'Agent 4')?.busyNs, 200 + 100 + 10 + 300);
  assert.deepEqual(s.warnings, [
    'run_counter_collection.csv: 1 row(s) without valid fields or timestamps were skipped (the first on line 9)',
  ]);
});

test("a pseudo-row among counted dispatches: apart from the kernels and the agent's dispatch count, still in its busy time", async () => {
  const dir = tempDir('pmcpseudo');
  writeFileSync(
    path.join(dir, 'p_counter_collection.csv'),
    toRocprofCsv(COUNTER_HEADER, [
      ['1', 'Agent 2', GEMM, 'SQ_WAVES', '8', '100', '200'],
      ['2', 'Agent 2', '<barrier packet>', 'SQ_WAVES', '0', '200', '250'],
      ['3', 'Agent 2', GEMM, 'SQ_WAVES', '8', '300', '400'],
    ]),
  );
  const s = await summary(dir);
  assert.deepEqual(
    s.kernels.map((k) => [k.name, k.calls]),
    [[GEMM, 2]],
  );
  assert.deepEqual(s.pseudoRows, [{ name: '<barrier packet>', calls: 1, totalNs: 50 }]);
  assert.deepEqual(
    s.counters?.map((k) => k.kernel),
    [GEMM],
  );
  const agent = s.agents.find((a) => a.id === 'Agent 2');
  assert.deepEqual([agent?.kernelCalls, agent?.kernelNs, agent?.busyNs], [2, 200, 250]);
});

test('counters no roofline reads (`--pmc SQ_WAVES OccupancyPercent`): their table, and no roofline of missing quantities', async () => {
  const dir = tempDir('pmcother');
  const rows = [
    ['1', 'Agent 2', GEMM, 'SQ_WAVES', '8', '100', '200'],
    ['1', 'Agent 2', GEMM, 'OccupancyPercent', '62.5', '100', '200'],
    ['2', 'Agent 2', GEMM, 'SQ_WAVES', '4', '300', '350'],
    ['2', 'Agent 2', GEMM, 'OccupancyPercent', '12.5', '300', '350'],
  ];
  writeFileSync(path.join(dir, 'p_counter_collection.csv'), toRocprofCsv(COUNTER_HEADER, rows));
  writeFileSync(
    path.join(dir, 'sysinfo.csv'),
    'gpu_arch,gpu_model,cu_per_gpu,max_sclk,max_mclk,num_hbm_channels,total_l2_chan\ngfx942,MI300X_A1,304,2100,1300,128,128\n',
  );
  const s = await summary(dir);
  assert.deepEqual(
    s.counters?.map((k) => [k.kernel, k.dispatches, k.counters.map((c) => [c.name, c.mean])]),
    [
      [
        GEMM,
        2,
        [
          ['OccupancyPercent', 37.5],
          ['SQ_WAVES', 6],
        ],
      ],
    ],
  );
  assert.equal(s.roofline, undefined);
  assert.equal(s.speedOfLight, undefined);

  // one counter a speed-of-light reads is enough for both, with what they lack said
  writeFileSync(
    path.join(dir, 'p_counter_collection.csv'),
    toRocprofCsv(COUNTER_HEADER, [...rows, ['2', 'Agent 2', GEMM, 'GRBM_GUI_ACTIVE', '1000', '300', '350']]),
  );
  const withOne = await summary(dir);
  assert.ok(withOne.roofline && withOne.speedOfLight, 'a roofline and a speed of light');
  assert.ok(withOne.roofline.missing.length > 0, 'what it could not compute, said');
});

test('counter passes (pass_1/, pass_2/): kernels and copies of one pass, counters of both joined per dispatch, sysinfo.csv at the root', async () => {
  const dir = tempDir('passes');
  const kernelHeader = [
    'Kind',
    'Agent_Id',
    'Queue_Id',
    'Dispatch_Id',
    'Kernel_Name',
    'Start_Timestamp',
    'End_Timestamp',
  ];
  const copyHeader = [
    'Kind',
    'Direction',
    'Source_Agent_Id',
    'Destination_Agent_Id',
    'Start_Timestamp',
    'End_Timestamp',
  ];
  for (const [pass, counter, pid] of [
    ['pass_1', 'SQ_WAVES', '311'],
    ['pass_2', 'GRBM_GUI_ACTIVE', '312'],
  ] as const) {
    mkdirSync(path.join(dir, pass, 'node-a'), { recursive: true });
    const at = (f: string): string => path.join(dir, pass, 'node-a', `${pid}_${f}`);
    writeFileSync(
      at('counter_collection.csv'),
      toRocprofCsv(COUNTER_HEADER, [
        ['1', 'Agent 2', GEMM, counter, '8', '100', '200'],
        ['2', 'Agent 2', GEMM, counter, '4', '300', '350'],
      ]),
    );
    writeFileSync(
      at('kernel_trace.csv'),
      toRocprofCsv(kernelHeader, [
        ['KERNEL_DISPATCH', 'Agent 2', '1', '1', GEMM, '100', '200'],
        ['KERNEL_DISPATCH', 'Agent 2', '1', '2', GEMM, '300', '350'],
      ]),
    );
    writeFileSync(
      at('memory_copy_trace.csv'),
      toRocprofCsv(copyHeader, [['MEMORY_COPY', 'MEMORY_COPY_HOST_TO_DEVICE', 'Agent 0', 'Agent 2', '10', '90']]),
    );
  }
  // as our runner writes it: beside pass_<n>/, not in them
  writeFileSync(
    path.join(dir, 'sysinfo.csv'),
    'gpu_arch,gpu_model,cu_per_gpu,max_sclk,max_mclk,num_hbm_channels,total_l2_chan\ngfx942,MI300X_A1,304,2100,1300,128,128\n',
  );
  const s = await summary(dir);
  assert.deepEqual(
    s.kernels.map((k) => [k.name, k.calls, k.totalNs]),
    [[GEMM, 2, 150]],
    'calls of one pass',
  );
  assert.deepEqual(
    s.memoryCopies.map((c) => c.calls),
    [1],
    'copies of one pass',
  );
  assert.deepEqual(
    s.counters?.map((k) => [k.dispatches, k.counters.map((c) => c.name)]),
    [[2, ['GRBM_GUI_ACTIVE', 'SQ_WAVES']]],
  );
  assert.deepEqual(s.passes, { count: 2, timingsFrom: 'pass_1', counters: ['pass_1', 'pass_2'] });
  assert.deepEqual(
    s.warnings.filter((w) => /pass/.test(w)),
    [],
  );
  assert.deepEqual(
    s.skipped
      .filter((x) => x.path.startsWith('pass_2/'))
      .map((x) => x.path)
      .sort(),
    ['pass_2/node-a/312_kernel_trace.csv', 'pass_2/node-a/312_memory_copy_trace.csv'],
  );
  assert.ok(
    s.skipped.every((x) => !x.path.startsWith('pass_1/')),
    JSON.stringify(s.skipped),
  );
  assert.ok(
    s.sources.some((x) => x.path === 'sysinfo.csv' && x.kind === 'sysinfo'),
    JSON.stringify(s.sources),
  );
  assert.ok(
    (s.roofline?.peaks.hbmGBps ?? 0) > 0,
    `peaks from the root's sysinfo.csv: ${JSON.stringify(s.roofline?.peaks)}`,
  );
  assert.equal(s.processes.length, 1, "one process: the timing pass's");
});

// ---------------------------------------------------------------------------------------------------------------
// Names: prefixed stats files, rocprofv2 and v1 SQLite

test('a stats file named <prefix>-kernel_stats.csv is recognised by its header and name suffix', async () => {
  const dir = tempDir('prefixstats');
  const header = ['Name', 'Calls', 'TotalDurationNs', 'AverageNs', 'Percentage', 'MinNs', 'MaxNs', 'StdDev'];
  writeFileSync(
    path.join(dir, 'mi300x-run3-kernel_stats.csv'),
    toRocprofCsv(header, [
      [GEMM, '4', '4000', '1000', '80.0', '900', '1100', '8.164966e+01'],
      [ADD, '2', '1000', '500', '20.0', '400', '600', '1.414214e+02'],
    ]),
  );
  writeFileSync(
    path.join(dir, 'mi300x-run3-hip_api_stats.csv'),
    toRocprofCsv(header, [['hipMalloc', '2', '300', '150', '100.0', '100', '200', '70.71']]),
  );
  writeFileSync(
    path.join(dir, 'mi300x-run3-memory_allocation_stats.csv'),
    toRocprofCsv(header, [['MEMORY_ALLOCATION_ALLOCATE', '2', '300', '150', '100.0', '100', '200', '70.71']]),
  );
  const s = await summary(dir);
  assert.deepEqual(
    s.sources.map((x) => [x.path, x.kind]),
    [
      ['mi300x-run3-hip_api_stats.csv', 'api_stats'],
      ['mi300x-run3-kernel_stats.csv', 'kernel_stats'],
    ],
  );
  assert.deepEqual(
    s.kernels.map((k) => [k.name, k.calls, k.totalNs, k.minNs, k.maxNs, k.stddevNs]),
    [
      [GEMM, 4, 4000, 900, 1100, 81.64966],
      [ADD, 2, 1000, 400, 600, 141.4214],
    ],
  );
  assert.deepEqual(
    s.api.map((a) => [a.name, a.calls]),
    [['hipMalloc', 2]],
  );
  assert.deepEqual(s.skipped, [
    { path: 'mi300x-run3-memory_allocation_stats.csv', reason: 'memory_allocation stats: not summarised' },
  ]);
});

test("rocprofv2 kernel timestamps (rocprof-compute's timestamps.csv) are read and named rocprofv2", async () => {
  const dir = tempDir('v2');
  const header =
    'Dispatch_ID,GPU_ID,Queue_ID,PID,TID,Grid_Size,Workgroup_Size,LDS_Per_Workgroup,Scratch_Per_Workitem,Arch_VGPR,Accum_VGPR,SGPR,Wave_Size,Kernel_Name,Start_Timestamp,End_Timestamp,Correlation_ID';
  const rows = [
    `1,4,1,77,77,1048576,256,0,0,8,0,16,64,"${GEMM}",1000,1600,1`,
    `2,4,1,77,77,1048576,256,0,0,8,0,16,64,"${ADD}",1700,1750,2`,
  ];
  writeFileSync(path.join(dir, 'timestamps.csv'), [header, ...rows].join('\n') + '\n');
  writeFileSync(path.join(dir, 'pmc_perf_0.csv'), `${header},SQ_WAVES\n${rows[0]},16\n`);
  writeFileSync(
    path.join(dir, 'hip_api_trace.csv'),
    'Domain,Function,Start_Timestamp,End_Timestamp,Correlation_ID\n\nHIP_API,hipLaunchKernel,900,950,1\nHIP_API,hipLaunchKernel,1650,1690,2\n',
  );
  const s = await summary(dir);
  assert.deepEqual(
    s.sources.map((x) => [x.path, x.format, x.variant, x.rows]),
    [
      ['hip_api_trace.csv', 'rocprofv2-csv', 'rocprofv2', 2],
      ['timestamps.csv', 'rocprofv2-csv', 'rocprofv2', 2],
    ],
  );
  assert.deepEqual(
    s.api.map((a) => [a.name, a.calls, a.totalNs]),
    [['hipLaunchKernel', 2, 90]],
  );
  assert.deepEqual(
    s.kernels.map((k) => [k.name, k.calls, k.totalNs, k.agentIds]),
    [
      [GEMM, 1, 600, ['Agent 4']],
      [ADD, 1, 50, ['Agent 4']],
    ],
  );
  assert.match(
    new Map(s.skipped.map((x) => [x.path, x.reason])).get('pmc_perf_0.csv') ?? '',
    /rocprof-compute's pmc_perf table: another format, not read/,
  );
});

test("a legacy v1 results.db is named for what it is, and the run's CSV is read instead", async () => {
  const dir = tempDir('v1db');
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  // the tables rocprof v1's tblextr.py creates (sqlitedb.add_table)
  db.run('CREATE TABLE KERN ("Index" INTEGER, "KernelName" TEXT, "BeginNs" INTEGER, "EndNs" INTEGER)');
  db.run('CREATE TABLE OPS ("BeginNs" INTEGER, "EndNs" INTEGER, "dev-id" INTEGER, "Name" TEXT)');
  db.run('CREATE TABLE COPY ("BeginNs" INTEGER, "EndNs" INTEGER, "Name" TEXT)');
  db.run('CREATE TABLE HIP ("BeginNs" INTEGER, "EndNs" INTEGER, "Name" TEXT, "args" TEXT)');
  db.run("INSERT INTO KERN VALUES (0, 'vector_add', 10, 20)");
  writeFileSync(path.join(dir, 'results.db'), Buffer.from(db.export()));
  db.close();
  writeFileSync(path.join(dir, 'results.csv'), v1ResultsCsv(DISPATCHES));
  const s = await summary(dir);
  assert.match(
    new Map(s.skipped.map((x) => [x.path, x.reason])).get('results.db') ?? '',
    /^legacy rocprof v1 database \(tables KERN, OPS, COPY, HIP\): another format, not read/,
  );
  assert.equal(s.kernelTotals.calls, 5);
});

test('a rocpd database over the size limit is refused with its size, not loaded', async () => {
  const dir = tempDir('bigdb');
  copyFileSync(fixture('batched_gemm__28_results.db'), path.join(dir, '28_results.db'));
  await assert.rejects(summary(dir, { maxRocpdBytes: 1024 * 1024 }), (err: Error) => {
    assert.match(
      err.message,
      /28_results\.db \(rocpd database of 1\.5 MiB, over the 1\.0 MiB that can be loaded whole: not read; convert it to CSV \(rocpd convert -i 28_results\.db --output-format csv\)/,
    );
    return true;
  });
  const s = await summary(dir);
  assert.equal(s.sources[0]?.format, 'rocpd', 'read under the default limit');
});
