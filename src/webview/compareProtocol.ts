// Messages between the compare webview and the extension host, one definition for both sides (as protocol.ts for
// the results panel). Pure types and constants: no vscode, no DOM, no Node.
// Flow: the webview posts `ready`; the host answers with `state`; once drawn, the webview reports what it shows.
import type { Roofline } from '../core/protocol/roofline';
import type { TraceComparison } from '../core/protocol/traceComparison';
import { message } from './protocol';

export const COMPARE_VIEW_TYPE = 'kernelRunner.compare';

/** One side of a comparison: what to call it and where its trace is (a zip, folder, rocpd .db or CSV). */
export interface CompareSide {
  label: string;
  path: string;
}

export interface CompareView {
  title: string;
  a: CompareSide;
  b: CompareSide;
  comparison: TraceComparison;
  /** ISO time the comparison was made. */
  comparedAt: string;
  /** Each side's roofline (null: that trace read no counters); absent when neither did. */
  rooflines?: { a: Roofline | null; b: Roofline | null };
}

/** What the page shows once drawn, as text (the host keeps the last report: tests read it). */
export interface CompareRendered {
  headline: string[];
  /** Per-kernel table rows: the name as shown, the full name (hover title) and the row's pairing mark. */
  kernels: Array<{ text: string; title: string; mark: string }>;
  /** Per-case sections (rocTX ranges) shown. */
  ranges: string[];
  /** The chart's bars, by their accessible label. */
  bars: string[];
  /** The roofline's A → B arrows, by their accessible label. */
  rooflineArrows?: string[];
}

// webview -> host
export const CompareReadyCommand = message<'ready', Record<string, never>>('ready');
export const CompareRenderedCommand = message<'rendered', CompareRendered>('rendered');
export const RevealSideCommand = message<'revealSide', { side: 'a' | 'b' }>('revealSide');

// host -> webview
export const CompareStateNotification = message<'state', { view: CompareView }>('state');

export type CompareWebviewToHost =
  | ReturnType<typeof CompareReadyCommand.make>
  | ReturnType<typeof CompareRenderedCommand.make>
  | ReturnType<typeof RevealSideCommand.make>;

export type CompareHostToWebview = ReturnType<typeof CompareStateNotification.make>;

/** What the webview keeps with setState, so a restored panel (serializer) can redraw at once. */
export interface PersistedCompareState {
  view: CompareView;
}
