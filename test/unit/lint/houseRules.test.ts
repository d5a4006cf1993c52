// The house rules of eslint.config.js (scripts/eslintHouseRules.mjs) hold: each case lints a small snippet as if it
// were a file of that folder (ESLint's Node API with the repository's own config) and checks what is refused. That
// the tree itself keeps them is `npm test`'s lint step (eslint .).
// - house/command-ids: commands are named through src/extension/commandIds.ts, never by a 'kernelRunner.…' string;
// - house/ui-calls: VS Code's window.show* calls are made in src/extension/ui.ts only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const eslint = new ESLint({ cwd: repo });

/** The messages of `rule` ESLint reports for `code` as the file `filePath` (repo-relative). */
async function errorsOf(rule: string, filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(repo, filePath) });
  assert.ok(result, 'ESLint returned no result');
  assert.deepEqual(
    result.messages.filter((m) => m.fatal),
    [],
    `${filePath} did not parse`,
  );
  return result.messages.filter((m) => m.ruleId === rule).map((m) => m.message);
}

interface Case {
  file: string;
  code: string;
  /** How many times the rule speaks (0: let through). */
  errors: number;
  says?: RegExp;
}

const EXT = 'src/extension/x.ts';
/** A snippet that uses the vscode module. */
const vs = (body: string) => `import * as vscode from 'vscode';\n${body}\n`;

const commandCases: Case[] = [
  // a contributed command's id, wherever it stands
  {
    file: EXT,
    code: vs("export const go = () => vscode.commands.executeCommand('kernelRunner.showOutput');"),
    errors: 1,
    says: /commandId\('showOutput'\)/,
  },
  {
    file: EXT,
    code: "export const COMMANDS = { register: 'kernelRunner.registerGpuMode' };\n",
    errors: 1,
    says: /commandIds\.ts/,
  },
  {
    file: 'src/extension/gpumode/x.ts',
    code: "export const item = { title: 'Open', command: 'kernelRunner.runs.open' };\n",
    errors: 1,
  },
  { file: EXT, code: 'export const id = `kernelRunner.selectTarget`;\n', errors: 1 },
  {
    file: 'src/core/gpumode/x.ts',
    code: "export const EXTENSION_REGISTER_COMMAND = 'kernelRunner.registerGpuMode';\n",
    errors: 1,
  },
  { file: 'src/webview/x.ts', code: "export const c = 'kernelRunner.compareTraces';\n", errors: 1 },
  // any 'kernelRunner.…' string where a command goes, contributed or not
  {
    file: EXT,
    code: "export const status = { command: { title: 'Kernel Runner job', command: 'kernelRunner.jobMenu' } };\n",
    errors: 1,
    says: /commandId\('jobMenu'\)/,
  },
  {
    file: EXT,
    code: "export function f(item: { command?: string }): void {\n  item.command = 'kernelRunner.jobMenu';\n}\n",
    errors: 1,
  },
  {
    file: EXT,
    code: vs("export const r = vscode.commands.registerCommand('kernelRunner.anything', () => 1);"),
    errors: 1,
  },
  {
    file: EXT,
    code: vs(`export const n = 'x';\nexport const go = () => vscode.commands.executeCommand(\`kernelRunner.\${n}\`);`),
    errors: 1,
  },
  // what is let through: the ids module, commandId(), other kernelRunner.* names (views, context keys, settings, a tree item's contextValue)
  { file: 'src/extension/commandIds.ts', code: "export const all = ['kernelRunner.run'];\n", errors: 0 },
  {
    file: EXT,
    code: "import { commandId } from './commandIds';\nexport const item = { title: 'Run', command: commandId('run') };\n",
    errors: 0,
  },
  {
    file: EXT,
    code: "export const RUNS_VIEW_ID = 'kernelRunner.runs';\nexport const KEY = 'kernelRunner.choices';\n",
    errors: 0,
  },
  {
    file: EXT,
    code: vs("export const busy = () => vscode.commands.executeCommand('setContext', 'kernelRunner.busy', true);"),
    errors: 0,
  },
  {
    file: EXT,
    code: "export function f(item: { contextValue?: string }, traced: boolean): void {\n  item.contextValue = traced ? 'kernelRunner.run.traced' : 'kernelRunner.run';\n}\n",
    errors: 0,
  },
  { file: EXT, code: vs("export const go = () => vscode.commands.executeCommand('revealFileInOS');"), errors: 0 },
];

const uiCases: Case[] = [
  {
    file: EXT,
    code: vs("export const f = () => vscode.window.showErrorMessage('no');"),
    errors: 1,
    says: /src\/extension\/ui\.ts.*window\.showErrorMessage/,
  },
  {
    file: 'src/extension/gpumode/x.ts',
    code: vs("export const f = () => vscode.window.showQuickPick(['a']);"),
    errors: 1,
  },
  { file: EXT, code: "import { window } from 'vscode';\nexport const f = () => window.showInputBox({});\n", errors: 1 },
  { file: EXT, code: vs("export const f = () => vscode.window['showWarningMessage']('no');"), errors: 1 },
  {
    file: EXT,
    code: vs(
      'const { showOpenDialog, createOutputChannel } = vscode.window;\nexport const f = () => [showOpenDialog, createOutputChannel];',
    ),
    errors: 1,
  },
  {
    file: EXT,
    code: vs(
      'export const f = (doc: vscode.TextDocument) => [vscode.window.showTextDocument(doc), vscode.window.showSaveDialog({})];',
    ),
    errors: 2,
  },
  // what is let through: ui.ts itself, window calls that show nothing to answer, the wrappers
  { file: 'src/extension/ui.ts', code: vs("export const f = () => vscode.window.showErrorMessage('yes');"), errors: 0 },
  {
    file: EXT,
    code: vs('export const f = () => [vscode.window.createStatusBarItem(), vscode.window.activeTextEditor];'),
    errors: 0,
  },
  {
    file: EXT,
    code: "import { notify, pickOne } from './ui';\nexport const f = () => [notify.error('x'), pickOne([], { title: 't' })];\n",
    errors: 0,
  },
];

for (const [rule, cases] of [
  ['house/command-ids', commandCases],
  ['house/ui-calls', uiCases],
] as const) {
  for (const c of cases) {
    test(`${rule}: ${c.file} ${c.errors ? 'refuses' : 'lets through'} ${JSON.stringify(c.code.split('\n').find((l) => !l.startsWith('import')))}`, async () => {
      const errors = await errorsOf(rule, c.file, c.code);
      assert.equal(errors.length, c.errors, errors.join('\n'));
      if (c.says) assert.match(errors[0] ?? '', c.says);
    });
  }
}
