// Numbers read as written: every field quoted (as tools that re-save rocprofv3 CSVs write them), timestamps past
// 2^53 (a host up for months), both in the single-threaded and the worker-thread kernel_trace read; the real
// rocprof-compute pmc_perf.csv (counter_collection layout, timestamps near 1.34e16, one timing per counter
// pass) against ground truth computed here from the file with BigInt; and a file none of whose rows reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { summarizePath, TraceInputError, type TraceSummary } from '../../../src/trace/index';
import { fixture, parseCsvReference } from './helpers';
import { tempDirsRemovedAfter } from '../../support/tempDirs';

const tempDir = tempDirsRemovedAfter('kr-trace-exact-');
const computeFixtures = path.resolve(path.dirname(fixture('x')), '../rocprof-compute');

function quoteAll(text: string): string {
  return (
    parseCsvReference(text)
      .map((r) => r.map((v) => `"${v.replaceAll('"', '""')}"`).join(','))
      .join('\n') + '\n'
  );
}

/**
 * The CSV with every Start/End timestamp moved by `shift` ns (exact, as BigInt), and each End by a few odd ns
 * more: the sample's times are multiples of 40 ns, an MI300's are any ns (so rounding shows in the durations).
 */
function shifted(text: string, shift: bigint): string {
  const [header, ...rows] = parseCsvReference(text) as [string[], ...string[][]];
  const start = header.indexOf('Start_Timestamp');
  const end = header.indexOf('End_Timestamp');
  const cell = (v: string): string => (/^-?\d+(\.\d+)?$/.test(v) ? v : `"${v.replaceAll('"', '""')}"`);
  const moved = (v: string, i: number, row: number): string =>
    i === start
      ? String(BigInt(v) + shift)
      : i === end
        ? String(BigInt(v) + shift + BigInt((row * 7) % 13) + 1n)
        : cell(v);
  return (
    [header.map((h) => `"${h}"`).join(','), ...rows.map((r, row) => r.map((v, i) => moved(v, i, row)).join(','))].join(
      '\n',
    ) + '\n'
  );
}

/** Per kernel name: calls and total ns, from the file's text with BigInt. */
function groundTruth(text: string): Map<string, { calls: number; totalNs: bigint }> {
  const [header, ...rows] = parseCsvReference(text) as [string[], ...string[][]];
  const [n, s, e] = ['Kernel_Name', 'Start_Timestamp', 'End_Timestamp'].map((c) => header.indexOf(c)) as [
    number,
    number,
    number,
  ];
  const out = new Map<string, { calls: number; totalNs: bigint }>();
  for (const r of rows) {
    const k = out.get(r[n] as string) ?? { calls: 0, totalNs: 0n };
    k.calls++;
    k.totalNs += BigInt(r[e] as string) - BigInt(r[s] as string);
    out.set(r[n] as string, k);
  }
  return out;
}

function assertKernels(s: TraceSummary, truth: Map<string, { calls: number; totalNs: bigint }>, what: string): void {
  assert.deepEqual(
    new Map(s.kernels.map((k) => [k.name, { calls: k.calls, totalNs: BigInt(k.totalNs) }])),
    truth,
    what,
  );
}

/** The fixture's rows repeated `times` times, each copy later by `step` ns: a file the workers split in many parts. */
function repeated(text: string, times: number, step: bigint): string {
  const [header, ...rows] = text.trimEnd().split('\n');
  const out = [header];
  const [h] = parseCsvReference(text) as [string[]];
  const cols = h.flatMap((c, i) => (/^(Start|End)_Timestamp$/.test(c) ? [i] : []));
  for (let t = 0; t < times; t++) {
    for (const line of rows) {
      const r = parseCsvReference(line)[0] as string[];
      out.push(
        r
          .map((v, i) =>
            cols.includes(i)
              ? String(BigInt(v) + BigInt(t) * step)
              : /^-?\d+$/.test(v)
                ? v
                : `"${v.replaceAll('"', '""')}"`,
          )
          .join(','),
      );
    }
  }
  return out.join('\n') + '\n';
}

const KERNEL_TRACE = readFileSync(fixture('rocm-systems__sdkdocs__kernel_trace.csv'), 'utf8');

test('every field quoted, numbers included: kernel, copy, HIP and HSA API, marker and stats files read as the unquoted ones', async () => {
  const files = {
    '1_kernel_trace.csv': 'rocm-systems__sdkdocs__kernel_trace.csv',
    '1_memory_copy_trace.csv': 'rocm-systems__sdkdocs__memory_copy_trace.csv',
    '1_hip_api_trace.csv': 'rocm-systems__sdkdocs__hip_trace.csv',
    '1_hsa_api_trace.csv': 'rocm-systems__sdkdocs__hsa_api_trace.csv',
    '1_marker_api_trace.csv': 'rocm-systems__sdkdocs__marker_api_trace.csv',
  };
  const plain = tempDir('plain');
  const quoted = tempDir('quoted');
  for (const [name, from] of Object.entries(files)) {
    const text = readFileSync(fixture(from), 'utf8');
    writeFileSync(path.join(plain, name), text);
    writeFileSync(path.join(quoted, name), quoteAll(text));
  }
  const a = await summarizePath(plain);
  const b = await summarizePath(quoted);
  assert.ok(a.kernelTotals.calls > 0 && a.api.length > 0 && a.memoryCopies.length > 0 && a.markers.length > 0);
  assert.deepEqual({ ...b, sources: [] }, { ...a, sources: [] });
  assertKernels(b, groundTruth(KERNEL_TRACE), 'quoted kernel trace');

  // stats alone (kernel and HIP API), quoted
  const stats = tempDir('stats');
  writeFileSync(
    path.join(stats, '2_hip_api_stats.csv'),
    quoteAll(readFileSync(fixture('rocm-systems__sdkdocs__hip_api_stats.csv'), 'utf8')),
  );
  const s = await summarizePath(stats);
  const truth = parseCsvReference(readFileSync(fixture('rocm-systems__sdkdocs__hip_api_stats.csv'), 'utf8')).slice(1);
  assert.deepEqual(
    s.api.map((x) => [x.name, x.calls, x.totalNs]).sort(),
    truth.map((r) => [r[0], Number(r[1]), Number(r[2])]).sort(),
  );
});

test('a quoted counter_collection (ROCm 7, timestamps) reads as the unquoted one', async () => {
  const text = readFileSync(fixture('rocm-systems__sdkdocs__counter_collection.csv'), 'utf8');
  const a = tempDir('cc');
  const b = tempDir('ccq');
  writeFileSync(path.join(a, '3_counter_collection.csv'), text);
  writeFileSync(path.join(b, '3_counter_collection.csv'), quoteAll(text));
  const x = await summarizePath(a);
  const y = await summarizePath(b);
  assert.ok(x.kernelTotals.totalNs > 0);
  assert.deepEqual({ ...y, sources: [] }, { ...x, sources: [] });
});

test('timestamps past 2^53: durations, busy time and wall span exact, single-threaded and in worker threads, quoted or not', async () => {
  const dir = tempDir('wide');
  // the fixture's first start moved to 2.2386742234691893e16 ns (259 days of uptime; doubles are 4 ns apart there)
  const first = BigInt(parseCsvReference(KERNEL_TRACE)[1]?.[9] as string);
  const shift = 22386742234691893n - first;
  const low = path.join(dir, 'low_kernel_trace.csv');
  const high = path.join(dir, 'high_kernel_trace.csv');
  writeFileSync(high, shifted(KERNEL_TRACE, shift));
  // the same odd ends below 2^53 (shifted back down): every figure but the wall's start must be the same
  writeFileSync(low, shifted(KERNEL_TRACE, 0n));
  const a = await summarizePath(low);
  const b = await summarizePath(high);
  assertKernels(b, groundTruth(readFileSync(high, 'utf8')), 'past 2^53');
  assertKernels(a, groundTruth(readFileSync(low, 'utf8')), 'below 2^53');
  assert.deepEqual(b.kernels, a.kernels);
  assert.equal(b.wall?.spanNs, a.wall?.spanNs);
  assert.deepEqual(b.agents, a.agents);
  assert.equal(
    b.wall?.startNs,
    Number(BigInt(a.wall?.startNs as number) + shift),
    'the wall start as written (to a double)',
  );

  // a larger file through the worker threads: the same as one thread, and as the BigInt sums
  for (const [tag, quote] of [
    ['plain', false],
    ['quoted', true],
  ] as const) {
    const big = path.join(dir, `${tag}_big_kernel_trace.csv`);
    const text = repeated(shifted(KERNEL_TRACE, shift), 400, 1_000_003n);
    writeFileSync(big, quote ? quoteAll(text) : text);
    const one = await summarizePath(big, { parallel: { threads: 0 } });
    const runs: number[] = [];
    const many = await summarizePath(big, {
      parallel: { threads: 2, minBytes: 0, partBytes: 20000 },
      onParallelRun: (r) => runs.push(r.workers),
    });
    assert.deepEqual(runs, [2], 'read by two worker threads');
    assertKernels(one, groundTruth(text), `${tag}: one thread`);
    assert.deepEqual(many, one, `${tag}: workers`);
    assert.equal(one.kernelTotals.calls, 9 * 400);
  }
});

test("rocprof-compute's pmc_perf.csv (counter_collection layout, ~1.34e16 ns, 12 passes): exact durations of the median pass, the spread said", async () => {
  const src = path.join(computeFixtures, 'vcopy/MI300X_A1_rocpd/pmc_perf.csv');
  const dir = tempDir('pmc');
  copyFileSync(src, path.join(dir, 'pmc_perf.csv'));
  const s = await summarizePath(dir);
  // ground truth: per dispatch its distinct (start, end) pairs; the pass of median duration (lower middle)
  const [header, ...rows] = parseCsvReference(readFileSync(src, 'utf8')) as [string[], ...string[][]];
  const [cd, cn, cs, ce] = ['Dispatch_ID', 'Kernel_Name', 'Start_Timestamp', 'End_Timestamp'].map((c) =>
    header.indexOf(c),
  ) as [number, number, number, number];
  const passes = new Map<string, { name: string; timings: Map<string, bigint> }>();
  for (const r of rows) {
    const d = passes.get(r[cd] as string) ?? { name: r[cn] as string, timings: new Map() };
    d.timings.set(`${r[cs]},${r[ce]}`, BigInt(r[ce] as string) - BigInt(r[cs] as string));
    passes.set(r[cd] as string, d);
  }
  let total = 0n;
  for (const d of passes.values()) {
    const ds = [...d.timings.values()].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    total += ds[(ds.length - 1) >> 1] as bigint;
  }
  assert.equal(passes.size, 3);
  assert.ok(
    [...passes.values()].every((d) => d.timings.size === 12),
    'twelve passes per dispatch',
  );
  assert.deepEqual(
    s.kernels.map((k) => [k.name, k.calls, BigInt(k.totalNs)]),
    [['vecCopy(double*, double*, double*, int, int)', 3, total]],
  );
  assert.ok(
    s.sources.some((x) => x.path === 'pmc_perf.csv' && x.kind === 'counter_collection'),
    JSON.stringify(s.sources),
  );
  const w = s.warnings.find((x) =>
    x.startsWith('pmc_perf.csv: 3 dispatch(es) have one timing per counter pass (up to 12'),
  );
  assert.ok(w, s.warnings.join('\n'));
  // dispatch 1's passes: 6690 to 9574 ns, 43.1% apart (the widest)
  assert.match(
    w,
    /median-duration pass is used; the longest pass is up to 43\.1% longer than the shortest .*dispatch 1: 6690 to 9574 ns/,
  );
});

test('a file with rows none of which can be read is an error naming the first row, not a summary of nothing', async () => {
  const dir = tempDir('none');
  const file = path.join(dir, '5_kernel_trace.csv');
  // End before Start on every row
  writeFileSync(
    file,
    '"Kind","Agent_Id","Kernel_Name","Start_Timestamp","End_Timestamp"\n"KERNEL_DISPATCH","Agent 4","k",200,100\n"KERNEL_DISPATCH","Agent 4","k",400,300\n',
  );
  await assert.rejects(summarizePath(dir), (e: unknown) => {
    assert.ok(e instanceof TraceInputError);
    assert.equal(
      e.message,
      `5_kernel_trace.csv: none of its 2 row(s) could be read (no valid fields or timestamps in the columns its header names); the first, on line 2: "KERNEL_DISPATCH","Agent 4","k",200,100`,
    );
    return true;
  });
  const copies = path.join(tempDir('none-copy'), '6_memory_copy_trace.csv');
  writeFileSync(
    copies,
    '"Kind","Direction","Source_Agent_Id","Destination_Agent_Id","Start_Timestamp","End_Timestamp"\n"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE","Agent 0","Agent 4",x,y\n',
  );
  await assert.rejects(
    summarizePath(copies),
    /6_memory_copy_trace\.csv: none of its 1 row\(s\) could be read .* line 2: "MEMORY_COPY"/,
  );
});
