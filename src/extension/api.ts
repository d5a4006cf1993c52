// The object activate() returns. The VS Code suites (test/vscode/suite) use it to see what a person would see:
// the output channel's lines of the last run, the open results panels and their state, the status bar text,
// the embedded runner's URL. It also lets a test skip dialogs (download destination) and feed a panel.
import * as vscode from 'vscode';
import type { ResultView } from '../webview/protocol';
import type { Ctx } from './ctx';
import type { ResultsPanels } from './resultsPanel';
import type { RunOutput } from './runOutput';
import type { RunController } from './runs';
import type { Targets } from './targets';
import type { TraceFiles } from './traceFiles';
import type { TraceOpener } from './traces';

export interface PanelInfo {
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
  storeToken(server: string, token: string): Promise<void>;
  setDownloadDestination(path: string | undefined): void;
  lastPerfettoUrl(): string | undefined;
  statusText(): string;
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
}): KernelRunnerApi {
  const { output, targets, panels, runs, traces, traceFiles } = parts;
  const info = (p: ResultsPanels['all'][number]): PanelInfo => ({ title: p.panel.title, ready: p.isReady, view: p.current, received: [...p.received] });
  return {
    activationMs: parts.activationMs,
    lastRunLines: () => (output.flush(), [...(output.lastRun?.shown ?? [])]),
    lastRunProgramLines: () => [...(output.lastRun?.programLines ?? [])],
    lastRunHiddenNoise: () => output.lastRun?.hiddenNoise ?? 0,
    lastRun: () => {
      const r = runs.lastRun;
      return r ? { file: r.file, mode: r.mode, ...(r.jobId !== undefined ? { jobId: r.jobId } : {}), baseUrl: r.target.baseUrl, ...(r.view ? { view: r.view } : {}) } : undefined;
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
    storeToken: (server, token) => targets.storeToken(server, token),
    setDownloadDestination: (path) => {
      traceFiles.downloadDestination = path;
    },
    lastPerfettoUrl: () => traceFiles.lastPerfettoUrl,
    statusText: parts.statusText,
  };
}
