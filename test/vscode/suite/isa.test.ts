// The profile panel's Kernels (ISA) section and the disassembly editor, on a profile zip holding real gfx942 code
// objects that clang-19 builds (test/support/codeObjects.ts) and a kernel trace that profiled two of their kernels.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZipArchive } from 'archiver';
import type { KernelRunnerApi } from '../../../src/extension/api';
import { readCodeObjectsPath } from '../../../src/trace/codeObjects/index';
import { builtCodeObjects, codeObjects } from '../../support/codeObjects';
import { activateExtension, repoRoot, waitFor } from './helpers';

const HEADER =
  '"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"';
const dispatch = (id: number, name: string, start: number, ns: number) =>
  `"KERNEL_DISPATCH","Agent 4",1,1,834304,${id},${id},"${name}",${id},${start},${start + ns},0,0,8,0,16,256,1,1,65536,1,1`;

describe('Kernels (ISA) section and disassembly editor', function () {
  this.timeout(90_000);
  let api: KernelRunnerApi;
  const temps: string[] = [];

  before(async function () {
    if (typeof codeObjects() === 'string') {
      console.log(`*** SKIPPING the Kernels (ISA) suite: ${String(codeObjects())} ***`);
      this.skip();
    }
    api = await activateExtension();
  });
  afterEach(async () => {
    api.closePanels();
    api.setObjdumpSearch(undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
  after(() => {
    for (const d of temps) rmSync(d, { recursive: true, force: true });
  });

  async function profileZip(withCodeObjects: boolean): Promise<string> {
    const dir = mkdtempSync(join(tmpdir(), 'kr-isa-suite-'));
    temps.push(dir);
    const zip = join(dir, 'profile.zip');
    const archive = new ZipArchive({ zlib: { level: 1 } });
    const out = createWriteStream(zip);
    archive.pipe(out);
    const csv = [
      HEADER,
      dispatch(1, 'lds_tile(float const*, float*)', 1_000_000, 40_000),
      dispatch(2, 'vadd(float const*, float const*, float*)', 1_100_000, 5_000),
      dispatch(3, 'mystery_kernel(int*)', 1_200_000, 1_000),
    ];
    archive.append(Buffer.from(`${csv.join('\n')}\n`), { name: '42_kernel_trace.csv' });
    if (withCodeObjects)
      archive.append(readFileSync(builtCodeObjects().opencl.gfx942.object), { name: '_code_object0.o' });
    await archive.finalize();
    if (!out.writableFinished) await once(out, 'finish');
    return zip;
  }

  async function openDisassembly(name: string): Promise<vscode.TextEditor> {
    const panel = api.panels().at(-1)!;
    const profile = panel.view.profiles[0]!;
    const row = profile.isa!.kernels.find((k) => k.name === name)!;
    await api.simulateWebviewMessage({
      method: 'openDisassembly',
      params: { profileKey: profile.key, codeObject: row.codeObject, kernel: row.kernel },
    });
    return waitFor(`the disassembly of ${name}`, () => {
      const e = vscode.window.activeTextEditor;
      return e?.document.uri.scheme === 'kernel-runner-isa' && e.document.getText().includes(`; ${name}\n`)
        ? e
        : undefined;
    });
  }

  it("links each profiled kernel by name to its code object kernel, with the reader's counts and occupancy", async () => {
    const zip = await profileZip(true);
    assert.ok(await api.openTrace(zip));
    const panel = await waitFor('the Kernels (ISA) section', () =>
      api.panels().find((p) => p.ready && p.view.profiles[0]?.isa?.status === 'ready'),
    );
    const isa = panel.view.profiles[0]!.isa!;
    assert.deepEqual(isa.codeObjects, [{ file: '_code_object0.o', bundleEntry: null, processor: 'gfx942' }]);
    // the trace's kernels first, by total time, then the code object's other kernels
    assert.deepEqual(
      isa.kernels.map((k) => [k.name, k.profiledNames]),
      [
        ['lds_tile', ['lds_tile(float const*, float*)']],
        ['vadd', ['vadd(float const*, float const*, float*)']],
        ['many_vgprs', []],
        ['uses_agprs', []],
        ['uses_scratch', []],
        ['lds_single_wave', []],
      ],
    );
    assert.deepEqual(isa.unmatched, ['mystery_kernel(int*)']);
    const expected = (await readCodeObjectsPath(builtCodeObjects().opencl.gfx942.object)).codeObjects[0]!.kernels;
    for (const row of isa.kernels) {
      const k = expected.find((e) => e.name === row.name)!;
      assert.deepEqual(
        [
          row.vgprCount,
          row.agprCount,
          row.sgprCount,
          row.ldsBytes,
          row.scratchBytes,
          row.wavesPerSimd,
          row.maxWavesPerSimd,
        ],
        [
          k.vgprCount,
          k.agprCount,
          k.sgprCount,
          k.ldsBytes,
          k.scratchBytes,
          k.occupancy?.wavesPerSimd,
          k.occupancy?.maxWavesPerSimd,
        ],
        row.name,
      );
    }
    assert.equal(isa.kernels[0]!.limitedBy, 'LDS (workgroup 256)');
    assert.equal(isa.kernels[1]!.limitedBy, '');
  });

  it('a kernel opens its disassembly read-only in the AMDGPU ISA language, that kernel only', async () => {
    await api.openTrace(await profileZip(true));
    await waitFor('the Kernels (ISA) section', () =>
      api.panels().find((p) => p.view.profiles[0]?.isa?.status === 'ready'),
    );
    const editor = await openDisassembly('lds_tile');
    const doc = editor.document;
    assert.equal(doc.languageId, 'amdgpu-isa');
    const text = doc.getText();
    assert.match(
      text,
      /^; lds_tile\n; code object: _code_object0\.o, target amdgcn-amd-amdhsa--gfx942\n; VGPRs 94 \(AGPRs 0\), SGPRs 11, LDS 16384 bytes/,
    );
    assert.match(text, /; occupancy estimate: 4 of 8 waves a SIMD, limited by LDS \(workgroup 256\)\n/);
    assert.match(text, /\n[0-9a-f]+ <lds_tile>:\n/);
    assert.match(text, /\bds_write/);
    assert.ok(!text.includes('<vadd>:'), 'no other kernel');
    // typing into it, as a person would, changes nothing: the editor is read-only
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('type', { text: 'typed' });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(doc.getText(), text, 'the disassembly is read-only');
    assert.equal(doc.isDirty, false);
    // the same typing does reach a writable editor (so the check above can fail)
    const scratch = await vscode.workspace.openTextDocument({ content: '', language: 'plaintext' });
    await vscode.window.showTextDocument(scratch);
    await vscode.commands.executeCommand('type', { text: 'typed' });
    await waitFor('typing to reach a writable editor', () => scratch.getText() === 'typed');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  it("without llvm-objdump the editor shows the kernel's metadata and how to get disassembly", async () => {
    api.setObjdumpSearch({ path: '', dirs: [] });
    await api.openTrace(await profileZip(true));
    await waitFor('the Kernels (ISA) section', () =>
      api.panels().find((p) => p.view.profiles[0]?.isa?.status === 'ready'),
    );
    const text = (await openDisassembly('vadd')).document.getText();
    assert.match(text, /^; vadd\n.*\n; VGPRs 5 \(AGPRs 0\), SGPRs 16, LDS 0 bytes/);
    assert.match(
      text,
      /No disassembly: no llvm-objdump with the AMDGPU target was found\. To get one, install an llvm-objdump with the AMDGPU target \(Debian\/Ubuntu: `apt-get install llvm-19`/,
    );
    assert.ok(!text.includes('<vadd>:'));
  });

  it('a profile zip without code objects says so', async () => {
    await api.openTrace(await profileZip(false));
    const panel = await waitFor('the Kernels (ISA) section', () => api.panels().find((p) => p.view.profiles[0]?.isa));
    const isa = panel.view.profiles[0]!.isa!;
    assert.equal(isa.status, 'none');
    assert.deepEqual(isa.kernels, []);
    assert.match(isa.note ?? '', /No code objects in this trace/);
  });

  it('a profile from the embedded runner: the section reads the trace zip the run saved', async () => {
    const cfg = () => vscode.workspace.getConfiguration('kernelRunner');
    const set = (key: string, value: unknown) => cfg().update(key, value, vscode.ConfigurationTarget.Workspace);
    // the test stand-in rocprofv3 (test/bin) on the embedded runner's PATH, and a GPU named MI300 (as suite/run.test.ts)
    await set('embedded.path', [join(repoRoot, 'test/bin')]);
    await set('embedded.gpuName', 'MI300');
    await set('openResults', 'always');
    try {
      await vscode.commands.executeCommand(
        'kernelRunner.profile',
        vscode.Uri.file(join(repoRoot, 'examples/problems/vectoradd_py/submission.py')),
      );
      const panel = await waitFor('the profile panel with its Kernels (ISA) section', () =>
        api.panels().find((p) => p.ready && p.view.profiles[0]?.isa),
      );
      const profile = panel.view.profiles[0]!;
      assert.ok(profile.localPath && profile.downloadUrl, 'the run saved its trace zip');
      // the stand-in profiler writes no code objects: the section says so (a real kernelbot zip has _code_object<N>.o)
      assert.equal(profile.isa!.status, 'none');
      assert.match(profile.isa!.note ?? '', /No code objects in this trace/);
      // asking again reads it again, with the same answer
      await api.simulateWebviewMessage({ method: 'loadIsa', params: { profileKey: profile.key } });
      assert.deepEqual(api.panels().at(-1)!.view.profiles[0]!.isa, profile.isa);
    } finally {
      await set('embedded.path', undefined);
      await set('embedded.gpuName', undefined);
      await set('openResults', undefined);
    }
  });
});
