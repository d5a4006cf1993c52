// PC-sampling heat on a Python submission whose HIP kernel torch's load_inline builds from its strings: the
// submission is run against the stand-in torch and its generated hip.hip compiled by clang-19 with line tables
// (test/support/inlineHipBuild.ts); stochastic samples are written at the kernel's real instructions with the
// `hip.hip:line` objdump gives them (rocprofv3's CSV layout, docs/pc-sampling.md), in a profile zip opened with
// Open Trace. The .py file then carries the heat on the string lines that hold that code; an edit above them
// takes it off.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { createWriteStream, rmSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { ZipArchive } from 'archiver';
import type { KernelRunnerApi } from '../../../src/extension/api';
import { buildInlineHip, type InlineHipBuild } from '../../support/inlineHipBuild';
import { activateExtension, waitFor } from './helpers';

const HEADER =
  '"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"';
const PC_HEADER =
  '"Sample_Timestamp","Exec_Mask","Dispatch_Id","Instruction","Instruction_Comment","Correlation_Id","Wave_Issued_Instruction","Instruction_Type","Stall_Reason","Wave_Count"';
const TYPE = 'ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_';
const REASON = 'ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_';

/** Samples: [instruction text, count, stall reason or issued type]. */
const PLAN: Array<[string, number, string]> = [
  ['s_waitcnt vmcnt(0)', 30, 'stall:WAITCNT'],
  ['global_load_dword v2, v[2:3], off', 10, 'issued:FLAT'],
  ['v_cmp_gt_i32_e32 vcc, s5, v0', 5, 'issued:VALU'],
];

describe('PC-sampling heat on inline HIP in a Python file', function () {
  this.timeout(90_000);
  let api: KernelRunnerApi;
  let built: InlineHipBuild;

  before(async function () {
    const b = buildInlineHip();
    if (typeof b === 'string') {
      if (process.env.CI === 'true') throw new Error(b);
      console.log(`*** SKIPPING the inline HIP heat suite: ${b} ***`);
      this.skip();
    }
    built = b as InlineHipBuild;
    api = await activateExtension();
  });
  after(async () => {
    api?.closePanels();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    if (built) rmSync(built.dir, { recursive: true, force: true });
  });

  /** The profile zip, and the .py line each sampled hip.hip line's code is on, with its samples. */
  async function profileZip(): Promise<{ zip: string; expected: Map<number, number> }> {
    const rows = [PC_HEADER];
    const pyLines = built.pyText.split('\n');
    const expected = new Map<number, number>();
    let ts = 1;
    for (const [text, count, what] of PLAN) {
      const inst = built.instructions.find((i) => i.text === text);
      assert.ok(inst, `clang-19 built ${text} with a line: ${built.instructions.map((i) => i.text).join('; ')}`);
      const [kind, name] = what.split(':');
      for (let n = 0; n < count; n++)
        rows.push(
          `${ts++},18446744073709551615,1,"${text}","${inst.file}:${inst.line}",1,${kind === 'issued' ? 1 : 0},"${TYPE}${kind === 'issued' ? name : 'NO_INST'}","${REASON}${kind === 'stall' ? name : 'NONE'}",4`,
        );
      // independently of the mapping: the .py line holding the same code as the sampled hip.hip line
      const code = built.hipLines[inst.line! - 1]!.trim();
      const pyLine = pyLines.findIndex((l) => l.trim() === code) + 1;
      assert.ok(pyLine > 0 && pyLines.filter((l) => l.trim() === code).length === 1, `"${code}" once in the .py`);
      expected.set(pyLine, (expected.get(pyLine) ?? 0) + count);
    }
    const zip = join(built.dir, 'inline-profile.zip');
    const archive = new ZipArchive({ zlib: { level: 1 } });
    const out = createWriteStream(zip);
    archive.pipe(out);
    const dispatch = `"KERNEL_DISPATCH","Agent 4",1,1,1,1,1,"scale_kernel(float const*, float*, float, int)",1,1000000,1040000,0,0,8,0,16,256,1,1,65536,1,1`;
    archive.append(Buffer.from(`${HEADER}\n${dispatch}\n`), { name: '42_kernel_trace.csv' });
    archive.append(Buffer.from(`${rows.join('\n')}\n`), { name: '42_pc_sampling_stochastic.csv' });
    await archive.finalize();
    if (!out.writableFinished) await once(out, 'finish');
    return { zip, expected };
  }

  it("puts the samples of torch's generated hip.hip on the .py string lines, and takes them off after an edit above", async () => {
    const { zip, expected } = await profileZip();
    assert.ok(await api.openTrace(zip));
    const doc = await vscode.workspace.openTextDocument(built.py);
    const editor = await vscode.window.showTextDocument(doc);
    const uri = doc.uri.toString();
    const marks = await waitFor('heat on the .py file', () => {
      const m = api.heatMarks(uri);
      return m.length === expected.size ? m : undefined;
    });
    const total = [...expected.values()].reduce((a, b) => a + b, 0);
    const pct = (n: number) => `${Math.round((n / total) * 100)}%`;
    const waitLine = [...expected].find(([, n]) => n === 30)![0];
    assert.deepEqual(
      marks.map((m) => [m.line, m.samples, m.hint]),
      [...expected]
        .sort((a, b) => a[0] - b[0])
        .map(([line, n]) => [line, n, line === waitLine ? `${pct(n)} · waitcnt` : pct(n)]),
    );
    assert.equal(doc.lineAt(waitLine - 1).text.trim(), 'y[i] = v * s + 1.0f;', 'the waitcnt stall is on the store');
    assert.deepEqual(
      marks.map((m) => m.level),
      marks.map((m) => Math.ceil((m.samples / 30) * 5)),
    );

    // an edit inside the string above the hot lines (the lines moved): the marks go
    const firstHot = Math.min(...marks.map((m) => m.line));
    await editor.edit((e) => e.insert(new vscode.Position(firstHot - 2, 0), '    // a new line\n'));
    await waitFor('the marks off the edited file', () => api.heatMarks(uri).length === 0);
  });
});
