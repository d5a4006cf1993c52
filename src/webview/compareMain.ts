// The compare webview: says `ready`, renders the `state` the host sends, keeps it with setState so a restored
// panel redraws at once, and reports what it drew.
import { showBidiControls } from '../core/format/bidi';
import { clear } from './dom';
import { renderComparison } from './compare';
import {
  CompareReadyCommand,
  CompareRenderedCommand,
  CompareStateNotification,
  RevealSideCommand,
  type CompareRendered,
  type CompareView,
  type CompareWebviewToHost,
  type PersistedCompareState,
} from './compareProtocol';

interface VsCodeApi {
  postMessage(msg: CompareWebviewToHost): void;
  getState(): PersistedCompareState | undefined;
  setState(state: PersistedCompareState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const root = document.getElementById('root') ?? document.body;

function shown(): CompareRendered {
  const texts = (sel: string) => [...root.querySelectorAll(sel)].map((e) => e.textContent ?? '');
  return {
    headline: texts('.headline .card'),
    kernels: [...root.querySelectorAll('table.compare-kernels tbody tr')].map((tr) => ({
      text: tr.querySelector('.kernel-name')?.textContent ?? '',
      title: tr.querySelector('.kernel-name')?.getAttribute('title') ?? '',
      mark: tr.querySelector('.mark')?.textContent ?? '',
    })),
    ranges: [...root.querySelectorAll('details.range-case')].map((d) => d.getAttribute('data-range') ?? ''),
    bars: [...root.querySelectorAll('svg.delta-chart g.bar-row')].map((g) => g.getAttribute('aria-label') ?? ''),
    rooflineArrows: [...root.querySelectorAll('svg.roofline-chart g.roof-arrow')].map(
      (g) => g.getAttribute('aria-label') ?? '',
    ),
  };
}

function show(view: CompareView): void {
  clear(root);
  document.title = showBidiControls(view.title);
  root.append(renderComparison(view, { reveal: (side) => vscode.postMessage(RevealSideCommand.make({ side })) }));
  vscode.postMessage(CompareRenderedCommand.make(shown()));
}

window.addEventListener('message', (e: MessageEvent<unknown>) => {
  const msg = e.data;
  if (CompareStateNotification.is(msg)) {
    vscode.setState({ view: msg.params.view });
    show(msg.params.view);
  }
});

const saved = vscode.getState();
if (saved?.view) show(saved.view);
vscode.postMessage(CompareReadyCommand.make({}));
