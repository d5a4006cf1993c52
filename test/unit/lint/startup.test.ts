// What a command loads at start, as a rule beside the layer rules: `kernel-runner submit` evaluates the client and
// the submission workflow, not the runner (an external --server run never needs it; the embedded run imports it
// when it starts one), the trace readers and sql.js (a trace is summarised when one is saved), the webview's
// markdown-it or the other commands. Runs the CLI's source (src/cli/main.ts) with a module hook that writes down
// every module loaded; the bundle keeps the same laziness (esbuild's import() stays lazy in a CommonJS bundle,
// scripts/build.mjs), which bench/submit-overhead.bench.ts times.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let scratch = '';

before(() => {
  scratch = mkdtempSync(path.join(tmpdir(), 'kr-startup-'));
  writeFileSync(
    path.join(scratch, 'hooks.mjs'),
    "import { appendFileSync } from 'node:fs';\n" +
      'export async function load(url, context, next) {\n  appendFileSync(process.env.KR_LOADED_LOG, `${url}\\n`);\n  return next(url, context);\n}\n',
  );
  writeFileSync(
    path.join(scratch, 'register.mjs'),
    "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n",
  );
});

after(() => rmSync(scratch, { recursive: true, force: true }));

/** The repository-relative modules (src/… or node_modules/<package>) that `kernel-runner <args>` loads. */
function loadedBy(args: string[]): string[] {
  const log = path.join(scratch, `${args[0]}-${Date.now()}.log`);
  writeFileSync(log, '');
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--import', pathToFileURL(path.join(scratch, 'register.mjs')).href, 'src/cli/main.ts', ...args],
    {
      cwd: repo,
      env: { ...process.env, KR_LOADED_LOG: log, NO_COLOR: '1' },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  assert.notEqual(r.status, null, `the CLI did not finish: ${r.stderr}`);
  const seen = new Set<string>();
  for (const url of readFileSync(log, 'utf8').split('\n')) {
    if (!url.startsWith('file:')) continue;
    const rel = path.relative(repo, fileURLToPath(url)).split(path.sep).join('/');
    const pkg = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(rel);
    seen.add(pkg ? `node_modules/${pkg[1]}` : rel);
  }
  return [...seen].sort();
}

test('`kernel-runner submit` loads neither the runner, the trace readers, sql.js, markdown-it nor the other commands at start', () => {
  const loaded = loadedBy(['submit', path.join(scratch, 'missing.py'), '--server', 'http://127.0.0.1:9']);
  assert.ok(
    loaded.includes('src/cli/commands/submit.ts'),
    `the submit command itself was loaded: ${loaded.join(', ')}`,
  );
  // The submission file is opened as the trace readers open a path someone named (src/trace/regularFile.ts: a FIFO
  // refused before it can block); that module and the error base it throws are small and load no package.
  const pathCheck = new Set(['src/trace/regularFile.ts', 'src/trace/errors.ts']);
  const forbidden = loaded.filter(
    (m) =>
      (/^src\/(runner|trace|webview|extension)\//.test(m) && !pathCheck.has(m)) ||
      /^src\/cli\/commands\/(serve|summarize|compare|filter|register|submissions)\.ts$/.test(m) ||
      /^node_modules\/(sql\.js|markdown-it|execa|archiver|yauzl|busboy)$/.test(m),
  );
  assert.deepEqual(forbidden, [], `loaded at the start of submit: ${forbidden.join(', ')}`);
});

test('`kernel-runner --help` still lists every command', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', '--help'], {
    cwd: repo,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  for (const name of ['filter', 'summarize', 'compare', 'serve', 'submit', 'register', 'submissions'])
    assert.match(r.stdout, new RegExp(`^  ${name} `, 'm'));
});
