// Shared helpers for the suites that run inside the extension host.
import * as vscode from 'vscode';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { KernelRunnerApi } from '../../../src/extension/api';

export const EXTENSION_ID = 'kernel-runner.kernel-runner';

export const repoRoot = process.env.KR_REPO_ROOT ?? join(__dirname, '../../../..');
export const workspaceDir =
  process.env.KR_TEST_WORKSPACE ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? repoRoot;

export async function activateExtension(): Promise<KernelRunnerApi> {
  const ext = vscode.extensions.getExtension<KernelRunnerApi>(EXTENSION_ID);
  if (!ext) throw new Error(`extension ${EXTENSION_ID} is not loaded`);
  return ext.activate();
}

export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v as T;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Sets a kernelRunner setting at workspace level: it wins over the harness's remote-machine settings (user-data-dir/Machine). */
export async function setting(key: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration('kernelRunner').update(key, value, vscode.ConfigurationTarget.Workspace);
}

/** Whether a live process on this machine has `mark` in its command line (how a job's program is found from outside its PID namespace). */
export function markedAlive(mark: string): boolean {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // a zombie's command line is empty: only live processes match
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').includes(mark)) return true;
    } catch {
      // gone
    }
  }
  return false;
}
