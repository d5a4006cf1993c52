import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import house from './scripts/eslintHouseRules.mjs';

// Layers (README, "Map"): core <- trace <- runner, cli, extension; webview is browser code that shares only types
// and core's formatters. Each folder gets ONE import rule (flat config rule entries for the same rule replace each
// other, they do not merge), combining the `vscode` ban with that folder's layer restrictions. Sources import
// each other by relative paths (`../../core/protocol/api`), so every pattern is a regex on the specifier that
// climbs out of the folder (`(../)+`) into another layer. typescript-eslint's version of no-restricted-imports
// is used because it can let `import type` through (allowTypeImports); a type-only import that matches a pattern
// with allowTypeImports is not checked against the other patterns, so those never overlap the ones that ban
// every import. no-restricted-imports does not look at `import()`: the same patterns go to no-restricted-syntax
// (also one entry per folder), so a lazy import cannot go round a layer.
const UP = String.raw`^(\.\./)+`;
/** An import of one of these top-level folders of src/ from a sibling folder. */
const layers = (...names) => String.raw`${UP}(${names.join('|')})(/|$)`;

const vscodeBan = {
  name: 'vscode',
  message: 'Only src/extension may import vscode: core, trace, runner, cli and webview stay editor-free.',
};
// zod is configured once (jitless) in src/core/protocol/zod.ts, before any schema is made: every schema takes z from there
const zodBan = {
  name: 'zod',
  allowTypeImports: true,
  message: "Import z from src/core/protocol/zod.ts, not from 'zod': it configures zod before any schema is built.",
};

/** The folder's import rule, plus the same bans for `import()` expressions (which no-restricted-imports skips). */
function layerRules(patterns, { vscode = false, zod = false } = {}) {
  const paths = [...(vscode ? [] : [vscodeBan]), ...(zod ? [] : [zodBan])];
  // import() is always a value import: every pattern applies, allowTypeImports or not.
  const dynamic = [...patterns, ...paths.map((p) => ({ regex: `^${p.name}$`, message: p.message }))].map((p) => ({
    // esquery regexes cannot hold a slash: it is written \x2F
    selector: `ImportExpression > Literal.source[value=/${p.regex.replaceAll('/', String.raw`\x2F`)}/]`,
    message: p.message,
  }));
  return {
    'no-restricted-imports': 'off',
    '@typescript-eslint/no-restricted-imports': ['error', { paths, patterns }],
    'no-restricted-syntax': ['error', ...dynamic],
  };
}

const coreLayer = {
  regex: layers('trace', 'runner', 'cli', 'extension', 'webview'),
  message: 'src/core is the bottom layer: it imports nothing of trace, runner, cli, extension or webview.',
};
const cliLayer = {
  regex: layers('extension', 'webview'),
  message: 'src/cli imports core, trace and runner only: nothing of extension or webview.',
};

const layerConfig = [
  {
    files: ['src/core/**'],
    rules: layerRules([coreLayer]),
  },
  {
    files: ['src/core/protocol/zod.ts'],
    rules: layerRules([coreLayer], { zod: true }),
  },
  {
    // bundled into the webview as well as the Node front-ends: pure, nothing but its own files
    files: ['src/core/format/**'],
    rules: layerRules([
      {
        regex: String.raw`^(?!\./)`,
        message:
          'src/core/format is shared with the webview: it imports nothing but its own files (no node:, no packages, no other folder).',
      },
    ]),
  },
  {
    files: ['src/trace/**'],
    rules: layerRules([
      {
        regex: layers('runner', 'cli', 'extension', 'webview'),
        message: 'src/trace imports only core/protocol: nothing of runner, cli, extension or webview.',
      },
      {
        regex: String.raw`${UP}core(/(?!protocol(/|$)|errors$)|$)`,
        message: 'src/trace imports only src/core/protocol/** of core (and core/errors.ts, the error base).',
      },
    ]),
  },
  {
    files: ['src/runner/**'],
    rules: layerRules([
      {
        regex: layers('cli', 'extension', 'webview'),
        message: 'src/runner imports core and trace only: nothing of cli, extension or webview.',
      },
    ]),
  },
  {
    files: ['src/cli/**'],
    rules: layerRules([cliLayer]),
  },
  {
    // The commands are the top of the CLI, loaded one at a time by commands/index.ts (lazily, for start-up):
    // what they share lives below them (submit/, render/, gpumode/), never in a command module.
    files: ['src/cli/**'],
    ignores: ['src/cli/main.ts', 'src/cli/commands/**'],
    rules: layerRules([
      cliLayer,
      {
        regex: String.raw`^\.{1,2}/(\.\./)*commands(/|$)`,
        message:
          'Only src/cli/main.ts and the commands themselves import src/cli/commands: shared code and types live below the commands (submit/, render/, gpumode/).',
      },
    ]),
  },
  {
    // The webview's protocol (src/webview/protocol.ts: message types and their descriptors, one definition for
    // both sides) is all the host may import of the webview; the protocol itself imports only types (below), so
    // importing it brings no DOM code into the extension.
    files: ['src/extension/**'],
    rules: layerRules(
      [
        {
          regex: String.raw`${UP}webview(/(?!(compareP|p)rotocol$)|$)`,
          message:
            'src/extension imports nothing of the webview but its protocols (src/webview/protocol.ts, compareProtocol.ts).',
        },
      ],
      { vscode: true },
    ),
  },
  {
    files: ['src/webview/**'],
    rules: layerRules([
      {
        // all of the `../` first, so that `../../core/format` cannot match as `../` + `../core/format`
        regex: String.raw`${UP}(?!\.\./)(?!core/format(/|$))`,
        allowTypeImports: true,
        message:
          'src/webview (browser code) imports only types from the rest of src/ (`import type`), and core/format.',
      },
    ]),
  },
  {
    files: ['src/webview/protocol.ts', 'src/webview/compareProtocol.ts'],
    // compareProtocol.ts may take the message helper from protocol.ts, itself free of imports but types
    rules: layerRules([
      {
        regex: String.raw`^(?!\./protocol$)`,
        allowTypeImports: true,
        message:
          'src/webview/protocol.ts is shared with the extension host: it imports types only (and the protocols their message helper from ./protocol).',
      },
    ]),
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.vscode-test/**', 'out/**', '.test-output/**', 'bench/data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      eqeqeq: ['error', 'smart'],
    },
  },
  ...layerConfig,
  // One way to name a command and to show UI (scripts/eslintHouseRules.mjs)
  {
    files: ['src/**/*.ts'],
    ignores: ['src/extension/commandIds.ts'],
    plugins: { house },
    rules: { 'house/command-ids': 'error' },
  },
  {
    files: ['src/extension/**/*.ts'],
    ignores: ['src/extension/ui.ts'],
    plugins: { house },
    rules: { 'house/ui-calls': 'error' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
      },
    },
  },
);
