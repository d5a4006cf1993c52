// The test command: lint, type-check, build, then the node:test suites (unit + integration), then the VS Code
// suites when they exist. Stops at the first failing stage and exits non-zero.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const filters = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--only');

function run(title, cmd, cmdArgs, opts = {}) {
  console.log(`\n=== ${title}: ${cmd} ${cmdArgs.join(' ')}`);
  const r = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    console.error(`\n=== ${title} failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status || 1);
  }
}

function findTests(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...findTests(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out.sort();
}

const bin = (name) => join(root, 'node_modules/.bin', name);

if (!only) {
  run('lint', bin('eslint'), ['.']);
  run('format', bin('prettier'), ['--check', '--log-level', 'warn', '.']);
  // dead code: unused files, exports, types and dependencies (knip.json names the build's entry points)
  run('dead code', bin('knip'), ['--no-progress']);
  run('typecheck', bin('tsc'), ['--noEmit', '-p', 'tsconfig.json']);
  if (existsSync(join(root, 'src/webview/main.ts')))
    run('typecheck webview', bin('tsc'), ['--noEmit', '-p', 'tsconfig.webview.json']);
  run('build', process.execPath, ['scripts/build.mjs']);
}

if (!only || only === 'unit' || only === 'node') {
  const dirs = only === 'unit' ? ['test/unit'] : ['test/unit', 'test/integration'];
  let files = dirs.flatMap((d) => findTests(join(root, d)));
  if (filters.length) files = files.filter((f) => filters.some((x) => f.includes(x)));
  if (files.length === 0) {
    console.error('no test files found');
    process.exit(1);
  }
  run('node:test', process.execPath, [
    '--import',
    'tsx',
    '--test',
    '--test-reporter=spec',
    '--test-concurrency=2',
    ...files.map((f) => relative(root, f)),
  ]);
}

const vscodeSuite = join(root, 'test/vscode/run.mjs');
if ((!only || only === 'vscode') && existsSync(vscodeSuite)) {
  run('vscode', process.execPath, [vscodeSuite]);
}
console.log('\n=== all test stages passed');
