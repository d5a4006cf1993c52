// `npm run demo`: the main job on a machine without a GPU. Builds, then uses the embedded runner (no server, no
// configuration) to test and benchmark the example problem with live output, then summarises a real rocprofv3
// database (from ../shared/fixtures when present).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist/cli.cjs');

const bold = (text) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text);

function step(title, args) {
  console.log(`\n${bold(`$ kernel-runner ${args.join(' ')}`)}   # ${title}`);
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`\n${title} failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status || 1);
  }
}

const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const submission = 'examples/problems/vectoradd_py/submission.py';
step('correctness tests on the embedded runner', ['submit', submission, '--mode', 'test']);
step('benchmark on the embedded runner', ['submit', submission, '--mode', 'benchmark']);

const db = join(root, '../shared/fixtures/rocprof/batched_gemm__28_results.db');
if (existsSync(db)) {
  step('trace summary of a real MI300X rocprofv3 database', ['summarize', relative(root, db)]);
} else {
  console.log(
    '\n(no ../shared/fixtures here: skipping the trace summary; try `kernel-runner summarize <rocprof output>`)',
  );
}

console.log(`
Next:
  node dist/cli.cjs submit examples/scripts/hello.py               # any script, live output
  node dist/cli.cjs serve                                           # a runner on 127.0.0.1:8787 (prints where its token is kept)
  node dist/cli.cjs submit FILE --server http://mi300-box:8787 --token-file ~/.mi300-token --mode profile
  npm run package                                                   # dist/kernel-runner.vsix for VS Code`);
