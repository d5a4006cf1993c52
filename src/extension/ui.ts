// Every VS Code window.show* call of the extension is made here (ESLint's house/ui-calls keeps it so), because a test
// inside the extension host cannot see or answer them elsewhere: notifications (kept in a short log with their
// buttons; a test may answer them), QuickPicks (a test may answer them) and opening a URL in the browser (a test may
// take the URL instead). Input boxes, file dialogs and showing a document are the plain VS Code calls, here so that
// one module holds the editor's UI. Without a test hook each call is the plain VS Code call. The hooks live at module
// level so that they outlast a simulated window reload (deactivate + activate in the same extension host).
import * as vscode from 'vscode';

export interface ShownMessage {
  level: 'info' | 'warning' | 'error';
  text: string;
  actions: string[];
}

export interface PickRequest {
  title: string;
  items: readonly vscode.QuickPickItem[];
}

/** A test's answer to a QuickPick: the label to pick, or undefined to dismiss it. */
export type PickResponder = (request: PickRequest) => string | undefined | Promise<string | undefined>;

class Hooks {
  readonly messages: ShownMessage[] = [];
  readonly opened: string[] = [];
  readonly picks: PickRequest[] = [];
  /** Set by tests: take the URL instead of opening a browser. */
  interceptExternal = false;
  responder: PickResponder | undefined;
  /** Set by tests: the button a notification is answered with (by label), instead of waiting for a person. */
  messageResponder: ((m: ShownMessage) => string | undefined | Promise<string | undefined>) | undefined;
  /** Set by tests: popcorn-cli's config file instead of ~/.popcorn.yaml. */
  popcornConfigPath: string | undefined;
  /** Set by tests: poll interval of background submissions, ms. */
  pollIntervalMs: number | undefined;
  /** Set by tests: awaited before a finished run is kept in the run store (puts the store after what a test waits for). */
  beforeRunKept: (() => Promise<unknown>) | undefined;
  /**
   * Set by tests: the language model tools' submissions go without a confirmation (vscode.lm.invokeTool outside a
   * chat asks in a modal dialog that a test in the extension host cannot answer).
   */
  toolsPreApproved = false;

  record(m: ShownMessage): void {
    this.messages.push(m);
    if (this.messages.length > 50) this.messages.shift();
  }
}

export const hooks = new Hooks();

function show(
  level: ShownMessage['level'],
  text: string,
  actions: string[],
  modal = false,
): Thenable<string | undefined> {
  const m: ShownMessage = { level, text, actions };
  hooks.record(m);
  if (hooks.messageResponder) return Promise.resolve(hooks.messageResponder(m));
  const options: vscode.MessageOptions = { modal };
  if (level === 'error') return vscode.window.showErrorMessage(text, options, ...actions);
  if (level === 'warning') return vscode.window.showWarningMessage(text, options, ...actions);
  return vscode.window.showInformationMessage(text, options, ...actions);
}

export const notify = {
  info: (text: string, ...actions: string[]) => show('info', text, actions),
  warning: (text: string, ...actions: string[]) => show('warning', text, actions),
  error: (text: string, ...actions: string[]) => show('error', text, actions),
  /** A modal question (confirmations); the answer is one of `actions` or undefined. */
  confirm: (text: string, ...actions: string[]) => show('warning', text, actions, true),
};

export async function openExternal(url: string): Promise<boolean> {
  hooks.opened.push(url);
  if (hooks.interceptExternal) return true;
  return vscode.env.openExternal(vscode.Uri.parse(url, true));
}

/** showQuickPick, answerable by a test; returns the picked item. */
export async function pickOne<T extends vscode.QuickPickItem>(
  items: readonly T[],
  options: vscode.QuickPickOptions & { title: string },
): Promise<T | undefined> {
  if (hooks.responder) {
    const request: PickRequest = { title: options.title, items };
    hooks.picks.push(request);
    const label = await hooks.responder(request);
    return label === undefined
      ? undefined
      : items.find((i) => i.label === label && i.kind !== vscode.QuickPickItemKind.Separator);
  }
  return vscode.window.showQuickPick(items, options);
}

/** showInputBox; undefined when dismissed. */
export function askText(options: vscode.InputBoxOptions): Thenable<string | undefined> {
  return vscode.window.showInputBox(options);
}

/** showOpenDialog; undefined when dismissed. */
export function pickFiles(options: vscode.OpenDialogOptions): Thenable<vscode.Uri[] | undefined> {
  return vscode.window.showOpenDialog(options);
}

/** showSaveDialog; undefined when dismissed. */
export function pickSaveFile(options: vscode.SaveDialogOptions): Thenable<vscode.Uri | undefined> {
  return vscode.window.showSaveDialog(options);
}

/** showTextDocument. */
export function showDocument(
  doc: vscode.TextDocument,
  options: vscode.TextDocumentShowOptions,
): Thenable<vscode.TextEditor> {
  return vscode.window.showTextDocument(doc, options);
}
