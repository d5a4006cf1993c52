// docs/architecture.md names only what exists: every repository path written in it resolves (a folder where it ends
// in `/`, a file where not), and every `file:name` (a function, class or `Class.method`) names identifiers that the file contains.
// Build output (dist/) and paths outside the repository (../shared) are not checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const DOC = 'docs/architecture.md';

const ROOTS = ['src', 'test', 'scripts', 'bench', 'examples', 'docs', 'media', 'syntaxes', '.ci'];
const PATH = new RegExp(
  String.raw`(?<![\w./-])((?:${ROOTS.map((r) => r.replace('.', String.raw`\.`)).join('|')})/[\w./-]*)(?::([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*))?`,
  'g',
);
const TOP_FILES = /`(package\.json|eslint\.config\.js|tsconfig(?:\.webview)?\.json|README\.md)`/g;

interface Reference {
  path: string;
  names: string[];
}

function references(text: string): Reference[] {
  const out: Reference[] = [];
  for (const m of text.matchAll(PATH)) {
    const p = (m[1] as string).replace(/[.,;]+$/, '');
    out.push({ path: p, names: m[2] ? m[2].split('.') : [] });
  }
  for (const m of text.matchAll(TOP_FILES)) out.push({ path: m[1] as string, names: [] });
  return out;
}

/** What is wrong with each reference (empty: all resolve). */
function broken(refs: Reference[]): string[] {
  const problems: string[] = [];
  for (const r of refs) {
    const abs = path.join(repo, r.path);
    const folder = r.path.endsWith('/');
    if (!existsSync(abs) || statSync(abs).isDirectory() !== folder) {
      problems.push(`${r.path}: no such ${folder ? 'folder' : 'file'}`);
      continue;
    }
    if (!r.names.length) continue;
    const source = readFileSync(abs, 'utf8');
    for (const name of r.names)
      if (!new RegExp(String.raw`(?<![\w$])${name.replace('$', String.raw`\$`)}(?![\w$])`).test(source))
        problems.push(`${r.path}: no ${name}`);
  }
  return problems;
}

test('every path and file:name in docs/architecture.md resolves', () => {
  const refs = references(readFileSync(path.join(repo, DOC), 'utf8'));
  assert.ok(refs.length >= 100, `only ${refs.length} references found`);
  assert.ok(refs.filter((r) => r.names.length).length >= 20, 'too few file:name references found');
  assert.deepEqual(broken(refs), []);
});

test('the check sees a missing file, a file that is no folder and a name the file lacks', () => {
  const refs = references(
    'See `src/extension/runs/controller.ts:RunController.runFile`, `src/core/format/` and `package.json`.\n' +
      'Gone: `src/extension/nowhere.ts`, `src/extension/ui.ts/`, `src/core/format`, `src/extension/runs/controller.ts:RunController.fly`, ' +
      '`src/core/client/client.ts:createRunnerClientX`; not checked: `dist/extension.cjs`, `../shared/docs/rocprof.md`.',
  );
  assert.deepEqual(
    refs.map((r) => [r.path, ...r.names]),
    [
      ['src/extension/runs/controller.ts', 'RunController', 'runFile'],
      ['src/core/format/'],
      ['src/extension/nowhere.ts'],
      ['src/extension/ui.ts/'],
      ['src/core/format'],
      ['src/extension/runs/controller.ts', 'RunController', 'fly'],
      ['src/core/client/client.ts', 'createRunnerClientX'],
      ['package.json'],
    ],
  );
  assert.deepEqual(broken(refs), [
    'src/extension/nowhere.ts: no such file',
    'src/extension/ui.ts/: no such folder',
    'src/core/format: no such file',
    'src/extension/runs/controller.ts: no fly',
    'src/core/client/client.ts: no createRunnerClientX',
  ]);
});
