// "⏱ 17.2 µs avg · 150 calls" above each kernel definition that the file's last stored profile timed, opening
// that run; with hardware counters also its bound and share of the roof ("memory-bound, 71% of HBM roof"). Matching profiled names to definitions is core's (src/core/kernelTimings.ts); the lenses follow the
// text as it is now, so a kernel that is renamed or removed loses its lens with the edit.
import * as vscode from 'vscode';
import { findKernelEntryPoints, sourceLanguageOf } from '../core/kernelEntryPoints';
import { matchKernelTimings, rankTooltip, roofTooltip, timingLensTitle } from '../core/kernelTimings';
import { commandId } from './commandIds';
import type { Config } from './config';
import type { RunStore } from './runs/store';

export class KernelTimingLensProvider implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly store: RunStore,
    private readonly config: Config,
  ) {
    this.subscription = store.onDidChange(() => this.changed.fire());
  }

  refresh(): void {
    this.changed.fire();
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (!this.config.codeLensEnabled) return [];
    const run = this.store.latestProfileOf(document.uri.toString());
    const language = sourceLanguageOf(document.languageId, document.fileName);
    if (!run || !language) return [];
    const when = new Date(run.storedAt).toLocaleString();
    return matchKernelTimings(findKernelEntryPoints(document.getText(), language), run.kernels, run.peaks).map(
      ({ entry, timing }) => {
        const range = new vscode.Range(entry.line, entry.column, entry.line, entry.column);
        const names = timing.profiledNames.length > 1 ? ` (${timing.profiledNames.length} instantiations)` : '';
        return new vscode.CodeLens(range, {
          title: timingLensTitle(timing),
          command: commandId('runs.open'),
          arguments: [run.id],
          tooltip: `${entry.name}${names}: ${timing.calls} calls in the ${run.mode} of ${when} on ${run.target}.${timing.roof ? ` ${roofTooltip(timing)}` : ''}${timing.slowestRank ? ` ${rankTooltip(timing)}` : ''} Open that run.`,
        });
      },
    );
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
