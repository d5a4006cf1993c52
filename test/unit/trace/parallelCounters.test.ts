// The parallel counter_collection read (worker threads over parts of the file, merged in file order) against the
// single-threaded read of the same file: the whole summary must be identical (per-kernel counter sums, min/max,
// dispatches, kernel times, launches, busy union, the roofline and speed of light, warnings with their line
// numbers). The files are generated in rocprofv3's ROCm 7 layout (one row per dispatch and counter, the dispatch's
// fields repeated on each row; bench/roofline.bench.ts has the same header) with what a part boundary can cut into:
// quoted names with commas, doubled quotes and newlines, CRLF, a BOM, no newline at the end, bad rows, a dispatch
// whose first row is bad, dispatches timed again later (rocprof-compute's passes), fractional and huge values;
// parts are made small so that many dispatches, and rows, span boundaries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { summarizePath, type TraceSummary } from '../../../src/trace/index';
import type { ParallelRun } from '../../../src/trace/parallelParts';
import { seededRandom } from './helpers';
import { tempDirsRemovedAfter } from '../../support/tempDirs';

const tempDir = tempDirsRemovedAfter('kr-counters-');

const TIMED_HEADER =
  'Correlation_Id,Dispatch_Id,Agent_Id,Queue_Id,Process_Id,Thread_Id,Grid_Size,Kernel_Id,Kernel_Name,Workgroup_Size,' +
  'LDS_Block_Size,Scratch_Size,VGPR_Count,Accum_VGPR_Count,SGPR_Count,Counter_Name,Counter_Value,Start_Timestamp,End_Timestamp';
// ROCm 6.x: no timestamps
const UNTIMED_HEADER = TIMED_HEADER.replace(',Start_Timestamp,End_Timestamp', '');

const NAMES = [
  'void gemm<128, 64>(float const*, float*, int)',
  'say ""hi"", then, go',
  'two\nlines, and a comma',
  'crlf\r\ninside',
  'plain_kernel',
];
const COUNTERS = [
  'SQ_INSTS_VALU_ADD_F32',
  'SQ_INSTS_VALU_FMA_F32',
  'TCC_EA0_RDREQ_sum',
  'TCP_TOTAL_CACHE_ACCESSES_sum',
  'SQ_LDS_IDX_ACTIVE',
  'GRBM_GUI_ACTIVE',
  'TA_BUSY_avr', // fractional values
  'SQ_BUSY_CYCLES', // some above 2^53
];

interface GenOptions {
  dispatches: number;
  seed: number;
  eol?: string;
  bom?: boolean;
  trailingEol?: boolean;
  timed?: boolean;
  /** Row indexes written with a value that is no number (bad rows). */
  badValueAt?: number[];
  /** Dispatches whose first row has End < Start (then the dispatch is a bad row, its later rows' times unused). */
  badFirstRow?: number[];
  /** Row index written malformed (a character after a closing quote). */
  malformedAt?: number;
}

/** Writes the file; returns the line the malformed row starts on (0: none) and the dispatches with rows before it. */
function generate(file: string, o: GenOptions): { malformedLine: number; dispatchesBefore: number } {
  const next = seededRandom(o.seed);
  const eol = o.eol ?? '\n';
  const timed = o.timed ?? true;
  const lines = [timed ? TIMED_HEADER : UNTIMED_HEADER];
  let t = 12_000_000_000_000_000n;
  let row = 0;
  let malformedLine = 0;
  let dispatchesBefore = 0;
  const timings: Array<[bigint, bigint]> = [];
  const write = (d: number, k: number, start: bigint, end: bigint, counters: string[]): void => {
    const name = NAMES[k] as string;
    for (const c of counters) {
      const value =
        row === o.malformedAt
          ? null
          : o.badValueAt?.includes(row)
            ? 'n/a'
            : c === 'TA_BUSY_avr'
              ? (next() * 100).toFixed(3)
              : c === 'SQ_BUSY_CYCLES' && next() < 0.3
                ? String(2n ** 53n + BigInt(Math.floor(next() * 1000)))
                : String(Math.floor(next() * 200000));
      const quoted = row === o.malformedAt ? `"${name}"x` : /[",\r\n]/.test(name) ? `"${name}"` : name;
      const agent = d % 7 === 0 ? 3 : 2;
      const fixed = `${d},${d},${agent},1,4242,4242,1048576,${k + 1},${quoted},256,${[0, 4096][d % 2]},0,${[16, 32][d % 2]},4,32`;
      const bad = o.badFirstRow?.includes(d) && c === counters[0] && end === timings[d - 1]?.[1];
      const times = timed ? `,${bad ? end : start},${bad ? start : end}` : '';
      if (row === o.malformedAt) {
        malformedLine = lines.join('\n').split('\n').length + 1;
        dispatchesBefore = c === counters[0] ? d - 1 : d;
      }
      lines.push(`${fixed},${c},${value ?? 1}${times}`);
      row++;
    }
  };
  const kernelOf: number[] = [];
  for (let d = 1; d <= o.dispatches; d++) {
    const k = Math.floor(next() * NAMES.length);
    kernelOf.push(k);
    const start = t + BigInt(Math.floor(next() * 5000));
    const end = start + BigInt(1000 + Math.floor(next() * 100000));
    t = end + 500n;
    timings.push([start, end]);
    // most dispatches have every counter, some only a few
    write(d, k, start, end, next() < 0.9 ? COUNTERS : COUNTERS.slice(0, 3));
  }
  // a second pass over some dispatches (rocprof-compute's pmc_perf.csv): other timings, other values
  for (let d = 1; d <= o.dispatches; d += 5) {
    const [start, end] = timings[d - 1] as [bigint, bigint];
    write(d, kernelOf[d - 1] as number, start + 7n, end + 7n + BigInt(d % 3), COUNTERS.slice(0, 2));
  }
  const text = (o.bom ? '\ufeff' : '') + lines.join(eol) + (o.trailingEol === false ? '' : eol);
  writeFileSync(file, text);
  return { malformedLine, dispatchesBefore };
}

async function both(
  target: string,
  partBytes: number,
): Promise<{ one: TraceSummary; many: TraceSummary; runs: ParallelRun[] }> {
  const one = await summarizePath(target, { parallel: { threads: 0 } });
  const runs: ParallelRun[] = [];
  const many = await summarizePath(target, {
    parallel: { threads: 2, minBytes: 0, partBytes, scanHereToo: false },
    onParallelRun: (r) => runs.push(r),
  });
  // the default: this thread scans parts too, beside one worker
  const hereToo: ParallelRun[] = [];
  const manyHereToo = await summarizePath(target, {
    parallel: { threads: 2, minBytes: 0, partBytes },
    onParallelRun: (r) => hereToo.push(r),
  });
  assert.deepEqual(manyHereToo, one, `${target}: this thread scanning too`);
  assert.equal(hereToo.length, 1);
  const run = hereToo[0] as ParallelRun;
  assert.equal(run.workers, 1, 'one worker beside this thread');
  assert.ok(run.partsHere > 0 && run.partsHere < run.parts, `${run.partsHere} of ${run.parts} parts scanned here`);
  return { one, many, runs };
}

function workload(tag: string, o: GenOptions): string {
  return workloadLine(tag, o).dir;
}

function workloadLine(tag: string, o: GenOptions): { dir: string; malformedLine: number; dispatchesBefore: number } {
  const dir = path.join(tempDir('par'), tag);
  mkdirSync(dir);
  writeFileSync(
    path.join(dir, 'sysinfo.csv'),
    'gpu_arch,cu_per_gpu,max_sclk,max_mclk,total_l2_chan,num_hbm_channels,num_xcd,max_waves_per_cu\ngfx942,304,2100,1300,128,128,8,32\n',
  );
  return { dir, ...generate(path.join(dir, 'run_counter_collection.csv'), o) };
}

test('counter rows spanning part boundaries: the same summary as one thread, for LF, CRLF, BOM and no final newline', async () => {
  const layouts: Array<[string, Partial<GenOptions>, number]> = [
    ['lf', {}, 997],
    ['crlf', { eol: '\r\n' }, 4000],
    ['bom-no-final-newline', { bom: true, trailingEol: false }, 2500],
    ['crlf-bom-no-final-newline', { eol: '\r\n', bom: true, trailingEol: false }, 333],
  ];
  for (const [tag, layout, partBytes] of layouts) {
    const dir = workload(tag, {
      dispatches: 120,
      seed: tag.length,
      badValueAt: [5, 400],
      badFirstRow: [9, 60],
      ...layout,
    });
    const { one, many, runs } = await both(dir, partBytes);
    assert.deepEqual(many, one, tag);
    assert.equal(runs.length, 1, `${tag}: the counter file was read in parts`);
    const run = runs[0] as ParallelRun;
    assert.ok(run.parts > 5, `${tag}: ${run.parts} parts`);
    assert.equal(run.workers, 2, 'read by worker threads');
    assert.equal(run.partsHere, 0, 'no part scanned on the main thread');
    // what the file holds is in the summary (so that the comparison above compares something)
    assert.ok(one.roofline && one.roofline.kernels.length === NAMES.length, `${tag}: a roofline point per kernel`);
    assert.equal(one.kernelTotals.calls, 118, `${tag}: the two dispatches with a bad first row are not calls`);
    assert.match(one.warnings.join('\n'), /4 row\(s\)/, `${tag}: the four bad rows are named`);
    assert.match(one.warnings.join('\n'), /one timing per counter pass/, `${tag}: the second pass's timings`);
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

test('untimed counter rows (before ROCm 7) and a malformed row: the same summary as one thread, the rows before it kept', async () => {
  const untimed = workload('untimed', { dispatches: 80, seed: 3, timed: false, badValueAt: [10] });
  const a = await both(untimed, 700);
  assert.deepEqual(a.many, a.one);
  assert.ok((a.runs[0]?.parts ?? 0) > 5 && a.runs[0]?.workers === 2, 'read by workers in parts');
  assert.equal(a.one.kernelTotals.calls, 80);

  const {
    dir: broken,
    malformedLine,
    dispatchesBefore,
  } = workloadLine('malformed', { dispatches: 100, seed: 4, malformedAt: 500 });
  assert.ok(malformedLine > 502, 'names with line feeds before the malformed row');
  const b = await both(broken, 1500);
  assert.deepEqual(b.many, b.one);
  assert.ok((b.runs[0]?.parts ?? 0) > 5, 'read in parts');
  const warning = b.one.warnings.find((w) => /malformed CSV/.test(w)) ?? '';
  assert.match(warning, new RegExp(`\\(line ${malformedLine}\\)`), 'the malformed row named by its line');
  assert.match(warning, /the 500 row\(s\) before it were read/);
  // and so were their dispatches: calls and times, not only the counters' sums
  assert.ok(dispatchesBefore > 10, `dispatches before the malformed row: ${dispatchesBefore}`);
  assert.equal(b.one.kernelTotals.calls, dispatchesBefore);
  assert.ok(b.one.kernelTotals.totalNs > 0);
});

test('per-kernel counter sums are exact: fractional and huge values give the same sums in any grouping of the rows', async () => {
  const dir = workload('sums', { dispatches: 150, seed: 9 });
  const one = await summarizePath(dir, { parallel: { threads: 0 } });
  for (const partBytes of [211, 5000]) {
    const many = await summarizePath(dir, { parallel: { threads: 2, minBytes: 0, partBytes } });
    assert.deepEqual(many.counters, one.counters, `parts of ${partBytes} bytes`);
  }
  const of = (name: string): Array<{ mean: number }> =>
    one.counters?.flatMap((k) => k.counters.filter((c) => c.name === name)) ?? [];
  assert.ok(
    of('TA_BUSY_avr').some((c) => !Number.isInteger(c.mean)),
    'fractional sums were compared',
  );
  assert.ok(
    of('SQ_BUSY_CYCLES').some((c) => c.mean > 2 ** 50),
    'sums past 2^53 were compared',
  );
});
