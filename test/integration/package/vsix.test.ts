// The .vsix as `npm run package` makes it (vsce with the script's own flags, over the built dist/): it holds every
// file the installed extension loads (what package.json names, the webviews' scripts and styles, the trace worker,
// sql.js's WebAssembly, the CLI the MCP server definition starts, the embedded runner's problems) and nothing of
// the tests, sources, benches, source maps or Python caches. vsce itself refuses a manifest without repository or
// LICENSE, and a PNG icon that is not there.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { ensureBuiltWith, repoRoot, tempDir } from '../submit/helpers';
import { zipEntries } from '../../support/zipEntries';

const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  main: string;
  icon: string;
  scripts: { package: string };
};

/** Every string of the manifest that is a relative path to a file (main, icon, grammars, walkthrough media, ...). */
function manifestPaths(value: unknown, out: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string') {
    if (/^(\.\/)?[\w-]+(\/[\w.-]+)+\.\w+$/.test(value)) out.add(path.posix.normalize(value));
  } else if (Array.isArray(value)) value.forEach((v) => manifestPaths(v, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => manifestPaths(v, out));
  return out;
}

/** Loaded by the extension's code, not named in the manifest (the file that loads each one beside it). */
const loadedByCode = [
  'dist/webview.js', // src/extension/resultsPanel.ts
  'dist/compare.js', // src/extension/comparePanel.ts
  'media/results.css', // both panels
  'media/compare.css', // src/extension/comparePanel.ts
  'dist/trace-worker.cjs', // src/trace/parallelParts.ts, beside the bundle
  'dist/summary-worker.cjs', // src/runner/boundedSummary.ts: a profile's summary (embedded runner), beside the bundle
  'dist/sql-wasm.wasm', // rocpd databases (sql.js)
  'dist/cli.cjs', // src/extension/agent/mcpServer.ts: the MCP server definition's command
  'dist/cli-main.cjs', // the bundle dist/cli.cjs loads
  'dist/third-party-notices.txt', // the licenses of the packages the bundles hold (scripts/build.mjs)
];

let work: string;
let entries: string[];
let vsixBytes: number;

before(() => {
  ensureBuiltWith(...loadedByCode);
  work = tempDir('kr-vsix-');
  const vsix = path.join(work, 'kernel-runner.vsix');
  const flags = /\bvsce package (.*)$/.exec(manifest.scripts.package)?.[1];
  assert.ok(flags, `npm run package runs vsce package: ${manifest.scripts.package}`);
  const args = flags.replace(/--out \S+/, `--out ${vsix}`).split(/\s+/);
  const r = spawnSync(path.join(repoRoot, 'node_modules/.bin/vsce'), ['package', ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  assert.equal(r.status, 0, `vsce package ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  vsixBytes = statSync(vsix).size;
});
after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const packed = async (): Promise<string[]> => {
  entries ??= (await zipEntries(readFileSync(path.join(work, 'kernel-runner.vsix'))))
    .filter((e) => e.startsWith('extension/'))
    .map((e) => e.slice('extension/'.length));
  return entries;
};

test('the .vsix holds every file the manifest names and the extension loads', async () => {
  const files = new Set(await packed());
  const named = [...manifestPaths(manifest)];
  for (const expected of [manifest.main, manifest.icon, 'syntaxes/hip.tmLanguage.json', 'media/icon.svg']) {
    assert.ok(named.includes(path.posix.normalize(expected)), `the manifest scan finds ${expected}`);
  }
  const missing = [...named, ...loadedByCode].filter((f) => !files.has(f));
  assert.deepEqual(missing, [], 'named or loaded but not packed');
  // the embedded runner's problems and the examples: every file of examples/ that git tracks
  const examples = execFileSync('git', ['ls-files', 'examples'], { cwd: repoRoot, encoding: 'utf8' }).split('\n');
  assert.deepEqual(
    examples.filter((f) => f && !files.has(f)),
    [],
    'examples not packed',
  );
  for (const f of ['package.json', 'readme.md', 'LICENSE.txt', 'changelog.md']) assert.ok(files.has(f), f);
  console.log(`# .vsix: ${files.size} files, ${vsixBytes} bytes`);
});

test('the .vsix holds no tests, sources, benches, source maps, Python caches or dependencies', async () => {
  const stray = (await packed()).filter(
    (f) =>
      /^(test|src|bench|scripts|docs|deploy|node_modules|\.ci|\.github)\//.test(f) ||
      /\.(map|ts|pyc|vsix|tgz)$/.test(f) ||
      f.includes('__pycache__') ||
      f === 'dist/bundled-packages.json',
  );
  assert.deepEqual(stray, []);
  // and nothing beyond what it needs: its whole tree is the manifest's, the code's and the examples' files
  const top = new Set((await packed()).map((f) => f.split('/')[0]));
  assert.deepEqual(
    [...top].sort(),
    ['LICENSE.txt', 'changelog.md', 'dist', 'examples', 'media', 'package.json', 'readme.md', 'syntaxes'].sort(),
  );
});
