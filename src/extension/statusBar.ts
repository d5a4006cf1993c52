// One status bar item: the target when idle; the running job (file, state, queue position, elapsed) while one
// job runs; how many run (and the newest one's file) while several do. Clicking shows the output when idle, and
// offers Show Output / Cancel while running.
import * as vscode from 'vscode';
import { formatElapsed } from '../core/format/index';
import { queueLabel } from '../core/protocol/api';
import type { ActiveJobs, JobStatus } from './runs/activeJobs';
import { commandId } from './commandIds';

/** The running clock ("1:05"); runs.ts shows it in progress notifications too. */
export {};

export type {};

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('kernelRunner.status', vscode.StatusBarAlignment.Left, 50);
  private target = '';
  private readonly subscription: vscode.Disposable;
  private ticker: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly active: ActiveJobs) {
    this.subscription = active.onDidChange(() => this.onJobs());
    this.item.name = 'Kernel Runner';
    this.render();
    this.item.show();
  }

  setTarget(description: string): void {
    this.target = description;
    this.render();
  }

  private onJobs(): void {
    const busy = this.active.size > 0;
    if (busy && !this.ticker) this.ticker = setInterval(() => this.render(), 1000);
    if (!busy && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
    void vscode.commands.executeCommand('setContext', 'kernelRunner.busy', busy);
    this.render();
  }

  /** What the item shows now (for tests and the progress notification). */
  get text(): string {
    return this.item.text;
  }

  private render(): void {
    const jobs = this.active.list().map((j) => j.job);
    const job = jobs[jobs.length - 1];
    if (!job) {
      this.item.text = `$(server-environment) ${this.target || 'Kernel Runner'}`;
      this.item.tooltip = `Kernel Runner target: ${this.target}\nClick to show the output. Change it with "Kernel Runner: Select Target…".`;
      this.item.command = commandId('showOutput');
      this.item.backgroundColor = undefined;
      return;
    }
    const line = (j: JobStatus) => {
      const state = j.state === 'queued' && j.queuePosition !== undefined ? queueLabel(j.queuePosition) : j.state;
      return `${j.file} · ${j.mode} · ${state}${j.note ? ` (${j.note})` : ''} · ${formatElapsed(Date.now() - j.startedAt)}`;
    };
    if (jobs.length === 1) {
      this.item.text = `$(sync~spin) ${line(job)}`;
      this.item.tooltip = `Kernel Runner: ${job.mode} of ${job.file} on ${this.target}\nClick to show the output or cancel.`;
    } else {
      this.item.text = `$(sync~spin) ${jobs.length} runs · ${job.file} · ${job.mode}`;
      this.item.tooltip = `Kernel Runner: ${jobs.length} runs\n${jobs.map(line).join('\n')}\nClick to show the output or cancel one.`;
    }
    this.item.command = { title: 'Kernel Runner job', command: commandId('jobMenu') };
    this.item.backgroundColor = undefined;
  }

  dispose(): void {
    this.subscription.dispose();
    if (this.ticker) clearInterval(this.ticker);
    this.item.dispose();
  }
}
