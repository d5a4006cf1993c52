// The bundled evaluator (examples/problems/eval.py) marks each benchmark case with a rocTX range, run with the
// real python3: where neither torch nor libroctx64 exists (this machine) nothing changes and nothing fails; with a
// libroctx64.so on the library path (a tiny one of ours, built here with the C compiler, that logs its calls)
// every case is one push/pop pair named after it, in order, on the evaluator's thread.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const problems = path.join(repoRoot, 'examples/problems');
const CASES = ['size: 1024; seed: 54352', 'size: 512; seed: 7'];
let work = '';

const ROCTX_C = `
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
static int depth;
static void note(const char *what, const char *message) {
  const char *path = getenv("KR_TEST_ROCTX_LOG");
  if (!path) return;
  FILE *f = fopen(path, "a");
  if (!f) return;
  fprintf(f, "%s\\t%ld\\t%s\\n", what, (long)syscall(SYS_gettid), message ? message : "");
  fclose(f);
}
int roctxRangePushA(const char *message) { note("push", message); return depth++; }
int roctxRangePop(void) { note("pop", NULL); return --depth; }
`;

function compiler(): string | null {
  for (const cc of ['gcc', 'cc']) if (spawnSync(cc, ['--version'], { stdio: 'ignore' }).status === 0) return cc;
  return null;
}

before(() => {
  work = mkdtempSync(path.join(tmpdir(), 'kr-eval-ranges-'));
  for (const f of ['eval.py', 'utils.py']) copyFileSync(path.join(problems, f), path.join(work, f));
  for (const f of ['reference.py', 'task.py', 'submission.py'])
    copyFileSync(path.join(problems, 'vectoradd_py', f), path.join(work, f));
  writeFileSync(path.join(work, 'cases.txt'), CASES.join('\n') + '\n');
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** python3 eval.py MODE cases.txt with POPCORN_FD=3; the popcorn lines as a map. */
async function runEval(mode: string, env: Record<string, string> = {}) {
  const { LD_LIBRARY_PATH: _drop, ...base } = process.env;
  const child = spawn('python3', ['eval.py', mode, 'cases.txt'], {
    cwd: work,
    env: { ...base, POPCORN_FD: '3', PYTHONDONTWRITEBYTECODE: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let popcorn = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  (child.stdio[3] as NodeJS.ReadableStream).on('data', (c: Buffer) => (popcorn += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  const keys = new Map(
    popcorn
      .split('\n')
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf(': ')), l.slice(l.indexOf(': ') + 2)]),
  );
  return { code, stdout, stderr, keys };
}

test('without torch or libroctx64: profile and benchmark runs pass as before, no traceback', async (t) => {
  const probe = spawnSync(
    'python3',
    [
      '-c',
      'import importlib.util, ctypes.util; print(importlib.util.find_spec("torch") is not None, ctypes.util.find_library("roctx64") is not None)',
    ],
    { encoding: 'utf8' },
  );
  if (probe.stdout.trim() !== 'False False') {
    t.skip(`this machine has torch or libroctx64 (${probe.stdout.trim()}): the "neither" path is NOT tested here`);
    return;
  }
  for (const mode of ['profile', 'benchmark']) {
    const r = await runEval(mode);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.keys.get('check'), 'pass');
    assert.equal(r.keys.get('benchmark-count'), '2');
    assert.ok(!/Traceback|Error/.test(r.stderr), r.stderr);
    assert.equal(
      r.keys.has('benchmark.1.report'),
      mode === 'profile',
      'each profiled case still has its report (a benchmark has none)',
    );
  }
});

test('with a libroctx64.so on the library path: one range per case, named after it, pushed and popped on one thread', async (t) => {
  const cc = compiler();
  if (!cc) {
    const msg = 'evalRanges.test.ts: no C compiler (gcc/cc), so the ctypes libroctx64 path of eval.py is NOT tested';
    console.error(msg);
    t.skip(msg);
    return;
  }
  const lib = path.join(work, 'lib');
  spawnSync('mkdir', ['-p', lib]);
  writeFileSync(path.join(lib, 'roctx.c'), ROCTX_C);
  const build = spawnSync(cc, ['-shared', '-fPIC', '-o', path.join(lib, 'libroctx64.so'), path.join(lib, 'roctx.c')], {
    encoding: 'utf8',
  });
  assert.equal(build.status, 0, build.stderr);
  for (const mode of ['profile', 'benchmark']) {
    const log = path.join(work, `${mode}.roctx.log`);
    const r = await runEval(mode, { LD_LIBRARY_PATH: lib, KR_TEST_ROCTX_LOG: log });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.keys.get('check'), 'pass');
    assert.ok(existsSync(log), `${mode}: the library was loaded and called`);
    const calls = readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t'));
    assert.deepEqual(
      calls.map(([what, , name]) => [what, name]),
      [
        ['push', `benchmark 0: ${CASES[0]}`],
        ['pop', ''],
        ['push', `benchmark 1: ${CASES[1]}`],
        ['pop', ''],
      ],
      mode,
    );
    assert.equal(new Set(calls.map((c) => c[1])).size, 1, 'all on one thread');
  }
});
