// Activation: builds the context, the services and the command table; returns the extension's test API (used by
// the VS Code test suites to look at what a person would see in the output channel and results panels) outside
// Production mode only.
import * as vscode from 'vscode';
import { KernelCodeLensProvider, CODELENS_SELECTOR } from './codeLens';
import { commandTable } from './commands';
import { Config } from './config';
import { Ctx } from './ctx';
import { RunOutput } from './runs/output';
import { RunController } from './runs/controller';
import type { Services } from './services';
import { StatusBar } from './statusBar';
import { Targets } from './targets';
import { TraceOpener } from './traces';
import { ResultsPanels } from './resultsPanel';
import { IsaDocuments, ISA_SCHEME } from './isa';
import { HotspotDecorations } from './hotspotDecorations';
import { registerCompare } from './comparePanel';
import { createTestApi, type KernelRunnerApi } from './api';
import { PerfettoRelay } from './perfettoRelay';
import { TraceFiles } from './traceFiles';
import { ChoiceStore } from './choices';
import { SubmissionDiagnostics } from './diagnostics';
import { GpuModeRegistration } from './gpumode/registration';
import { MySubmissions } from './gpumode/submissionsView';
import { ActiveJobs } from './runs/activeJobs';
import { RunStore } from './runs/store';
import { RunsView } from './runs/view';
import { KernelTimingLensProvider } from './timingLens';
import { keptTraceActions } from './traceFiles';
import { join } from 'node:path';
import { makeTools, registerTools } from './agent/tools';
import { mcpCommandLine, mcpDefinitionView, registerMcpServer } from './agent/mcpServer';

let current: Ctx | undefined;
let currentApi: KernelRunnerApi | undefined;
/**
 * What activate() returns: one object for the extension's life that forwards to the current activation's API, so
 * that a simulated reload (the test API's reactivate) leaves every holder of the exports with a working API.
 */
const stableApi = new Proxy({} as KernelRunnerApi, {
  get: (_target, prop) => (currentApi ? (currentApi as unknown as Record<PropertyKey, unknown>)[prop] : undefined),
});

/**
 * The test API reads the output channel, answers dialogs and feeds panels: it is for the extension's own suites
 * (Test mode) and its development host (Development mode), never handed to other extensions in an installed
 * (Production) extension.
 */
export function testApiEnabled(mode: vscode.ExtensionMode): boolean {
  return mode !== vscode.ExtensionMode.Production;
}

export function activate(context: vscode.ExtensionContext): KernelRunnerApi | undefined {
  const t0 = Date.now();
  const ctx = new Ctx(context);
  current = ctx;

  const output = ctx.push(new RunOutput(ctx.config));
  const jobs = ctx.push(new ActiveJobs());
  const status = ctx.push(new StatusBar(jobs));
  const targets = ctx.push(new Targets(ctx, output));
  const relay = new PerfettoRelay();
  ctx.push(relay);
  const traceFiles = new TraceFiles(context.globalStorageUri, ctx.config, relay);
  const panels = ctx.push(new ResultsPanels(ctx, keptTraceActions(traceFiles)));
  const isa = ctx.push(new IsaDocuments());
  panels.isa = isa;
  ctx.push(vscode.workspace.registerTextDocumentContentProvider(ISA_SCHEME, isa));
  const heat = ctx.push(new HotspotDecorations(panels, isa));
  // Without a folder open there is no workspace storage: such runs are kept with the extension's global storage.
  const store = ctx.push(
    new RunStore(
      join((context.storageUri ?? vscode.Uri.joinPath(context.globalStorageUri, 'no-workspace')).fsPath, 'runs'),
      () => ctx.config.runsMaxStorageBytes,
    ),
  );
  const runsView = ctx.push(new RunsView(store, jobs, panels, traceFiles));
  const choices = new ChoiceStore(context.workspaceState);
  const diagnostics = ctx.push(new SubmissionDiagnostics(targets, choices));
  const runs = ctx.push(new RunController({ ctx, targets, output, jobs, panels, traceFiles, diagnostics, store }));
  const traces = new TraceOpener(panels, traceFiles);
  const registration = new GpuModeRegistration(targets, output);
  const submissions = ctx.push(new MySubmissions(ctx, targets, panels));
  ctx.push(runs.onDidFinishRun(() => submissions.refresh()));
  const services: Services = {
    output,
    targets,
    runs,
    traces,
    registration,
    submissions,
    diagnostics,
    choices,
    runsView,
  };

  for (const [name, factory] of Object.entries(commandTable))
    ctx.registerCommand(name as keyof typeof commandTable, factory(ctx, services));
  ctx.registerCommand('jobMenu', () => runs.jobMenu());
  registerCompare(ctx);

  // The agent's tools in the chat, and `kernel-runner mcp` for MCP clients of the editor (where the host has the API).
  const tools = makeTools({ runs, store, targets });
  for (const d of registerTools(tools)) ctx.push(d);
  const mcp = ctx.config.mcpServerEnabled
    ? registerMcpServer(
        context.extensionPath,
        String((context.extension.packageJSON as { version?: unknown }).version ?? ''),
        () => ctx.config.server,
        (server) => targets.storedToken(server),
      )
    : undefined;
  if (mcp) ctx.push(mcp);

  const lenses = ctx.push(new KernelCodeLensProvider(ctx.config));
  ctx.push(vscode.languages.registerCodeLensProvider(CODELENS_SELECTOR, lenses));
  const timingLenses = ctx.push(new KernelTimingLensProvider(store, ctx.config));
  ctx.push(vscode.languages.registerCodeLensProvider(CODELENS_SELECTOR, timingLenses));
  void store.load();
  ctx.push(
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('kernelRunner.codeLens') || e.affectsConfiguration('kernelRunner.profileGpu'))
        lenses.refresh();
      if (e.affectsConfiguration('kernelRunner.codeLens')) timingLenses.refresh();
      if (Config.affectsTarget(e)) {
        status.setTarget(targets.describe());
        mcp?.serverChanged();
        await ctx.resetTarget();
        diagnostics.refreshAll();
        submissions.refresh();
      }
    }),
  );
  status.setTarget(targets.describe());
  panels.registerSerializer();

  // Background submissions that were in flight when the window closed: followed again, without blocking activation.
  void runs.resumeInFlight();

  const activationMs = Date.now() - t0;
  if (!testApiEnabled(context.extensionMode)) return undefined;
  currentApi = createTestApi({
    ctx,
    output,
    targets,
    runs,
    panels,
    traces,
    traceFiles,
    registration,
    submissions,
    diagnostics,
    store,
    runsView,
    heat,
    tools,
    mcp: {
      registered: !!mcp,
      commandLine: () => mcpCommandLine(context.extensionPath, ctx.config.server),
      definitions: async () => {
        if (!mcp) return [];
        return Promise.all(
          mcp.provided().map(async (provided) => ({
            provided: mcpDefinitionView(provided),
            resolved: mcpDefinitionView(await mcp.resolve(provided)),
          })),
        );
      },
    },
    statusText: () => status.text,
    activationMs,
    reactivate: async () => {
      // Test API: what a window reload does to the extension, in the same extension host.
      await deactivate();
      activate(context);
      return stableApi;
    },
  });
  return stableApi;
}

export async function deactivate(): Promise<void> {
  const ctx = current;
  current = undefined;
  currentApi = undefined;
  await ctx?.disposeAsync();
}
