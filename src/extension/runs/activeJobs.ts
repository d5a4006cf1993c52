// The runs going on now and the state each is in (connecting, queued #2, running ...), as the presenters report it:
// the status bar and the Runs view draw it.
import * as vscode from 'vscode';

export interface JobStatus {
  file: string;
  mode: string;
  state: 'connecting' | 'queued' | 'running' | 'finishing';
  queuePosition?: number;
  /** A few more words after the state (e.g. GPU MODE's queue: "3 queued, 1 running"). */
  note?: string;
  startedAt: number;
}

export class ActiveJobs implements vscode.Disposable {
  /** By run id, in the order they started. */
  private readonly jobs = new Map<number, JobStatus>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  /** The state of run `id`; undefined: it ended. */
  setJob(id: number, job: JobStatus | undefined): void {
    if (job) this.jobs.set(id, job);
    else if (!this.jobs.delete(id)) return;
    this.changed.fire();
  }

  list(): Array<{ id: number; job: JobStatus }> {
    return [...this.jobs].map(([id, job]) => ({ id, job }));
  }

  get size(): number {
    return this.jobs.size;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
