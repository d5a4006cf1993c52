// The built-in `script` leaderboard: the submitted file run as a program.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { outputEventSchema, resultEventSchema } from '../../../src/core/protocol/api';
import { repoRoot, startTestRunner, submitAndRead, tempDir, terminal, type TestRunner } from './helpers';

describe('script leaderboard', () => {
  let runner: TestRunner;
  let bin: string;
  before(async () => {
    // a PATH holding python3 only: no ROCm/CUDA compilers, whatever the machine has
    bin = tempDir('kr-bin-');
    // the interpreter itself (a pyenv shim would need bash and pyenv on PATH)
    const python = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
    symlinkSync(python, path.join(bin, 'python3'));
    runner = await startTestRunner({ env: { ...process.env, PATH: bin } });
  });
  after(async () => {
    await runner.dispose();
    rmSync(bin, { recursive: true, force: true });
  });

  test('a .py file runs with python3; its output streams live in order and lands in the result', async () => {
    const source = readFileSync(path.join(repoRoot, 'examples/scripts/numbered_lines.py'), 'utf8');
    const events = await submitAndRead(`${runner.url}/script/CPU/test`, { fileName: 'numbered_lines.py', content: source, extensions: true });
    const lines = events.filter((e) => e.event === 'output').map((e) => outputEventSchema.parse(e.data));
    const expected: string[] = [];
    for (let n = 1; n <= 1000; n++) expected.push(`${n % 2 ? 'stdout' : 'stderr'}:${n % 2 ? 'out' : 'err'} ${n}`);
    expected.push('stdout:finished 1000');
    const got = lines.map((l) => `${l.stream}:${l.text}`);
    assert.deepEqual(got.filter((l) => l.startsWith('stdout')), expected.filter((l) => l.startsWith('stdout')));
    assert.deepEqual(got.filter((l) => l.startsWith('stderr')), expected.filter((l) => l.startsWith('stderr')));
    const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!.run!;
    assert.equal(run.passed, true);
    assert.equal(run.exit_code, 0);
    assert.match(run.stdout, /^out 1\nout 3\n/);
    assert.match(run.stdout, /finished 1000\n$/);
  });

  test('a failing script: passed false, exit code and stderr kept', async () => {
    const events = await submitAndRead(`${runner.url}/script/CPU/benchmark`, { fileName: 'fail.py', content: 'import sys\nprint("about to fail", file=sys.stderr)\nsys.exit(3)\n' });
    const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.benchmark!.run!;
    assert.equal(run.passed, false);
    assert.equal(run.success, false);
    assert.equal(run.exit_code, 3);
    assert.equal(run.stderr, 'about to fail\n');
  });

  test('huge output: the result keeps head and tail and says how much was left out', async () => {
    const source = 'for i in range(200000):\n    print(f"line {i:06d} " + "x" * 40)\n';
    const events = await submitAndRead(`${runner.url}/script/CPU/test`, { fileName: 'big.py', content: source });
    const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!.run!;
    assert.match(run.stdout, /^line 000000 x+\n/);
    assert.match(run.stdout, /line 199999 x+\n$/);
    const omitted = /\[\.\.\. (\d+) bytes omitted \.\.\.\]/.exec(run.stdout);
    assert.ok(omitted, 'omission note');
    assert.ok(Number(omitted[1]) > 9_000_000);
    assert.ok(Buffer.byteLength(run.stdout) < 20_000);
  });

  for (const [file, compiler] of [['vector_add.hip', 'hipcc'], ['kernel.cu', 'nvcc'], ['main.cpp', 'hipcc']] as const) {
    test(`${file} without ${compiler}: a clear compile error, not a crash`, async () => {
      const events = await submitAndRead(`${runner.url}/script/CPU/test`, { fileName: file, content: 'int main() { return 0; }\n' });
      const result = resultEventSchema.parse(terminal(events).data);
      const ev = result.results[0]!.runs.test!;
      assert.equal(ev.run, null);
      assert.equal(ev.compilation?.success, false);
      assert.equal(ev.compilation?.nvcc_found, false);
      assert.match(ev.compilation!.stderr, new RegExp(`${compiler} was not found`));
      assert.match(ev.compilation!.stderr, /--server URL/);
      assert.match(result.reports[0]!, /compilation failed/);
      const rec = await (await fetch(`${runner.url}/user/submissions?limit=1`)).json() as Array<{ done: boolean }>;
      assert.equal(rec[0]?.done, true);
    });
  }
});
