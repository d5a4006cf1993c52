// Repository paths named in our Markdown (`src/...`, `test/...`, `docs/...`, ..., and a few top-level files),
// optionally with `:name` (a function, class or `Class.method` the file must contain), and what is wrong with them.
// Build output (dist/) and paths outside the repository are not recognised as repository paths.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const ROOTS = ['src', 'test', 'scripts', 'bench', 'examples', 'docs', 'media', 'syntaxes', '.ci'];
const PATH = new RegExp(
  String.raw`(?<![\w./-])((?:${ROOTS.map((r) => r.replace('.', String.raw`\.`)).join('|')})/[\w./-]*)(?::([A-Za-z_][\w$]*(?:\.[A-Za-z_$][\w$]*)*))?`,
  'g',
);
const TOP_FILES = /`(package\.json|eslint\.config\.js|tsconfig(?:\.webview)?\.json|README\.md)`/g;

export interface Reference {
  path: string;
  names: string[];
}

export function references(text: string): Reference[] {
  const out: Reference[] = [];
  for (const m of text.matchAll(PATH)) {
    const p = (m[1] as string).replace(/[.,;]+$/, '');
    out.push({ path: p, names: m[2] ? m[2].split('.') : [] });
  }
  for (const m of text.matchAll(TOP_FILES)) out.push({ path: m[1] as string, names: [] });
  return out;
}

/**
 * What is wrong with each reference (empty: all resolve). With `folderSlash` a folder must be written with its
 * trailing `/` and a file without (docs/architecture.md's rule); without it either spelling of a folder passes.
 */
export function broken(refs: readonly Reference[], folderSlash = true): string[] {
  const problems: string[] = [];
  for (const r of refs) {
    const abs = path.join(repo, r.path);
    const folder = r.path.endsWith('/');
    if (!existsSync(abs) || (statSync(abs).isDirectory() !== folder && (folderSlash || folder))) {
      problems.push(`${r.path}: no such ${folder ? 'folder' : 'file'}`);
      continue;
    }
    if (!r.names.length) continue;
    if (statSync(abs).isDirectory()) {
      problems.push(`${r.path}: a folder, not a file with ${r.names.join('.')}`);
      continue;
    }
    const source = readFileSync(abs, 'utf8');
    for (const name of r.names)
      if (!new RegExp(String.raw`(?<![\w$])${name.replace('$', String.raw`\$`)}(?![\w$])`).test(source))
        problems.push(`${r.path}: no ${name}`);
  }
  return problems;
}
