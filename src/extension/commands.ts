// The command table: short names (commandIds.ts) to factories taking the context; main.ts registers them all under
// `kernelRunner.`; the type asks for one entry per contributed command but those registered elsewhere. A command that acts on a file takes an optional Uri (CodeLens, menus) and falls back to the
// active editor.
import { openComparePanel } from './comparePanel';
import * as vscode from 'vscode';
import { chooseForFile } from './choices';
import { openExample } from './examples';
import type { CommandName } from './commandIds';
import type { Ctx } from './ctx';
import type { RunStoreEntry } from './runs/store';
import type { Services } from './services';
import { clientFor } from './targets';
import { notify, pickOne } from './ui';
import { errorMessage } from '../core/errors';

export type CommandFactory = (ctx: Ctx, s: Services) => (...args: unknown[]) => unknown;

const fileArg = (arg: unknown): vscode.Uri | undefined => (arg instanceof vscode.Uri ? arg : undefined);
const runArg = (arg: unknown): RunStoreEntry | string | undefined =>
  typeof arg === 'string'
    ? arg
    : typeof arg === 'object' && arg !== null && typeof (arg as { id?: unknown }).id === 'string'
      ? (arg as RunStoreEntry)
      : undefined;

/** Commands registered by their own module: compareTraces (comparePanel.ts), jobMenu (main.ts, the controller's). */
type RegisteredElsewhere = 'compareTraces' | 'jobMenu';

export const commandTable: Record<Exclude<CommandName, RegisteredElsewhere>, CommandFactory> = {
  run: (ctx, s) => (uri) => s.runs.runFile(fileArg(uri), { mode: ctx.config.runMode, title: 'Run' }),
  profile: (_ctx, s) => (uri) => s.runs.runFile(fileArg(uri), { mode: 'profile', title: 'Profile' }),
  runTests: (_ctx, s) => (uri) => s.runs.runFile(fileArg(uri), { mode: 'test', title: 'Tests' }),
  runBenchmark: (_ctx, s) => (uri) => s.runs.runFile(fileArg(uri), { mode: 'benchmark', title: 'Benchmark' }),
  submit: (_ctx, s) => async (uri) => {
    const pick = await pickOne(
      [
        { label: 'leaderboard', description: 'ranked run: tests, then benchmarks, then the timed leaderboard run' },
        { label: 'test', description: 'correctness tests only' },
        { label: 'benchmark', description: 'benchmarks only' },
        { label: 'profile', description: 'each benchmark case under the profiler' },
      ] as const,
      { title: 'Submit to Leaderboard: mode', placeHolder: 'Mode' },
    );
    if (pick) await s.runs.runFile(fileArg(uri), { mode: pick.label, title: `Submit (${pick.label})` });
  },
  cancel: (_ctx, s) => () => s.runs.cancel(),
  openTrace: (_ctx, s) => (uri) => s.traces.openTrace(fileArg(uri)),
  selectTarget: (_ctx, s) => () => s.targets.selectTarget(),
  openExample: (ctx) => () => openExample(ctx.extensionUri, ctx.extCtx.globalStorageUri),
  showOutput: (_ctx, s) => () => s.output.show(),
  setToken: (_ctx, s) => () => s.targets.setToken(),

  // GPU MODE
  registerGpuMode: (_ctx, s) => () => s.registration.register({}),
  registerGpuModeDiscord: (_ctx, s) => () => s.registration.register({ provider: 'discord' }),
  registerGpuModeGithub: (_ctx, s) => () => s.registration.register({ provider: 'github' }),
  reregisterGpuMode: (_ctx, s) => () => s.registration.register({ reset: true }),
  chooseLeaderboard: (_ctx, s) => async (uri) => {
    const target = fileArg(uri) ?? vscode.window.activeTextEditor?.document.uri;
    if (!target) {
      void notify.warning('Kernel Runner: open the kernel file first.');
      return undefined;
    }
    try {
      const doc = await vscode.workspace.openTextDocument(target);
      const resolved = await s.targets.resolve();
      const choice = await chooseForFile({
        client: clientFor(resolved),
        doc,
        store: s.choices,
        targetLabel: resolved.label,
      });
      if (choice) await s.diagnostics.update(doc, false);
      return choice;
    } catch (err) {
      void notify.error(`Kernel Runner: ${errorMessage(err)}`);
      return undefined;
    }
  },
  mySubmissions: (_ctx, s) => () => s.submissions.quickPick(),
  'submissions.refresh': (_ctx, s) => () => s.submissions.refresh(),
  'submissions.show': (_ctx, s) => (node) => s.submissions.show(node),
  'submissions.delete': (_ctx, s) => (node) => s.submissions.delete(node),

  // Runs view (the argument: its tree element, or a run id from the timing lens)
  'runs.open': (_ctx, s) => (run) => s.runsView.open(runArg(run)),
  'runs.delete': (_ctx, s) => (run) => s.runsView.delete(runArg(run)),
  'runs.revealTrace': (_ctx, s) => (run) => s.runsView.revealTrace(runArg(run)),
  'runs.compare': (ctx, s) => async (run, selected) => {
    const sides = await s.runsView.compareSides(
      runArg(run),
      Array.isArray(selected) ? selected.map(runArg) : undefined,
    );
    return sides ? openComparePanel(ctx, ...sides) : undefined;
  },
  'runs.cancel': (_ctx, s) => (node) => {
    const id = typeof node === 'object' && node !== null ? (node as { activeId?: unknown }).activeId : node;
    return typeof id === 'number' ? s.runs.cancelById(id) : s.runs.cancel();
  },
};
