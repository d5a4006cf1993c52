import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ResultEvent, UserSubmissionDetail } from '../../../src/core/protocol/api';
import {
  decodeReports,
  decodeResultReports,
  describeJobStatus,
  describeSubmissionStatus,
  filterNoise,
  filterResultNoise,
  formatScore,
  labelResults,
  rankedScoreOfResult,
  rankedScoreOfSubmission,
  resultFromSubmission,
  scoreFromResultValues,
  submissionFinished,
  submissionPassed,
} from '../../../src/core/gpumode/index';
import { evalRun } from '../../support/evalResults';

// Written by Python as upstream's evaluator does: base64.b64encode(report.encode("utf-8"), b"+*")
const REAL_REPORT =
  'S2VybmVsIHJlcG9ydDogZ2VtbV9hOHc4IDEwIGNhbGxzLCAxMjMuNCB1cyB0b3RhbApJcyBpdCBmYXN0Pz8*ID4+PiAxMi4zIMK1cy9jYWxsIOKckwo=';
const REAL_TEXT = 'Kernel report: gemm_a8w8 10 calls, 123.4 us total\nIs it fast??? >>> 12.3 µs/call ✓\n';

test('`+*` profile reports decode to the text the evaluator wrote (a standard decoder would not)', () => {
  assert.ok(REAL_REPORT.includes('*') && REAL_REPORT.includes('+'));
  const values = {
    'benchmark-count': '2',
    'benchmark.0.spec': 'm: 1024; k: 7168',
    'benchmark.0.report': REAL_REPORT,
    'benchmark.1.report': 'n0t~base64',
  };
  const [ok, bad] = decodeReports('profile.0', values);
  assert.equal(ok?.text, REAL_TEXT);
  assert.equal(ok?.spec, 'm: 1024; k: 7168');
  assert.equal(bad?.text, undefined);
  assert.match(bad?.error ?? '', /not a \+\* base64 report/);
  assert.notEqual(Buffer.from(REAL_REPORT, 'base64').toString('utf8'), REAL_TEXT);
});

const means = (a: number, b: number) => ({
  'benchmark-count': '2',
  'benchmark.0.mean': String(a),
  'benchmark.1.mean': String(b),
});

test('ranked score: last, mean, geometric mean of the benchmark means (ns → s)', () => {
  assert.equal(scoreFromResultValues(means(10_000, 40_000), 'last'), 40e-6);
  assert.ok(Math.abs((scoreFromResultValues(means(10_000, 40_000), 'mean') as number) - 25e-6) < 1e-15);
  assert.ok(Math.abs((scoreFromResultValues(means(10_000, 40_000), 'geom') as number) - 20e-6) < 1e-15);
  assert.equal(scoreFromResultValues(means(10_000, 40_000)), 40e-6, 'upstream default is last');
  assert.equal(scoreFromResultValues({ 'benchmark-count': '1', 'benchmark.0.mean': 'nan' }), null);
  assert.equal(formatScore(20e-6), '20.000 µs');
  assert.equal(formatScore(4.21e-3), '4.210 ms');
  assert.equal(formatScore(812e-9), '812 ns');
});

function detail(over: Partial<UserSubmissionDetail> = {}): UserSubmissionDetail {
  const run = (mode: string, secret: boolean, score: number | null, passed = true) => ({
    start_time: '2026-01-01T00:00:00Z',
    end_time: '2026-01-01T00:00:02.5Z',
    mode,
    secret,
    runner: 'MI300',
    score,
    passed,
    result:
      mode === 'test'
        ? { check: 'pass', 'test-count': '1', 'test.0.spec': 'seed: 1', 'test.0.status': 'pass' }
        : means(10_000, 40_000),
  });
  return {
    id: 7,
    leaderboard_name: 'amd-fp8-mm',
    file_name: 'submission.py',
    submission_time: '2026-01-01T00:00:00Z',
    done: true,
    code: 'print(1)\n',
    runs: [
      run('test', false, null),
      run('leaderboard', false, 30e-6),
      run('test', true, null),
      run('leaderboard', true, 31e-6),
    ],
    job: { status: 'succeeded', error: null, last_heartbeat: null },
    ...over,
  };
}

test("a background submission's score is its public ranked run's, never the secret copy's", () => {
  const d = detail();
  assert.deepEqual(rankedScoreOfSubmission(d), { seconds: 30e-6, source: 'run', rankingBy: 'last', text: '30.000 µs' });
  const noScore = detail({ runs: d.runs.map((r) => ({ ...r, score: null })) });
  assert.equal(rankedScoreOfSubmission(noScore, 'geom')?.source, 'computed');
  assert.equal(rankedScoreOfSubmission(detail({ runs: d.runs.filter((r) => r.mode === 'test') })), null);
  const result = resultFromSubmission(d);
  assert.equal(result.results.length, 2);
  assert.deepEqual(Object.keys(result.results[0]!.runs).sort(), ['leaderboard', 'test']);
  assert.equal(result.results[0]!.runs.leaderboard?.run?.duration, 2.5);
  assert.deepEqual(
    labelResults(result).map((r) => r.secret),
    [false, true],
  );
  assert.equal(rankedScoreOfResult(result, 'geom')?.text, '20.000 µs');
  assert.equal(submissionPassed(d), true);
});

test('job states in words: hacked and timed_out are terminal failures that say why', () => {
  for (const s of ['initial', 'pending', 'running']) assert.equal(describeJobStatus(s).terminal, false);
  assert.deepEqual(describeJobStatus('succeeded'), {
    status: 'succeeded',
    terminal: true,
    ok: true,
    label: 'succeeded',
    explanation: '',
  });
  const hacked = describeJobStatus('hacked');
  assert.equal(hacked.label, 'flagged as hacked');
  assert.equal(hacked.ok, false);
  assert.match(hacked.explanation, /not ranked/);
  assert.match(describeJobStatus('timed_out').explanation, /time limit/);
  const timedOut = detail({ done: true, job: { status: 'timed_out', error: 'ran past 420 s', last_heartbeat: null } });
  assert.equal(submissionFinished(timedOut), true);
  assert.equal(submissionPassed(timedOut), false);
  assert.equal(resultFromSubmission(timedOut).results[0]?.error, 'ran past 420 s');
  assert.equal(
    submissionFinished(detail({ done: false, job: { status: 'hacked', error: null, last_heartbeat: null } })),
    true,
  );
  assert.equal(
    submissionFinished(detail({ done: false, job: { status: 'running', error: null, last_heartbeat: null } })),
    false,
  );
});

test("the profiler's noise leaves stdout/stderr; the program's lines and fatal errors stay", () => {
  const stderr = '[329.254] perfetto.cc:33197       Producer connected\nmy line\n[rocprofv3] Fatal error: no GPU\nlast';
  assert.deepEqual(filterNoise(stderr), { text: 'my line\n[rocprofv3] Fatal error: no GPU\nlast', hidden: 1 });
  const result: ResultEvent = {
    status: 'success',
    reports: [],
    results: [
      {
        success: true,
        error: '',
        system: { gpu: 'MI300', cpu: '', platform: '', torch: '' },
        runs: {
          'profile.0': evalRun({
            command: '',
            stdout: 'out\n',
            stderr,
            result: { 'benchmark-count': '1', 'benchmark.0.report': REAL_REPORT },
          }),
        },
      },
    ],
  };
  const filtered = filterResultNoise(result);
  assert.equal(filtered.hidden, 1);
  assert.equal(
    filtered.result.results[0]?.runs['profile.0']?.run?.stderr,
    'my line\n[rocprofv3] Fatal error: no GPU\nlast',
  );
  assert.equal(result.results[0]?.runs['profile.0']?.run?.stderr, stderr, 'the input is not changed');
  assert.equal(decodeResultReports(result)[0]?.text, REAL_TEXT);
});

test('no job status is "status unknown", never a guess; a submission without one is judged by `done`', () => {
  for (const s of [null, undefined, '', '  '])
    assert.deepEqual(describeJobStatus(s), {
      status: 'unknown',
      terminal: false,
      ok: false,
      label: 'status unknown',
      explanation: '',
    });
  assert.equal(describeJobStatus('Running').label, 'running');
  assert.equal(
    describeJobStatus('queued_for_gpu').label,
    'queued for gpu',
    'statuses this client does not know are shown as they are',
  );
  const d = detail();
  assert.equal(describeSubmissionStatus(d).label, 'succeeded');
  assert.deepEqual(describeSubmissionStatus({ ...d, job: null }), {
    status: 'done',
    terminal: true,
    ok: true,
    label: 'done',
    explanation: '',
  });
  assert.equal(
    describeSubmissionStatus({ ...d, job: { status: null, error: null, last_heartbeat: null } }).label,
    'done',
  );
  assert.equal(describeSubmissionStatus({ ...d, job: null, done: false }).label, 'status unknown');
  const empty = describeSubmissionStatus({ ...d, job: null, runs: [] });
  assert.equal(empty.ok, false);
  assert.match(empty.explanation, /without recording any run/);
  assert.match(
    resultFromSubmission({ ...d, job: null, runs: [] }).results[0]?.error ?? '',
    /without recording any run/,
  );
});

test('a string score (as GPU MODE sends it) is the ranked score; a non-numeric one falls back to the timings', () => {
  const d = detail();
  const withString = {
    runs: d.runs.map((r) => ({ ...r, score: (r.score === null ? null : String(r.score)) as unknown as number | null })),
  };
  assert.equal(rankedScoreOfSubmission(withString)?.text, '30.000 µs');
  const garbage = { runs: d.runs.map((r) => ({ ...r, score: 'n/a' as unknown as number | null })) };
  assert.equal(rankedScoreOfSubmission(garbage, 'geom')?.source, 'computed');
});
