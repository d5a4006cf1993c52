/* global getComputedStyle */
// PC-sampling heat in the editor: a HIP kernel file in the workspace is built here with clang-19 `-g` for gfx942;
// stochastic PC samples are written at its real instructions (text from llvm-objdump, `file:line` from its DWARF
// line table via objdump -l, in rocprofv3's CSV layout: docs/pc-sampling.md) beside a kernel trace and the code
// object, in a profile zip opened with "Open Trace…". The kernel's source file then shows the heat on the sampled
// lines ("57% · waitcnt" after the line) and the disassembly editor on the sampled instructions; an edit above the
// hot lines takes them off the file, closing the results panel off the disassembly.
import { spawnSync } from 'node:child_process';
import { copyFileSync, createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { ZipArchive } from 'archiver';
import { assert, openTrace, openWorkbench, shot, webviewFrame } from './workbench.mjs';

export const HEADER =
  '"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"';
export const trace = (i, name, ns) =>
  `"KERNEL_DISPATCH","Agent 4",1,1,1,${i},${i},"${name}",${i},${1_000_000 + i * 100_000},${1_000_000 + i * 100_000 + ns},0,0,8,0,16,256,1,1,65536,1,1`;
export const PC_HEADER =
  '"Sample_Timestamp","Exec_Mask","Dispatch_Id","Instruction","Instruction_Comment","Correlation_Id","Wave_Issued_Instruction","Instruction_Type","Stall_Reason","Wave_Count"';
export const TYPE = 'ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_';
export const REASON = 'ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_';

/** objdump -l's instructions of one kernel: text and DWARF `file:line`. */
function instructions(object, kernel) {
  const r = spawnSync('llvm-objdump-19', ['-d', '-l', '--mcpu=gfx942', `--disassemble-symbols=${kernel}`, object], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`llvm-objdump-19: ${r.stderr}`);
  const out = [];
  let where = null;
  for (const l of r.stdout.split('\n')) {
    const src = /^; (.+):(\d+)$/.exec(l);
    if (src) where = { file: src[1], line: Number(src[2]) };
    const inst = /^\s+(\S.*?)\s*\/\/ [0-9A-F]+:/.exec(l);
    if (inst && where) out.push({ text: inst[1].replace(/\s+/g, ' '), ...where });
  }
  return out;
}

/** Samples: [kernel symbol, dispatch, instruction text, count, stall reason or issued type]. */
const PLAN = [
  ['scale', 1, 's_waitcnt vmcnt(0)', 30, 'stall:WAITCNT'],
  ['scale', 1, 'global_load_dword v1, v0, s[2:3]', 10, 'issued:FLAT'],
  ['scale', 1, 's_endpgm', 5, 'issued:OTHER'],
  ['_Z13reduce_sharedILi1024EEvPKiPi', 2, 's_waitcnt vmcnt(0)', 20, 'stall:WAITCNT'],
  ['_Z13reduce_sharedILi1024EEvPKiPi', 2, 's_barrier', 15, 'stall:BARRIER_WAIT'],
];

async function profileZip(dir, source) {
  const object = join(dir, 'hot-gfx942.co');
  const cc = spawnSync(
    'clang-19',
    [
      '-x',
      'hip',
      '-nogpulib',
      '-nogpuinc',
      '--cuda-device-only',
      '-O2',
      '-g',
      '-c',
      source,
      '--offload-arch=gfx942',
      '--no-gpu-bundle-output',
      '-o',
      object,
    ],
    { encoding: 'utf8' },
  );
  if (cc.error || cc.status !== 0)
    return { missing: `clang-19 could not build the code object (${cc.error?.message ?? cc.stderr})` };
  const rows = [PC_HEADER];
  const expectedLines = new Map();
  let ts = 1;
  for (const [kernel, dispatch, text, count, what] of PLAN) {
    const inst = instructions(object, kernel).find((i) => i.text === text);
    if (!inst) throw new Error(`no ${text} with a line in ${kernel}`);
    const [kind, name] = what.split(':');
    for (let n = 0; n < count; n++) {
      rows.push(
        `${ts++},18446744073709551615,${dispatch},"${text}","${inst.file}:${inst.line}",${dispatch},${kind === 'issued' ? 1 : 0},"${TYPE}${kind === 'issued' ? name : 'NO_INST'}","${REASON}${kind === 'stall' ? name : 'NONE'}",4`,
      );
    }
    expectedLines.set(`${dispatch}:${inst.line}`, (expectedLines.get(`${dispatch}:${inst.line}`) ?? 0) + count);
  }
  const zip = join(dir, 'hotspots-profile.zip');
  const archive = new ZipArchive({ zlib: { level: 1 } });
  const out = createWriteStream(zip);
  archive.pipe(out);
  archive.append(
    Buffer.from(
      `${[HEADER, trace(1, 'scale(float*, float)', 40_000), trace(2, 'void reduce_shared<1024>(int const*, int*)', 20_000)].join('\n')}\n`,
    ),
    { name: '42_kernel_trace.csv' },
  );
  archive.append(Buffer.from(`${rows.join('\n')}\n`), { name: '42_pc_sampling_stochastic.csv' });
  archive.append(readFileSync(object), { name: '_code_object0.o' });
  await archive.finalize();
  if (!out.writableFinished) await once(out, 'finish');
  return { zip, expectedLines };
}

/** The end-of-line hints drawn in the active editor, by 1-based line number (decorations' ::after content). */
async function hints(page, editor) {
  return editor.evaluate((root) => {
    const numberAt = new Map(
      [...root.querySelectorAll('.margin-view-overlays > div')].map((d) => [
        d.style.top,
        Number(d.querySelector('.line-numbers')?.textContent),
      ]),
    );
    const out = {};
    for (const line of root.querySelectorAll('.view-lines > .view-line')) {
      const texts = [...line.querySelectorAll('span')]
        .map((s) => getComputedStyle(s, '::after').content)
        .filter((c) => c && c !== 'none' && c !== 'normal');
      if (texts.length) out[numberAt.get(line.style.top)] = texts.map((t) => JSON.parse(t).trim()).join(' ');
    }
    return out;
  });
}

export const tests = {
  async 'PC-sampling heat on the kernel source lines and its disassembly'({
    page,
    workbenchUrl,
    outputDir,
    workspace,
    root,
    say,
  }) {
    const dir = join(workspace, 'hot-trace');
    mkdirSync(dir, { recursive: true });
    const source = join(workspace, 'hot_kernels.hip');
    copyFileSync(join(root, 'test/fixtures/code-objects/kernels.hip'), source);
    const built = await profileZip(dir, source);
    if (built.missing) {
      if (process.env.CI === 'true') throw new Error(built.missing);
      say(`SKIPPED the hot spots UI check: ${built.missing}`);
      return;
    }
    await openWorkbench(page, workbenchUrl());
    await openTrace(page, built.zip);
    await webviewFrame(page, 'section.isa table.isa-kernels tbody tr');

    // from the explorer (Quick Open's Ctrl+P can land in the results webview, which has the focus)
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'hot_kernels.hip' }).click();
    await page.locator('.tabs-container .tab[data-resource-name="hot_kernels.hip"]').waitFor({ timeout: 30_000 });
    const editor = page.locator('.editor-instance .monaco-editor', { hasText: 'reduce_shared' }).first();
    let seen = {};
    for (let i = 0; i < 80 && Object.keys(seen).length < 4; i++) {
      seen = await hints(page, editor);
      if (Object.keys(seen).length < 4) await page.waitForTimeout(250);
    }
    // scale: 45 samples, line 6 has 40 (30 waiting on vmcnt), line 7 has 5; reduce_shared: 35, line 13 has 20
    // (waitcnt), line 14 has 15 (barrier wait)
    const share = (n, of) => `${Math.round((n / of) * 100)}%`;
    const [l6, l7, l13, l14] = [
      ['1:6', 45],
      ['1:7', 45],
      ['2:13', 35],
      ['2:14', 35],
    ].map(([k, of]) => {
      assert(built.expectedLines.has(k), `the plan sampled ${k}: ${JSON.stringify([...built.expectedLines])}`);
      return share(built.expectedLines.get(k), of);
    });
    const expected = { 6: `${l6} · waitcnt`, 7: l7, 13: `${l13} · waitcnt`, 14: `${l14} · barrier wait` };
    assert(
      JSON.stringify(seen) === JSON.stringify(expected),
      `source hints ${JSON.stringify(seen)}, expected ${JSON.stringify(expected)}`,
    );
    await shot(page, outputDir, 'hotspots-source');

    // an edit below the last hot line keeps the marks; one above them (the lines moved) takes them off
    await editor.locator('.view-line', { hasText: 'template __global__ void reduce_shared<1024>' }).click();
    await page.keyboard.press('End');
    await page.keyboard.type(' // below');
    assert(
      JSON.stringify(await hints(page, editor)) === JSON.stringify(expected),
      'the marks stay after an edit below them',
    );
    await page.keyboard.press('Control+Home');
    await page.keyboard.type('// a new first line');
    await page.keyboard.press('Enter');
    let edited = seen;
    for (let i = 0; i < 80 && Object.keys(edited).length > 0; i++) {
      edited = await hints(page, editor);
      if (Object.keys(edited).length > 0) await page.waitForTimeout(250);
    }
    assert(Object.keys(edited).length === 0, `source hints after an edit above them: ${JSON.stringify(edited)}`);

    // the source file opened over the results panel: back to its tab, as a person would
    await page.locator('.tabs-container .tab', { hasText: 'hotspots-profile.zip' }).click();
    const frame = await webviewFrame(page, 'section.isa button.kernel-link[data-kernel="scale"]');
    await frame.locator('section.isa button.kernel-link[data-kernel="scale"]').click();
    await page.locator('.tabs-container .tab', { hasText: 'scale.s' }).waitFor({ timeout: 30_000 });
    const isa = page.locator('.editor-instance .monaco-editor', { hasText: 's_load_dwordx2' }).first();
    await isa.waitFor({ timeout: 30_000 });
    let isaHints = {};
    for (let i = 0; i < 80 && Object.keys(isaHints).length < 3; i++) {
      isaHints = await hints(page, isa);
      if (Object.keys(isaHints).length < 3) await page.waitForTimeout(250);
    }
    const values = Object.values(isaHints).sort();
    assert(
      JSON.stringify(values) ===
        JSON.stringify([share(10, 45), share(5, 45), `${share(30, 45)} · waitcnt vmcnt`].sort()),
      `disassembly hints ${JSON.stringify(isaHints)}`,
    );
    await shot(page, outputDir, 'hotspots-disassembly');

    // dropping the run (closing its results panel) takes the heat off the disassembly
    await page
      .locator('.tabs-container .tab', { hasText: 'hotspots-profile.zip' })
      .locator('.codicon-close, .action-label')
      .last()
      .click({ force: true });
    await page
      .locator('.tabs-container .tab', { hasText: 'hotspots-profile.zip' })
      .waitFor({ state: 'detached', timeout: 30_000 });
    let after = isaHints;
    for (let i = 0; i < 80 && Object.keys(after).length > 0; i++) {
      after = await hints(page, isa);
      if (Object.keys(after).length > 0) await page.waitForTimeout(250);
    }
    assert(Object.keys(after).length === 0, `disassembly hints after the panel closed: ${JSON.stringify(after)}`);
  },
};
