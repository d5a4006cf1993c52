// Activation: builds the context, the services and the command table; returns the extension's API (used by the
// VS Code test suites to look at what a person would see in the output channel and results panels).
import * as vscode from 'vscode';
import { KernelCodeLensProvider, CODELENS_SELECTOR } from './codeLens';
import { commandTable } from './commands';
import { Config } from './config';
import { Ctx } from './ctx';
import { RunOutput } from './runOutput';
import { RunController } from './runs';
import type { Services } from './services';
import { StatusBar } from './statusBar';
import { Targets } from './targets';
import { TraceOpener } from './traces';
import { ResultsPanels } from './resultsPanel';
import { createTestApi, type KernelRunnerApi } from './api';
import { PerfettoRelay } from './perfettoRelay';
import { TraceFiles } from './traceFiles';

let current: Ctx | undefined;

export function activate(context: vscode.ExtensionContext): KernelRunnerApi {
  const t0 = Date.now();
  const ctx = new Ctx(context);
  current = ctx;

  const output = ctx.push(new RunOutput(ctx.config));
  const status = ctx.push(new StatusBar());
  const targets = ctx.push(new Targets(ctx, output));
  const panels = ctx.push(new ResultsPanels(ctx));
  const relay = new PerfettoRelay();
  ctx.push(relay);
  const traceFiles = new TraceFiles(context.globalStorageUri, ctx.config, relay);
  const runs = ctx.push(new RunController(ctx, targets, output, status, panels, traceFiles));
  const traces = new TraceOpener(panels, traceFiles);
  const services: Services = { output, targets, runs, traces };

  for (const [name, factory] of Object.entries(commandTable)) ctx.registerCommand(name, factory(ctx, services));
  ctx.registerCommand('jobMenu', () => runs.jobMenu());

  const lenses = ctx.push(new KernelCodeLensProvider(ctx.config));
  ctx.push(vscode.languages.registerCodeLensProvider(CODELENS_SELECTOR, lenses));
  ctx.push(
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('kernelRunner.codeLens') || e.affectsConfiguration('kernelRunner.profileGpu')) lenses.refresh();
      if (Config.affectsTarget(e)) {
        status.setTarget(targets.describe());
        await ctx.resetTarget();
      }
    }),
  );
  status.setTarget(targets.describe());
  panels.registerSerializer();

  const activationMs = Date.now() - t0;
  return createTestApi({ ctx, output, targets, runs, panels, traces, traceFiles, statusText: () => status.text, activationMs });
}

export async function deactivate(): Promise<void> {
  const ctx = current;
  current = undefined;
  await ctx?.disposeAsync();
}
