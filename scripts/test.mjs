// The test command: lint, type-check, build, then the node:test suites (unit + integration), then the VS Code
// suites when they exist. Stops at the first failing stage and exits non-zero.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const valueOf = (flag) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
const only = valueOf('--only');
const filters = args.filter((a, i) => !a.startsWith('--') && !['--only', '--concurrency'].includes(args[i - 1]));
// Test files run side by side: one more than the cores, since a file's tests also wait (on its runner's jobs, child
// processes, sockets) and the next file's start-up (tsx) fills that time. Every test waits for events, not times,
// so a busier machine makes the suite slower, not red. `--concurrency N` to choose.
const concurrency = Number(valueOf('--concurrency') ?? availableParallelism() + 1);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error('--concurrency takes a whole number from 1');
  process.exit(2);
}

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

/** True when dist/cli.cjs is missing or older than a file of src/ or scripts/build.mjs. */
function distIsStale() {
  const built = join(root, 'dist/cli.cjs');
  if (!existsSync(built)) return true;
  const at = statSync(built).mtimeMs;
  const newer = (p) =>
    statSync(p).isDirectory() ? readdirSync(p).some((n) => newer(join(p, n))) : statSync(p).mtimeMs > at;
  return newer(join(root, 'src')) || newer(join(root, 'scripts/build.mjs'));
}

/** Runs the commands `lanes` at a time, in the order given (the longest first, so that none starts last and runs
 * alone), each one's output printed in one piece when it ends; exits non-zero once all have ended if any failed.
 * Each of these is one busy thread, independent of the others: side by side they take the time of the longest
 * lane instead of the sum (eslint, prettier and tsc are ~20 s of CPU each). */
async function runAll(steps, lanes) {
  const failed = [];
  const queue = [...steps];
  const lane = async () => {
    for (let step = queue.shift(); step; step = queue.shift()) {
      const [title, cmd, cmdArgs] = step;
      const t0 = Date.now();
      const child = spawn(cmd, cmdArgs, {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: process.stdout.isTTY ? { ...process.env, FORCE_COLOR: '1' } : process.env,
      });
      const out = [];
      child.stdout.on('data', (d) => out.push(d));
      child.stderr.on('data', (d) => out.push(d));
      const status = await new Promise((resolve) => {
        child.once('error', (err) => {
          out.push(Buffer.from(`${err.message}\n`));
          resolve(1);
        });
        child.once('close', (code, signal) => resolve(code ?? signal));
      });
      console.log(`\n=== ${title}: ${cmd} ${cmdArgs.join(' ')} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
      process.stdout.write(Buffer.concat(out));
      if (status !== 0) {
        console.error(`\n=== ${title} failed (exit ${status})`);
        failed.push(title);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, steps.length) }, lane));
  if (failed.length) {
    console.error(`\n=== failed: ${failed.join(', ')}`);
    process.exit(1);
  }
}

if (!only) {
  await runAll(
    [
      ['typecheck', bin('tsc'), ['--noEmit', '-p', 'tsconfig.json']],
      ['lint', bin('eslint'), ['.']],
      ['format', bin('prettier'), ['--check', '--log-level', 'warn', '.']],
      ...(existsSync(join(root, 'src/webview/main.ts'))
        ? [['typecheck webview', bin('tsc'), ['--noEmit', '-p', 'tsconfig.webview.json']]]
        : []),
      // dead code: unused files, exports, types and dependencies (knip.json names the build's entry points)
      ['dead code', bin('knip'), ['--no-progress']],
      ['build', process.execPath, ['scripts/build.mjs']],
    ],
    Math.max(2, availableParallelism()),
  );
}

// A part run alone (`--only node`) still tests what src/ builds to: the integration tests run dist/cli.cjs, and test
// files that each build a missing dist/ side by side would run one another's half-written bundle.
if ((only === 'unit' || only === 'node') && distIsStale()) run('build', process.execPath, ['scripts/build.mjs']);

if (!only || only === 'unit' || only === 'node') {
  const dirs = only === 'unit' ? ['test/unit'] : ['test/unit', 'test/integration'];
  let files = dirs.flatMap((d) => findTests(join(root, d)));
  if (filters.length) files = files.filter((f) => filters.some((x) => relative(root, f).includes(x)));
  if (files.length === 0) {
    console.error('no test files found');
    process.exit(1);
  }
  run('node:test', process.execPath, [
    '--import',
    'tsx',
    '--test',
    '--test-reporter=spec',
    `--test-concurrency=${concurrency}`,
    ...files.map((f) => relative(root, f)),
  ]);
}

const vscodeSuite = join(root, 'test/vscode/run.mjs');
if ((!only || only === 'vscode') && existsSync(vscodeSuite)) {
  run('vscode', process.execPath, [vscodeSuite]);
}
console.log('\n=== all test stages passed');
