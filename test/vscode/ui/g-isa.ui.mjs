// Kernels (ISA): a profile zip holding a real gfx942 code object (clang-19 builds it here from the test kernels) is
// opened with "Open Trace…"; the panel's Kernels (ISA) section links the profiled kernels to their code object
// kernels, and clicking one opens its disassembly, highlighted, in a read-only editor.
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { ZipArchive } from 'archiver';
import { assert, openTrace, openWorkbench, shot, webviewFrame } from './workbench.mjs';

const HEADER =
  '"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"';
const row = (i, name, ns) =>
  `"KERNEL_DISPATCH","Agent 4",1,1,1,${i},${i},"${name}",${i},${1_000_000 + i * 100_000},${1_000_000 + i * 100_000 + ns},0,0,8,0,16,256,1,1,65536,1,1`;

async function profileZip(dir, root) {
  const object = join(dir, 'kernels-gfx942.o');
  const cc = spawnSync(
    'clang-19',
    [
      '-target',
      'amdgcn-amd-amdhsa',
      '-mcpu=gfx942',
      '-O2',
      '-nogpulib',
      '-x',
      'cl',
      join(root, 'test/fixtures/code-objects/kernels.cl'),
      '-o',
      object,
    ],
    { encoding: 'utf8' },
  );
  if (cc.error || cc.status !== 0)
    return { missing: `clang-19 could not build the code object (${cc.error?.message ?? cc.stderr})` };
  const zip = join(dir, 'isa-profile.zip');
  const archive = new ZipArchive({ zlib: { level: 1 } });
  const out = createWriteStream(zip);
  archive.pipe(out);
  archive.append(
    Buffer.from(
      `${[HEADER, row(1, 'lds_tile(float const*, float*)', 40_000), row(2, 'many_vgprs(float4 const*, float4*)', 20_000), row(3, 'vadd(float const*, float const*, float*)', 5_000)].join('\n')}\n`,
    ),
    { name: '42_kernel_trace.csv' },
  );
  archive.append(readFileSync(object), { name: '_code_object0.o' });
  await archive.finalize();
  if (!out.writableFinished) await once(out, 'finish');
  return { zip };
}

export const tests = {
  async 'Kernels (ISA) section links profiled kernels to their code object; a click opens the highlighted disassembly'({
    page,
    workbenchUrl,
    outputDir,
    workspace,
    root,
    say,
  }) {
    const dir = join(workspace, 'isa-trace');
    mkdirSync(dir, { recursive: true });
    const built = await profileZip(dir, root);
    if (built.missing) {
      if (process.env.CI === 'true') throw new Error(built.missing);
      say(`SKIPPED the Kernels (ISA) UI check: ${built.missing}`);
      return;
    }
    await openWorkbench(page, workbenchUrl());
    await openTrace(page, built.zip);

    const frame = await webviewFrame(page, 'section.isa table.isa-kernels tbody tr');
    const rows = await frame
      .locator('section.isa table.isa-kernels tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    assert(
      JSON.stringify(rows[0]) ===
        JSON.stringify([
          'lds_tile(float const*, float*)',
          'lds_tile',
          'gfx942',
          '94',
          '0',
          '11',
          '16.0 KiB',
          '0 B',
          '4/8',
          'LDS (workgroup 256)',
        ]),
      `first row: ${JSON.stringify(rows[0])}`,
    );
    assert(
      rows[1]?.[1] === 'many_vgprs' && rows[1]?.[8] === '3/8' && rows[1]?.[9] === 'VGPRs',
      `second row: ${JSON.stringify(rows[1])}`,
    );
    assert(
      rows.some((r) => r[1] === 'uses_agprs' && r[0] === 'not profiled'),
      `a kernel that was not profiled: ${JSON.stringify(rows)}`,
    );
    await frame.locator('section.isa').scrollIntoViewIfNeeded();
    await shot(page, outputDir, 'isa-section');

    await frame.locator('section.isa button.kernel-link[data-kernel="lds_tile"]').click();
    const tab = page.locator('.tabs-container .tab', { hasText: 'lds_tile.s' });
    await tab.waitFor({ timeout: 30_000 });
    const editor = page.locator('.editor-instance .monaco-editor', { hasText: 's_load_dwordx4' }).first();
    await editor.waitFor({ timeout: 30_000 });
    // highlighted (once the grammar has tokenised the line): the mnemonic, the special register vcc and the
    // encoding comment come in different token colours
    const line = editor.locator('.view-line', { hasText: 'v_add_co_u32_e32' }).first();
    const tokenClasses = () =>
      line
        .locator('span span')
        .evaluateAll((spans) =>
          spans.filter((s) => s.textContent.trim()).map((s) => `${s.textContent.trim().slice(0, 20)}=${s.className}`),
        );
    let classes = [];
    for (let i = 0; i < 40; i++) {
      classes = await tokenClasses();
      if (new Set(classes.map((c) => c.split('=')[1])).size >= 3) break;
      await page.waitForTimeout(250);
    }
    const classOf = (text) => classes.find((c) => c.startsWith(`${text}=`))?.split('=')[1];
    assert(
      classOf('v_add_co_u32_e32') && classOf('vcc') && classOf('v_add_co_u32_e32') !== classOf('vcc'),
      `token classes on the v_add line: ${JSON.stringify(classes)}`,
    );
    assert(
      classes.some((c) => c.startsWith('//') && c.split('=')[1] !== classOf('v_add_co_u32_e32')),
      `the encoding comment has its own colour: ${JSON.stringify(classes)}`,
    );
    const header = await editor.locator('.view-line').first().textContent();
    assert(/^;\s+lds_tile$/.test(header ?? ''), `first line: ${header}`);
    await shot(page, outputDir, 'isa-disassembly');
  },
};
