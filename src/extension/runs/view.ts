// The "Runs" tree of the Kernel Runner view container: the runs going on now (with their state: queued #2,
// running ...; cancel one from its row), then every stored run of this workspace (runStore.ts), newest first, with
// its file, mode, headline, target and when; open one into a results panel (its traces read from the store,
// Perfetto included), delete it, reveal its trace file.
import * as vscode from 'vscode';
import { join } from 'node:path';
import { formatElapsed } from '../../core/format/index';
import { queueLabel } from '../../core/protocol/api';
import type { ActiveJobs, JobStatus } from './activeJobs';
import type { ResultsPanel, ResultsPanels } from '../resultsPanel';
import type { RunStore, RunStoreEntry } from './store';
import { keptTraceActions, type TraceFiles } from '../traceFiles';
import { notify, pickOne } from '../ui';
import type { CompareSide } from '../comparePanel';
import { commandId } from '../commandIds';

const RUNS_VIEW_ID = 'kernelRunner.runs';

const ICONS: Record<RunStoreEntry['outcome'], [string, string]> = {
  success: ['pass', 'testing.iconPassed'],
  failure: ['error', 'testing.iconFailed'],
  error: ['warning', 'list.warningForeground'],
  cancelled: ['circle-slash', 'disabledForeground'],
  trace: ['graph', 'foreground'],
};

/** "just now", "5 min ago", "3 h ago", else the date and time. */
function whenLabel(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return new Date(ms).toLocaleString();
}

/** A command's argument: the tree's element, or a run id (the timing lens, the test API). */
type RunArg = RunStoreEntry | string | undefined;

/** A row of a run going on now. */
export interface ActiveRunNode {
  activeId: number;
  job: JobStatus;
}

type RunNode = ActiveRunNode | RunStoreEntry;

const isActive = (n: RunNode): n is ActiveRunNode => 'activeId' in n;

export class RunsView implements vscode.TreeDataProvider<RunNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly store: RunStore,
    private readonly jobs: ActiveJobs,
    private readonly panels: ResultsPanels,
    private readonly traceFiles: TraceFiles,
  ) {
    this.disposables.push(
      store.onDidChange(() => this.changed.fire()),
      jobs.onDidChange(() => this.changed.fire()),
      vscode.window.createTreeView(RUNS_VIEW_ID, {
        treeDataProvider: this,
        showCollapseAll: false,
        canSelectMany: true,
      }),
    );
  }

  async getChildren(element?: RunNode): Promise<RunNode[]> {
    if (element) return [];
    await this.store.load();
    // "No runs in this workspace yet" (package.json's viewsWelcome) only once the runs are read: not while loading
    void vscode.commands.executeCommand('setContext', 'kernelRunner.runsLoaded', true);
    const active = this.jobs.list().map(({ id, job }) => ({ activeId: id, job }));
    return [...active.reverse(), ...this.store.list()];
  }

  getTreeItem(node: RunNode): vscode.TreeItem {
    if (isActive(node)) return this.activeItem(node);
    const r = node;
    const item = new vscode.TreeItem(`${r.file} · ${r.mode}`, vscode.TreeItemCollapsibleState.None);
    item.id = r.id;
    item.description = `${r.headline} · ${r.target} · ${whenLabel(r.storedAt)}`;
    const [icon, color] = ICONS[r.outcome];
    item.iconPath = new vscode.ThemeIcon(icon, new vscode.ThemeColor(color));
    item.contextValue = r.traces.length ? 'kernelRunner.run.traced' : 'kernelRunner.run';
    const tip = new vscode.MarkdownString(undefined, false);
    tip.appendText(
      `${r.title}: ${r.file} (${r.mode}) on ${r.target}\n${r.outcome} · ${r.headline}\nstarted ${new Date(r.startedAt).toLocaleString()}`,
    );
    if (r.traces.length) tip.appendText(`\ntrace${r.traces.length > 1 ? 's' : ''}: ${r.traces.join(', ')}`);
    item.tooltip = tip;
    item.command = { title: 'Open Run', command: commandId('runs.open'), arguments: [r.id] };
    return item;
  }

  private activeItem({ activeId, job }: ActiveRunNode): vscode.TreeItem {
    const item = new vscode.TreeItem(`${job.file} · ${job.mode}`, vscode.TreeItemCollapsibleState.None);
    item.id = `active-${activeId}`;
    const state = job.state === 'queued' && job.queuePosition !== undefined ? queueLabel(job.queuePosition) : job.state;
    item.description = `${state}${job.note ? ` (${job.note})` : ''} · started ${whenLabel(job.startedAt)}`;
    item.iconPath = new vscode.ThemeIcon('sync~spin');
    item.contextValue = 'kernelRunner.activeRun';
    item.tooltip = `${job.file} (${job.mode}): ${state}, ${formatElapsed(Date.now() - job.startedAt)} so far`;
    item.command = { title: 'Show Output', command: commandId('showOutput') };
    return item;
  }

  private runOf(arg: RunArg): RunStoreEntry | undefined {
    const id = typeof arg === 'string' ? arg : arg?.id;
    return id ? this.store.get(id) : undefined;
  }

  /** A results panel with the stored view; its buttons use the kept traces. */
  async open(arg: RunArg): Promise<ResultsPanel | undefined> {
    await this.store.load();
    const run = this.runOf(arg);
    const view = run && (await this.store.view(run.id));
    if (!view) {
      void notify.warning('Kernel Runner: that run is no longer kept.');
      return undefined;
    }
    return this.panels.show(view, keptTraceActions(this.traceFiles), vscode.ViewColumn.Active);
  }

  /**
   * The two runs to compare, older first (the baseline): the two selected in the view, or the one clicked and
   * another picked from the traced runs. Each side is its run's first kept trace (profile.0 for a profile).
   */
  async compareSides(clicked: RunArg, selected?: readonly RunArg[]): Promise<[CompareSide, CompareSide] | undefined> {
    await this.store.load();
    const traced = (arg: RunArg) => {
      const run = this.runOf(arg);
      return run && run.traces.length ? run : undefined;
    };
    let runs = (selected ?? []).map(traced).filter((r): r is RunStoreEntry => r !== undefined);
    if (runs.length !== 2) {
      const first = traced(clicked) ?? runs[0];
      const others = this.store.list().filter((r) => r.traces.length && r.id !== first?.id);
      if (!first || !others.length) {
        void notify.info('Kernel Runner: comparing needs two runs that kept a trace (profile runs).');
        return undefined;
      }
      const pick = await pickOne(
        others.map((r) => ({
          label: `${r.file} · ${r.mode}`,
          description: `${r.headline} · ${r.target} · ${whenLabel(r.storedAt)}`,
          run: r,
        })),
        { title: `Compare ${first.file} (${whenLabel(first.storedAt)}) with…` },
      );
      if (!pick) return undefined;
      runs = [first, pick.run];
    }
    const [a, b] = [...runs].sort((x, y) => x.storedAt - y.storedAt) as [RunStoreEntry, RunStoreEntry];
    const side = (r: RunStoreEntry): CompareSide => ({
      label: `${r.file} · ${r.mode}, ${whenLabel(r.storedAt)} (${r.traces[0]})`,
      path: join(this.store.dirOf(r.id), r.traces[0] as string),
    });
    return [side(a), side(b)];
  }

  async delete(arg: RunArg, confirmed = false): Promise<boolean> {
    const run = this.runOf(arg);
    if (!run) return false;
    if (!confirmed) {
      const answer = await notify.confirm(
        `Delete the run of ${run.file} (${run.mode}, ${whenLabel(run.storedAt)}) and its traces?`,
        'Delete',
      );
      if (answer !== 'Delete') return false;
    }
    return this.store.delete(run.id);
  }

  async revealTrace(arg: RunArg): Promise<string | undefined> {
    const run = this.runOf(arg);
    const first = run?.traces[0];
    if (!run || !first) {
      void notify.info('Kernel Runner: this run kept no trace.');
      return undefined;
    }
    const path = join(this.store.dirOf(run.id), first);
    try {
      await vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(path));
    } catch {
      // no OS file manager (a browser workbench): say where it is
      void notify.info(`Kernel Runner: the trace is at ${path}`);
    }
    return path;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.changed.dispose();
  }
}
