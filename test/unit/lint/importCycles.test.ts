// No value-carrying import circle in src/: among the static imports that carry values (not `import type`, not
// imports whose every name is `type`, not `import()`, which loads lazily), no module reaches itself. A circle of
// values makes what a module sees at load time depend on which one was loaded first. Read with TypeScript's own
// parser, every relative specifier resolved to its .ts file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const src = path.join(repo, 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

function resolveSpecifier(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec);
  return [`${base}.ts`, path.join(base, 'index.ts'), base].find((p) => p.endsWith('.ts') && existsSync(p));
}

/** The modules `file` imports values from (relative imports and re-exports). */
function valueImports(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  for (const st of sf.statements) {
    let spec: ts.Expression | undefined;
    if (ts.isImportDeclaration(st)) {
      const clause = st.importClause;
      if (clause?.isTypeOnly) continue;
      const named = clause?.namedBindings;
      const onlyTypes =
        clause &&
        !clause.name &&
        named &&
        ts.isNamedImports(named) &&
        named.elements.length > 0 &&
        named.elements.every((e) => e.isTypeOnly);
      if (onlyTypes) continue;
      spec = st.moduleSpecifier;
    } else if (ts.isExportDeclaration(st) && st.moduleSpecifier) {
      if (st.isTypeOnly) continue;
      const named = st.exportClause;
      if (named && ts.isNamedExports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly))
        continue;
      spec = st.moduleSpecifier;
    }
    if (spec && ts.isStringLiteral(spec)) {
      const target = resolveSpecifier(file, spec.text);
      if (target) out.push(target);
    }
  }
  return out;
}

/** Every circle of the graph, each once (Tarjan's strongly connected components with more than one module, or a self-import). */
function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
  return found;
}

test('no module of src/ reaches itself through value imports', () => {
  const graph = new Map<string, string[]>();
  for (const file of sources(src)) graph.set(file, valueImports(file, readFileSync(file, 'utf8')));
  assert.ok(graph.size > 100, `only ${graph.size} modules found under src/`);
  const found = circles(graph).map((c) => c.map((f) => path.relative(repo, f)));
  assert.deepEqual(found, []);
});

test('the check sees a circle, and lets type-only and lazy imports through', () => {
  const graph = new Map<string, string[]>([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
    ['d', ['d']],
    ['e', ['a']],
  ]);
  assert.deepEqual(circles(graph), [['a', 'b', 'c'], ['d']]);
  const here = path.join(src, 'trace/readers/x.ts');
  const imports = (text: string) => valueImports(here, text).map((f) => path.relative(repo, f));
  assert.deepEqual(imports("import { each } from '../sqlite';\n"), ['src/trace/sqlite.ts']);
  assert.deepEqual(imports("export { readRocpd } from './rocpd';\n"), ['src/trace/readers/rocpd.ts']);
  assert.deepEqual(imports("import type { RunTables } from '../tables';\n"), []);
  assert.deepEqual(imports("import { type RunTables } from '../tables';\n"), []);
  assert.deepEqual(imports("export type { RunTables } from '../tables';\n"), []);
  assert.deepEqual(imports("export const load = () => import('./rocpd');\n"), []);
  assert.deepEqual(imports("import { type RunTables, addLaunch } from '../tables';\n"), ['src/trace/tables.ts']);
  assert.deepEqual(imports("import '../sqlite';\n"), ['src/trace/sqlite.ts']);
});
