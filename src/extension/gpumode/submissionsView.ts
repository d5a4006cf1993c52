// "My Submissions": GET /user/submissions of the current target as a tree view (leaderboard, file, time, done,
// scores) with Show (the code in an untitled editor + the runs in a results panel), Delete (confirmed) and Refresh,
// and the same list as a QuickPick command.
import * as vscode from 'vscode';
import { extname } from 'node:path';
import { EXTENSION_REGISTER_HINTS, explainGpuModeError, isGpuModeError } from '../../core/gpumode/errors';
import { formatScore } from '../../core/gpumode/results';
import { runRow, submissionRow } from '../../core/gpumode/submissions';
import type { RunnerClient } from '../../core/client';
import type { UserSubmissionDetail, UserSubmissionSummary } from '../../core/protocol/api';
import { commandId } from '../commandIds';
import type { Ctx } from '../ctx';
import { buildSubmissionView } from '../resultModel';
import type { ResultsPanels } from '../resultsPanel';
import { clientFor, type ResolvedTarget, type Targets } from '../targets';
import { notify, pickOne, showDocument } from '../ui';
import { errorMessage } from '../../core/errors';

const SUBMISSIONS_VIEW_ID = 'kernelRunner.submissions';
const PAGE = 100;

export type SubmissionNode =
  | { kind: 'submission'; summary: UserSubmissionSummary }
  | { kind: 'run'; parent: UserSubmissionSummary; index: number }
  | { kind: 'message'; text: string; detail?: string; command?: vscode.Command; icon?: string };

type MessageNode = Extract<SubmissionNode, { kind: 'message' }>;

const LANGUAGES: Record<string, string> = {
  '.py': 'python',
  '.cu': 'cuda-cpp',
  '.cuh': 'cuda-cpp',
  '.cpp': 'cpp',
  '.hip': 'hip',
};

export class MySubmissions implements vscode.TreeDataProvider<SubmissionNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<SubmissionNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<SubmissionNode>;

  constructor(
    private readonly ctx: Ctx,
    private readonly targets: Targets,
    private readonly panels: ResultsPanels,
  ) {
    this.view = vscode.window.createTreeView(SUBMISSIONS_VIEW_ID, { treeDataProvider: this, showCollapseAll: true });
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  /** A client for the current target, or a message node saying why there is none. */
  private async client(): Promise<{ client: RunnerClient; target: ResolvedTarget } | MessageNode> {
    if (this.targets.kind === 'embedded' && !(await this.targets.embeddedUrl())) {
      return {
        kind: 'message',
        text: 'The embedded runner is not started yet',
        detail: 'Run a file, or select GPU MODE or a server as the target.',
        icon: 'info',
        command: { title: 'Select Target', command: commandId('selectTarget') },
      };
    }
    const target = await this.targets.resolve();
    if (target.kind === 'gpumode' && !target.cliId && !target.token) {
      return {
        kind: 'message',
        text: 'Register with GPU MODE to see your submissions',
        detail: `No cli_id in ${this.targets.popcornConfigPath}`,
        icon: 'account',
        command: { title: 'Register', command: commandId('registerGpuMode') },
      };
    }
    return { client: clientFor(target), target };
  }

  async list(): Promise<UserSubmissionSummary[]> {
    const c = await this.client();
    if ('kind' in c) throw new Error(`${c.text}${c.detail ? ` (${c.detail})` : ''}`);
    return c.client.listSubmissions({ limit: PAGE }, { timeoutMs: 20_000 });
  }

  async getChildren(node?: SubmissionNode): Promise<SubmissionNode[]> {
    if (node?.kind === 'submission')
      return node.summary.runs.map((_, index) => ({ kind: 'run', parent: node.summary, index }));
    if (node) return [];
    try {
      const c = await this.client();
      if ('kind' in c) return [c];
      const list = await c.client.listSubmissions({ limit: PAGE }, { timeoutMs: 20_000 });
      this.view.description = c.target.label;
      if (!list.length) return [{ kind: 'message', text: `No submissions on ${c.target.label} yet`, icon: 'info' }];
      return [...list].sort((a, b) => b.id - a.id).map((summary) => ({ kind: 'submission', summary }));
    } catch (err) {
      const explained =
        this.targets.kind === 'gpumode' ? explainGpuModeError(err, { hints: EXTENSION_REGISTER_HINTS }) : err;
      const text = errorMessage(explained);
      const unregistered = isGpuModeError(explained) && explained.type === 'unregistered';
      return [
        {
          kind: 'message',
          text: unregistered ? 'GPU MODE does not know this cli_id: re-register' : 'Could not list submissions',
          detail: text,
          icon: 'error',
          ...(unregistered ? { command: { title: 'Re-register', command: commandId('reregisterGpuMode') } } : {}),
        },
      ];
    }
  }

  getTreeItem(node: SubmissionNode): vscode.TreeItem {
    if (node.kind === 'message') {
      const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
      item.tooltip = node.detail ?? node.text;
      item.description = node.detail;
      if (node.icon) item.iconPath = new vscode.ThemeIcon(node.icon);
      if (node.command) item.command = node.command;
      item.contextValue = 'kernelRunner.message';
      return item;
    }
    if (node.kind === 'run') {
      const run = node.parent.runs[node.index];
      const score = run && typeof run.score === 'number' ? formatScore(run.score) : '-';
      const item = new vscode.TreeItem(run?.gpu_type ?? '?', vscode.TreeItemCollapsibleState.None);
      item.description = score === '-' ? 'no score' : `score ${score}`;
      item.iconPath = new vscode.ThemeIcon('chip');
      item.contextValue = 'kernelRunner.submissionRun';
      return item;
    }
    const s = node.summary;
    const row = submissionRow(s);
    const item = new vscode.TreeItem(
      `${s.file_name}`,
      s.runs.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    item.id = `submission-${s.id}`;
    item.description = `#${s.id} · ${s.leaderboard_name} · ${formatTime(s.submission_time)} · ${row.status}${row.score !== '-' ? ` · ${row.score}` : ''}`;
    const tip = new vscode.MarkdownString(undefined, false);
    tip.appendText(`Submission #${s.id}: ${s.file_name}\n\n`);
    tip.appendText(
      `Leaderboard: ${s.leaderboard_name}\nSubmitted: ${s.submission_time}\nStatus: ${row.status}\nGPUs: ${row.gpu}\nBest score: ${row.score}`,
    );
    item.tooltip = tip;
    item.iconPath = new vscode.ThemeIcon(s.done ? 'pass' : 'watch');
    item.contextValue = 'kernelRunner.submission';
    item.command = { title: 'Show Submission', command: commandId('submissions.show'), arguments: [node] };
    return item;
  }

  /** Show: the submitted code in an untitled editor, and the runs in a results panel. */
  async show(arg: unknown): Promise<UserSubmissionDetail | undefined> {
    const id = idOf(arg);
    if (id === undefined) return undefined;
    const c = await this.client();
    if ('kind' in c) {
      void notify.warning(`Kernel Runner: ${c.text}.`);
      return undefined;
    }
    let detail: UserSubmissionDetail;
    try {
      detail = await c.client.getSubmission(id, { timeoutMs: 30_000 });
    } catch (err) {
      this.reportError(err, `could not fetch submission #${id}`);
      return undefined;
    }
    const language = LANGUAGES[extname(detail.file_name).toLowerCase()] ?? 'plaintext';
    const doc = await vscode.workspace.openTextDocument({ content: detail.code, language });
    await showDocument(doc, { preview: false, viewColumn: vscode.ViewColumn.Active });
    const starts = detail.runs.map((r) => (r.start_time ? Date.parse(r.start_time) : NaN)).filter(Number.isFinite);
    const ends = detail.runs.map((r) => (r.end_time ? Date.parse(r.end_time) : NaN)).filter(Number.isFinite);
    const elapsedS = starts.length && ends.length ? Math.max(0, (Math.max(...ends) - Math.min(...starts)) / 1000) : 0;
    const view = buildSubmissionView(
      {
        title: `Submission #${detail.id}: ${detail.file_name}`,
        fileName: detail.file_name,
        leaderboard: detail.leaderboard_name,
        gpu: [...new Set(detail.runs.map((r) => r.runner))].join(', '),
        mode: [...new Set(detail.runs.map((r) => r.mode))].join(', ') || 'submission',
        target: c.target.label,
        startedAt: detail.submission_time,
        elapsedS,
        hiddenNoiseLines: 0,
      },
      detail,
      { perfettoMaxBytes: this.ctx.config.perfettoMaxTraceBytes },
    );
    view.notes = [
      ...(view.notes ?? []),
      `Submitted ${detail.submission_time}. Runs: ${detail.runs.map((r) => runRow(r).text).join('; ') || 'none yet'}.`,
    ];
    this.panels.show(view, undefined, vscode.ViewColumn.Beside);
    return detail;
  }

  /** Delete, after a modal confirmation; `confirmed` skips it (test API). */
  async delete(arg: unknown, confirmed = false): Promise<boolean> {
    const id = idOf(arg);
    if (id === undefined) return false;
    const summary =
      typeof arg === 'object' && arg !== null && (arg as SubmissionNode).kind === 'submission'
        ? (arg as Extract<SubmissionNode, { kind: 'submission' }>).summary
        : undefined;
    const c = await this.client();
    if ('kind' in c) {
      void notify.warning(`Kernel Runner: ${c.text}.`);
      return false;
    }
    if (!confirmed) {
      const what = summary ? `${summary.file_name} on ${summary.leaderboard_name}` : `#${id}`;
      const answer = await notify.confirm(
        `Delete submission #${id} (${what}) from ${c.target.label}? Its runs and scores are removed; this cannot be undone.`,
        'Delete',
      );
      if (answer !== 'Delete') return false;
    }
    try {
      await c.client.deleteSubmission(id, { timeoutMs: 30_000 });
    } catch (err) {
      this.reportError(err, `could not delete submission #${id}`);
      return false;
    }
    void notify.info(`Kernel Runner: submission #${id} deleted.`);
    this.refresh();
    return true;
  }

  /** The QuickPick form: pick a submission, then Show or Delete. */
  async quickPick(): Promise<void> {
    let list: UserSubmissionSummary[];
    try {
      list = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: 'Kernel Runner: loading submissions' },
        () => this.list(),
      );
    } catch (err) {
      this.reportError(err, 'could not list submissions');
      return;
    }
    if (!list.length) {
      void notify.info('Kernel Runner: no submissions yet on this target.');
      return;
    }
    const items = [...list]
      .sort((a, b) => b.id - a.id)
      .map((s) => {
        const row = submissionRow(s);
        return {
          label: s.file_name,
          description: `#${s.id} · ${s.leaderboard_name}`,
          detail: `${formatTime(s.submission_time)} · ${row.status} · GPUs ${row.gpu} · best ${row.score}`,
          summary: s,
        };
      });
    const pick = await pickOne(items, {
      title: 'My Submissions',
      placeHolder: 'Submission to show or delete',
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (!pick) return;
    const action = await pickOne(
      [
        { label: 'Show', description: 'the code and its runs' },
        { label: 'Delete', description: 'remove it from the service' },
      ],
      { title: `Submission #${pick.summary.id}` },
    );
    const node: SubmissionNode = { kind: 'submission', summary: pick.summary };
    if (action?.label === 'Show') await this.show(node);
    else if (action?.label === 'Delete') await this.delete(node);
  }

  private reportError(err: unknown, what: string): void {
    const explained =
      this.targets.kind === 'gpumode' ? explainGpuModeError(err, { hints: EXTENSION_REGISTER_HINTS }) : err;
    const text = errorMessage(explained);
    const actions = isGpuModeError(explained) && explained.type === 'unregistered' ? ['Re-register'] : [];
    void notify.error(`Kernel Runner: ${what}: ${text}`, ...actions).then((pick) => {
      if (pick === 'Re-register') void vscode.commands.executeCommand(commandId('reregisterGpuMode'));
    });
  }

  dispose(): void {
    this.view.dispose();
    this.changed.dispose();
  }
}

function idOf(arg: unknown): number | undefined {
  if (typeof arg === 'number' && Number.isInteger(arg)) return arg;
  if (typeof arg === 'object' && arg !== null) {
    const n = arg as SubmissionNode;
    if (n.kind === 'submission') return n.summary.id;
    if (n.kind === 'run') return n.parent.id;
  }
  return undefined;
}

/** "2026-05-01 14:03" in local time; the raw value when unreadable. */
function formatTime(iso: string): string {
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${t.getFullYear()}-${p(t.getMonth() + 1)}-${p(t.getDate())} ${p(t.getHours())}:${p(t.getMinutes())}`;
}
