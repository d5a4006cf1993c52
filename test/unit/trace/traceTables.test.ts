import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatBytes, formatNs, renderTraceTables, sparkline } from '../../../src/cli/render/traceTables';
import { traceSummarySchema, type TraceSummary } from '../../../src/core/protocol/traceSummary';

test('durations and sizes in human units', () => {
  assert.equal(formatNs(999), '999 ns');
  assert.equal(formatNs(1500), '1.50 µs');
  assert.equal(formatNs(2_580_371), '2.58 ms');
  assert.equal(formatNs(1_342_822_760), '1.343 s');
  assert.equal(formatNs(null), '-');
  assert.equal(formatBytes(512), '512 B');
  assert.equal(formatBytes(65536), '64.0 KiB');
  assert.equal(formatBytes(4_000_000_000), '3.7 GiB');
});

test('sparkline averages buckets down to the width', () => {
  assert.equal(sparkline([0, 1, 0.5, 0.01]), ' █▄▁');
  assert.equal(
    sparkline(
      Array.from({ length: 100 }, (_, i) => (i < 50 ? 0 : 1)),
      10,
    ),
    '     █████',
  );
  assert.equal(sparkline([]), '');
});

const summary: TraceSummary = traceSummarySchema.parse({
  version: 1,
  kernels: [
    {
      name: 'void gemm_kernel<float, 128, 128>(float const*, float const*, float*, int)',
      shortName: 'gemm_kernel<float, 128, 128>',
      calls: 10,
      totalNs: 5_000_000,
      avgNs: 500_000,
      minNs: 400_000,
      maxNs: 700_000,
      stddevNs: 90_000,
      percent: 100,
      agentIds: ['Agent 4'],
      launches: [
        {
          grid: [4096, 1, 1],
          workgroup: [256, 1, 1],
          vgpr: 64,
          accumVgpr: 0,
          sgpr: 32,
          ldsBytes: 16384,
          scratchBytes: 0,
          calls: 9,
        },
        {
          grid: [2048, 1, 1],
          workgroup: [256, 1, 1],
          vgpr: 64,
          accumVgpr: 0,
          sgpr: 32,
          ldsBytes: 16384,
          scratchBytes: 0,
          calls: 1,
        },
      ],
      launchesTruncated: false,
    },
  ],
  kernelTotals: { calls: 10, totalNs: 5_000_000, distinct: 1 },
  memoryCopies: [
    {
      direction: 'HOST_TO_DEVICE',
      calls: 2,
      totalNs: 1_000_000,
      avgNs: 500_000,
      minNs: 400_000,
      maxNs: 600_000,
      bytes: 50_000_000,
      bandwidthGBps: 50,
    },
  ],
  api: [
    {
      name: 'hipLaunchKernel',
      domain: 'HIP_RUNTIME_API_EXT',
      calls: 10,
      totalNs: 100_000,
      avgNs: 10_000,
      minNs: 5000,
      maxNs: 20_000,
      percent: 100,
    },
  ],
  apiTotals: { calls: 10, totalNs: 100_000, distinct: 1 },
  markers: [{ name: 'step', calls: 1, totalNs: 6_000_000, avgNs: 6_000_000, minNs: 6_000_000, maxNs: 6_000_000 }],
  agents: [
    {
      id: 'Agent 4',
      type: 'GPU',
      name: 'gfx942',
      productName: 'AMD Instinct MI300X',
      cuCount: 304,
      kernelCalls: 10,
      kernelNs: 5_000_000,
      copyNs: 1_000_000,
      busyNs: 5_500_000,
      busyPercent: 55,
      busyExact: false,
    },
  ],
  processes: [{ pid: 1, host: null, command: null }],
  wall: { startNs: 0, endNs: 10_000_000, spanNs: 10_000_000 },
  timeline: {
    startNs: 0,
    endNs: 10_000_000,
    bucketNs: 2_500_000,
    buckets: 4,
    agents: [{ agentId: 'Agent 4', busyFraction: [1, 0.2, 0, 1] }],
    exact: true,
  },
  sources: [
    {
      path: '1_kernel_trace.csv',
      format: 'rocprofv3-csv',
      kind: 'kernel_trace',
      variant: 'rocm-7.0',
      rows: 10,
      pid: 1,
      host: null,
    },
  ],
  skipped: [{ path: 'combined.pftrace', reason: 'Perfetto trace' }],
  checks: [
    {
      what: 'kernel calls and totals vs 1_kernel_stats.csv',
      compared: 1,
      mismatches: ['gemm: trace 10 calls, stats 11 calls'],
    },
  ],
  warnings: ['Agent 4: busy time is a lower bound'],
});

test('tables: aligned columns, launch summary, bandwidth, checks and warnings', () => {
  const out = renderTraceTables(summary);
  const lines = out.split('\n');
  assert.equal(
    lines[0],
    'Trace summary: 10 kernel dispatches of 1 kernel, 5.00 ms kernel time; GPU wall span 10.00 ms',
  );
  assert.ok(out.includes('  Agent 4  gfx942, AMD Instinct MI300X, 304 CUs  5.50 ms (≥)    55.0%  █▂ █\n'), out);
  const header = lines.find((l) => l.includes('Kernel') && l.includes('Calls')) as string;
  const row = lines[lines.indexOf(header) + 1] as string;
  assert.equal(row.indexOf('10') + 2, header.indexOf('Calls') + 5, 'numbers right-aligned under their heading');
  assert.match(
    row,
    /gemm_kernel<float, 128, 128> +10 +5\.00 ms +500\.00 µs +400\.00 µs +700\.00 µs +100\.0% +grid 4096x1x1 wg 256x1x1 vgpr 64 sgpr 32 lds 16\.0 KiB \(\+1 more\)$/,
  );
  assert.match(out, /HOST_TO_DEVICE +2 +1\.00 ms +500\.00 µs +47\.7 MiB +50\.0 GB\/s/);
  assert.match(out, /rocTX ranges\n.*\n {2}step +1 +6\.00 ms/);
  assert.match(out, /Read 1 file \(rocprofv3-csv rocm-7\.0\); skipped 1\./);
  assert.match(
    out,
    /Check: kernel calls and totals vs 1_kernel_stats\.csv: 1 mismatch, e\.g\. gemm: trace 10 calls, stats 11 calls/,
  );
  assert.match(out, /Warning: Agent 4: busy time is a lower bound\n$/);
  assert.ok(!out.includes('\x1b['));
  assert.ok(renderTraceTables(summary, { color: true }).startsWith('\x1b[1mTrace summary'));
});

test('a multi-pass counter run says which pass the timings come from', () => {
  const out = renderTraceTables({
    ...summary,
    passes: { count: 3, timingsFrom: 'pass_1', counters: ['pass_1', 'pass_2', 'pass_3'] },
  });
  assert.equal(
    out.split('\n')[1],
    '  3 counter passes (the program once per counter group): timings from pass_1, counters from pass_1, pass_2, pass_3',
  );
  assert.ok(!renderTraceTables(summary).includes('counter passes'), 'no line without passes');
});

test('long names are cut to the column width', () => {
  const long = {
    ...summary,
    kernels: [{ ...(summary.kernels[0] as TraceSummary['kernels'][number]), shortName: 'k'.repeat(200) }],
  };
  const out = renderTraceTables(long, { nameWidth: 30 });
  assert.ok(out.includes(`${'k'.repeat(29)}…`));
  assert.ok(!out.includes('k'.repeat(31)));
});

test('counters per kernel, pseudo-rows and calls without times', () => {
  const k = summary.kernels[0] as TraceSummary['kernels'][number];
  const withCounters: TraceSummary = traceSummarySchema.parse({
    ...summary,
    kernels: [
      k,
      {
        ...k,
        name: 'vector_add(float*, int)',
        shortName: 'vector_add',
        calls: 3,
        totalNs: 0,
        avgNs: 0,
        minNs: null,
        maxNs: null,
        stddevNs: null,
        percent: 0,
        launches: [],
      },
    ],
    counters: [
      {
        kernel: k.name,
        shortName: k.shortName,
        dispatches: 10,
        counters: [
          { name: 'GRBM_GUI_ACTIVE', dispatches: 10, mean: 1234.5678, min: 1000, max: 1500 },
          { name: 'SQ_WAVES', dispatches: 10, mean: 16384, min: 16384, max: 16384 },
        ],
      },
    ],
    pseudoRows: [{ name: '<barrier packet>', calls: 4, totalNs: 40 }],
  });
  const out = renderTraceTables(withCounters);
  assert.match(
    out,
    /Hardware counters per kernel\n {2}Kernel +Dispatches +Counter +Values +Mean +Min +Max\n {2}gemm_kernel<float, 128, 128> +10 +GRBM_GUI_ACTIVE +10 +1235 +1,000 +1,500\n +SQ_WAVES +10 +16,384 +16,384 +16,384\n/,
  );
  assert.match(out, /\n {2}Not kernels, not counted above: <barrier packet> \(4 calls, 40 ns\)\n/);
  assert.match(out, /\n {2}2 {2}vector_add +3 +- +- +- +- /, 'calls without times show no durations');
  assert.ok(!renderTraceTables(summary).includes('Hardware counters'));
});
