// The submission workflow (src/core/submission) end to end against our real runner on loopback: detection by
// /health, the streaming route with live output, tests and benchmarks read from the result maps, the ranked score
// of a leaderboard run, profile archives saved (the rocprofv3 test stand-in), a runner without a profiler, cancel
// (the job is stopped on the runner), a resumed stream, and a dead server.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import {
  benchmarksOf,
  connect,
  explain,
  resumeSubmission,
  runSubmission,
  testsOf,
  type SubmissionEvent,
  type SubmissionRequest,
} from '../../../src/core/submission/index';
import { solutions, startTestRunner, tempDir, testBin, type TestRunner } from '../runner/helpers';

let runner: TestRunner;
let bare: TestRunner;

before(async () => {
  const env = { ...process.env, PATH: `${testBin}${path.delimiter}${process.env.PATH ?? ''}` };
  runner = await startTestRunner({ profiler: 'rocprofv3', env, gpuName: 'MI300', inlineTraceBytes: 100 });
  bare = await startTestRunner({ profiler: 'none' });
});

after(async () => {
  await runner?.dispose();
  await bare?.dispose();
});

const correct = readFileSync(path.join(solutions, 'correct/map_add.py'));
const wrong = readFileSync(path.join(solutions, 'wrong/off_by_one.py'));

function request(
  mode: SubmissionRequest['mode'],
  content: Uint8Array = correct,
  extra: Partial<SubmissionRequest> = {},
): SubmissionRequest {
  return { filePath: 'kernels/submission.py', content, mode, leaderboard: 'vectoradd_py', ...extra };
}

async function run(
  target: TestRunner,
  req: SubmissionRequest,
  extra: Partial<Parameters<typeof runSubmission>[1]> = {},
) {
  const events: SubmissionEvent[] = [];
  const connection = await connect({ baseUrl: target.url });
  const outcome = await runSubmission(req, { connection, surface: 'cli', onEvent: (e) => events.push(e), ...extra });
  return { outcome, events, connection };
}

test('our runner is told apart by /health; test mode streams live output and lists every test', async () => {
  const { outcome, events, connection } = await run(runner, request('test'));
  assert.equal(connection.service, 'kernel-runner');
  assert.equal(outcome.kind, 'result', JSON.stringify(outcome.explanation));
  assert.equal(outcome.passed, true);
  assert.equal(outcome.route, 'stream');
  const target = events.find((e) => e.type === 'target');
  assert.ok(target && target.type === 'target' && target.route === 'stream' && target.target.gpu === 'MI300');
  const accepted = events.find((e) => e.type === 'accepted');
  assert.ok(accepted && accepted.type === 'accepted');
  assert.equal(accepted.id, outcome.id);
  // a job on a runner of ours (not an embedded one) can be picked up again after a restart
  assert.equal(accepted.resume?.kind, 'stream');
  assert.ok(
    events.some((e) => e.type === 'output'),
    'live output arrived as events',
  );
  assert.equal(outcome.liveOutput, true);
  const values = outcome.result?.results[0]?.runs.test?.run?.result ?? {};
  const tests = testsOf(values);
  assert.ok(tests.length >= 2);
  assert.ok(tests.every((t) => t.passed && t.spec.length > 0));
  // without `test-count` the same tests are still found by their keys
  const { 'test-count': _count, ...noCount } = values;
  assert.deepEqual(testsOf(noCount), tests);
});

test('a failing submission is a result that did not pass, not a failure of the workflow', async () => {
  const { outcome } = await run(runner, request('test', wrong));
  assert.equal(outcome.kind, 'result');
  assert.equal(outcome.passed, false);
  assert.ok(testsOf(outcome.result?.results[0]?.runs.test?.run?.result ?? {}).some((t) => !t.passed));
});

test('leaderboard mode: benchmark timings read, ranked score computed with the leaderboard rule', async () => {
  const { outcome } = await run(runner, request('leaderboard'));
  assert.equal(outcome.kind, 'result', JSON.stringify(outcome.explanation));
  assert.equal(outcome.passed, true);
  assert.ok(outcome.rankingBy, 'the ranking rule was looked up');
  assert.ok(outcome.score && outcome.score.seconds > 0 && outcome.score.source === 'computed');
  const bench = benchmarksOf(outcome.result?.results[0]?.runs.leaderboard?.run?.result ?? {});
  assert.ok(bench.length > 0 && bench.every((b) => b.meanNs !== undefined && b.meanNs > 0));
});

test('profile mode: every archive saved under its own name, downloaded from the runner', async (t) => {
  const out = tempDir('kr-workflow-traces-');
  t.after(() => import('node:fs').then((fs) => fs.rmSync(out, { recursive: true, force: true })));
  const { outcome, events } = await run(runner, request('profile'), { traces: { outDir: out, downloads: true } });
  assert.equal(outcome.kind, 'result', JSON.stringify(outcome.explanation ?? outcome.error));
  assert.equal(outcome.traceError, undefined);
  assert.ok(outcome.traces.length >= 2, `saved: ${outcome.traces.map((s) => s.run).join(', ')}`);
  assert.deepEqual(readdirSync(out).sort(), outcome.traces.map((s) => path.basename(s.path)).sort());
  for (const s of outcome.traces) assert.equal(readFileSync(s.path).subarray(0, 2).toString(), 'PK');
  assert.equal(events.filter((e) => e.type === 'trace-saved').length, outcome.traces.length);
  assert.ok(
    events.some((e) => e.type === 'status' && e.run?.startsWith('profile.')),
    'each profile run was announced',
  );
});

test('a runner without a profiler: refused before anything is sent, with "Profile on GPU MODE" offered', async () => {
  const { outcome } = await run(bare, request('profile'));
  assert.equal(outcome.kind, 'failed');
  assert.equal(outcome.explanation?.kind, 'no-profiler');
  assert.deepEqual(
    outcome.explanation?.actions.map((a) => a.id),
    ['profile-on-gpumode', 'select-target'],
  );
  assert.equal(outcome.id, undefined, 'no job was made');
});

test('cancel: the job is stopped on the runner and the outcome says so', async () => {
  const controller = new AbortController();
  const hang = readFileSync(path.join(solutions, 'slow/hang.py'));
  const events: SubmissionEvent[] = [];
  const connection = await connect({ baseUrl: runner.url });
  const outcome = await runSubmission(request('test', hang), {
    connection,
    surface: 'editor',
    signal: controller.signal,
    onEvent: (e) => {
      events.push(e);
      if (e.type === 'accepted') setTimeout(() => controller.abort(new Error('test cancels')), 300);
    },
  });
  assert.equal(outcome.kind, 'cancelled');
  assert.match(outcome.explanation?.message ?? '', new RegExp(`job ${outcome.id} on .* is cancelled`));
  const job = (await (await fetch(`${runner.url}/jobs/${outcome.id}`)).json()) as { state: string };
  assert.equal(job.state, 'cancelled');
});

test('resume: a stream picked up again from its state replays the job to the same outcome', async () => {
  const first = await run(runner, request('benchmark'));
  const accepted = first.events.find((e) => e.type === 'accepted');
  assert.ok(accepted?.type === 'accepted' && accepted.resume);
  const events: SubmissionEvent[] = [];
  const again = await resumeSubmission(accepted.resume, {
    connection: await connect({ baseUrl: runner.url }),
    surface: 'editor',
    onEvent: (e) => events.push(e),
  });
  assert.equal(again.kind, 'result');
  assert.equal(again.id, first.outcome.id);
  assert.equal(again.passed, first.outcome.passed);
  assert.deepEqual(
    again.result?.results[0]?.runs.benchmark?.run?.result,
    first.outcome.result?.results[0]?.runs.benchmark?.run?.result,
  );
  assert.ok(
    events.some((e) => e.type === 'output'),
    'the live output was replayed',
  );
});

test('unknown leaderboard, a dead server and a URL that is none are explained, with what to do', async () => {
  const { outcome } = await run(runner, request('test', correct, { leaderboard: 'no-such-board', gpu: undefined }));
  assert.equal(outcome.kind, 'failed');
  assert.equal(outcome.explanation?.kind, 'usage');
  assert.match(outcome.explanation?.message ?? '', /no leaderboard "no-such-board"/);

  const dead = `http://127.0.0.1:${await closedPort()}`;
  await assert.rejects(connect({ baseUrl: dead }), (err: unknown) => {
    const e = explain(err, { surface: 'cli', baseUrl: dead });
    assert.equal(e.kind, 'network');
    assert.match(e.message, /Cannot reach the runner at .*connection refused.*kernel-runner serve/);
    assert.deepEqual(
      e.actions.map((a) => a.id),
      ['select-target'],
    );
    return true;
  });
  // not a URL at all: the user's input, said so, with nothing sent (not "sent something this version cannot read")
  for (const [bad, why] of [
    ['not-a-url', /^not-a-url is not a runner URL: expected http\(s\):\/\/host\[:port\]\[\/path\]\.$/],
    ['ftp://x', /^ftp:\/\/x\/ is not a runner URL: only http and https are supported\.$/],
  ] as const) {
    await assert.rejects(connect({ baseUrl: bad }), (err: unknown) => {
      const e = explain(err, { surface: 'cli', baseUrl: bad });
      assert.equal(e.kind, 'usage');
      assert.match(e.message, why);
      assert.deepEqual(
        e.actions.map((a) => a.id),
        ['select-target'],
      );
      return true;
    });
  }
});

async function closedPort(): Promise<number> {
  const net = await import('node:net');
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as import('node:net').AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

test('outputBatches: the same lines of each stream with the same noise classes, in fewer events', async () => {
  // stderr: runs of the program's lines between rocprof's glog lines, written at once so that the runner batches
  // them together (lines of another class inside a batch are its marks); stdout: the program's lines only
  const program = [
    'import sys',
    'err = []',
    'for i in range(400):',
    '    if i % 7 < 3:',
    '        err.append(f"W20250710 21:33:25.713947 140172743004992 simple_timer.cpp:55] [rocprofv3] step {i}\\n")',
    '    else:',
    '        err.append(f"note {i}: the program\'s own stderr\\n")',
    'sys.stderr.write("".join(err)); sys.stderr.flush()',
    'sys.stdout.write("".join(f"out {i}\\n" for i in range(300))); sys.stdout.flush()',
  ].join('\n');
  const req: SubmissionRequest = {
    filePath: 'mixed.py',
    content: Buffer.from(program),
    mode: 'test',
    leaderboard: 'script',
  };
  const perLine = await run(bare, req);
  const batched = await run(bare, req, { outputBatches: true });
  assert.equal(perLine.outcome.kind, 'result');
  assert.equal(batched.outcome.kind, 'result');
  type Output = Extract<SubmissionEvent, { type: 'output' }>;
  const outputs = (events: SubmissionEvent[]) => events.filter((e): e is Output => e.type === 'output');
  const linesOf = (events: SubmissionEvent[], stream: string) =>
    outputs(events)
      .filter((e) => e.stream === stream)
      .flatMap((e) => {
        const texts = e.text.split('\n');
        assert.equal(texts.length, e.lines ?? 1, 'an event holds as many lines as it says');
        return texts.map((text) => `${e.noise ? 'noise' : 'program'}: ${text}`);
      });
  for (const stream of ['stdout', 'stderr']) {
    const expected = linesOf(perLine.events, stream);
    assert.equal(expected.length, stream === 'stdout' ? 300 : 400);
    assert.deepEqual(linesOf(batched.events, stream), expected);
  }
  assert.equal(outputs(perLine.events).length, 700);
  assert.ok(outputs(batched.events).length < 700 / 3, `${outputs(batched.events).length} batched events`);
  // a batch of stderr was split by class: runs of noise and of the program's lines, several lines each
  const stderrRuns = outputs(batched.events).filter((e) => e.stream === 'stderr' && (e.lines ?? 1) > 1);
  assert.ok(stderrRuns.some((e) => e.noise) && stderrRuns.some((e) => !e.noise));
  // i % 7 < 3 for 172 of the 400 stderr lines
  assert.equal(perLine.outcome.noiseLines, 172);
  assert.equal(batched.outcome.noiseLines, perLine.outcome.noiseLines);
});
