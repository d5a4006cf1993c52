// "▶ Run | ⚡ Profile on MI300" above kernel entry points. Detection is the pure scanner in
// src/core/kernelEntryPoints.ts; this is the thin VS Code wrapper (ranges first, commands in resolveCodeLens).
import * as vscode from 'vscode';
import { findKernelEntryPoints, sourceLanguageOf, type KernelEntryPoint } from '../core/kernelEntryPoints';
import { commandId } from './commandIds';
import type { Config } from './config';

export const CODELENS_SELECTOR: vscode.DocumentSelector = [
  { language: 'python', scheme: 'file' },
  { language: 'hip', scheme: 'file' },
  { language: 'cuda-cpp', scheme: 'file' },
  { language: 'cpp', scheme: 'file' },
  { language: 'python', scheme: 'untitled' },
];

class KernelLens extends vscode.CodeLens {
  constructor(
    range: vscode.Range,
    readonly uri: vscode.Uri,
    readonly entry: KernelEntryPoint,
    readonly action: 'run' | 'profile',
  ) {
    super(range);
  }
}

export class KernelCodeLensProvider implements vscode.CodeLensProvider<KernelLens>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(private readonly config: Config) {}

  /** Called when settings that change lens titles or visibility change. */
  refresh(): void {
    this.changed.fire();
  }

  provideCodeLenses(document: vscode.TextDocument): KernelLens[] {
    if (!this.config.codeLensEnabled) return [];
    const language = sourceLanguageOf(document.languageId, document.fileName);
    if (!language) return [];
    const lenses: KernelLens[] = [];
    for (const entry of findKernelEntryPoints(document.getText(), language)) {
      const range = new vscode.Range(entry.line, entry.column, entry.line, entry.column);
      lenses.push(
        new KernelLens(range, document.uri, entry, 'run'),
        new KernelLens(range, document.uri, entry, 'profile'),
      );
    }
    return lenses;
  }

  resolveCodeLens(lens: KernelLens): KernelLens {
    const file = lens.uri.path.split('/').pop() ?? 'this file';
    const what = lens.entry.kind === 'custom_kernel' ? 'the submission' : `the file that defines ${lens.entry.name}`;
    const whole = `The service runs whole files, not single functions: this runs all of ${file} (${what}).`;
    lens.command =
      lens.action === 'run'
        ? { title: '▶ Run', command: commandId('run'), arguments: [lens.uri], tooltip: `Run ${file}. ${whole}` }
        : {
            title: `⚡ Profile on ${this.config.profileGpu}`,
            command: commandId('profile'),
            arguments: [lens.uri],
            tooltip: `Profile ${file} on ${this.config.profileGpu} with rocprofv3. ${whole}`,
          };
    return lens;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
