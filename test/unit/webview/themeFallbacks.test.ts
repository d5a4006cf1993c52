// The results and compare pages paint their bars and charts with VS Code's theme variables, each ending in a
// literal colour: a page shown without a variable (a standalone capture, a theme that leaves one out) still fills
// them. A share bar's fill once ended in another VS Code variable and showed nothing there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const css = ['media/results.css', 'media/compare.css'].map((f) => readFileSync(path.join(repo, f), 'utf8')).join('\n');
/** Rules of what is drawn as a share, a chart mark or a series colour. */
const PAINTED = /bar|stall|timeline|colour|ceiling|pt-|arrow|swatch|legend-marker/;

/** The innermost rules of the sheets (those inside @container too): selector and declarations. */
function rules(text: string): Array<{ selector: string; decls: Array<[string, string]> }> {
  const out = [];
  for (const m of text.replace(/\/\*[\s\S]*?\*\//g, '').matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
    const decls = m[2]!
      .split(';')
      .map((d) => d.split(/:(.*)/s).map((x) => x.trim()))
      .filter((d): d is [string, string] => d.length >= 2 && d[0] !== '' && d[1] !== undefined)
      .map(([k, v]) => [k, v] as [string, string]);
    out.push({ selector: m[1]!.trim(), decls });
  }
  return out;
}

const ours = new Map<string, string>();
for (const r of rules(css)) if (r.selector === ':root') for (const [k, v] of r.decls) ours.set(k, v);

/** The value with no `--vscode-*` variable defined: undefined where it would be invalid (nothing painted). */
function withoutVsCode(value: string, depth = 0): string | undefined {
  assert.ok(depth < 20, `a variable refers to itself: ${value}`);
  const at = value.indexOf('var(');
  if (at < 0) return value;
  let level = 0;
  let end = at + 4;
  let comma = -1;
  for (; end < value.length; end++) {
    const c = value[end];
    if (c === '(') level++;
    else if (c === ')') {
      if (level === 0) break;
      level--;
    } else if (c === ',' && level === 0 && comma < 0) comma = end;
  }
  const name = value.slice(at + 4, comma < 0 ? end : comma).trim();
  const fallback = comma < 0 ? undefined : value.slice(comma + 1, end).trim();
  const own = name.startsWith('--kr-') ? ours.get(name) : undefined;
  const inner = own !== undefined ? withoutVsCode(own, depth + 1) : fallback && withoutVsCode(fallback, depth + 1);
  if (inner === undefined || inner === '') return undefined;
  return withoutVsCode(value.slice(0, at) + inner + value.slice(end + 1), depth + 1);
}

test('every bar, chart mark and series colour is painted without VS Code’s variables', () => {
  const painted = rules(css).filter((r) => PAINTED.test(r.selector));
  const checked: string[] = [];
  for (const r of painted)
    for (const [prop, value] of r.decls)
      if (/^(background|background-color|fill|stroke)$/.test(prop)) {
        checked.push(`${r.selector} ${prop}`);
        assert.ok(withoutVsCode(value), `${r.selector} { ${prop}: ${value} } paints nothing without VS Code`);
      }
  for (const must of ['.bar-fill background', '.stall-bar background', '.timeline-bar fill', '.colour-0 fill'])
    assert.ok(
      checked.some((c) => c.endsWith(must) || c.includes(must)),
      `${must} was checked: ${checked.join('; ')}`,
    );
});

test('the resolver tells a literal fallback from a chain of VS Code variables', () => {
  assert.equal(withoutVsCode('var(--vscode-charts-blue, #1a85ff)'), '#1a85ff');
  assert.equal(withoutVsCode('var(--vscode-charts-blue, var(--vscode-progressBar-background))'), undefined);
  assert.equal(withoutVsCode('var(--vscode-a, var(--vscode-b, rgba(1, 2, 3, 0.5)))'), 'rgba(1, 2, 3, 0.5)');
});
