// The PC-sampling heat in editors: the sampled lines of a kernel's source file and the sampled rows of its
// disassembly (kernel-runner-isa documents) get a tint scaled by share, an end-of-line hint ("31% · waitcnt") and
// a hover with the stall breakdown. The hot spots are those of the profiles in the open results panels: closing
// the panel (dropping the run) clears them. A source file edited at or above its last hot line loses its marks
// until the next profile (the line numbers no longer say where the samples were). Inline HIP in a Python file's
// load_inline strings gets the heat on the strings' lines. What is marked, and how, is
// decided in src/core/hotspotHeat.ts; this file only draws it.
import * as vscode from 'vscode';
import { HEAT_LEVELS, sourceHeat, type HeatMark } from '../core/hotspotHeat';
import type { PcHotspots } from '../core/protocol/pcSampling';
import { ISA_SCHEME, type IsaDocuments } from './isa';
import type { ResultsPanels } from './resultsPanel';

export class HotspotDecorations implements vscode.Disposable {
  private readonly levels: vscode.TextEditorDecorationType[];
  private readonly hint: vscode.TextEditorDecorationType;
  private readonly disposables: vscode.Disposable[] = [];
  /** Source documents edited over their hot lines since the hot spots last changed. */
  private readonly stale = new Set<string>();
  /** The marks drawn per document URI (test API: what a person sees). */
  readonly drawn = new Map<string, HeatMark[]>();
  private hotspots: PcHotspots[] = [];

  constructor(
    private readonly panels: ResultsPanels,
    private readonly isa: IsaDocuments,
  ) {
    this.levels = Array.from({ length: HEAT_LEVELS }, (_, i) => {
      const alpha = (0.08 + (0.32 * (i + 1)) / HEAT_LEVELS).toFixed(2);
      return vscode.window.createTextEditorDecorationType({
        isWholeLine: true,
        backgroundColor: `rgba(255, 110, 30, ${alpha})`,
        borderColor: `rgba(255, 90, 0, ${Math.min(1, Number(alpha) * 2.2).toFixed(2)})`,
        borderStyle: 'solid',
        borderWidth: '0 0 0 3px',
        overviewRulerColor: `rgba(255, 90, 0, ${alpha})`,
        overviewRulerLane: vscode.OverviewRulerLane.Right,
      });
    });
    this.hint = vscode.window.createTextEditorDecorationType({
      after: { color: new vscode.ThemeColor('editorCodeLens.foreground'), margin: '0 0 0 2em' },
    });
    this.disposables.push(
      this.hint,
      ...this.levels,
      panels.onDidChange(() => this.refreshHotspots()),
      vscode.window.onDidChangeVisibleTextEditors(() => void this.drawAll()),
      vscode.workspace.onDidChangeTextDocument((e) => this.edited(e)),
    );
    this.refreshHotspots();
  }

  private refreshHotspots(): void {
    const next = this.panels.all.flatMap((p) =>
      p.current.profiles.flatMap((pr) => (pr.summary?.hotspots ? [pr.summary.hotspots] : [])),
    );
    if (next.length === this.hotspots.length && next.every((h, i) => h === this.hotspots[i])) return;
    this.hotspots = next;
    this.stale.clear();
    void this.drawAll();
  }

  private edited(e: vscode.TextDocumentChangeEvent): void {
    const key = e.document.uri.toString();
    const marks = this.drawn.get(key);
    if (!marks?.length || e.contentChanges.length === 0) return;
    const last = Math.max(...marks.map((m) => m.line)) - 1;
    if (e.contentChanges.some((c) => c.range.start.line <= last)) {
      this.stale.add(key);
      void this.drawAll();
    }
  }

  async drawAll(): Promise<void> {
    await Promise.all(vscode.window.visibleTextEditors.map((e) => this.draw(e)));
  }

  private async draw(editor: vscode.TextEditor): Promise<void> {
    const doc = editor.document;
    const key = doc.uri.toString();
    let marks: HeatMark[] = [];
    let row0 = false;
    if (this.hotspots.length > 0) {
      if (doc.uri.scheme === ISA_SCHEME) {
        marks = await this.isa.heatMarks(doc, this.hotspots);
        row0 = true;
      } else if (doc.uri.scheme === 'file' && !this.stale.has(key)) {
        // a Python file's text: its load_inline strings take the samples of the source torch generated from them
        const python = doc.languageId === 'python' || /\.py$/i.test(doc.uri.fsPath);
        marks = sourceHeat(this.hotspots, doc.uri.fsPath, python ? doc.getText() : undefined);
      }
    }
    marks = marks.filter((m) => (row0 ? m.line : m.line - 1) < doc.lineCount);
    if (marks.length === 0 && !this.drawn.has(key)) return;
    const lineOf = (m: HeatMark) => (row0 ? m.line : m.line - 1);
    this.levels.forEach((type, i) => {
      editor.setDecorations(
        type,
        marks
          .filter((m) => m.level === i + 1)
          .map((m): vscode.DecorationOptions => {
            const hover = new vscode.MarkdownString(m.hover.join('\n\n'));
            hover.isTrusted = false;
            hover.supportHtml = false;
            return { range: doc.lineAt(lineOf(m)).range, hoverMessage: hover };
          }),
      );
    });
    // the hints on their own (not whole-line) type, so that they can sit inside a line: in the disassembly right
    // after the instruction, before objdump's long encoding comment
    editor.setDecorations(
      this.hint,
      marks.map((m): vscode.DecorationOptions => {
        const text = doc.lineAt(lineOf(m)).text;
        const cut = row0 ? text.search(/\s*\/\/ [0-9A-Fa-f]+:/) : -1;
        const at = new vscode.Position(lineOf(m), cut > 0 ? cut : text.length);
        return { range: new vscode.Range(at, at), renderOptions: { after: { contentText: `  ${m.hint}` } } };
      }),
    );
    if (marks.length) this.drawn.set(key, marks);
    else this.drawn.delete(key);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.drawn.clear();
  }
}
