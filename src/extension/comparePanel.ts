// The compare panel: two traces (profile zips, output folders, rocpd .db files, CSVs) summarised in the extension
// host with the trace toolkit and compared with its compareSummaries, shown in a webview with the results panel's
// strict CSP (`default-src 'none'`, scripts only with a crypto nonce) and typed messages
// (src/webview/compareProtocol.ts). "Kernel Runner: Compare Two Profiles…" opens it from two resources selected
// in the explorer or from the palette; other views (Runs) call openComparePanel with two stored runs.
import * as vscode from 'vscode';
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { compareSummaries, summarizePath, TraceInputError } from '../trace/index';
import {
  COMPARE_VIEW_TYPE,
  CompareReadyCommand,
  CompareRenderedCommand,
  CompareStateNotification,
  RevealSideCommand,
  type CompareHostToWebview,
  type CompareRendered,
  type CompareSide,
  type CompareView,
  type PersistedCompareState,
} from '../webview/compareProtocol';
import type { Ctx } from './ctx';
import { notify, pickFiles, pickOne } from './ui';
import { webviewDocument } from './webviewDocument';
import { errorMessage } from '../core/errors';

export type { CompareSide } from '../webview/compareProtocol';

const open = new Set<ComparePanel>();

export class ComparePanel {
  private ready = false;
  private readonly disposables: vscode.Disposable[] = [];
  /** Methods of the messages the webview sent. */
  readonly received: string[] = [];
  /** What the webview last reported it drew. */
  rendered: CompareRendered | undefined;
  private readonly renderedEmitter = new vscode.EventEmitter<CompareRendered>();
  readonly onDidRender = this.renderedEmitter.event;

  constructor(
    readonly panel: vscode.WebviewPanel,
    private view: CompareView,
    extensionUri: vscode.Uri,
  ) {
    const dist = vscode.Uri.joinPath(extensionUri, 'dist');
    const media = vscode.Uri.joinPath(extensionUri, 'media');
    panel.webview.options = { enableScripts: true, enableCommandUris: false, localResourceRoots: [dist, media] };
    panel.iconPath = vscode.Uri.joinPath(media, 'icon.svg');
    panel.title = view.title;
    panel.webview.html = webviewDocument(panel.webview, dist, media, {
      styles: ['results.css', 'compare.css'],
      script: 'compare.js',
      title: 'Kernel Runner compare',
      body: '<div id="root"><p class="loading">Comparing…</p></div>',
    });
    this.disposables.push(
      this.renderedEmitter,
      panel.webview.onDidReceiveMessage((msg: unknown) => this.handleMessage(msg)),
      panel.onDidDispose(() => this.disposePanel()),
    );
    open.add(this);
  }

  get current(): CompareView {
    return this.view;
  }

  get isReady(): boolean {
    return this.ready;
  }

  private post(msg: CompareHostToWebview): Thenable<boolean> {
    return this.panel.webview.postMessage(msg);
  }

  /** Handles one message from the webview; anything else is ignored. */
  async handleMessage(msg: unknown): Promise<void> {
    this.received.push(typeof msg === 'object' && msg !== null ? String((msg as { method?: unknown }).method) : '?');
    if (CompareReadyCommand.is(msg)) {
      this.ready = true;
      await this.post(CompareStateNotification.make({ view: this.view }));
    } else if (CompareRenderedCommand.is(msg)) {
      this.rendered = msg.params;
      this.renderedEmitter.fire(msg.params);
    } else if (RevealSideCommand.is(msg) && (msg.params.side === 'a' || msg.params.side === 'b')) {
      await vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(this.view[msg.params.side].path));
    }
  }

  private disposePanel(): void {
    open.delete(this);
    for (const d of this.disposables) d.dispose();
    this.disposables.length = 0;
  }

  dispose(): void {
    this.panel.dispose();
  }
}

/** Summarises both traces and compares them: `a` is the baseline. */
async function compareView(a: CompareSide, b: CompareSide): Promise<CompareView> {
  const [sa, sb] = await Promise.all([summarizePath(a.path), summarizePath(b.path)]);
  return {
    title: `Compare: ${a.label} → ${b.label}`,
    a,
    b,
    comparison: compareSummaries(sa, sb, { a: a.label, b: b.label }),
    comparedAt: new Date().toISOString(),
    ...(sa.roofline || sb.roofline ? { rooflines: { a: sa.roofline ?? null, b: sb.roofline ?? null } } : {}),
  };
}

/**
 * Opens a compare panel of two traces (a zip, folder, rocpd .db or CSV each; `a` is the baseline). Errors (a path
 * that is no trace) are shown to the user and give undefined.
 */
export async function openComparePanel(ctx: Ctx, a: CompareSide, b: CompareSide): Promise<ComparePanel | undefined> {
  try {
    const view = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Kernel Runner: comparing ${a.label} with ${b.label}` },
      () => compareView(a, b),
    );
    const panel = vscode.window.createWebviewPanel(
      COMPARE_VIEW_TYPE,
      view.title,
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
      {},
    );
    return new ComparePanel(panel, view, ctx.extensionUri);
  } catch (err) {
    const msg =
      err instanceof TraceInputError ? err.message : `Could not compare ${a.path} with ${b.path}: ${errorMessage(err)}`;
    void notify.error(`Kernel Runner: ${msg}`);
    return undefined;
  }
}

/** Labels for two paths: their names, or parent/name when the names are the same. */
function sideLabels(a: string, b: string): [string, string] {
  if (basename(a) !== basename(b)) return [basename(a), basename(b)];
  return [join(basename(dirname(a)), basename(a)), join(basename(dirname(b)), basename(b))];
}

const TRACE_EXT = /\.(zip|db|csv)$/i;

/** Profile zips the extension saved (newest first), for the palette's picker. */
async function recentTraces(ctx: Ctx): Promise<Array<{ path: string; mtimeMs: number }>> {
  const dir = join(ctx.extCtx.globalStorageUri.fsPath, 'traces');
  const names = await readdir(dir).catch(() => [] as string[]);
  const found = await Promise.all(
    names
      .filter((n) => TRACE_EXT.test(n))
      .map(async (n) => ({
        path: join(dir, n),
        mtimeMs: (await stat(join(dir, n)).catch(() => undefined))?.mtimeMs ?? 0,
      })),
  );
  return found.sort((x, y) => y.mtimeMs - x.mtimeMs).slice(0, 40);
}

const BROWSE = 'Choose a file or folder…';

async function pickTrace(ctx: Ctx, title: string, except?: string): Promise<string | undefined> {
  const recent = (await recentTraces(ctx)).filter((r) => r.path !== except);
  if (recent.length) {
    // browsing first: with many saved profiles it would be out of sight at the end
    const items = [
      { label: BROWSE, description: 'a profile zip, an output folder, a rocpd .db or a CSV', path: undefined },
      ...recent.map((r) => ({
        label: basename(r.path),
        description: new Date(r.mtimeMs).toLocaleString(),
        detail: r.path,
        path: r.path,
      })),
    ];
    const pick = await pickOne(items, { title, placeHolder: 'A saved profile, or browse' });
    if (!pick) return undefined;
    if (pick.path) return pick.path;
  }
  const picked = await pickFiles({
    title,
    canSelectFiles: true,
    canSelectFolders: true,
    canSelectMany: false,
    openLabel: 'Compare',
    filters: { 'rocprof outputs': ['zip', 'db', 'csv'], 'All files': ['*'] },
  });
  return picked?.[0]?.fsPath;
}

/** The older of two paths is A (the baseline). */
async function byAge(paths: [string, string]): Promise<[string, string]> {
  const [ta, tb] = await Promise.all(paths.map(async (p) => (await stat(p).catch(() => undefined))?.mtimeMs ?? 0));
  return (tb as number) < (ta as number) ? [paths[1], paths[0]] : paths;
}

/**
 * `kernelRunner.compareTraces`: from the explorer with two resources selected (uri, uris) the older is A; with
 * one, it is A and B is picked; from the palette both are picked (saved profiles or an open dialog).
 */
async function compareTracesCommand(ctx: Ctx, uri?: unknown, uris?: unknown): Promise<ComparePanel | undefined> {
  const selected = (Array.isArray(uris) ? uris : [uri])
    .filter((u): u is vscode.Uri => u instanceof vscode.Uri)
    .map((u) => u.fsPath);
  let pair: [string, string] | undefined;
  if (selected.length >= 2) {
    pair = await byAge([selected[0] as string, selected[1] as string]);
  } else {
    const a = selected[0] ?? (await pickTrace(ctx, 'Compare: A, the baseline'));
    if (!a) return undefined;
    const b = await pickTrace(ctx, `Compare ${basename(a)} with B`, a);
    if (!b) return undefined;
    pair = [a, b];
  }
  const [la, lb] = sideLabels(pair[0], pair[1]);
  return openComparePanel(ctx, { label: la, path: pair[0] }, { label: lb, path: pair[1] });
}

/** The command and the serializer that restores compare panels after a reload. */
export function registerCompare(ctx: Ctx): void {
  ctx.registerCommand('compareTraces', (uri, uris) => compareTracesCommand(ctx, uri, uris));
  ctx.push(
    vscode.window.registerWebviewPanelSerializer(COMPARE_VIEW_TYPE, {
      deserializeWebviewPanel: async (panel, state: unknown) => {
        const view = (state as Partial<PersistedCompareState> | undefined)?.view;
        if (!view || typeof view !== 'object' || !view.comparison || !Array.isArray(view.comparison.kernels)) {
          panel.dispose();
          return;
        }
        new ComparePanel(panel, view, ctx.extensionUri);
      },
    }),
  );
  ctx.push({ dispose: () => [...open].forEach((p) => p.dispose()) });
}
