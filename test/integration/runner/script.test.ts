// The built-in `script` leaderboard: the submitted file run as a program.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { expandOutput, outputEventSchema, resultEventSchema } from '../../../src/core/protocol/api';
import { pythonOnlyBin, repoRoot, startTestRunner, submitAndRead, terminal, type TestRunner } from './helpers';

describe('script leaderboard', () => {
  let runner: TestRunner;
  let bin: string;
  before(async () => {
    bin = pythonOnlyBin();
    runner = await startTestRunner({ env: { ...process.env, PATH: bin } });
  });
  after(async () => {
    await runner.dispose();
    rmSync(bin, { recursive: true, force: true });
  });

  test('a .py file runs with python3; its output streams live in order and lands in the result', async () => {
    const source = readFileSync(path.join(repoRoot, 'examples/scripts/numbered_lines.py'), 'utf8');
    const events = await submitAndRead(`${runner.url}/script/CPU/test`, {
      fileName: 'numbered_lines.py',
      content: source,
      extensions: true,
    });
    const lines = events
      .filter((e) => e.event === 'output')
      .flatMap((e) => expandOutput(outputEventSchema.parse(e.data)));
    const expected: string[] = [];
    for (let n = 1; n <= 1000; n++) expected.push(`${n % 2 ? 'stdout' : 'stderr'}:${n % 2 ? 'out' : 'err'} ${n}`);
    expected.push('stdout:finished 1000');
    const got = lines.map((l) => `${l.stream}:${l.text}`);
    assert.deepEqual(
      got.filter((l) => l.startsWith('stdout')),
      expected.filter((l) => l.startsWith('stdout')),
    );
    assert.deepEqual(
      got.filter((l) => l.startsWith('stderr')),
      expected.filter((l) => l.startsWith('stderr')),
    );
    const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!.run!;
    assert.equal(run.passed, true);
    assert.equal(run.exit_code, 0);
    assert.match(run.stdout, /^out 1\nout 3\n/);
    assert.match(run.stdout, /finished 1000\n$/);
  });

  test('a failing script: passed false, exit code and stderr kept', async () => {
    const events = await submitAndRead(`${runner.url}/script/CPU/benchmark`, {
      fileName: 'fail.py',
      content: 'import sys\nprint("about to fail", file=sys.stderr)\nsys.exit(3)\n',
    });
    const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.benchmark!.run!;
    assert.equal(run.passed, false);
    assert.equal(run.success, false);
    assert.equal(run.exit_code, 3);
    assert.equal(run.stderr, 'about to fail\n');
  });

  test('huge output (50 MB of lines, a 3 MB line without end): head and tail kept, the rest counted exactly', async () => {
    // stdout: 500,000 lines of exactly 100 bytes; stderr: one 3,000,000-byte line with no newline
    const source = [
      'import sys',
      'out = sys.stdout',
      'for block in range(500):',
      '    out.write("".join(f"{i:07d}" + "y" * 92 + "\\n" for i in range(block * 1000, block * 1000 + 1000)))',
      'out.flush()',
      'sys.stderr.write("E" * 3000000)',
      '',
    ].join('\n');
    const events = await submitAndRead(`${runner.url}/script/CPU/test`, { fileName: 'big.py', content: source });
    const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!.run!;
    assert.equal(run.exit_code, 0);
    const split = (text: string) => {
      const m = /\[\.\.\. (\d+) bytes omitted \.\.\.\]\n/.exec(text);
      assert.ok(m, `omission note in ${text.slice(0, 200)}`);
      return { head: text.slice(0, m.index), omitted: Number(m[1]), tail: text.slice(m.index + m[0].length) };
    };
    const out = split(run.stdout);
    assert.match(out.head, /^0000000y{92}\n0000001y{92}\n/);
    assert.match(out.tail, /\n0499999y{92}\n$/);
    assert.equal(
      Buffer.byteLength(out.head) + out.omitted + Buffer.byteLength(out.tail),
      50_000_000,
      'kept + omitted = everything printed',
    );
    assert.ok(Buffer.byteLength(run.stdout) <= 16 * 1024 + 100, 'the default cap of 16 KiB holds');
    const err = split(run.stderr.replace(/\n?\[kernel-runner\][^\n]*\n$/, ''));
    assert.match(err.head, /^E+\n?$/);
    assert.match(err.tail, /^E+$/);
    assert.equal(err.head.replace('\n', '').length + err.omitted + err.tail.length, 3_000_000);
  });

  test('bytes that are not UTF-8: replaced, never a broken stream or result', async () => {
    const source =
      'import sys\nsys.stdout.buffer.write(b"ok \\xff\\xfe end\\n\\xc3")\nsys.stdout.flush()\nsys.stderr.buffer.write(b"\\x00nul\\n")\n';
    const events = await submitAndRead(`${runner.url}/script/CPU/test`, {
      fileName: 'bytes.py',
      content: source,
      extensions: true,
    });
    const out = events
      .filter((e) => e.event === 'output')
      .flatMap((e) => expandOutput(outputEventSchema.parse(e.data)));
    assert.deepEqual(
      out.map((o) => `${o.stream}:${o.text}`).sort(),
      ['stderr:\u0000nul', 'stdout:ok \ufffd\ufffd end', 'stdout:\ufffd'].sort(),
    );
    const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!.run!;
    assert.equal(run.passed, true);
    assert.equal(run.stdout, 'ok \ufffd\ufffd end\n\ufffd');
  });

  test('a program killed by a signal: a clear result naming the signal', async () => {
    for (const [sig, num, hint] of [
      ['SIGKILL', 9, /cannot be caught/],
      ['SIGSEGV', 11, /segmentation fault/],
    ] as const) {
      const source = `import os, signal\nprint("before the signal", flush=True)\nos.kill(os.getpid(), signal.${sig})\nprint("never")\n`;
      const events = await submitAndRead(`${runner.url}/script/CPU/test`, { fileName: 'die.py', content: source });
      const result = resultEventSchema.parse(terminal(events).data);
      const run = result.results[0]!.runs.test!.run!;
      assert.equal(run.passed, false);
      assert.equal(run.success, false);
      assert.equal(run.exit_code, 128 + num);
      assert.equal(run.stdout, 'before the signal\n');
      assert.match(
        run.stderr,
        new RegExp(`the program was killed by signal ${sig} \\(${num}; exit code ${128 + num}\\)`),
      );
      assert.match(run.stderr, hint);
      assert.match(result.reports[0]!, new RegExp(`killed by signal ${sig}`), 'the report says it too');
    }
  });

  for (const [file, compiler] of [
    ['vector_add.hip', 'hipcc'],
    ['kernel.cu', 'nvcc'],
    ['main.cpp', 'hipcc'],
  ] as const) {
    test(`${file} without ${compiler}: a clear compile error, not a crash`, async () => {
      const events = await submitAndRead(`${runner.url}/script/CPU/test`, {
        fileName: file,
        content: 'int main() { return 0; }\n',
      });
      const result = resultEventSchema.parse(terminal(events).data);
      const ev = result.results[0]!.runs.test!;
      assert.equal(ev.run, null);
      assert.equal(ev.compilation?.success, false);
      assert.equal(ev.compilation?.nvcc_found, false);
      assert.match(ev.compilation!.stderr, new RegExp(`${compiler} was not found`));
      assert.match(ev.compilation!.stderr, /--server URL/);
      assert.match(result.reports[0]!, /compilation failed/);
      const rec = (await (await fetch(`${runner.url}/user/submissions?limit=1`)).json()) as Array<{ done: boolean }>;
      assert.equal(rec[0]?.done, true);
    });
  }
});
