// The object activate() returns outside Production mode (main.ts, testApiEnabled: the test suites run the
// extension in Test mode, a development host in Development mode; an installed extension returns nothing). The
// VS Code suites (test/vscode/suite) use it to see what a person would see: the output channel's lines of the last
// run, the open results panels and their state, the status bar text, the embedded runner's URL. It also lets a
// test skip dialogs (download destination) and feed a panel.
import type { HeatMark } from '../core/hotspotHeat';
import type { HotspotDecorations } from './hotspotDecorations';
import * as vscode from 'vscode';
import { RESULTS_VIEW_TYPE, type ResultView } from '../webview/protocol';
import type { RunStore, RunStoreEntry } from './runs/store';
import type { RunsView } from './runs/view';
import type { UserSubmissionDetail } from '../core/protocol/api';
import type { Ctx } from './ctx';
import type { SubmissionDiagnostics } from './diagnostics';
import type { InFlightSubmission } from './gpumode/inflight';
import type { GpuModeRegistration, RegisterRequest, RegistrationOutcome } from './gpumode/registration';
import type { MySubmissions } from './gpumode/submissionsView';
import { hooks, type PickRequest, type PickResponder, type ShownMessage } from './ui';
import type { ResultsPanels } from './resultsPanel';
import type { RunOutput } from './runs/output';
import type { RunController } from './runs/controller';
import type { Targets } from './targets';
import type { TraceFiles } from './traceFiles';
import type { TraceOpener } from './traces';
import type { makeTools, SubmitInput } from './agent/tools';
import type { mcpDefinitionView } from './agent/mcpServer';

type McpDefinitionView = ReturnType<typeof mcpDefinitionView>;

interface PanelInfo {
  title: string;
  ready: boolean;
  view: ResultView;
  received: string[];
}

export interface KernelRunnerApi {
  readonly activationMs: number;
  lastRunLines(): string[];
  lastRunProgramLines(): string[];
  lastRunHiddenNoise(): number;
  lastRun(): { file: string; mode: string; jobId?: number; baseUrl: string; view?: ResultView } | undefined;
  isRunning(): boolean;
  /** Resolves when no run is in progress. */
  idle(): Promise<void>;
  panels(): PanelInfo[];
  closePanels(): void;
  showResult(view: ResultView): PanelInfo;
  openTrace(path: string): Promise<PanelInfo | undefined>;
  /** Posts a message to the newest panel's extension-side handler as if its webview had sent it. */
  simulateWebviewMessage(msg: unknown): Promise<void>;
  embeddedRunnerUrl(): Promise<string | undefined>;
  /** The embedded runner's token (its clients send it; a test's direct requests need it). */
  embeddedRunnerToken(): Promise<string | undefined>;
  storeToken(server: string, token: string): Promise<void>;
  setDownloadDestination(path: string | undefined): void;
  lastPerfettoUrl(): string | undefined;
  statusText(): string;
  /** Where the disassembly editor looks for llvm-objdump (`{ path: '', dirs: [] }`: nowhere); undefined: as usual. */
  setObjdumpSearch(search: { path?: string; dirs?: string[] } | undefined): void;
  /** The hot-spot heat drawn in a document (1-based source lines; disassembly: 0-based rows), [] when none. */
  heatMarks(uri: string): HeatMark[];

  // GPU MODE
  /** Points the extension at a popcorn config file instead of ~/.popcorn.yaml (outlasts reactivate). */
  setPopcornConfigPath(path: string | undefined): void;
  /** Poll interval (background submissions, registration wait), ms; undefined restores the defaults. */
  setPollInterval(ms: number | undefined): void;
  /** QuickPicks answered by the test (the label to pick); undefined restores the real UI. */
  setPickResponder(responder: PickResponder | undefined): void;
  /** Notifications answered by the test (the button's label); undefined restores the real UI. */
  setMessageResponder(
    responder: ((m: ShownMessage) => string | undefined | Promise<string | undefined>) | undefined,
  ): void;
  /** Each finished run is kept in the run store only once `until` settles; undefined: at once again. */
  holdRunStore(until: (() => Promise<unknown>) | undefined): void;
  /** URLs are recorded instead of opened in a browser. */
  interceptExternal(on: boolean): void;
  messages(): ShownMessage[];
  picks(): PickRequest[];
  openedUrls(): string[];
  register(request: RegisterRequest): Promise<RegistrationOutcome | undefined>;
  diagnostics(uri: vscode.Uri): Array<{
    message: string;
    severity: 'error' | 'warning' | 'info';
    line: number;
    startColumn: number;
    endColumn: number;
    code: string;
  }>;
  inFlight(): InFlightSubmission[];
  /** The My Submissions tree's top-level rows as shown. */
  submissionRows(): Promise<Array<{ label: string; description: string }>>;
  showSubmission(id: number): Promise<UserSubmissionDetail | undefined>;
  deleteSubmission(id: number, confirmed: boolean): Promise<boolean>;
  // Several runs, the Runs view, the timing lens
  /** The output channel's last lines as written there (tags of runs at once included). */
  channelLines(): string[];
  /** The runs going on now. */
  activeRuns(): Array<{ id: number; file: string; mode: string }>;
  /** The Runs view's rows as shown. */
  runRows(): Promise<Array<{ id: string; label: string; description: string; contextValue: string }>>;
  storedRuns(): RunStoreEntry[];
  /** Where the run store keeps its folders. */
  runStoreFolder(): string;
  openRun(id: string): Promise<PanelInfo | undefined>;
  deleteRun(id: string, confirmed: boolean): Promise<boolean>;
  revealRunTrace(id: string): Promise<string | undefined>;
  /** What VS Code does with a results panel after a reload: a new webview panel revived from its saved state. */
  revivePanel(state: unknown): PanelInfo | undefined;
  // The language model tools
  /** On: the tools submit without VS Code's confirmation (invokeTool outside a chat asks in a modal dialog). */
  preApproveTools(on: boolean): void;
  /** What the submit tool's prepareInvocation answers for this input (its confirmation, unless pre-approved). */
  prepareSubmit(input: SubmitInput): vscode.PreparedToolInvocation | null | undefined;
  /** Whether the MCP server definition provider was registered (the host has the API). */
  mcpServerRegistered(): boolean;
  /** The command line the MCP server definition gives VS Code. */
  mcpCommandLine(): { command: string; args: string[]; env: Record<string, string> };
  /** The definitions the MCP provider lists, each with what it resolves to when VS Code starts it. */
  mcpDefinitions(): Promise<Array<{ provided: McpDefinitionView; resolved: McpDefinitionView }>>;
  /** Simulates a window reload: deactivate, then activate again in this extension host; returns the new API. */
  reactivate(): Promise<KernelRunnerApi>;
}

export function createTestApi(parts: {
  ctx: Ctx;
  output: RunOutput;
  targets: Targets;
  runs: RunController;
  panels: ResultsPanels;
  traces: TraceOpener;
  traceFiles: TraceFiles;
  statusText: () => string;
  activationMs: number;
  registration: GpuModeRegistration;
  submissions: MySubmissions;
  diagnostics: SubmissionDiagnostics;
  store: RunStore;
  runsView: RunsView;
  heat: HotspotDecorations;
  tools: ReturnType<typeof makeTools>;
  mcp: {
    registered: boolean;
    commandLine: () => { command: string; args: string[]; env: Record<string, string> };
    definitions: () => Promise<Array<{ provided: McpDefinitionView; resolved: McpDefinitionView }>>;
  };
  reactivate: () => Promise<KernelRunnerApi>;
}): KernelRunnerApi {
  const { output, targets, panels, runs, traces, traceFiles, registration, submissions, diagnostics, store, runsView } =
    parts;
  const info = (p: ResultsPanels['all'][number]): PanelInfo => ({
    title: p.panel.title,
    ready: p.isReady,
    view: p.current,
    received: [...p.received],
  });
  return {
    activationMs: parts.activationMs,
    lastRunLines: () => (output.flush(), [...(output.lastRun?.shown ?? [])]),
    lastRunProgramLines: () => [...(output.lastRun?.programLines ?? [])],
    lastRunHiddenNoise: () => output.lastRun?.hiddenNoise ?? 0,
    lastRun: () => {
      const r = runs.lastRun;
      return r
        ? {
            file: r.file,
            mode: r.mode,
            ...(r.jobId !== undefined ? { jobId: r.jobId } : {}),
            baseUrl: r.target.baseUrl,
            ...(r.view ? { view: r.view } : {}),
          }
        : undefined;
    },
    isRunning: () => runs.running,
    idle: () => runs.idle(),
    panels: () => panels.all.map(info),
    closePanels: () => panels.all.forEach((p) => p.dispose()),
    showResult: (view) => info(panels.show(view, undefined, vscode.ViewColumn.Active)),
    openTrace: async (path) => {
      const p = await traces.openTrace(vscode.Uri.file(path));
      return p ? info(p) : undefined;
    },
    simulateWebviewMessage: async (msg) => {
      const all = panels.all;
      await all[all.length - 1]?.handleMessage(msg);
    },
    embeddedRunnerUrl: () => targets.embeddedUrl(),
    embeddedRunnerToken: () => targets.embeddedToken(),
    storeToken: (server, token) => targets.storeToken(server, token),
    setDownloadDestination: (path) => {
      traceFiles.downloadDestination = path;
    },
    lastPerfettoUrl: () => traceFiles.lastPerfettoUrl,
    statusText: parts.statusText,
    heatMarks: (uri) => parts.heat.drawn.get(uri) ?? [],
    setObjdumpSearch: (search) => {
      if (panels.isa) panels.isa.objdumpSearch = search;
    },

    setPopcornConfigPath: (path) => {
      hooks.popcornConfigPath = path;
    },
    setPollInterval: (ms) => {
      hooks.pollIntervalMs = ms;
    },
    setPickResponder: (responder) => {
      hooks.responder = responder;
    },
    setMessageResponder: (responder) => {
      hooks.messageResponder = responder;
    },
    holdRunStore: (until) => {
      hooks.beforeRunKept = until;
    },
    interceptExternal: (on) => {
      hooks.interceptExternal = on;
    },
    messages: () => [...hooks.messages],
    picks: () => [...hooks.picks],
    openedUrls: () => [...hooks.opened],
    register: (request) => registration.register(request),
    diagnostics: (uri) =>
      diagnostics.get(uri).map((d) => ({
        message: d.message,
        severity:
          d.severity === vscode.DiagnosticSeverity.Error
            ? 'error'
            : d.severity === vscode.DiagnosticSeverity.Warning
              ? 'warning'
              : 'info',
        line: d.range.start.line,
        startColumn: d.range.start.character,
        endColumn: d.range.end.character,
        code: typeof d.code === 'object' ? String(d.code.value) : String(d.code ?? ''),
      })),
    inFlight: () => runs.inFlight(),
    submissionRows: async () => {
      const nodes = await submissions.getChildren();
      return nodes.map((n) => {
        const item = submissions.getTreeItem(n);
        const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
        return { label, description: typeof item.description === 'string' ? item.description : '' };
      });
    },
    showSubmission: (id) => submissions.show(id),
    deleteSubmission: (id, confirmed) => submissions.delete(id, confirmed),
    channelLines: () => (output.flush(), [...output.recent]),
    activeRuns: () => runs.activeRuns(),
    runRows: async () => {
      const rows = await runsView.getChildren();
      return rows.map((r) => {
        const item = runsView.getTreeItem(r);
        const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
        return {
          id: item.id ?? '',
          label,
          description: typeof item.description === 'string' ? item.description : '',
          contextValue: item.contextValue ?? '',
        };
      });
    },
    storedRuns: () => store.list(),
    runStoreFolder: () => store.folder,
    openRun: async (id) => {
      const p = await runsView.open(id);
      return p ? info(p) : undefined;
    },
    deleteRun: (id, confirmed) => runsView.delete(id, confirmed),
    revealRunTrace: (id) => runsView.revealTrace(id),
    revivePanel: (state) => {
      const panel = vscode.window.createWebviewPanel(
        RESULTS_VIEW_TYPE,
        'restored',
        { viewColumn: vscode.ViewColumn.Active, preserveFocus: true },
        {},
      );
      const p = panels.revive(panel, state);
      return p ? info(p) : undefined;
    },
    preApproveTools: (on) => {
      hooks.toolsPreApproved = on;
    },
    prepareSubmit: (input) => parts.tools.submit.prepareInvocation({ input }),
    mcpServerRegistered: () => parts.mcp.registered,
    mcpCommandLine: () => parts.mcp.commandLine(),
    mcpDefinitions: () => parts.mcp.definitions(),
    reactivate: parts.reactivate,
  };
}
