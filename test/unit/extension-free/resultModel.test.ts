import { describe, it } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { summarizePath } from '../../../src/trace/index';
import { writeMultiRankRun } from '../trace/multiRankRun';
import assert from 'node:assert/strict';
import type { EvalResult, FullResult, ResultEvent } from '../../../src/core/protocol/api';
import { encodePopcornBase64 } from '../../../src/core/reportEncoding';
import {
  buildResultView,
  buildSubmissionView,
  outcomeSummary,
  resultLines,
  resultOutputLines,
  viewOfOutcome,
} from '../../../src/extension/resultModel';
import { benchmarksOf, testsOf } from '../../../src/core/submission/resultMaps';
import type { UserSubmissionDetail } from '../../../src/core/protocol/api';
import type { TraceSummary } from '../../../src/core/protocol/traceSummary';
import type { SubmissionOutcome } from '../../../src/core/submission/events';
import { formatBytes, formatMeanErr, formatNs, formatPercent, formatSeconds } from '../../../src/webview/format';

const ctx = {
  title: 'Tests: submission.py',
  fileName: 'submission.py',
  leaderboard: 'vectoradd_py',
  gpu: 'MI300',
  mode: 'benchmark',
  target: 'embedded runner',
  startedAt: '2026-01-01T00:00:00.000Z',
  elapsedS: 2.5,
  hiddenNoiseLines: 4,
};

function evalResult(result: Record<string, string>, over: Partial<NonNullable<EvalResult['run']>> = {}): EvalResult {
  return {
    start: '2026-01-01T00:00:00Z',
    end: '2026-01-01T00:00:02Z',
    compilation: null,
    run: {
      success: true,
      passed: true,
      command: 'python3 eval.py benchmark /tmp/x',
      stdout: '',
      stderr: '',
      exit_code: 0,
      duration: 2.405536843,
      result,
      ...over,
    },
    profile: null,
  };
}

function full(runs: Record<string, EvalResult>, over: Partial<FullResult> = {}): FullResult {
  return {
    success: true,
    error: '',
    system: { gpu: 'AMD Instinct MI300X', cpu: 'AMD EPYC', platform: 'Linux', torch: '2.6.0', device_count: 1 },
    runs,
    ...over,
  };
}

const event = (...results: FullResult[]): ResultEvent => ({ status: 'success', results, reports: [] });
const opts = { perfettoMaxBytes: 1000 };

describe('result model', () => {
  it('reads tests and benchmarks from the evaluator key/value map, in index order, with units in ns', () => {
    const map = {
      check: 'pass',
      'test-count': '2',
      'test.0.spec': 'size: 128; seed: 1',
      'test.0.status': 'pass',
      'test.1.spec': 'size: 256; seed: 2',
      'test.1.status': 'fail',
      'test.1.error': 'mismatch at index 3',
      'benchmark-count': '1',
      'benchmark.0.spec': 'size: 1024',
      'benchmark.0.runs': '100',
      'benchmark.0.mean': '12345.6',
      'benchmark.0.std': '10',
      'benchmark.0.err': '1.5',
      'benchmark.0.best': '12000',
      'benchmark.0.worst': '13100',
    };
    assert.deepEqual(testsOf(map), [
      { index: 0, spec: 'size: 128; seed: 1', status: 'pass', passed: true },
      { index: 1, spec: 'size: 256; seed: 2', status: 'fail', passed: false, error: 'mismatch at index 3' },
    ]);
    assert.deepEqual(benchmarksOf(map), [
      {
        index: 0,
        spec: 'size: 1024',
        runs: 100,
        meanNs: 12345.6,
        stdNs: 10,
        errNs: 1.5,
        bestNs: 12000,
        worstNs: 13100,
      },
    ]);
  });

  it('falls back to the indexes present when a count is missing', () => {
    assert.deepEqual(
      testsOf({ 'test.2.status': 'pass', 'test.0.status': 'fail' }).map((t) => t.index),
      [0, 2],
    );
  });

  it('builds a passing view with system info, channel lines and a summary', () => {
    const view = buildResultView(
      ctx,
      {
        kind: 'result',
        result: event(
          full({
            benchmark: evalResult({
              'benchmark-count': '1',
              'benchmark.0.spec': 'n: 1',
              'benchmark.0.mean': '2500',
              'benchmark.0.err': '12',
              'benchmark.0.best': '2400',
              'benchmark.0.worst': '2700',
              'benchmark.0.runs': '10',
            }),
          }),
        ),
      },
      opts,
    );
    assert.equal(view.outcome, 'success');
    assert.equal(view.system?.gpu, 'AMD Instinct MI300X');
    assert.equal(view.system?.device_count, '1');
    assert.deepEqual(resultLines(view), [
      '▸ benchmark: passed · exit 0 · 2.41 s',
      '  ◷ benchmark 0  n: 1  mean 2.50 µs ± 12.0 ns  best 2.40 µs  worst 2.70 µs  10 runs',
    ]);
    assert.equal(outcomeSummary(view), 'passed: submission.py · benchmark · 2.50 s');
  });

  it('marks failures with the exit code meaning and keeps stderr', () => {
    const run = evalResult(
      { 'test-count': '1', 'test.0.status': 'fail', 'test.0.spec': 's', 'test.0.message': 'wrong' },
      { passed: false, exit_code: 112, stderr: 'a\nb\nTraceback: boom' },
    );
    const view = buildResultView(ctx, { kind: 'result', result: event(full({ test: run }, { success: true })) }, opts);
    assert.equal(view.outcome, 'failure');
    assert.equal(view.runs[0]?.exitMeaning, 'validation failed');
    assert.equal(view.runs[0]?.stderrTail, 'a\nb\nTraceback: boom');
    assert.deepEqual(resultLines(view), [
      '▸ test: failed, tests 0/1 passed · exit 112 (validation failed) · 2.41 s',
      '  ✘ test 0  s  fail: wrong',
    ]);
  });

  it('turns error events, cancellations and client failures into views', () => {
    const err = buildResultView(
      ctx,
      { kind: 'error', error: { status: 'error', detail: 'Unknown leaderboard x', status_code: 404 } },
      opts,
    );
    assert.equal(err.outcome, 'error');
    assert.equal(err.error, 'Unknown leaderboard x');
    assert.equal(buildResultView(ctx, { kind: 'cancelled', detail: 'Cancelled: job 3' }, opts).outcome, 'cancelled');
    assert.equal(buildResultView(ctx, { kind: 'failed', detail: 'Cannot reach' }, opts).error, 'Cannot reach');
  });

  it('profiles: download link, inline size against the Perfetto limit, decoded reports, summary validation', () => {
    const inline = Buffer.alloc(3000).toString('base64');
    const run = evalResult({ 'benchmark.0.report': encodePopcornBase64('kernel table\nrow 1') });
    const profiled: EvalResult = {
      ...run,
      profile: {
        profiler: 'rocPROF',
        trace: inline,
        download_url: null,
        summary: { not: 'a summary' } as unknown as NonNullable<NonNullable<EvalResult['profile']>['summary']>,
      },
    };
    const view = buildResultView(
      ctx,
      { kind: 'result', result: event(full({ 'profile.0': profiled })) },
      {
        perfettoMaxBytes: 1000,
        profileExtras: (k) => (k === 'profile.0' ? { localPath: '/tmp/p.zip' } : undefined),
      },
    );
    const p = view.profiles[0];
    assert.equal(p?.key, 'profile.0');
    assert.equal(p?.perfetto, 'too-large');
    assert.equal(p?.traceBytes, 3000);
    assert.equal(p?.localPath, '/tmp/p.zip');
    assert.equal(p?.summary, undefined);
    assert.match(p?.note ?? '', /cannot read/);
    assert.deepEqual(view.reports, ['profile.0 benchmark.0.report:\nkernel table\nrow 1']);
    const linked: EvalResult = {
      ...run,
      profile: { profiler: 'rocPROF', trace: '', download_url: 'http://127.0.0.1:1/jobs/1/artifacts/a.zip' },
    };
    const v2 = buildResultView(ctx, { kind: 'result', result: event(full({ 'profile.0': linked })) }, opts);
    assert.equal(v2.profiles[0]?.perfetto, 'available');
    assert.equal(v2.profiles[0]?.downloadUrl, 'http://127.0.0.1:1/jobs/1/artifacts/a.zip');
    assert.ok(resultLines(v2).includes('▸ full trace: http://127.0.0.1:1/jobs/1/artifacts/a.zip'));
  });
});

describe('a multi-GPU profile in the output channel', () => {
  it('names each GPU by its rank and gives the load-imbalance line', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kr-channel-ranks-'));
    try {
      writeMultiRankRun(dir, { manifest: true });
      const summary = await summarizePath(dir);
      const ranks = summary.ranks!.processes.filter((r) => r.rank !== null);
      assert.ok(ranks.length > 1);
      const run = evalResult({});
      const profiled: EvalResult = {
        ...run,
        profile: { profiler: 'rocPROF', trace: '', download_url: null, summary },
      };
      const lines = resultLines(
        buildResultView(ctx, { kind: 'result', result: event(full({ 'profile.0': profiled })) }, opts),
      );
      const head = lines.find((l) => l.startsWith('▸ profile.0:') && l.includes(' dispatches of ')) ?? '';
      for (const r of ranks)
        assert.ok(head.includes(`rank ${r.rank} (${r.agentIds[0]}) `), `${head}\nrank ${r.rank} on ${r.agentIds[0]}`);
      assert.ok(lines.includes(`  ⚖ load imbalance: ${summary.ranks!.imbalanceLine}`), lines.join('\n'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('result output (no live output: GPU MODE)', () => {
  it('prints stdout then stderr per run, with rocprof noise marked and ANSI colour stripped', () => {
    const stderr = [
      '\u001b[0;33mW20250710 21:33:25.713947 140172743004992 simple_timer.cpp:55] [rocprofv3] tool initialization :: 0.16 sec',
      '\u001b[m[320.801]       perfetto.cc:47304 Configured tracing session 1, #sources:1, duration:0 ms',
      'my own warning',
      '[rocprofv3] Fatal error: something real',
    ].join('\n');
    const lines = resultOutputLines(event(full({ test: evalResult({}, { stdout: 'out 1\nout 2\n', stderr }) })));
    assert.deepEqual(lines, [
      { text: 'test stdout:', noise: false, heading: true },
      { text: 'out 1', noise: false },
      { text: 'out 2', noise: false },
      { text: 'test stderr:', noise: false, heading: true },
      {
        text: 'W20250710 21:33:25.713947 140172743004992 simple_timer.cpp:55] [rocprofv3] tool initialization :: 0.16 sec',
        noise: true,
      },
      {
        text: '[320.801]       perfetto.cc:47304 Configured tracing session 1, #sources:1, duration:0 ms',
        noise: true,
      },
      { text: 'my own warning', noise: false },
      { text: '[rocprofv3] Fatal error: something real', noise: false },
    ]);
  });
});

describe('formatting', () => {
  it('picks the unit by magnitude with three significant digits', () => {
    assert.deepEqual([812, 12345.6, 4_560_000, 1_200_000_000, 0].map(formatNs), [
      '812 ns',
      '12.3 µs',
      '4.56 ms',
      '1.20 s',
      '0.00 ns',
    ]);
    assert.equal(formatNs(null), '–');
    assert.equal(formatSeconds(2.405536843), '2.41 s');
    assert.equal(formatMeanErr(2500, 12), '2.50 µs ± 12.0 ns');
    assert.equal(formatPercent(42.123), '42.1%');
    assert.equal(formatPercent(1.5), '1.50%');
    assert.deepEqual([0, 1023, 1024, 5 * 1024 * 1024].map(formatBytes), ['0 B', '1023 B', '1.0 KiB', '5.0 MiB']);
  });
});

describe('GPU MODE results', () => {
  const bench = (m0: number, m1: number) => ({
    'benchmark-count': '2',
    'benchmark.0.spec': 'size: 4096',
    'benchmark.0.mean': String(m0),
    'benchmark.1.spec': 'size: 16384',
    'benchmark.1.mean': String(m1),
  });

  it('a streamed leaderboard result: secret runs marked, ranked score from the public run, markdown reports, noise-free output', () => {
    const pub = full({
      test: evalResult({ check: 'pass', 'test-count': '1', 'test.0.spec': 's', 'test.0.status': 'pass' }),
      leaderboard: evalResult(bench(12_500, 48_000), {
        stderr:
          '[320.801]       perfetto.cc:47304 Configured tracing session 1, #sources:1, duration:0 ms\nreal warning\n',
      }),
    });
    const secret = full({ leaderboard: evalResult(bench(12_900, 47_100)) });
    const view = buildResultView(
      { ...ctx, mode: 'leaderboard' },
      { kind: 'result', result: { status: 'success', results: [pub, secret], reports: ['## Done\n\n**ok**', '  '] } },
      { ...opts, rankingBy: 'geom' },
    );
    assert.deepEqual(
      view.runs.map((r) => [r.key, r.secret === true]),
      [
        ['test', false],
        ['leaderboard', false],
        ['leaderboard', true],
      ],
    );
    assert.equal(view.rankedScore?.text, '24.495 µs');
    assert.equal(view.rankedScore?.source, 'computed');
    assert.deepEqual(view.markdownReports, ['## Done\n\n**ok**']);
    assert.deepEqual(view.outputs, [
      { key: 'leaderboard', stream: 'stderr', text: 'real warning', hiddenNoiseLines: 1 },
    ]);
    assert.ok(resultLines(view).includes('▸ ranked score: 24.495 µs (computed from the timings, ranking: geom)'));
  });

  it("a background submission: the service's scores, secret runs, no process facts, job states in words", () => {
    const detail: UserSubmissionDetail = {
      id: 4200,
      leaderboard_name: 'amd-fp8-mm',
      file_name: 'submission.py',
      submission_time: '2026-01-01T00:00:00Z',
      done: true,
      code: 'x',
      runs: [
        {
          start_time: '2026-01-01T00:00:00Z',
          end_time: '2026-01-01T00:00:03Z',
          mode: 'leaderboard',
          secret: false,
          runner: 'MI300',
          score: 2.4495e-5,
          passed: true,
          result: bench(12_500, 48_000),
        },
        {
          start_time: '2026-01-01T00:00:00Z',
          end_time: '2026-01-01T00:00:03Z',
          mode: 'leaderboard',
          secret: true,
          runner: 'MI300',
          score: 2.4649e-5,
          passed: true,
          result: bench(12_900, 47_100),
        },
      ],
      job: { status: 'succeeded', error: null, last_heartbeat: null },
    };
    const view = buildSubmissionView({ ...ctx, mode: 'leaderboard' }, detail, opts);
    assert.equal(view.outcome, 'success');
    assert.equal(view.submissionId, 4200);
    assert.deepEqual(view.rankedScore, { seconds: 2.4495e-5, text: '24.495 µs', source: 'run', rankingBy: 'last' });
    assert.deepEqual(
      view.runs.map((r) => [r.key, r.secret === true, r.scoreS, r.noProcessInfo, r.durationS]),
      [
        ['leaderboard', false, 2.4495e-5, true, 3],
        ['leaderboard', true, 2.4649e-5, true, 3],
      ],
    );
    const lines = resultLines(view);
    assert.ok(lines.includes('▸ leaderboard (secret run): passed · score 24.6 µs · 3.00 s'), lines.join('\n'));

    const hacked = buildSubmissionView(
      ctx,
      { ...detail, runs: [], job: { status: 'hacked', error: 'Submission flagged', last_heartbeat: null } },
      opts,
    );
    assert.equal(hacked.outcome, 'failure');
    assert.equal(hacked.jobStatus?.label, 'flagged as hacked');
    assert.equal(hacked.error, 'Submission flagged');
    assert.equal(hacked.rankedScore, undefined);
    assert.match(resultLines(hacked)[0] ?? '', /^✘ job flagged as hacked: /);
  });
});

describe('views of workflow outcomes', () => {
  const connection = {
    service: 'gpumode',
    client: {},
    baseUrl: 'http://127.0.0.1:1',
    label: 'GPU MODE',
    embedded: false,
    hasIdentity: true,
  } as unknown as SubmissionOutcome['connection'];
  const base = (over: Partial<SubmissionOutcome>): SubmissionOutcome => ({
    kind: 'result',
    connection,
    mode: 'profile',
    target: { leaderboard: 'amd-fp8-mm', gpu: 'MI355X' },
    route: 'stream',
    passed: true,
    score: null,
    traces: [],
    liveOutput: false,
    noiseLines: 0,
    startedAt: Date.parse('2026-01-01T00:00:10Z'),
    elapsedMs: 5000,
    ...over,
  });
  const head = { title: 'Profile: k.py', fileName: 'k.py', hiddenNoiseLines: 2 };
  const summary = {
    version: 1,
    kernels: [],
    kernelTotals: { calls: 3, distinct: 1, totalNs: 10 },
    agents: [],
  } as unknown as TraceSummary;

  it("a streamed profile: each saved trace is the profile's local zip with its summary (or why there is none); specs without timings are no benchmarks", () => {
    const profiled = (): EvalResult => ({
      ...evalResult({ 'benchmark-count': '1', 'benchmark.0.spec': 'm: 1' }),
      profile: { profiler: 'rocPROF', trace: 'UEsDBA==', download_url: null },
    });
    const outcome = base({
      result: event(full({ 'profile.0': profiled(), 'profile.1': profiled() })),
      traces: [
        { run: 'profile.0', path: '/tmp/k-amd-fp8-mm-MI355X-1-profile.0.zip', bytes: 1234, summary },
        { run: 'profile.1', path: '/tmp/k-amd-fp8-mm-MI355X-1-profile.1.zip', bytes: 99, summaryError: 'no kernels' },
      ],
    });
    const view = viewOfOutcome(outcome, head, opts);
    assert.equal(view.outcome, 'success');
    assert.deepEqual(
      [view.leaderboard, view.gpu, view.mode, view.target, view.elapsedS, view.hiddenNoiseLines],
      ['amd-fp8-mm', 'MI355X', 'profile', 'GPU MODE', 5, 2],
    );
    assert.deepEqual(
      view.profiles.map((p) => [p.key, p.localPath, p.traceBytes, p.perfetto, p.note]),
      [
        ['profile.0', '/tmp/k-amd-fp8-mm-MI355X-1-profile.0.zip', 1234, 'too-large', undefined],
        ['profile.1', '/tmp/k-amd-fp8-mm-MI355X-1-profile.1.zip', 99, 'available', 'No summary: no kernels'],
      ],
    );
    assert.equal(view.profiles[0]?.summary, summary);
    assert.deepEqual(
      view.runs.map((r) => r.benchmarks.length),
      [0, 0],
      'profile runs list their cases without timings',
    );
  });

  it("the workflow's score is the one shown; a background outcome is the submission's view with its id; a resumed run keeps its first start", () => {
    const detail: UserSubmissionDetail = {
      id: 77,
      leaderboard_name: 'amd-fp8-mm',
      file_name: 'k.py',
      submission_time: '2026-01-01T00:00:00Z',
      done: true,
      code: 'x',
      runs: [
        {
          start_time: '2026-01-01T00:00:00Z',
          end_time: '2026-01-01T00:00:03Z',
          mode: 'leaderboard',
          secret: false,
          runner: 'MI300',
          score: 2.4495e-5,
          passed: true,
          result: { 'benchmark-count': '1', 'benchmark.0.spec': 's', 'benchmark.0.mean': '24495' },
        },
      ],
      job: { status: 'succeeded', error: null, last_heartbeat: null },
    };
    const outcome = base({
      mode: 'leaderboard',
      route: 'background',
      id: 77,
      submission: detail,
      result: { status: 'success', results: [], reports: [] },
      score: { seconds: 2.4495e-5, source: 'run', rankingBy: 'geom', text: '24.495 µs' },
    });
    const view = viewOfOutcome(outcome, { ...head, startedAt: Date.parse('2026-01-01T00:00:00Z') }, opts);
    assert.equal(view.submissionId, 77);
    assert.equal(view.jobStatus?.status, 'succeeded');
    assert.deepEqual(view.rankedScore, { seconds: 2.4495e-5, text: '24.495 µs', source: 'run', rankingBy: 'geom' });
    assert.equal(view.startedAt, '2026-01-01T00:00:00.000Z');
    assert.equal(view.elapsedS, 15, 'from the first start, not from the resume');
    assert.deepEqual(
      view.runs[0]?.benchmarks.map((b) => b.meanNs),
      [24495],
    );
  });

  it('failures and cancellations are views with the explanation in words; a failed background poll keeps the submission id', () => {
    const failed = viewOfOutcome(
      base({
        kind: 'failed',
        route: 'background',
        id: 9,
        explanation: { kind: 'network', message: 'Cannot reach GPU MODE', actions: [] },
      }),
      head,
      opts,
    );
    assert.deepEqual([failed.outcome, failed.error, failed.submissionId], ['error', 'Cannot reach GPU MODE', 9]);
    const cancelled = viewOfOutcome(
      base({
        kind: 'cancelled',
        explanation: { kind: 'cancelled', message: 'Cancelled: job 3 on embedded runner is cancelled.', actions: [] },
      }),
      head,
      opts,
    );
    assert.deepEqual(
      [cancelled.outcome, cancelled.error],
      ['cancelled', 'Cancelled: job 3 on embedded runner is cancelled.'],
    );
    const error = viewOfOutcome(
      base({
        kind: 'error',
        error: { status: 'error', detail: 'compile failed', status_code: 500, raw_error: 'nvcc: boom' },
      }),
      head,
      opts,
    );
    assert.deepEqual([error.outcome, error.error], ['error', 'compile failed\nnvcc: boom']);
    assert.equal(outcomeSummary(error), 'error: k.py · profile · 5.00 s');
  });
});
