// One status bar item: the target when idle; the running job (file, state, queue position, elapsed) while a
// job runs. Clicking shows the output when idle, and offers Show Output / Cancel while running.
import * as vscode from 'vscode';
import { formatElapsed } from '../core/format/index';
import { queueLabel } from '../core/protocol/api';

/** The running clock ("1:05"); runs.ts shows it in progress notifications too. */
export { formatElapsed };

export interface JobStatus {
  file: string;
  mode: string;
  state: 'connecting' | 'queued' | 'running' | 'finishing';
  queuePosition?: number;
  /** A few more words after the state (e.g. GPU MODE's queue: "3 queued, 1 running"). */
  note?: string;
  startedAt: number;
}

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('kernelRunner.status', vscode.StatusBarAlignment.Left, 50);
  private target = '';
  private job: JobStatus | undefined;
  private ticker: ReturnType<typeof setInterval> | undefined;

  constructor() {
    this.item.name = 'Kernel Runner';
    this.render();
    this.item.show();
  }

  setTarget(description: string): void {
    this.target = description;
    this.render();
  }

  setJob(job: JobStatus | undefined): void {
    this.job = job;
    if (job && !this.ticker) this.ticker = setInterval(() => this.render(), 1000);
    if (!job && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
    void vscode.commands.executeCommand('setContext', 'kernelRunner.busy', !!job);
    this.render();
  }

  /** What the item shows now (for tests and the progress notification). */
  get text(): string {
    return this.item.text;
  }

  private render(): void {
    const job = this.job;
    if (!job) {
      this.item.text = `$(server-environment) ${this.target || 'Kernel Runner'}`;
      this.item.tooltip = `Kernel Runner target: ${this.target}\nClick to show the output. Change it with "Kernel Runner: Select Target…".`;
      this.item.command = 'kernelRunner.showOutput';
      this.item.backgroundColor = undefined;
      return;
    }
    const state = job.state === 'queued' && job.queuePosition !== undefined ? queueLabel(job.queuePosition) : job.state;
    this.item.text = `$(sync~spin) ${job.file} · ${job.mode} · ${state}${job.note ? ` (${job.note})` : ''} · ${formatElapsed(Date.now() - job.startedAt)}`;
    this.item.tooltip = `Kernel Runner: ${job.mode} of ${job.file} on ${this.target}\nClick to show the output or cancel.`;
    this.item.command = { title: 'Kernel Runner job', command: 'kernelRunner.jobMenu' };
    this.item.backgroundColor = undefined;
  }

  dispose(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.item.dispose();
  }
}
