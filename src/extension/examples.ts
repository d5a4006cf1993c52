// "Open Example…" (the walkthrough's second step): one of the examples the extension ships, copied into the
// workspace (or, without one, the extension's storage) under a name no file there has, and opened. The copy is the
// person's to edit and run; the shipped file stays as it came.
import * as vscode from 'vscode';
import { pickOne, showDocument } from './ui';

interface Example {
  label: string;
  description: string;
  /** Under the extension's examples/. */
  path: string;
}

const EXAMPLES: readonly Example[] = [
  {
    label: 'vectoradd_submission.py',
    description: 'Python, the vectoradd leaderboard: runs and profiles anywhere (no GPU needed on the embedded runner)',
    path: 'problems/vectoradd_py/submission.py',
  },
  {
    label: 'prefixsum_submission.py',
    description: 'Python, the prefixsum_py leaderboard',
    path: 'problems/prefixsum_py/submission.py',
  },
  {
    label: 'vector_add.hip',
    description: 'HIP, the script leaderboard: needs hipcc and an AMD GPU on the runner',
    path: 'kernels/vector_add.hip',
  },
  {
    label: 'triton_add.py',
    description: 'Triton, the script leaderboard: needs torch, triton and a GPU on the runner',
    path: 'kernels/triton_add.py',
  },
];

/** `name`, or `stem-2.ext`, `stem-3.ext`… : the first that `folder` does not have. */
async function freeName(folder: vscode.Uri, name: string): Promise<vscode.Uri> {
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let n = 1; ; n++) {
    const candidate = vscode.Uri.joinPath(folder, n === 1 ? name : `${stem}-${n}${ext}`);
    try {
      await vscode.workspace.fs.stat(candidate);
    } catch {
      return candidate;
    }
  }
}

/** Asks which example, copies it and opens the copy; the copy's URI, or undefined when dismissed. */
export async function openExample(extensionUri: vscode.Uri, storage: vscode.Uri): Promise<vscode.Uri | undefined> {
  // the walkthrough's button moves the focus to its next step as the pick opens: the pick stays until answered
  const pick = await pickOne(EXAMPLES, {
    title: 'Open Example',
    placeHolder: 'An example kernel to run and profile',
    ignoreFocusOut: true,
  });
  if (!pick) return undefined;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.joinPath(storage, 'examples');
  await vscode.workspace.fs.createDirectory(folder);
  const target = await freeName(folder, pick.label);
  await vscode.workspace.fs.copy(vscode.Uri.joinPath(extensionUri, 'examples', pick.path), target);
  await showDocument(await vscode.workspace.openTextDocument(target), { preview: false });
  return target;
}
