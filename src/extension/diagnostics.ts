// Editor diagnostics for submissions: bad `#!POPCORN` directives and what the service would reject the upload for
// (src/core/gpumode/preflight.ts), on open, change (debounced) and save, for kernel sources that carry directives or
// are GPU MODE submissions. A run asks `blockingProblems` before sending (the workflow's `check`) and refuses with
// the same reasons.
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { parseDirectivesClient } from '../core/directives';
import type { ChoiceStore } from './choices';
import { hasDirectives, preflight, type FileProblem } from '../core/gpumode/preflight';
import type { Targets } from './targets';

const SUBMISSION_EXTENSIONS = /\.(py|cu|cuh|cpp|hip)$/i;
const DEBOUNCE_MS = 300;
const SOURCE = 'Kernel Runner';

export class SubmissionDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('kernelRunner');
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly targets: Targets,
    private readonly choices: ChoiceStore,
  ) {
    this.disposables.push(
      this.collection,
      vscode.workspace.onDidOpenTextDocument((d) => void this.update(d, true)),
      vscode.workspace.onDidSaveTextDocument((d) => void this.update(d, true)),
      vscode.workspace.onDidChangeTextDocument((e) => this.schedule(e.document)),
      vscode.workspace.onDidCloseTextDocument((d) => {
        this.cancelTimer(d);
        this.collection.delete(d.uri);
      }),
    );
    this.refreshAll();
  }

  /** Re-checks every open document (the target changed: GPU MODE's rules apply or stop applying). */
  refreshAll(): void {
    for (const d of vscode.workspace.textDocuments) void this.update(d, true);
  }

  /** The diagnostics shown for a document (test API). */
  get(uri: vscode.Uri): readonly vscode.Diagnostic[] {
    return this.collection.get(uri) ?? [];
  }

  /**
   * Problems that stop a run, checked against the leaderboard the run goes to and the service it goes to (GPU MODE's
   * rules; default: the configured target's); the diagnostics are refreshed too.
   */
  async blockingProblems(
    doc: vscode.TextDocument,
    leaderboard: string,
    gpumode = this.targets.kind === 'gpumode',
  ): Promise<FileProblem[]> {
    const problems = preflight(fileNameOf(doc), doc.getText(), { leaderboard, gpumode });
    this.collection.set(
      doc.uri,
      problems.map((p) => toDiagnostic(doc, p)),
    );
    return problems.filter((p) => p.blocking);
  }

  private schedule(doc: vscode.TextDocument): void {
    if (!isCandidate(doc)) return;
    this.cancelTimer(doc);
    this.timers.set(
      doc.uri.toString(),
      setTimeout(() => {
        this.timers.delete(doc.uri.toString());
        void this.update(doc, false);
      }, DEBOUNCE_MS),
    );
  }

  private cancelTimer(doc: vscode.TextDocument): void {
    const t = this.timers.get(doc.uri.toString());
    if (t) clearTimeout(t);
    this.timers.delete(doc.uri.toString());
  }

  /** Checks one document; `readDisk` also reads the saved bytes (UTF-8 check) when the editor holds no edits. */
  async update(doc: vscode.TextDocument, readDisk: boolean): Promise<void> {
    if (!isCandidate(doc)) return;
    const text = doc.getText();
    const remembered = this.choices.get(doc.uri).leaderboard;
    const gpumode = this.targets.kind === 'gpumode';
    const applies =
      hasDirectives(text) || (gpumode && (remembered !== undefined || /\bdef\s+custom_kernel\s*\(/.test(text)));
    if (!applies) {
      this.collection.delete(doc.uri);
      return;
    }
    let diskBytes: Uint8Array | undefined;
    if (readDisk && doc.uri.scheme === 'file' && !doc.isDirty) {
      diskBytes = await vscode.workspace.fs.readFile(doc.uri).then(
        (b) => b,
        () => undefined,
      );
    }
    const leaderboard = parseDirectivesClient(text).leaderboard ?? remembered;
    const problems = preflight(fileNameOf(doc), text, {
      gpumode,
      ...(leaderboard ? { leaderboard } : {}),
      ...(diskBytes ? { diskBytes } : {}),
    });
    if (doc.isClosed) return;
    this.collection.set(
      doc.uri,
      problems.map((p) => toDiagnostic(doc, p)),
    );
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const d of this.disposables) d.dispose();
  }
}

function isCandidate(doc: vscode.TextDocument): boolean {
  return (doc.uri.scheme === 'file' || doc.uri.scheme === 'untitled') && SUBMISSION_EXTENSIONS.test(fileNameOf(doc));
}

function fileNameOf(doc: vscode.TextDocument): string {
  return basename(doc.uri.fsPath || doc.uri.path);
}

function toDiagnostic(doc: vscode.TextDocument, p: FileProblem): vscode.Diagnostic {
  const line = Math.min(Math.max(0, p.line), Math.max(0, doc.lineCount - 1));
  const length = doc.lineAt(line).text.length;
  const start = Math.min(p.startColumn, length);
  const end = p.endColumn === undefined ? length : Math.min(Math.max(p.endColumn, start), length);
  const range = new vscode.Range(line, start, line, end === start && length > start ? length : end);
  const d = new vscode.Diagnostic(
    range,
    p.message,
    p.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning,
  );
  d.source = SOURCE;
  d.code = p.code;
  return d;
}
