// The extension's context: owns every disposable in two buckets, the extension's lifetime and the current
// target's lifetime (the embedded runner, a server connection), so that a target change or deactivate tears
// down exactly what it has to.
import * as vscode from 'vscode';
import { commandId, type CommandName } from './commandIds';
import { Config } from './config';

/** A disposable whose dispose may be async (awaited on teardown). */
export interface Disposer {
  dispose(): unknown;
}

export class Ctx implements vscode.Disposable {
  readonly config = new Config();
  private readonly lifetime: Disposer[] = [];
  private targetScoped: Disposer[] = [];
  private disposed = false;

  constructor(readonly extCtx: vscode.ExtensionContext) {}

  get extensionUri(): vscode.Uri {
    return this.extCtx.extensionUri;
  }

  /** Registers a disposable for the extension's whole lifetime. */
  push<T extends Disposer>(d: T): T {
    if (this.disposed) void d.dispose();
    else this.lifetime.push(d);
    return d;
  }

  /** Registers a disposable that lives until the target changes (see `resetTarget`). */
  pushTargetScoped<T extends Disposer>(d: T): T {
    if (this.disposed) void d.dispose();
    else this.targetScoped.push(d);
    return d;
  }

  /** Disposes everything tied to the current target (called when target settings change). */
  async resetTarget(): Promise<void> {
    const old = this.targetScoped;
    this.targetScoped = [];
    await disposeAll(old);
  }

  registerCommand(name: CommandName, handler: (...args: unknown[]) => unknown): void {
    this.push(vscode.commands.registerCommand(commandId(name), handler));
  }

  async disposeAsync(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await disposeAll(this.targetScoped);
    await disposeAll(this.lifetime.reverse());
    this.targetScoped = [];
    this.lifetime.length = 0;
  }

  dispose(): void {
    void this.disposeAsync();
  }
}

/** Disposes in order; an async disposer (returning a promise) is awaited; one failure does not stop the rest. */
async function disposeAll(items: Disposer[]): Promise<void> {
  for (const d of items) {
    try {
      await d.dispose();
    } catch (err) {
      console.error('[kernel-runner] dispose failed:', err);
    }
  }
}
