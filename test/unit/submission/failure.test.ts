// Why a result failed, decided once (src/core/submission/failure.ts): the run that failed, its status as the CLI's
// headline shows it, the reason and the last lines, for each kind; a result that passed has none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EvalResult, ResultEvent } from '../../../src/core/protocol/api';
import { resultFailure, runFailure, tailLines } from '../../../src/core/submission/failure';
import { evalRun as run } from '../../support/evalResults';

test("a build that failed: its command, exit code and the compiler's last lines", () => {
  const f = runFailure('test', {
    start: '',
    end: '',
    run: null,
    profile: null,
    compilation: {
      nvcc_found: true,
      nvcc_version: '',
      success: false,
      command: 'hipcc -O3 -o program k.hip',
      stdout: '',
      stderr: 'k.hip:1:1: error: nope\n1 error generated.\n',
      exit_code: 1,
    },
  })!;
  assert.deepEqual(f, {
    kind: 'build',
    run: 'test',
    status: 'compilation failed',
    reason: 'the build failed (exit code 1)',
    command: 'hipcc -O3 -o program k.hip',
    lines: ['k.hip:1:1: error: nope', '1 error generated.'],
  });
});

test('a crash, a timeout and a wrong answer each say why', () => {
  const crash = runFailure(
    'test',
    run({ success: false, passed: false, exit_code: 3, stderr: 'Traceback\nValueError: x\n' }),
  )!;
  assert.deepEqual(
    [crash.kind, crash.status, crash.reason, crash.lines.at(-1)],
    ['crash', 'failed (exit code 3)', 'the program failed (exit code 3)', 'ValueError: x'],
  );
  const slow = runFailure(
    'benchmark',
    run({
      success: false,
      passed: false,
      exit_code: 114,
      stderr: 'started\n[kernel-runner] timed out after 2 s: sent SIGINT\n',
    }),
  )!;
  assert.deepEqual([slow.kind, slow.reason], ['timeout', 'timed out after 2 s: sent SIGINT']);
  const wrong = runFailure(
    'test',
    run({
      passed: false,
      result: {
        'test-count': '2',
        'test.0.status': 'pass',
        'test.1.status': 'fail',
        'test.1.spec': 'size: 8',
        'test.1.error': 'mismatch at 3',
      },
    }),
  )!;
  assert.deepEqual(
    [wrong.kind, wrong.status, wrong.reason, wrong.lines],
    ['wrong-answer', 'failed', '1 of 2 tests failed', ['size: 8 — mismatch at 3']],
  );
  assert.equal(runFailure('test', run({})), null);
});

test("a result's first failure in the service's order; none when it passed", () => {
  const result = (runs: Record<string, EvalResult>): ResultEvent =>
    ({
      results: [{ success: true, error: '', system: { gpu: '', cpu: '', platform: '', torch: '' }, runs }],
      reports: [],
    }) as unknown as ResultEvent;
  const failed = run({ success: false, passed: false, exit_code: 1 });
  assert.equal(resultFailure(result({ benchmark: failed, test: run({}) }))!.run, 'benchmark');
  assert.equal(resultFailure(result({ benchmark: failed, test: failed }))!.run, 'test');
  assert.equal(resultFailure(result({ test: run({}) })), null);
});

test('tail lines: the last lines, long ones cut', () => {
  assert.deepEqual(tailLines('a\nb\nc\n\n', 2), ['b', 'c']);
  assert.deepEqual(tailLines(''), []);
  assert.equal(tailLines('x'.repeat(1000))[0]!.length, 401);
});
