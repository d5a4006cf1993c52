// The parallel kernel_trace read (worker threads over parts of the file) against the single-threaded read of the
// same file: the whole summary must be identical (per-kernel stats to the last bit, launches, agents, busy union,
// timeline, warnings with their line numbers). Files are generated with everything a part boundary can cut
// into: quoted names with commas, doubled quotes and newlines, CRLF, a BOM, no newline at the end, bad rows and
// a malformed row; parts are made small so that many rows span boundaries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { summarizePath, type TraceSummary } from '../../../src/trace/index';
import type { ParallelRun } from '../../../src/trace/parallelKernelTrace';
import { seededRandom } from './helpers';
import { tempDirsRemovedAfter } from '../../support/tempDirs';

const tempDir = tempDirsRemovedAfter('kr-trace-');

const HEADER =
  '"Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","VGPR_Count","Workgroup_Size_X","Grid_Size_X"';

const NAMES = [
  'void gemm<128, 64>(float const*, float*, int)',
  'say ""hi"", then, go',
  'two\nlines, and a comma',
  'crlf\r\ninside',
  '_Z6kernelv',
  'ünïcödé<𝔸, 2>',
  'x'.repeat(3000),
  '"",""',
];

interface GenOptions {
  rows: number;
  seed: number;
  eol?: string;
  bom?: boolean;
  trailingEol?: boolean;
  /** Row indexes written with End < Start (skipped with a warning). */
  badAt?: number[];
  /** Row index written malformed (a character after a closing quote). */
  malformedAt?: number;
}

function generate(file: string, o: GenOptions): string {
  const next = seededRandom(o.seed);
  const eol = o.eol ?? '\n';
  const lines = [HEADER];
  let t = 1_700_000_000_000_000;
  for (let i = 0; i < o.rows; i++) {
    const which = Math.floor(next() * NAMES.length);
    const name = NAMES[which] as string;
    // a kernel id names one kernel, except in merged runs: some rows reuse another kernel's id
    const kernelId = next() < 0.1 ? 1 + Math.floor(next() * NAMES.length) : 1 + which;
    const start = t + Math.floor(next() * 5000);
    const end = o.badAt?.includes(i) ? start - 10 : start + 100 + Math.floor(next() * 100000);
    t = start + Math.floor(next() * 60000);
    const agent = next() < 0.8 ? 'Agent 4' : 'Agent 5';
    const lds = next() < 0.1 ? '' : next() < 0.1 ? '16384.0' : String([0, 4096, 65536][Math.floor(next() * 3)]);
    const quotedName = i === o.malformedAt ? `"${name}"x` : `"${name}"`;
    lines.push(
      `"KERNEL_DISPATCH","${agent}",${1 + Math.floor(next() * 4)},${kernelId},${quotedName},${i + 1},${start},${end},${lds},${[8, 32, 128][Math.floor(next() * 3)]},256,${[256, 1024, 65536][Math.floor(next() * 3)]}`,
    );
  }
  const text = (o.bom ? '\ufeff' : '') + lines.join(eol) + (o.trailingEol === false ? '' : eol);
  writeFileSync(file, text);
  return text;
}

async function both(
  file: string,
  parallel: { partBytes: number; threads?: number },
): Promise<{ one: TraceSummary; many: TraceSummary; runs: ParallelRun[] }> {
  const one = await summarizePath(file, { parallel: { threads: 0 } });
  const runs: ParallelRun[] = [];
  const many = await summarizePath(file, {
    parallel: { threads: parallel.threads ?? 2, minBytes: 0, partBytes: parallel.partBytes },
    onParallelRun: (r) => runs.push(r),
  });
  return { one, many, runs };
}

test('rows spanning part boundaries: identical summary for LF, CRLF, BOM and no final newline, at many part sizes', async () => {
  const dir = tempDir('par');
  // [layout, part sizes]: parts from smaller than a row to a few dozen rows
  const layouts: Array<[string, Omit<GenOptions, 'rows' | 'seed'>, number[]]> = [
    ['lf', {}, [97, 30000]],
    ['crlf', { eol: '\r\n' }, [1000]],
    ['bom', { bom: true }, [4096]],
    ['no-final-newline', { trailingEol: false }, [333]],
    ['crlf-bom-no-final-newline', { eol: '\r\n', bom: true, trailingEol: false }, [2000]],
  ];
  for (const [tag, layout, sizes] of layouts) {
    const file = path.join(dir, `${tag}_kernel_trace.csv`);
    generate(file, { rows: 400, seed: tag.length, ...layout, badAt: [3, 150, 399] });
    let one: TraceSummary | null = null;
    for (const partBytes of sizes) {
      const got = await both(file, { partBytes });
      one = got.one;
      assert.deepEqual(got.many, got.one, `${tag}, parts of ${partBytes} bytes`);
      assert.equal(got.runs.length, 1);
      const run = got.runs[0] as ParallelRun;
      assert.ok(run.parts > 5, `${tag}: ${run.parts} parts`);
      assert.equal(run.workers, 2, 'read by worker threads');
      assert.equal(run.partsHere, 0, 'no part scanned on the main thread');
    }
    if (!one) throw new Error('no run');
    assert.equal(one.kernelTotals.calls, 397, `${tag}: the three bad rows are not dispatches`);
    assert.match(one.warnings.join('\n'), /3 row\(s\) without valid fields or timestamps were skipped/);
    assert.ok(
      one.kernels.some((k) => k.name === 'two\nlines, and a comma'),
      'the name with a newline decoded',
    );
    assert.ok(
      one.kernels.some((k) => k.name === 'say "hi", then, go'),
      'doubled quotes decoded',
    );
  }
});

test('names guessed from Kernel_Id (one id reused for other kernels, as in merged runs): the same summary as without the column', async () => {
  const withId = path.join(tempDir('par-id'), 'run_kernel_trace.csv');
  const text = generate(withId, { rows: 600, seed: 11, badAt: [7] });
  const withoutId = path.join(tempDir('par-noid'), 'run_kernel_trace.csv');
  writeFileSync(withoutId, text.replace('"Kernel_Id"', '"Kernel_Ix"'));
  for (const parallel of [{ threads: 0 }, { threads: 2, minBytes: 0, partBytes: 5000 }]) {
    const a = await summarizePath(withId, { parallel });
    const b = await summarizePath(withoutId, { parallel });
    assert.deepEqual({ ...a, sources: [] }, { ...b, sources: [] }, `threads ${parallel.threads}`);
    assert.equal(a.kernelTotals.calls, 599);
    assert.ok(a.kernels.some((k) => k.name === 'x'.repeat(3000)));
  }
});

test('a part boundary inside a quoted name with a newline: the wrong guess is rescanned, the result is unchanged', async () => {
  const file = path.join(tempDir('par-nl'), 'nl_kernel_trace.csv');
  const text = generate(file, { rows: 200, seed: 5 });
  const bytes = Buffer.from(text);
  const dataStart = bytes.indexOf('\n') + 1;
  // boundaries just before newlines inside quoted names: the part's guess (after that newline) is mid-row
  const inside = bytes.indexOf('two\nlines', dataStart + 200) + 3;
  assert.ok(inside > 3);
  let rescanned = 0;
  for (const partBytes of [inside - dataStart, inside - dataStart - 1, Math.floor((inside - dataStart) / 2)]) {
    const { one, many, runs } = await both(file, { partBytes });
    assert.deepEqual(many, one, `parts of ${partBytes} bytes`);
    rescanned += (runs[0] as ParallelRun).rescans;
  }
  assert.ok(rescanned >= 1, 'at least one part was scanned again from where the previous one ended');
});

test('a malformed row in a later part: same rows kept, same warning with the same line number', async () => {
  const file = path.join(tempDir('par-bad'), 'bad_kernel_trace.csv');
  generate(file, { rows: 300, seed: 9, malformedAt: 211 });
  const { one, many, runs } = await both(file, { partBytes: 2000 });
  assert.deepEqual(many, one);
  assert.ok((runs[0] as ParallelRun).parts > 5);
  const line =
    readFileSync(file, 'utf8')
      .split('\n')
      .findIndex((l) => l.includes('"x,')) + 1;
  assert.ok(line > 1);
  assert.match(
    one.warnings.join('\n'),
    new RegExp(`unexpected character after a closing quote \\(line ${line}\\); the 211 row\\(s\\) before it were read`),
  );
  assert.equal(one.sources[0]?.rows, 211);
});

test('a worker that cannot start (missing or broken file): the parts are scanned on this thread, same result', async () => {
  const dir = tempDir('par-here');
  const file = path.join(dir, 'here_kernel_trace.csv');
  generate(file, { rows: 300, seed: 11, eol: '\r\n' });
  const broken = path.join(dir, 'broken-worker.cjs');
  writeFileSync(broken, "throw new Error('this worker does not start');\n");
  const one = await summarizePath(file, { parallel: { threads: 0 } });
  for (const script of [broken, path.join(dir, 'missing-worker.cjs')]) {
    const runs: ParallelRun[] = [];
    const many = await summarizePath(file, {
      parallel: { threads: 2, minBytes: 0, partBytes: 3000, worker: { script, evaluated: false } },
      onParallelRun: (r) => runs.push(r),
    });
    assert.deepEqual(many, one, script);
    const run = runs[0] as ParallelRun;
    assert.ok(run.parts > 5);
    assert.equal(run.partsHere, run.parts + run.rescans, `${path.basename(script)}: every part scanned here`);
  }
});

test('small files are read on this thread: no worker is started by default', async () => {
  const file = path.join(tempDir('par-small'), 'small_kernel_trace.csv');
  generate(file, { rows: 100, seed: 3 });
  const runs: ParallelRun[] = [];
  const s = await summarizePath(file, { onParallelRun: (r) => runs.push(r) });
  assert.equal(s.kernelTotals.calls, 100);
  assert.deepEqual(runs, []);
});

test('launch configurations per kernel: counted like a naive reference when fields change, are decimals, empty or missing', async () => {
  const dir = tempDir('par-launch');
  const next = seededRandom(77);
  // [columns present, row values]: one layout with every launch column, one without Scratch/Accum (older files)
  const layouts = [
    [
      '"Kind","Agent_Id","Kernel_Id","Kernel_Name","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"',
      11,
    ],
    [
      '"Kind","Agent_Id","Kernel_Id","Kernel_Name","Start_Timestamp","End_Timestamp","LDS_Block_Size","VGPR_Count","SGPR_Count","Workgroup_Size_X","Grid_Size_X"',
      5,
    ],
  ] as const;
  for (const [header, width] of layouts) {
    const expected = new Map<string, Map<string, number>>();
    const lines: string[] = [header];
    let t = 1_000_000;
    for (let i = 0; i < 3000; i++) {
      const k = Math.floor(next() * 3);
      // mostly the kernel's usual config, sometimes another; a decimal, an empty field or a quoted number now and then
      const base =
        next() < 0.8
          ? [k * 100, 16, 32 + k, 0, 48, 256, 1, 1, 4096 * (k + 1), 1, 1]
          : [Math.floor(next() * 3) * 64, 0, 64, 4, 96, 128, 2, 1, 1024, 8, 1];
      const fields = base.slice(0, width).map(String);
      const r = next();
      if (r < 0.03) fields[0] = `${fields[0]}.0`;
      else if (r < 0.05) fields[1] = '';
      else if (r < 0.07) fields[2] = `"${fields[2]}"`;
      const key = fields.map((f) => (f === '' ? 'null' : String(Number(f.replaceAll('"', ''))))).join(',');
      const name = `kernel_${k}`;
      if (!expected.has(name)) expected.set(name, new Map());
      const m = expected.get(name)!;
      m.set(key, (m.get(key) ?? 0) + 1);
      t += 1000;
      lines.push(`"KERNEL_DISPATCH","Agent 4",${k + 1},"${name}",${t},${t + 500},${fields.join(',')}`);
    }
    const file = path.join(dir, `w${width}_kernel_trace.csv`);
    writeFileSync(file, lines.join('\n') + '\n');
    for (const parallel of [{ threads: 0 }, { threads: 2, minBytes: 0, partBytes: 7000 }]) {
      const s = await summarizePath(file, { parallel });
      for (const [name, configs] of expected) {
        const k = s.kernels.find((x) => x.name === name);
        assert.ok(k, name);
        const calls = k.launches.map((l) => l.calls).sort((a, b) => b - a);
        assert.deepEqual(
          calls,
          [...configs.values()].sort((a, b) => b - a),
          `${name}, ${width} launch columns, threads ${parallel.threads}`,
        );
        assert.equal(
          calls.reduce((a, b) => a + b, 0),
          k.calls,
        );
      }
    }
  }
});

test('kernels per rocTX range from the dispatches kept while reading (workers or not), as a naive join gives them', async () => {
  const { writeRun, RANGES, A, B, C } = await import('./rangeRuns');
  const dir = tempDir('par-ranges');
  const next = seededRandom(31);
  const launches = Array.from({ length: 4000 }, (_, i) => {
    const tid = [100, 200, 300][Math.floor(next() * 3)] as number;
    let at = 900 + Math.floor(next() * 3700);
    if (at === 2500) at = 2501; // not on the instant mark
    const gpu0 = 10_000 + i * 20;
    return {
      corr: 1000 + i,
      tid,
      at,
      kernel: [A, B, C][Math.floor(next() * 3)] as string,
      gpu: [gpu0, gpu0 + 5 + Math.floor(next() * 15)] as [number, number],
    };
  });
  writeRun(dir, { launches });
  // the innermost range open on the launching thread when the launch was made (the later-started one)
  const expected = new Map<string, Map<string, { calls: number; totalNs: number }>>();
  for (const l of launches) {
    const open = RANGES.filter(([, tid, s, e]) => tid === l.tid && s <= l.at && l.at <= e && e > s).sort(
      (x, y) => y[2] - x[2],
    );
    const range = open[0]?.[0];
    if (!range) continue;
    if (!expected.has(range)) expected.set(range, new Map());
    const k = expected.get(range)!.get(l.kernel) ?? { calls: 0, totalNs: 0 };
    k.calls++;
    k.totalNs += l.gpu[1] - l.gpu[0];
    expected.get(range)!.set(l.kernel, k);
  }
  const one = await summarizePath(dir, { parallel: { threads: 0 } });
  const runs: ParallelRun[] = [];
  const many = await summarizePath(dir, {
    parallel: { threads: 2, minBytes: 0, partBytes: 20_000 },
    onParallelRun: (r) => runs.push(r),
  });
  assert.ok((runs[0]?.parts ?? 0) > 5 && runs[0]?.workers === 2, 'the kernel trace was read by workers');
  assert.deepEqual(many, one);
  for (const [range, kernels] of expected) {
    const m = one.markers.find((x) => x.name === range);
    assert.ok(m, range);
    assert.equal(m.kernelAttribution, 'correlation');
    const got = new Map(m.kernels.map((k) => [k.name, { calls: k.calls, totalNs: k.totalNs }]));
    assert.deepEqual(got, kernels, range);
  }
});
