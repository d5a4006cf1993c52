// "Open Trace…": a saved profile zip, an output folder, a rocpd `.db` or a single CSV, summarised offline with
// the trace toolkit and shown in a results panel (no runner involved).
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { TraceInputError } from '../trace/index';
import type { ResultView } from '../webview/protocol';
import type { ResultsPanel, ResultsPanels } from './resultsPanel';
import { readPerfettoTrace, type TraceFiles } from './traceFiles';
import { notify, pickFiles } from './ui';
import { errorMessage } from '../core/errors';

export class TraceOpener {
  constructor(
    private readonly panels: ResultsPanels,
    private readonly traceFiles: TraceFiles,
  ) {}

  async openTrace(uri: vscode.Uri | undefined): Promise<ResultsPanel | undefined> {
    let target = uri;
    if (!target) {
      const picked = await pickFiles({
        title: 'Open a rocprof trace: a profile zip, an output folder, a rocpd .db or a CSV',
        canSelectFiles: true,
        canSelectFolders: true,
        canSelectMany: false,
        openLabel: 'Summarise',
        filters: { 'rocprof outputs': ['zip', 'db', 'csv', 'json'], 'All files': ['*'] },
      });
      target = picked?.[0];
    }
    if (!target) return undefined;
    const path = target.fsPath;
    try {
      const summary = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Kernel Runner: summarising ${basename(path)}` },
        () => this.traceFiles.summarize(path),
      );
      const probe = await readPerfettoTrace(path, 0).catch(() => 'none' as const);
      const view: ResultView = {
        title: `Trace: ${basename(path)}`,
        fileName: basename(path),
        leaderboard: '',
        gpu:
          summary.agents.find((a) => a.type === 'GPU')?.productName ??
          summary.agents.find((a) => a.type === 'GPU')?.name ??
          '',
        mode: 'trace',
        target: 'offline',
        startedAt: new Date().toISOString(),
        elapsedS: 0,
        outcome: 'trace',
        runs: [],
        profiles: [
          { key: basename(path), summary, localPath: path, perfetto: probe === 'none' ? 'none' : 'available' },
        ],
        reports: [],
        hiddenNoiseLines: 0,
      };
      return this.panels.show(view, {
        downloadTrace: async (p) => {
          if (p.localPath) await vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(p.localPath));
        },
        openPerfetto: (p) => this.traceFiles.openInPerfetto(undefined, p, view.title),
      });
    } catch (err) {
      const msg = err instanceof TraceInputError ? err.message : `Could not summarise ${path}: ${errorMessage(err)}`;
      void notify.error(`Kernel Runner: ${msg}`);
      return undefined;
    }
  }
}
