// The parallel read of a PC-sample CSV (worker threads over parts of the file, pcSampleParts.ts) against the
// one-thread read of the same file: the whole PcHotspots must be identical (every count, mean lanes, stall and
// type tallies, order, warnings with their line numbers). Files are generated (layout of rocprofv3's
// generateCSV.cpp, as bench/pcSampleData.ts writes it) with what a part boundary can cut into: instructions with
// commas, doubled quotes and newlines inside quotes, CRLF, a BOM, no final newline, rows without a dispatch,
// unreadable masks, Wave_Issued_Instruction values other than 0/1, unmapped code, dispatches without a kernel
// name; parts are made small so that many rows span boundaries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { hotspotsPath, type HotspotsOptions } from '../../../src/trace/pcSampling/hotspots';
import type { PcParallelRun } from '../../../src/trace/pcSampling/pcSampleParts';
import { MAX_TALLY_NAMES } from '../../../src/trace/pcSampling/names';
import type { PcHotspots } from '../../../src/core/protocol/pcSampling';
import { seededRandom, tempDir } from './helpers';

const HEADER =
  '"Sample_Timestamp","Exec_Mask","Dispatch_Id","Instruction","Instruction_Comment","Correlation_Id","Wave_Issued_Instruction","Instruction_Type","Stall_Reason","Wave_Count"';
const REASON = 'ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_';
const TYPE = 'ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_';
const INSTS = [
  's_waitcnt vmcnt(0)',
  'global_load_dwordx4 v[4:7], v[0:1], off',
  'v_add_f32_e32 v2, v2, v3',
  'say ""hi"", then',
  'two\nlines, inside',
  'crlf\r\ninside',
  '',
];
const REASONS = ['WAITCNT', 'ALU_DEPENDENCY', 'OTHER_WAIT', 'BARRIER_WAIT', 'NOT_A_REASON'];
const TYPES = ['VALU', 'SCALAR', 'LDS', 'MATRIX'];

interface GenOptions {
  rows: number;
  seed: number;
  eol?: string;
  bom?: boolean;
  trailingEol?: boolean;
  /** Row index written malformed (a character after a closing quote). */
  malformedAt?: number;
  /** Distinct stall reasons (more than MAX_TALLY_NAMES: folded). */
  reasons?: number;
}

/** A run's samples and kernel trace in `dir`; dispatches 1..20, of which 17..20 have no kernel trace row. */
function generate(dir: string, o: GenOptions): string {
  mkdirSync(dir, { recursive: true });
  const next = seededRandom(o.seed);
  const eol = o.eol ?? '\n';
  const pick = <T>(a: readonly T[]): T => a[Math.floor(next() * a.length)] as T;
  const lines = [HEADER];
  for (let i = 0; i < o.rows; i++) {
    const d = next() < 0.01 ? '' : String(1 + Math.floor(next() * 20));
    const r = next();
    const mask =
      r < 0.7
        ? '18446744073709551615'
        : r < 0.8
          ? String(Math.floor(next() * 2 ** 40))
          : r < 0.99
            ? BigInt.asUintN(64, BigInt(Math.floor(next() * 2 ** 32)) << 31n).toString()
            : pick(['0xffff', 'nope', '99999999999999999999999', '-1']);
    const inst = pick(INSTS);
    const comment =
      inst === ''
        ? 'Unrecognized code object id, physical virtual address of PC:0x7f00'
        : next() < 0.05
          ? ''
          : `/k/kernel_${d.length % 3}.hip:${1 + Math.floor(next() * next() * 30)}`;
    const issued = next() < 0.01 ? '2' : next() < 0.3 ? '1' : '0';
    const type = issued === '1' ? pick(TYPES) : 'NO_INST';
    const reason = o.reasons ? `R${Math.floor(next() * o.reasons)}` : pick(REASONS);
    const quotedInst = i === o.malformedAt ? `"${inst}"x` : `"${inst}"`;
    lines.push(
      `${1000 + i},${mask},${d},${quotedInst},"${comment}",${d},${issued},"${TYPE}${type}","${REASON}${reason}",${1 + (i % 8)}`,
    );
  }
  const text = (o.bom ? '\ufeff' : '') + lines.join(eol) + (o.trailingEol === false ? '' : eol);
  writeFileSync(path.join(dir, 'run_pc_sampling_stochastic.csv'), text);
  const kt = [
    '"Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","Dispatch_Id"',
  ];
  for (let d = 1; d <= 16; d++)
    kt.push(
      `"KERNEL_DISPATCH",1,1,${d % 5},"void k${d % 5}<float, ""x"">(float*)",${d},${d * 1000},${d * 1000 + 900},${d}`,
    );
  writeFileSync(path.join(dir, 'run_kernel_trace.csv'), `${kt.join('\n')}\n`);
  return text;
}

async function both(
  dir: string,
  parallel: NonNullable<HotspotsOptions['parallel']>,
): Promise<{ one: PcHotspots; many: PcHotspots; run: PcParallelRun }> {
  const one = await hotspotsPath(dir, { parallel: { threads: 0 } });
  const runs: PcParallelRun[] = [];
  const many = await hotspotsPath(dir, { parallel: { minBytes: 0, ...parallel, onRun: (r) => runs.push(r) } });
  assert.equal(runs.length, 1, 'one parallel read');
  return { one, many, run: runs[0] as PcParallelRun };
}

test('PC samples read in parts by worker threads: the same hot spots as one pass, for LF, CRLF, BOM, no final newline', async () => {
  const layouts: Array<[string, Omit<GenOptions, 'rows' | 'seed'>, number]> = [
    ['lf', {}, 3000],
    ['crlf', { eol: '\r\n' }, 1100],
    ['bom-no-final-newline', { bom: true, trailingEol: false }, 777],
  ];
  for (const [tag, layout, partBytes] of layouts) {
    const dir = tempDir(`pcs-par-${tag}`);
    generate(dir, { rows: 3000, seed: tag.length, ...layout });
    const { one, many, run } = await both(dir, { threads: 3, partBytes });
    assert.deepEqual(many, one, tag);
    assert.ok(run.parts > 20, `${tag}: ${run.parts} parts`);
    assert.equal(run.workers, 2, 'read by worker threads');
    assert.ok(run.partsHere < run.parts, 'the workers scanned parts');
    assert.ok(run.rescans > 0, `${tag}: boundaries guessed inside quoted newlines were rescanned`);
    // what the file holds, read the same both ways
    assert.equal(one.samples + Number(/(\d+) row\(s\) without a dispatch id/.exec(one.warnings.join('\n'))?.[1]), 3000);
    assert.ok(
      one.kernels.some((k) => k.name === 'void k1<float, "x">(float*)'),
      'named through the kernel trace',
    );
    assert.ok(
      one.kernels.some((k) => k.name === 'dispatch 20'),
      'a dispatch without a name',
    );
    assert.ok(one.kernels.some((k) => k.instructions.some((i) => i.text === 'two\nlines, inside')));
    assert.ok(one.kernels.some((k) => k.unknownCode > 0));
    assert.match(one.warnings.join('\n'), /with an Exec_Mask that is not a 64-bit number \(the first on line \d+/);
    assert.match(one.warnings.join('\n'), /Wave_Issued_Instruction other than 0 or 1/);
    assert.match(one.warnings.join('\n'), /NOT_A_REASON/);
  }
});

test('PC samples in parts without a worker (none could start): scanned on this thread, the same hot spots', async () => {
  const dir = tempDir('pcs-par-here');
  generate(dir, { rows: 1500, seed: 3 });
  const { one, many, run } = await both(dir, { threads: 3, partBytes: 2000, worker: null });
  assert.deepEqual(many, one);
  assert.equal(run.workers, 0);
  assert.equal(run.partsHere, run.parts);
});

test('hostile: a malformed row in a later part keeps the rows before it, with the same warning as one pass', async () => {
  const dir = tempDir('pcs-par-malformed');
  generate(dir, { rows: 2000, seed: 9, malformedAt: 1500 });
  const { one, many, run } = await both(dir, { threads: 3, partBytes: 4000 });
  assert.deepEqual(many, one);
  assert.ok(run.parts > 10);
  const w = many.warnings.join('\n');
  assert.match(
    w,
    /malformed CSV: unexpected character after a closing quote \(line \d+\); the 1500 row\(s\) before it were read/,
  );
  assert.ok(many.samples < 1500, 'nothing after the malformed row was counted');
});

test('hostile: more distinct stall reasons than the cap are counted as one, in parts as in one pass', async () => {
  const dir = tempDir('pcs-par-reasons');
  generate(dir, { rows: 4000, seed: 4, reasons: MAX_TALLY_NAMES * 2 });
  const { one, many } = await both(dir, { threads: 3, partBytes: 5000 });
  assert.deepEqual(many, one);
  const other = many.kernels.reduce((n, k) => n + (k.stalls['(other)'] ?? 0), 0);
  assert.ok(other > 0);
  assert.ok(
    many.warnings.includes(
      `more than ${MAX_TALLY_NAMES} distinct stall reasons: ${other} sample(s) past them are counted as "(other)"`,
    ),
  );
  const reasons = new Set(many.kernels.flatMap((k) => Object.keys(k.stalls)));
  assert.ok(reasons.has('(other)'));
  assert.ok(reasons.size <= MAX_TALLY_NAMES + 1);
});
