// The four modes against the example problem, through the streaming route (plain and extension clients) and the
// background route, with real python3 evaluators.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  backgroundAcceptedSchema,
  jobEventSchema,
  expandOutput,
  outputEventSchema,
  rankedSubmissionListSchema,
  resultEventSchema,
  statusEventSchema,
  userSubmissionDetailSchema,
  userSubmissionListSchema,
  type ResultEvent,
} from '../../../src/core/protocol/api';
import { post, solutions, startTestRunner, submitAndRead, terminal, waitFor, type TestRunner } from './helpers';

const correct = readFileSync(path.join(solutions, 'correct/map_add.py'), 'utf8');
const wrong = readFileSync(path.join(solutions, 'wrong/off_by_one.py'), 'utf8');

describe('example problem, all modes', () => {
  let runner: TestRunner;
  before(async () => {
    runner = await startTestRunner();
  });
  after(() => runner.dispose());

  test('test mode, plain client: only upstream events, upstream fields, no ids', async () => {
    const events = await submitAndRead(`${runner.url}/vectoradd_py/CPU/test`, {
      fileName: 'map_add.py',
      content: correct,
    });
    const names = new Set(events.map((e) => e.event));
    assert.deepEqual([...names].sort(), ['result', 'status']);
    assert.equal(events[0]?.event, 'status');
    for (const e of events) assert.equal(e.id, undefined);
    for (const e of events.filter((x) => x.event === 'status'))
      assert.deepEqual(Object.keys(e.data as object).sort(), ['elapsed_time', 'status']);
    const result = resultEventSchema.parse(terminal(events).data);
    assert.equal(result.results.length, 1);
    const full = result.results[0]!;
    assert.equal(full.success, true);
    assert.equal(full.system.gpu, 'CPU');
    assert.deepEqual(Object.keys(full.runs), ['test']);
    const run = full.runs.test!.run!;
    assert.equal(run.passed, true);
    assert.equal(run.exit_code, 0);
    assert.equal(run.result.check, 'pass');
    assert.equal(run.result['test-count'], '3');
    assert.match(run.command, /^python3 eval\.py test \S+test\.cases$/);
    assert.match(result.reports[0]!, /3\/3 tests passed/);
  });

  test('test mode with a wrong solution: the run fails, the result says why', async () => {
    const events = await submitAndRead(`${runner.url}/vectoradd_py/CPU/test`, {
      fileName: 'off_by_one.py',
      content: wrong,
    });
    const result = resultEventSchema.parse(terminal(events).data);
    const run = result.results[0]!.runs.test!.run!;
    assert.equal(run.passed, false);
    assert.equal(run.result.check, 'fail');
    assert.equal(run.exit_code, 112);
    assert.equal(run.success, true, 'exit 112 (validation failed) is a successful evaluator run');
    assert.match(result.reports[0]!, /❌/);
  });

  test('benchmark mode, extension client: ids from 1, job event first, live output lines, status with state', async () => {
    const events = await submitAndRead(`${runner.url}/vectoradd_py/CPU/benchmark`, {
      fileName: 'map_add.py',
      content: correct,
      extensions: true,
    });
    const ids = events.map((e) => Number(e.id));
    assert.deepEqual(
      ids,
      ids.map((_, i) => i + 1),
    );
    const job = jobEventSchema.parse(events[0]!.data);
    assert.equal(events[0]!.event, 'job');
    assert.equal(job.leaderboard, 'vectoradd_py');
    assert.equal(job.mode, 'benchmark');
    const states = events.filter((e) => e.event === 'status').map((e) => statusEventSchema.parse(e.data).state);
    assert.ok(states.includes('queued') && states.includes('running'));
    const out = events
      .filter((e) => e.event === 'output')
      .flatMap((e) => expandOutput(outputEventSchema.parse(e.data)));
    assert.ok(
      out.some((o) => o.stream === 'stdout' && /^benchmark 0 \(size: 1024/.test(o.text)),
      'live stdout line',
    );
    assert.ok(out.some((o) => o.stream === 'stderr' && o.text === 'eval.py: seed default'));
    assert.ok(out.every((o) => o.noise === false));
    const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.benchmark!.run!;
    assert.equal(run.passed, true);
    assert.equal(run.result['benchmark-count'], '2');
    assert.ok(Number(run.result['benchmark.0.mean']) > 0);

    const rec = (await (await fetch(`${runner.url}/jobs/${job.job_id}`)).json()) as {
      state: string;
      last_event_id: number;
    };
    assert.equal(rec.state, 'succeeded');
    assert.equal(rec.last_event_id, ids.length);
  });

  test('leaderboard mode via the background route: test, benchmark, ranked run and a secret-seed copy', async () => {
    const res = await post(`${runner.url}/submission/vectoradd_py/CPU/leaderboard`, {
      fileName: 'map_add.py',
      content: correct,
    });
    assert.equal(res.status, 202);
    const accepted = backgroundAcceptedSchema.parse(await res.json());
    const id = accepted.details.id;
    const detail = await waitFor(
      'the background job',
      async () => {
        const d = userSubmissionDetailSchema.parse(await (await fetch(`${runner.url}/user/submissions/${id}`)).json());
        return d.done ? d : undefined;
      },
      60_000,
    );
    assert.equal(detail.job?.status, 'succeeded');
    assert.equal(detail.code, correct);
    assert.deepEqual(
      detail.runs.map((r) => `${r.mode}${r.secret ? ' (secret)' : ''}`),
      ['test', 'benchmark', 'leaderboard', 'test (secret)', 'benchmark (secret)', 'leaderboard (secret)'],
    );
    const ranked = detail.runs.find((r) => r.mode === 'leaderboard' && !r.secret)!;
    assert.ok(ranked.passed && typeof ranked.score === 'number' && ranked.score > 0);

    const record = (await (await fetch(`${runner.url}/jobs/${id}`)).json()) as { result: ResultEvent };
    const [pub, secret] = record.result.results;
    assert.notEqual(pub!.runs.test!.run!.result['test.0.spec'], undefined);
    assert.deepEqual(Object.keys(secret!.runs), ['test', 'benchmark', 'leaderboard']);
    assert.equal(record.result.reports.length, 2);
    assert.match(record.result.reports[1]!, /secret seed/);

    const list = userSubmissionListSchema.parse(
      await (await fetch(`${runner.url}/user/submissions?leaderboard=vectoradd_py`)).json(),
    );
    assert.ok(list.some((s) => s.id === id && s.done && s.runs[0]?.score === ranked.score));
    const board = rankedSubmissionListSchema.parse(
      await (await fetch(`${runner.url}/submissions/vectoradd_py/CPU`)).json(),
    );
    assert.equal(board[0]?.submission_id, id);
    assert.equal(board[0]?.rank, 1);
  });

  test('profile mode without a profiler is refused before anything runs, naming what is missing', async () => {
    const res = await post(`${runner.url}/vectoradd_py/CPU/profile`, {
      fileName: 'map_add.py',
      content: correct,
      extensions: true,
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { detail: string };
    assert.match(body.detail, /rocprofv3/);
    assert.match(body.detail, /--server URL/);
    assert.match(body.detail, /kernelRunner\.server/);
  });

  test('GET /leaderboards lists the problems and the script leaderboard in upstream shape', async () => {
    const list = (await (await fetch(`${runner.url}/leaderboards`)).json()) as Array<{
      name: string;
      description: string;
      gpu_types: string[];
      task: { files: Record<string, string>; tests: unknown[] };
    }>;
    const names = list.map((l) => l.name);
    assert.ok(names.includes('vectoradd_py') && names.includes('script'));
    const v = list.find((l) => l.name === 'vectoradd_py')!;
    assert.equal(typeof v.description, 'string');
    assert.deepEqual(v.gpu_types, ['CPU']);
    assert.equal(v.task.files['submission.py'], '@SUBMISSION@');
    assert.match(v.task.files['eval.py']!, /POPCORN_FD/);
    assert.equal(v.task.tests.length, 3);
  });
});
