import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EvalResult, ResultEvent } from '../../../src/core/protocol/api';
import { encodePopcornBase64 } from '../../../src/core/reportEncoding';
import { renderErrorEvent, renderResult } from '../../../src/cli/render/submissionResult';
import { resultPassed } from '../../../src/core/submission/resultMaps';

const system = { gpu: 'CPU', cpu: 'x', platform: 'Linux', torch: '' };

function run(
  result: Record<string, string>,
  over: Partial<NonNullable<EvalResult['run']>> = {},
  profile: EvalResult['profile'] = null,
): EvalResult {
  return {
    start: '2026-01-01T00:00:00Z',
    end: '2026-01-01T00:00:01Z',
    compilation: null,
    run: {
      success: true,
      passed: true,
      command: 'python3 eval.py',
      stdout: 'out\n',
      stderr: '',
      exit_code: 0,
      duration: 1.25,
      result,
      ...over,
    },
    profile,
  };
}

function event(runs: Record<string, EvalResult>, success = true): ResultEvent {
  return { status: 'success', results: [{ success, error: '', system, runs }], reports: [] };
}

test('tests: passes with their messages, failures with their errors', () => {
  const text = renderResult(
    event({
      test: run(
        {
          'test-count': '2',
          'test.0.spec': 'size: 1',
          'test.0.status': 'pass',
          'test.0.message': 'max abs error 0',
          'test.1.spec': 'size: 2',
          'test.1.status': 'fail',
          'test.1.error': 'mismatch at 0',
        },
        { passed: false },
      ),
    }),
    { liveOutputShown: true },
  );
  assert.match(text, /^test: failed · 1\.25 s$/m);
  assert.match(text, /^ {2}✓ size: 1 — max abs error 0$/m);
  assert.match(text, /^ {2}✗ size: 2 — mismatch at 0$/m);
});

test('benchmarks: nanoseconds shown with units; run order test, benchmark, leaderboard, profile.N', () => {
  const bench = {
    'benchmark-count': '1',
    'benchmark.0.spec': 'n: 8',
    'benchmark.0.mean': '1534000.5',
    'benchmark.0.err': '2100',
    'benchmark.0.best': '900',
    'benchmark.0.worst': '2500000000',
    'benchmark.0.runs': '12',
  };
  const text = renderResult(
    event({
      leaderboard: run(bench),
      'profile.10': run({}),
      'profile.2': run({}),
      test: run({}),
      benchmark: run(bench),
    }),
    { liveOutputShown: true },
  );
  assert.match(text, /n: 8: mean 1\.53 ms ± 2\.10 µs · best 900 ns, worst 2\.500 s · 12 runs/);
  assert.deepEqual(
    [...text.matchAll(/^(\S+): passed/gm)].map((m) => m[1]),
    ['test', 'benchmark', 'leaderboard', 'profile.2', 'profile.10'],
  );
});

test('profile reports are decoded from the +* alphabet; output is repeated only when it was not live', () => {
  const report = 'line one ???>>>\nline two';
  const values = {
    'benchmark-count': '1',
    'benchmark.0.spec': 'k: 1',
    'benchmark.0.report': encodePopcornBase64(report),
  };
  const withLive = renderResult(event({ 'profile.0': run(values, { stdout: 'program said hi\n' }) }), {
    liveOutputShown: true,
  });
  assert.match(withLive, /report \(k: 1\):\n {4}line one \?\?\?>>>\n {4}line two/);
  assert.doesNotMatch(withLive, /program said hi/);
  const upstream = renderResult(event({ 'profile.0': run(values, { stdout: 'program said hi\n' }) }), {
    liveOutputShown: false,
  });
  assert.match(upstream, /stdout:\n {4}program said hi/);
});

test('passed only when every run of every result passed', () => {
  assert.equal(resultPassed(event({ test: run({}) })), true);
  assert.equal(resultPassed(event({ test: run({}), benchmark: run({}, { passed: false }) })), false);
  assert.equal(resultPassed(event({ test: run({}, { success: false, exit_code: 3 }) })), false);
  assert.equal(resultPassed(event({ test: run({}) }, false)), false);
  assert.equal(resultPassed({ status: 'success', results: [], reports: [] }), false);
  assert.match(
    renderResult(event({ test: run({}, { success: false, exit_code: 3 }) })),
    /test: failed \(exit code 3\)/,
  );
});

test('an error event names the detail and status', () => {
  assert.equal(
    renderErrorEvent({ status: 'error', detail: 'Unknown leaderboard', status_code: 404 }),
    'submission failed (status 404): Unknown leaderboard\n',
  );
});
