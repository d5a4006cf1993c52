import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { join } from 'node:path';
import { activateExtension, repoRoot, workspaceDir } from './helpers';

interface LensInfo {
  line: number;
  title: string;
  command: string;
  tooltip: string;
}

async function lensesOf(path: string): Promise<{ doc: vscode.TextDocument; lenses: LensInfo[] }> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path));
  const raw = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri, 100);
  const lenses = raw
    .filter((l) => l.command?.command.startsWith('kernelRunner.'))
    .map((l) => ({
      line: l.range.start.line + 1,
      title: l.command?.title ?? '',
      command: l.command?.command ?? '',
      tooltip: l.command?.tooltip ?? '',
    }));
  return { doc, lenses };
}

const titlesByLine = (lenses: LensInfo[]) =>
  [...new Set(lenses.map((l) => l.line))].map(
    (line) =>
      `${line}: ${lenses
        .filter((l) => l.line === line)
        .map((l) => l.title)
        .join(' | ')}`,
  );

describe('CodeLens on real sample files', () => {
  before(async () => {
    await activateExtension();
  });

  it('puts Run | Profile above each __global__ definition in a .hip file (the HIP language)', async () => {
    const { doc, lenses } = await lensesOf(join(workspaceDir, 'vector_add.hip'));
    assert.equal(doc.languageId, 'hip');
    assert.deepEqual(titlesByLine(lenses), ['9: ▶ Run | ⚡ Profile on MI300', '15: ▶ Run | ⚡ Profile on MI300']);
    const run = lenses.find((l) => l.command === 'kernelRunner.run');
    assert.match(run?.tooltip ?? '', /whole file/);
    assert.match(run?.tooltip ?? '', /vector_add\.hip/);
    assert.ok(lenses.some((l) => l.command === 'kernelRunner.profile'));
  });

  it('finds @triton.jit functions and custom_kernel in Python', async () => {
    const { lenses } = await lensesOf(join(workspaceDir, 'triton_softmax.py'));
    assert.deepEqual(titlesByLine(lenses), [
      '9: ▶ Run | ⚡ Profile on MI300',
      '19: ▶ Run | ⚡ Profile on MI300',
      '30: ▶ Run | ⚡ Profile on MI300',
    ]);
  });

  it('finds __global__ kernels inside load_inline source strings', async () => {
    const { lenses } = await lensesOf(join(workspaceDir, 'load_inline_submission.py'));
    assert.deepEqual([...new Set(lenses.map((l) => l.line))], [13, 19, 41]);
  });

  it('works on the shipped examples', async () => {
    const hip = await lensesOf(join(repoRoot, 'examples/kernels/vector_add.hip'));
    assert.ok(hip.lenses.length >= 2, 'examples/kernels/vector_add.hip has a kernel');
    const submission = await lensesOf(join(repoRoot, 'examples/problems/vectoradd_py/submission.py'));
    const line =
      submission.doc
        .getText()
        .split('\n')
        .findIndex((l) => l.startsWith('def custom_kernel(')) + 1;
    assert.deepEqual([...new Set(submission.lenses.map((l) => l.line))], [line]);
  });

  it('follows kernelRunner.codeLens.enable and kernelRunner.profileGpu', async () => {
    const cfg = vscode.workspace.getConfiguration('kernelRunner');
    try {
      await cfg.update('profileGpu', 'MI355X', vscode.ConfigurationTarget.Global);
      const { lenses } = await lensesOf(join(workspaceDir, 'vector_add.hip'));
      assert.ok(lenses.some((l) => l.title === '⚡ Profile on MI355X'));
      await cfg.update('codeLens.enable', false, vscode.ConfigurationTarget.Global);
      assert.deepEqual((await lensesOf(join(workspaceDir, 'vector_add.hip'))).lenses, []);
    } finally {
      await cfg.update('profileGpu', undefined, vscode.ConfigurationTarget.Global);
      await cfg.update('codeLens.enable', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
