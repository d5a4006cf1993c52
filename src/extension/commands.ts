// The command table: short names to factories taking the context; main.ts registers them all under
// `kernelRunner.`. A command that acts on a file takes an optional Uri (CodeLens, menus) and falls back to the
// active editor.
import * as vscode from 'vscode';
import type { Ctx } from './ctx';
import type { Services } from './services';

export type CommandFactory = (ctx: Ctx, s: Services) => (...args: unknown[]) => unknown;

const fileArg = (arg: unknown): vscode.Uri | undefined => (arg instanceof vscode.Uri ? arg : undefined);

export const commandTable: Record<string, CommandFactory> = {
  run: (ctx, s) => (uri) => s.runs.runFile(fileArg(uri), { mode: ctx.config.runMode, title: 'Run' }),
  profile: (_ctx, s) => (uri) => s.runs.runFile(fileArg(uri), { mode: 'profile', title: 'Profile' }),
  runTests: (_ctx, s) => (uri) => s.runs.runFile(fileArg(uri), { mode: 'test', title: 'Tests' }),
  runBenchmark: (_ctx, s) => (uri) => s.runs.runFile(fileArg(uri), { mode: 'benchmark', title: 'Benchmark' }),
  submit: (_ctx, s) => async (uri) => {
    const pick = await vscode.window.showQuickPick(
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
  showOutput: (_ctx, s) => () => s.output.show(),
  setToken: (_ctx, s) => () => s.targets.setToken(),
};
