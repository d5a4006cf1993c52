// The layer rules of eslint.config.js hold: each case lints a small snippet as if it were a file of that folder
// (ESLint's Node API with the repository's own config) and checks that the import is refused or let through.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const eslint = new ESLint({ cwd: repo });
const LAYER_RULES = new Set([
  '@typescript-eslint/no-restricted-imports',
  'no-restricted-imports',
  'no-restricted-syntax',
]);

/** The layer-rule messages ESLint reports for `code` as the file `filePath` (repo-relative). */
async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(repo, filePath) });
  assert.ok(result, 'ESLint returned no result');
  const fatal = result.messages.filter((m) => m.fatal);
  assert.deepEqual(fatal, [], `${filePath} did not parse`);
  return result.messages.filter((m) => m.ruleId !== null && LAYER_RULES.has(m.ruleId)).map((m) => m.message);
}

// Every snippet uses what it imports, so that only the import rules speak.
const valueImport = (spec: string) => `import { x } from '${spec}';\nexport const y = x;\n`;
const typeImport = (spec: string) => `import type { X } from '${spec}';\nexport type Y = X;\n`;
const inlineTypeImport = (spec: string) => `import { type X } from '${spec}';\nexport type Y = X;\n`;
const dynamicImport = (spec: string) => `export const load = () => import('${spec}');\n`;
const reExport = (spec: string) => `export { x } from '${spec}';\n`;

interface Case {
  file: string;
  code: string;
  ok: boolean;
  /** A word the refusal's message must contain. */
  says?: RegExp;
}

const cases: Case[] = [
  // core: the bottom layer
  { file: 'src/core/x.ts', code: valueImport('../trace/summarize'), ok: false, says: /src\/core is the bottom layer/ },
  { file: 'src/core/x.ts', code: typeImport('../trace/summarize'), ok: false },
  { file: 'src/core/gpumode/x.ts', code: valueImport('../../trace/index'), ok: false },
  { file: 'src/core/gpumode/x.ts', code: valueImport('../../trace'), ok: false },
  { file: 'src/core/x.ts', code: valueImport('../runner/index'), ok: false },
  { file: 'src/core/client/x.ts', code: valueImport('../../cli/exit'), ok: false },
  { file: 'src/core/x.ts', code: typeImport('../extension/runs'), ok: false },
  { file: 'src/core/x.ts', code: typeImport('../webview/protocol'), ok: false },
  { file: 'src/core/gpumode/x.ts', code: dynamicImport('../../trace/index'), ok: false },
  { file: 'src/core/x.ts', code: reExport('../trace/index'), ok: false },
  { file: 'src/core/gpumode/x.ts', code: valueImport('../protocol/api'), ok: true },
  { file: 'src/core/gpumode/x.ts', code: valueImport('../client/index'), ok: true },
  { file: 'src/core/gpumode/x.ts', code: valueImport('./traces'), ok: true },
  { file: 'src/core/x.ts', code: valueImport('./format/index'), ok: true },
  { file: 'src/core/x.ts', code: valueImport('axios'), ok: true },
  { file: 'src/core/x.ts', code: valueImport('vscode'), ok: false, says: /Only src\/extension may import vscode/ },
  // core/format: pure, for the webview too
  { file: 'src/core/format/x.ts', code: valueImport('./numbers'), ok: true },
  { file: 'src/core/format/x.ts', code: valueImport('node:util'), ok: false, says: /shared with the webview/ },
  { file: 'src/core/format/x.ts', code: valueImport('zod'), ok: false },
  { file: 'src/core/format/x.ts', code: typeImport('../protocol/api'), ok: false },
  { file: 'src/core/format/x.ts', code: valueImport('../../trace/index'), ok: false },

  // trace: core's protocol only
  { file: 'src/trace/x.ts', code: valueImport('../core/protocol/api'), ok: true },
  { file: 'src/trace/readers/x.ts', code: typeImport('../../core/protocol/traceSummary'), ok: true },
  { file: 'src/trace/x.ts', code: valueImport('../core/client/index'), ok: false, says: /only src\/core\/protocol/ },
  { file: 'src/trace/readers/x.ts', code: typeImport('../../core/gpumode/results'), ok: false },
  { file: 'src/trace/x.ts', code: valueImport('../core/protocolish'), ok: false },
  { file: 'src/trace/codeObjects/x.ts', code: valueImport('../../core/errors'), ok: true },
  { file: 'src/trace/x.ts', code: valueImport('../core/errorsish'), ok: false },
  { file: 'src/trace/x.ts', code: dynamicImport('../core/noise/index'), ok: false },
  { file: 'src/trace/x.ts', code: valueImport('../runner/index'), ok: false },
  { file: 'src/trace/x.ts', code: valueImport('../cli/exit'), ok: false },
  { file: 'src/trace/x.ts', code: valueImport('../extension/traces'), ok: false },
  { file: 'src/trace/x.ts', code: typeImport('../webview/protocol'), ok: false },
  { file: 'src/trace/readers/x.ts', code: valueImport('../csvScanner'), ok: true },
  { file: 'src/trace/x.ts', code: valueImport('sql.js'), ok: true },
  { file: 'src/trace/x.ts', code: valueImport('vscode'), ok: false },

  // runner: core and trace
  { file: 'src/runner/x.ts', code: valueImport('../core/protocol/api'), ok: true },
  { file: 'src/runner/http/x.ts', code: valueImport('../../core/client/index'), ok: true },
  { file: 'src/runner/x.ts', code: valueImport('../trace/index'), ok: true },
  {
    file: 'src/runner/x.ts',
    code: valueImport('../cli/exit'),
    ok: false,
    says: /src\/runner imports core and trace only/,
  },
  { file: 'src/runner/http/x.ts', code: typeImport('../../extension/runs'), ok: false },
  { file: 'src/runner/x.ts', code: dynamicImport('../cli/commands/serve'), ok: false },
  { file: 'src/runner/x.ts', code: valueImport('vscode'), ok: false },

  // cli: core, trace, runner; never the extension; commands are the top
  { file: 'src/cli/commands/x.ts', code: valueImport('../../core/client/index'), ok: true },
  { file: 'src/cli/commands/x.ts', code: valueImport('../../trace/index'), ok: true },
  { file: 'src/cli/commands/x.ts', code: dynamicImport('../../runner/index'), ok: true },
  {
    file: 'src/cli/commands/x.ts',
    code: valueImport('../../extension/runs'),
    ok: false,
    says: /src\/cli imports core, trace and runner only/,
  },
  { file: 'src/cli/render/x.ts', code: typeImport('../../webview/protocol'), ok: false },
  {
    file: 'src/cli/commands/x.ts',
    code: valueImport('vscode'),
    ok: false,
    says: /Only src\/extension may import vscode/,
  },
  { file: 'src/cli/commands/x.ts', code: dynamicImport('vscode'), ok: false },
  { file: 'src/cli/commands/index.ts', code: dynamicImport('./submit'), ok: true },
  { file: 'src/cli/main.ts', code: valueImport('./commands/index'), ok: true },
  {
    file: 'src/cli/submit/x.ts',
    code: typeImport('../commands/submit'),
    ok: false,
    says: /Only src\/cli\/main.ts and the commands/,
  },
  { file: 'src/cli/x.ts', code: valueImport('./commands/submit'), ok: false },
  { file: 'src/cli/submit/x.ts', code: valueImport('../render/submissionResult'), ok: true },
  { file: 'src/cli/submit/x.ts', code: valueImport('../../core/format/index'), ok: true },

  // extension: everything below it, vscode, and the webview's protocol only
  { file: 'src/extension/x.ts', code: valueImport('vscode'), ok: true },
  { file: 'src/extension/gpumode/x.ts', code: valueImport('../../core/gpumode/results'), ok: true },
  { file: 'src/extension/x.ts', code: valueImport('../trace/index'), ok: true },
  { file: 'src/extension/x.ts', code: valueImport('../runner/index'), ok: true },
  { file: 'src/extension/x.ts', code: typeImport('../webview/protocol'), ok: true },
  { file: 'src/extension/x.ts', code: valueImport('../webview/protocol'), ok: true },
  {
    file: 'src/extension/x.ts',
    code: valueImport('../webview/render'),
    ok: false,
    says: /nothing of the webview but its protocol/,
  },
  { file: 'src/extension/x.ts', code: typeImport('../webview/render'), ok: false },
  { file: 'src/extension/gpumode/x.ts', code: valueImport('../../webview/format'), ok: false },
  { file: 'src/extension/x.ts', code: valueImport('../webview'), ok: false },
  { file: 'src/extension/x.ts', code: valueImport('../webview/compareProtocol'), ok: true },
  {
    file: 'src/extension/x.ts',
    code: valueImport('../webview/compare'),
    ok: false,
    says: /nothing of the webview but its protocol/,
  },
  { file: 'src/extension/x.ts', code: valueImport('../webview/compareProtocolish'), ok: false },
  { file: 'src/extension/x.ts', code: dynamicImport('../webview/render'), ok: false },

  // zod only through src/core/protocol/zod.ts (configured before any schema is built); its types from anywhere
  {
    file: 'src/core/protocol/api.ts',
    code: valueImport('zod'),
    ok: false,
    says: /Import z from src\/core\/protocol\/zod\.ts/,
  },
  { file: 'src/core/protocol/api.ts', code: typeImport('zod'), ok: true },
  { file: 'src/core/protocol/api.ts', code: valueImport('./zod'), ok: true },
  { file: 'src/core/protocol/zod.ts', code: valueImport('zod'), ok: true },
  { file: 'src/core/protocol/zod.ts', code: valueImport('../../runner/index'), ok: false, says: /bottom layer/ },
  { file: 'src/extension/x.ts', code: valueImport('zod'), ok: false, says: /src\/core\/protocol\/zod\.ts/ },
  { file: 'src/runner/x.ts', code: dynamicImport('zod'), ok: false },

  // webview: types from elsewhere, values only from itself, packages and core/format
  { file: 'src/webview/x.ts', code: valueImport('../core/format/index'), ok: true },
  { file: 'src/webview/x.ts', code: valueImport('../core/format'), ok: true },
  {
    file: 'src/webview/x.ts',
    code: valueImport('../core/protocol/api'),
    ok: false,
    says: /imports only types from the rest of src/,
  },
  { file: 'src/webview/x.ts', code: typeImport('../core/protocol/api'), ok: true },
  { file: 'src/webview/x.ts', code: inlineTypeImport('../core/protocol/traceSummary'), ok: true },
  { file: 'src/webview/x.ts', code: valueImport('../core/formatting'), ok: false },
  { file: 'src/webview/x.ts', code: valueImport('../trace/index'), ok: false },
  { file: 'src/webview/x.ts', code: typeImport('../trace/index'), ok: true },
  { file: 'src/webview/x.ts', code: valueImport('../extension/resultModel'), ok: false },
  { file: 'src/webview/x.ts', code: dynamicImport('../core/protocol/api'), ok: false },
  { file: 'src/webview/x.ts', code: valueImport('./dom'), ok: true },
  { file: 'src/webview/x.ts', code: valueImport('markdown-it'), ok: true },
  { file: 'src/webview/x.ts', code: valueImport('vscode'), ok: false },
  { file: 'src/webview/protocol.ts', code: typeImport('../core/protocol/traceSummary'), ok: true },
  { file: 'src/webview/protocol.ts', code: valueImport('./dom'), ok: false, says: /imports types only/ },
  { file: 'src/webview/protocol.ts', code: valueImport('../core/format/index'), ok: false },
  { file: 'src/webview/compareProtocol.ts', code: typeImport('../core/protocol/traceComparison'), ok: true },
  { file: 'src/webview/compareProtocol.ts', code: valueImport('./dom'), ok: false, says: /imports types only/ },
];

for (const c of cases) {
  const kind = c.code.startsWith('import type')
    ? 'type import'
    : c.code.includes('import(')
      ? 'import()'
      : c.code.startsWith('export')
        ? 're-export'
        : c.code.includes('{ type')
          ? 'inline type import'
          : 'import';
  const spec = /'([^']+)'/.exec(c.code)?.[1];
  test(`${c.file}: ${kind} of '${spec}' is ${c.ok ? 'allowed' : 'refused'}`, async () => {
    const errors = await layerErrors(c.file, c.code);
    assert.equal(errors.length > 0, !c.ok, c.ok ? `allowed, yet: ${errors.join('\n')}` : 'expected a layer error');
    assert.match(errors.join('\n'), c.says ?? (c.ok ? /^$/ : /./), 'what the error says');
  });
}

test('outside src/ (tests, benchmarks, scripts) nothing is restricted', async () => {
  assert.deepEqual(await layerErrors('test/unit/x.test.ts', valueImport('../../src/trace/index')), []);
  assert.deepEqual(await layerErrors('bench/x.bench.ts', valueImport('../src/runner/index')), []);
});
