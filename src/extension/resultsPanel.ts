// Results panels: one webview panel per result. Strict CSP (`default-src 'none'`, scripts only with a crypto
// nonce), resources only from dist/ and media/, typed messages (src/webview/protocol.ts), a serializer that
// restores panels after a reload from the state the webview saved (their buttons then use the traces kept in the
// run store: `fallbackActions`).
import { PROFILE_SHOWN_CONTEXT } from './commandIds';
import * as vscode from 'vscode';
import {
  DownloadTraceCommand,
  LoadIsaCommand,
  OpenDisassemblyCommand,
  OpenPerfettoCommand,
  ReadyCommand,
  RESULTS_VIEW_TYPE,
  ShowOutputCommand,
  StateNotification,
  NoticeNotification,
  type HostToWebview,
  type PersistedState,
  type ProfileView,
  type ResultView,
} from '../webview/protocol';
import { commandId } from './commandIds';
import type { Ctx } from './ctx';
import type { IsaDocuments } from './isa';
import { notify } from './ui';
import { webviewDocument } from './webviewDocument';
import { withKeptTraces } from './resultModel';
import { errorMessage } from '../core/errors';

/** What a panel's buttons do; runs and opened traces provide it, restored panels fall back to defaults. */
export interface ProfileActions {
  downloadTrace(profile: ProfileView): Promise<void>;
  openPerfetto(profile: ProfileView): Promise<void>;
  /** The trace as a local file, downloading the runner's artifact if need be (for the Kernels (ISA) section). */
  localTrace?(profile: ProfileView): Promise<string>;
}

export class ResultsPanel {
  private view: ResultView;
  private ready = false;
  /** Closed: what still arrives (a Kernels (ISA) section read meanwhile) is dropped, not set on a disposed webview. */
  private disposed = false;
  private readonly disposables: vscode.Disposable[] = [];
  /** Messages the webview sent (test API: shows the panel really talks back). */
  readonly received: string[] = [];
  /** Where each profile's trace is on disk, for its code objects (the profile's localPath, or a download). */
  private readonly tracePaths = new Map<string, string>();
  private readonly isaPending = new Set<string>();

  constructor(
    readonly panel: vscode.WebviewPanel,
    /** The view it opened on: the run's own, which `ResultsPanels.kept` finds it by (what it shows changes). */
    readonly opened: ResultView,
    private readonly owner: ResultsPanels,
    private actions: ProfileActions | undefined,
  ) {
    this.view = opened;
    const dist = vscode.Uri.joinPath(owner.extensionUri, 'dist');
    const media = vscode.Uri.joinPath(owner.extensionUri, 'media');
    panel.webview.options = { enableScripts: true, enableCommandUris: false, localResourceRoots: [dist, media] };
    panel.iconPath = vscode.Uri.joinPath(media, 'icon.svg');
    panel.title = opened.title;
    panel.webview.html = webviewDocument(panel.webview, dist, media, {
      styles: ['results.css'],
      script: 'webview.js',
      title: 'Kernel Runner results',
      body: '<div id="notices" aria-live="polite"></div>\n<div id="root"><p class="loading">Loading results…</p></div>',
      dataImages: true,
    });
    this.disposables.push(
      panel.webview.onDidReceiveMessage((msg: unknown) => this.handleMessage(msg)),
      panel.onDidDispose(() => this.disposePanel()),
    );
    void this.fillIsa();
  }

  get current(): ResultView {
    return this.view;
  }

  get isReady(): boolean {
    return this.ready;
  }

  update(view: ResultView, actions?: ProfileActions): void {
    if (this.disposed) return;
    this.view = view;
    if (actions) this.actions = actions;
    this.panel.title = view.title;
    if (this.ready) void this.post(StateNotification.make({ view }));
    this.owner.changed();
    void this.fillIsa();
  }

  /** Its run was kept: its profiles now point at the kept traces (Perfetto, disassembly, a revived panel use them). */
  keptAt(kept: ResultView): void {
    for (const p of kept.profiles) if (p.localPath) this.tracePaths.set(p.key, p.localPath);
    this.update(withKeptTraces(this.view, kept));
  }

  /** Reads the code objects of the profiles that have no Kernels (ISA) section yet. */
  private async fillIsa(loadRemote?: string): Promise<void> {
    const isa = this.owner.isa;
    if (!isa) return;
    const todo = this.view.profiles.filter((p) => (!p.isa || p.key === loadRemote) && !this.isaPending.has(p.key));
    await Promise.all(
      todo.map(async (p) => {
        this.isaPending.add(p.key);
        try {
          let path = this.tracePaths.get(p.key) ?? p.localPath;
          if (!path && p.key === loadRemote && this.actions?.localTrace) path = await this.actions.localTrace(p);
          if (path) this.tracePaths.set(p.key, path);
          const section = await isa.viewFor(p, path);
          const profiles = this.view.profiles.map((x) => (x.key === p.key ? { ...x, isa: section } : x));
          this.update({ ...this.view, profiles });
        } finally {
          this.isaPending.delete(p.key);
        }
      }),
    );
  }

  notice(text: string, level: 'info' | 'error' = 'info'): void {
    void this.post(NoticeNotification.make({ text, level }));
  }

  private post(msg: HostToWebview): Thenable<boolean> {
    return this.panel.webview.postMessage(msg);
  }

  private profile(key: string): ProfileView | undefined {
    return this.view.profiles.find((p) => p.key === key);
  }

  /** Handles one message from the webview (public for the test API). */
  async handleMessage(msg: unknown): Promise<void> {
    const method = typeof msg === 'object' && msg !== null ? String((msg as { method?: unknown }).method) : '?';
    this.received.push(method);
    try {
      if (ReadyCommand.is(msg)) {
        this.ready = true;
        await this.post(StateNotification.make({ view: this.view }));
      } else if (DownloadTraceCommand.is(msg)) {
        const p = this.profile(String(msg.params.profileKey));
        if (p) await (this.actions ?? this.owner.fallbackActions).downloadTrace(p);
      } else if (OpenPerfettoCommand.is(msg)) {
        const p = this.profile(String(msg.params.profileKey));
        if (p) await (this.actions ?? this.owner.fallbackActions).openPerfetto(p);
      } else if (ShowOutputCommand.is(msg)) {
        await vscode.commands.executeCommand(commandId('showOutput'));
      } else if (LoadIsaCommand.is(msg)) {
        await this.fillIsa(String(msg.params.profileKey));
      } else if (OpenDisassemblyCommand.is(msg)) {
        const p = this.profile(String(msg.params.profileKey));
        const row = p?.isa?.kernels.find(
          (k) => k.codeObject === msg.params.codeObject && k.kernel === msg.params.kernel,
        );
        const path = p ? (this.tracePaths.get(p.key) ?? p.localPath) : undefined;
        if (!p || !row || !this.owner.isa) return;
        if (!path)
          throw new Error(
            'The trace of this panel is not on this machine any more: run the profile again to see its disassembly.',
          );
        await this.owner.isa.open(path, row.codeObject, row.name);
      }
    } catch (err) {
      const text = errorMessage(err);
      this.notice(text, 'error');
      void notify.error(`Kernel Runner: ${text}`);
    }
  }

  private disposePanel(): void {
    this.disposed = true;
    this.owner.forget(this);
    for (const d of this.disposables) d.dispose();
    this.disposables.length = 0;
  }

  dispose(): void {
    this.panel.dispose();
  }
}

export class ResultsPanels implements vscode.Disposable {
  private readonly open = new Set<ResultsPanel>();
  /** A run's view to the view of it kept in the run store, for a panel shown after that (Show Results). */
  private readonly keptViews = new WeakMap<ResultView, ResultView>();
  private readonly changes = new vscode.EventEmitter<void>();
  /** A panel opened, closed or changed what it shows (the editors' hot-spot heat follows). */
  readonly onDidChange = this.changes.event;
  /** Reads code objects and opens disassembly for the Kernels (ISA) sections (main.ts sets it). */
  isa: IsaDocuments | undefined;

  constructor(
    private readonly ctx: Ctx,
    /** What buttons do in a panel without its run (restored after a reload). */
    readonly fallbackActions: ProfileActions,
  ) {}

  get extensionUri(): vscode.Uri {
    return this.ctx.extensionUri;
  }

  get all(): ResultsPanel[] {
    return [...this.open];
  }

  show(shown: ResultView, actions?: ProfileActions, column = vscode.ViewColumn.Beside): ResultsPanel {
    const view = this.keptViews.get(shown) ?? shown;
    const panel = vscode.window.createWebviewPanel(
      RESULTS_VIEW_TYPE,
      view.title,
      { viewColumn: column, preserveFocus: true },
      {},
    );
    const p = new ResultsPanel(panel, view, this, actions);
    this.open.add(p);
    this.changed();
    return p;
  }

  registerSerializer(): void {
    this.ctx.push(
      vscode.window.registerWebviewPanelSerializer(RESULTS_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel, state: unknown) => {
          this.revive(panel, state);
        },
      }),
    );
  }

  /** A panel VS Code restored after a reload, with the state its webview saved (public for the test API). */
  revive(panel: vscode.WebviewPanel, state: unknown): ResultsPanel | undefined {
    const view = (state as Partial<PersistedState> | undefined)?.view;
    if (!view || typeof view !== 'object' || !Array.isArray(view.runs) || !Array.isArray(view.profiles)) {
      panel.dispose();
      return undefined;
    }
    const p = new ResultsPanel(panel, view, this, undefined);
    this.open.add(p);
    this.changed();
    return p;
  }

  /**
   * A run's view (`view`, what its panels opened on) was kept in the run store as `kept`: every panel opened on it
   * points at the kept traces from now on, whatever it shows by now, and one shown later opens on `kept`.
   */
  kept(view: ResultView, kept: ResultView): void {
    this.keptViews.set(view, kept);
    for (const p of this.open) if (p.opened === view) p.keptAt(kept);
  }

  forget(p: ResultsPanel): void {
    this.open.delete(p);
    this.changed();
  }

  changed(): void {
    // the walkthrough's "Read the results" step is done once a profile's results have been on screen
    if (this.all.some((p) => p.current.profiles.some((x) => x.summary)))
      void vscode.commands.executeCommand('setContext', PROFILE_SHOWN_CONTEXT, true);
    this.changes.fire();
  }

  dispose(): void {
    for (const p of [...this.open]) p.dispose();
    this.changes.dispose();
  }
}
