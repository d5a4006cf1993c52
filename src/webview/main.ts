// The results webview: says `ready`, renders the `state` the host sends, keeps it with setState so a restored
// panel redraws at once, and turns button clicks into typed commands.
import { showBidiControls } from '../core/format/bidi';
import { clear, h } from './dom';
import { renderResult } from './render';
import {
  DownloadTraceCommand,
  LoadIsaCommand,
  NoticeNotification,
  OpenDisassemblyCommand,
  OpenPerfettoCommand,
  ReadyCommand,
  ShowOutputCommand,
  StateNotification,
  type PersistedState,
  type ResultView,
  type WebviewToHost,
} from './protocol';

interface VsCodeApi {
  postMessage(msg: WebviewToHost): void;
  getState(): PersistedState | undefined;
  setState(state: PersistedState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const root = document.getElementById('root') ?? document.body;

const actions = {
  downloadTrace: (profileKey: string) => vscode.postMessage(DownloadTraceCommand.make({ profileKey })),
  openPerfetto: (profileKey: string) => vscode.postMessage(OpenPerfettoCommand.make({ profileKey })),
  showOutput: () => vscode.postMessage(ShowOutputCommand.make({})),
  openDisassembly: (profileKey: string, codeObject: number, kernel: number) =>
    vscode.postMessage(OpenDisassemblyCommand.make({ profileKey, codeObject, kernel })),
  loadIsa: (profileKey: string) => vscode.postMessage(LoadIsaCommand.make({ profileKey })),
};

function show(view: ResultView): void {
  clear(root);
  document.title = showBidiControls(view.title);
  root.append(renderResult(view, actions));
}

function notice(text: string, level: 'info' | 'error'): void {
  const n = h('div', { class: `notice notice-${level}`, role: level === 'error' ? 'alert' : 'status' }, text);
  document.getElementById('notices')?.append(n);
  setTimeout(() => n.remove(), 8000);
}

window.addEventListener('message', (e: MessageEvent<unknown>) => {
  const msg = e.data;
  if (StateNotification.is(msg)) {
    vscode.setState({ view: msg.params.view });
    show(msg.params.view);
  } else if (NoticeNotification.is(msg)) {
    notice(msg.params.text, msg.params.level);
  }
});

const saved = vscode.getState();
if (saved?.view) show(saved.view);
vscode.postMessage(ReadyCommand.make({}));
