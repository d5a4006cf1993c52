// Source lines of a real code object: kernels.hip built here with clang-19 `-g` for gfx942 (test/support/codeObjects.ts),
// disassembled with `llvm-objdump -l` and read by listing.ts; every instruction's line is checked against
// llvm-symbolizer's answer for its offset (the DWARF line table, asked independently). Then PC samples are
// synthesised at those offsets in rocprofv3's host-trap CSV layout (Instruction = the decoded text,
// Instruction_Comment = `file:line` as rocprofv3 writes them, docs/pc-sampling.md), and the hot spots' lines, the
// source heat of the file and the disassembly heat per row must equal what the offsets' DWARF lines say.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  disassembleKernel,
  loadCodeObjectsPath,
  parseListing,
  type ListedInstruction,
} from '../../../src/trace/codeObjects/index';
import { hotspotsPath } from '../../../src/trace/pcSampling/hotspots';
import { disassemblyHeat, sourceHeat } from '../../../src/core/hotspotHeat';
import type { KernelHotspots } from '../../../src/core/protocol/pcSampling';
import { builtCodeObjects, skipCodeObjects } from '../../support/codeObjects';
import { tempDir } from './helpers';

const skip = skipCodeObjects();
const KERNELS = [
  { symbol: 'scale', traced: 'scale(float*, float)', dispatch: 1 },
  { symbol: '_Z13reduce_sharedILi1024EEvPKiPi', traced: 'void reduce_shared<1024>(int const*, int*)', dispatch: 2 },
];
const TRACE_HEADER =
  '"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"';

/** llvm-symbolizer's `file:line` per offset (null for line 0 or no line). */
function symbolize(object: string, offsets: number[]): Map<number, { file: string; line: number } | null> {
  const r = spawnSync(
    'llvm-symbolizer-19',
    [`--obj=${object}`, '--no-inlines', ...offsets.map((o) => `0x${o.toString(16)}`)],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  const blocks = r.stdout.trim().split(/\n\s*\n/);
  assert.equal(blocks.length, offsets.length);
  return new Map(
    offsets.map((o, i) => {
      const m = /^(.+):(\d+):\d+$/.exec(blocks[i]!.split('\n')[1]!.trim());
      return [o, m && Number(m[2]) > 0 ? { file: m[1]!, line: Number(m[2]) } : null];
    }),
  );
}

test(
  'DWARF lines from objdump -l equal the line table, and PC samples at real offsets land on them',
  { skip },
  async () => {
    const built = builtCodeObjects();
    const [object] = (await loadCodeObjectsPath(built.hipDebugObject)).objects;
    assert.ok(object);
    const dir = tempDir('dwarf-lines');
    const samples = [
      '"Sample_Timestamp","Exec_Mask","Dispatch_Id","Instruction","Instruction_Comment","Correlation_Id"',
    ];
    const trace = [TRACE_HEADER];
    const listings = new Map<string, ListedInstruction[]>();
    /** Per kernel: samples per DWARF line and per `text|line`, counted as they are written. */
    const expected = new Map<string, { lines: Map<number, number>; insts: Map<string, number>; total: number }>();
    let ts = 1000;
    for (const k of KERNELS) {
      const text = await disassembleKernel({
        objdump: built.objdump,
        bytes: object.bytes,
        processor: 'gfx942',
        kernel: k.symbol,
      });
      // the alignment padding after s_endpgm is left out with -l too (objdump then ends it with a `...` line)
      assert.doesNotMatch(text, /\n\t+(s_nop 0 |\.\.\.)[^\n]*\n$/);
      if (k.symbol === 'scale')
        assert.match(text, /s_endpgm\b[^\n]*\n\t\/\/ \d+ × s_nop 0 of padding after s_endpgm left out\n$/);
      const listing = parseListing(text);
      listings.set(k.symbol, listing);
      const code = listing.filter((i) => i.text !== 's_nop 0');
      assert.ok(code.length > 5, `${k.symbol}: instructions`);
      const dwarf = symbolize(
        built.hipDebugObject,
        code.map((i) => i.offset),
      );
      let withLine = 0;
      for (const i of code) {
        const d = dwarf.get(i.offset)!;
        // objdump prints no row of line 0 (compiler-made code): such an instruction stays under the line above it
        if (d) assert.deepEqual({ file: i.file, line: i.line }, d, `${k.symbol} +0x${i.offset.toString(16)} ${i.text}`);
        if (d) withLine++;
      }
      assert.ok(
        withLine >= code.length / 2,
        `${k.symbol}: most instructions have a line (${withLine} of ${code.length})`,
      );
      assert.ok(code.every((i) => i.file === null || i.file.endsWith('test/fixtures/code-objects/kernels.hip')));
      // samples: the n-th instruction with a line gets (n % 4) + 1, its comment the symbolizer's file:line
      const exp = { lines: new Map<number, number>(), insts: new Map<string, number>(), total: 0 };
      code
        .filter((i) => dwarf.get(i.offset))
        .forEach((i, n) => {
          const d = dwarf.get(i.offset)!;
          const count = (n % 4) + 1;
          for (let c = 0; c < count; c++)
            samples.push(`${ts++},18446744073709551615,${k.dispatch},"${i.text}","${d.file}:${d.line}",${k.dispatch}`);
          exp.total += count;
          exp.lines.set(d.line, (exp.lines.get(d.line) ?? 0) + count);
          const key = `${i.text}|${d.line}`;
          exp.insts.set(key, (exp.insts.get(key) ?? 0) + count);
        });
      expected.set(k.traced, exp);
      trace.push(
        `"KERNEL_DISPATCH","Agent 4",1,1,7,${k.dispatch},${k.dispatch},"${k.traced}",${k.dispatch},${k.dispatch * 1000},${k.dispatch * 1000 + 500},0,0,8,0,16,256,1,1,65536,1,1`,
      );
    }
    writeFileSync(path.join(dir, '7_pc_sampling_host_trap.csv'), `${samples.join('\n')}\n`);
    writeFileSync(path.join(dir, '7_kernel_trace.csv'), `${trace.join('\n')}\n`);

    const hot = await hotspotsPath(dir);
    assert.deepEqual(hot.kernels.map((k) => k.name).sort(), KERNELS.map((k) => k.traced).sort());
    for (const k of KERNELS) {
      const kernel = hot.kernels.find((h) => h.name === k.traced)!;
      const exp = expected.get(k.traced)!;
      assert.equal(kernel.samples, exp.total);
      assert.deepEqual(
        new Map(kernel.lines.map((l) => [l.line, l.samples])),
        exp.lines,
        `${k.traced}: hot lines = DWARF lines`,
      );
      assert.deepEqual(new Map(kernel.instructions.map((i) => [`${i.text}|${i.line ?? ''}`, i.samples])), exp.insts);

      // the disassembly heat: every row whose text and line were sampled, with those samples
      const listing = listings.get(k.symbol)!;
      const marks = disassemblyHeat(listing, kernel);
      const code = listing.filter((i) => i.text !== 's_nop 0');
      const sampledRows = code.filter((i) => exp.insts.has(`${i.text}|${i.line ?? ''}`));
      assert.ok(sampledRows.length >= exp.insts.size);
      assert.deepEqual(
        marks.map((m) => m.line),
        sampledRows.map((i) => i.row),
      );
      for (const m of marks) {
        const i = listing.find((x) => x.row === m.line)!;
        assert.equal(m.samples, exp.insts.get(`${i.text}|${i.line ?? ''}`), `row ${m.line} ${i.text}`);
        assert.ok(m.level >= 1 && m.level <= 5);
      }
      // with offsets (rocprofv3's JSON form), each sampled offset's row and no other
      const byOffset: KernelHotspots = {
        ...kernel,
        instructions: code.slice(0, 3).map((i, n) => ({
          ...kernel.instructions[0]!,
          codeObject: 0,
          offset: i.offset,
          text: i.text,
          line: i.line,
          samples: n + 1,
          share: (n + 1) / kernel.samples,
        })),
      };
      assert.deepEqual(
        disassemblyHeat(listing, byOffset).map((m) => [m.line, m.samples]),
        code.slice(0, 3).map((i, n) => [i.row, n + 1]),
      );
      // a sample without a line (rocprofv3's comment for line 0) marks the rows with its text
      const noLine: KernelHotspots = {
        ...kernel,
        instructions: [{ ...kernel.instructions[0]!, text: code[0]!.text, line: null, file: null }],
      };
      assert.deepEqual(
        disassemblyHeat(listing, noLine).map((m) => m.line),
        code.filter((i) => i.text === code[0]!.text).map((i) => i.row),
      );
    }

    // the source file's heat: the same lines, found through the file name from another folder
    const marks = sourceHeat([hot], '/home/someone/project/kernels.hip');
    const allLines = new Map<number, number>();
    for (const exp of expected.values())
      for (const [line, n] of exp.lines) allLines.set(line, Math.max(allLines.get(line) ?? 0, n));
    assert.deepEqual(new Map(marks.map((m) => [m.line, m.samples])), allLines);
    assert.deepEqual(sourceHeat([hot], '/home/someone/project/other.hip'), []);
  },
);
