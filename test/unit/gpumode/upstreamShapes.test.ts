// Every upstream answer as kernelbot (4bdd839) writes it, and every variant of it with an informational field
// removed or nulled (test/contract/upstreamAnswers.ts), through the client's schemas and the core readers: nothing
// throws, nothing shows "null", "undefined" or "NaN", what is known is shown. What decides the shown outcome
// (ids, `done`, `runs`, a run's mode/secret/passed, a result's success and runs map) is still refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { z } from 'zod';
import {
  backgroundAcceptedSchema,
  deleteSubmissionSchema,
  errorBodySchema,
  errorEventSchema,
  gpuListSchema,
  healthSchema,
  leaderboardListSchema,
  parseScore,
  rankedSubmissionListSchema,
  resultEventSchema,
  runnerQueueSchema,
  scoreSchema,
  statusEventSchema,
  userSubmissionDetailSchema,
  userSubmissionListSchema,
  type ResultEvent,
  type UserSubmissionDetail,
} from '../../../src/core/protocol/api';
import { decodeEvent } from '../../../src/core/client/events';
import { RunnerClientError } from '../../../src/core/client/errors';
import { createRunnerClient } from '../../../src/core/client/index';
import {
  decodeResultReports,
  describeJobStatus,
  describeLeaderboards,
  describeSubmissionStatus,
  explainGpuModeError,
  filterResultNoise,
  formatQueueCounts,
  formatRunnerQueue,
  formatScore,
  GpuModeError,
  labelResults,
  pollSubmission,
  queueIsBusy,
  rankedScoreOfResult,
  rankedScoreOfSubmission,
  resultFromSubmission,
  runRow,
  serviceKindFromHealth,
  submissionFinished,
  submissionHeadline,
  submissionPassed,
  submissionRow,
} from '../../../src/core/gpumode/index';
import {
  answersOf,
  refusals,
  upstreamAnswers,
  variants,
  type AnswerKind,
  type Json,
  type UpstreamAnswer,
} from '../../contract/upstreamAnswers';
import { startFakeServer } from '../client/fakeServer';

const NOW = new Date('2026-07-06T12:00:00Z');

const schemas: Record<AnswerKind, z.ZodType> = {
  health: healthSchema,
  leaderboards: leaderboardListSchema,
  gpus: gpuListSchema,
  runnerQueue: runnerQueueSchema,
  rankedSubmissions: rankedSubmissionListSchema,
  backgroundAccepted: backgroundAcceptedSchema,
  userSubmissions: userSubmissionListSchema,
  userSubmission: userSubmissionDetailSchema,
  deleteSubmission: deleteSubmissionSchema,
  statusEvent: statusEventSchema,
  resultEvent: resultEventSchema,
  errorEvent: errorEventSchema,
  errorBody: errorBodySchema,
};

const SSE_EVENT: Partial<Record<AnswerKind, string>> = {
  statusEvent: 'status',
  resultEvent: 'result',
  errorEvent: 'error',
};

/** What the client makes of an answer body: SSE events through the event decoder, the rest through their schema. */
function parse(answer: UpstreamAnswer, body: Json): { ok: true; data: unknown } | { ok: false; error: string } {
  const event = SSE_EVENT[answer.kind];
  if (event) {
    try {
      return { ok: true, data: decodeEvent({ event, data: JSON.stringify(body) })?.data };
    } catch (err) {
      return { ok: false, error: String(err) };
    }
  }
  const parsed = schemas[answer.kind].safeParse(body);
  return parsed.success ? { ok: true, data: parsed.data } : { ok: false, error: parsed.error.message };
}

function readResult(result: ResultEvent): string[] {
  const out = [rankedScoreOfResult(result, 'geom')?.text ?? '-', ...labelResults(result).map((r) => r.label)];
  out.push(...decodeResultReports(result).map((r) => r.text ?? r.error ?? ''));
  const { result: clean } = filterResultNoise(result);
  for (const full of clean.results) {
    out.push(full.error, full.system.gpu);
    for (const [key, ev] of Object.entries(full.runs)) {
      out.push(key, ev.start, ev.end);
      if (ev.run)
        out.push(
          ev.run.stdout,
          ev.run.stderr,
          ev.run.command,
          ev.run.duration.toFixed(2),
          ...Object.values(ev.run.result),
        );
      if (ev.compilation) out.push(ev.compilation.stderr, ev.compilation.command);
      if (ev.profile)
        out.push(ev.profile.profiler, ev.profile.trace ? 'trace inline' : (ev.profile.download_url ?? 'no trace'));
    }
  }
  return out;
}

function readDetail(d: UserSubmissionDetail): string[] {
  const status = describeSubmissionStatus(d);
  const out = [submissionHeadline(d), status.label, status.explanation, describeJobStatus(d.job?.status).label];
  out.push(String(submissionFinished(d)), String(submissionPassed(d)), rankedScoreOfSubmission(d, 'geom')?.text ?? '-');
  out.push(...d.runs.map((r) => runRow(r).text), ...readResult(resultFromSubmission(d)));
  if (d.runner_queue) out.push(formatRunnerQueue(d.runner_queue));
  return out;
}

/** The texts a user would see of an answer; every core reader of its kind runs. */
function read(kind: AnswerKind, data: unknown): string[] {
  switch (kind) {
    case 'health':
      return [serviceKindFromHealth(data as z.output<typeof healthSchema>)];
    case 'leaderboards':
      return describeLeaderboards(data as z.output<typeof leaderboardListSchema>, NOW).flatMap((i) => [
        i.name,
        i.summary,
        i.deadlineText,
        i.gpus.join(', '),
        i.lang ?? '-',
        i.rankingBy ?? '-',
      ]);
    case 'gpus':
      return data as string[];
    case 'runnerQueue': {
      const q = data as z.output<typeof runnerQueueSchema>;
      return [formatRunnerQueue(q), formatQueueCounts(q), String(queueIsBusy(q))];
    }
    case 'rankedSubmissions':
      return (data as z.output<typeof rankedSubmissionListSchema>).map(
        (r) => `${r.rank ?? '-'} ${r.user_name} ${r.submission_score === null ? '-' : formatScore(r.submission_score)}`,
      );
    case 'backgroundAccepted': {
      const a = data as z.output<typeof backgroundAcceptedSchema>;
      return [String(a.details.id), a.runner_queue ? formatRunnerQueue(a.runner_queue) : 'no queue'];
    }
    case 'userSubmissions':
      return (data as z.output<typeof userSubmissionListSchema>).flatMap((s) => {
        const { scoreSeconds: _seconds, ...shown } = submissionRow(s);
        return Object.values(shown).map(String);
      });
    case 'userSubmission':
      return readDetail(data as UserSubmissionDetail);
    case 'resultEvent':
      return readResult(data as ResultEvent);
    case 'statusEvent': {
      const s = data as z.output<typeof statusEventSchema>;
      return [s.status, s.elapsed_time === null || s.elapsed_time === undefined ? '-' : s.elapsed_time.toFixed(0)];
    }
    case 'errorEvent':
      return [(data as z.output<typeof errorEventSchema>).detail];
    case 'errorBody':
    case 'deleteSubmission':
      return [];
  }
}

function assertShown(texts: string[], where: string): void {
  for (const t of texts) {
    assert.equal(typeof t, 'string', `${where}: a reader gave ${String(t)}`);
    assert.doesNotMatch(t, /\bnull\b|\bundefined\b|\bNaN\b|\[object Object\]/, `${where}: "${t}"`);
  }
}

test('every real-shaped answer, and every variant with an informational field removed or nulled, is read without a crash', () => {
  let count = 0;
  for (const answer of upstreamAnswers) {
    const base = parse(answer, answer.body);
    assert.ok(base.ok, `${answer.name}: ${base.ok ? '' : base.error}`);
    assertShown(read(answer.kind, base.data), answer.name);
    for (const v of variants(answer)) {
      const parsed = parse(answer, v.body);
      assert.ok(parsed.ok, `${answer.name} / ${v.label}: refused: ${parsed.ok ? '' : parsed.error}`);
      assertShown(read(answer.kind, parsed.data), `${answer.name} / ${v.label}`);
      count += 1;
    }
  }
  assert.ok(count > 400, `only ${count} variants`);
});

test('what decides the shown outcome is still refused: required fields removed or null, values of the wrong kind', () => {
  let count = 0;
  for (const answer of upstreamAnswers) {
    for (const v of refusals(answer)) {
      const parsed = parse(answer, v.body);
      assert.equal(parsed.ok, false, `${answer.name} / ${v.label}: accepted`);
      count += 1;
    }
  }
  const detail = answersOf('userSubmission')[0] as UpstreamAnswer;
  const labels = [...refusals(detail)].map((v) => v.label);
  for (const must of [
    'id removed',
    'done nulled',
    'runs removed',
    'runs.0.passed removed',
    'runs.0.secret nulled',
    'runs.0.mode removed',
  ])
    assert.ok(labels.includes(must), must);
  assert.ok(count > 40, `only ${count} refusals`);
});

test('variants: each informational field removed and nulled in turn, into nested objects, first array elements and map values', () => {
  const detail = answersOf('userSubmission')[0] as UpstreamAnswer;
  const labels = [...variants(detail)].map((v) => v.label);
  for (const must of [
    'job removed',
    'job nulled',
    'job.status nulled',
    'runner_queue.running_jobs removed',
    'runs.0.score removed',
    'runs.0.result nulled',
    'code removed',
  ])
    assert.ok(labels.includes(must), must);
  assert.ok(!labels.some((l) => l.startsWith('runs.1.')), 'only the first element of an array');
  assert.ok(!labels.some((l) => l.startsWith('runs.0.result.')), 'opaque maps are not walked into');
  assert.ok(
    !labels.includes('id removed') && !labels.includes('runs.0.passed removed'),
    'required fields are not in the variants',
  );
  const result = answersOf('resultEvent')[1] as UpstreamAnswer;
  const r = [...variants(result)].map((v) => v.label);
  for (const must of [
    'results.0.runs.benchmark.run.stdout nulled',
    'results.0.runs.leaderboard.compilation removed',
    'results.0.system.gpu nulled',
    'reports removed',
  ])
    assert.ok(r.includes(must), must);
  assert.ok(
    !r.some((l) => /^results\.0\.runs\.(test|benchmark|leaderboard) removed$/.test(l)),
    'map keys are data: never dropped',
  );
  const removed = [...variants(detail)].find((v) => v.label === 'job.status removed');
  assert.deepEqual((removed?.body as { job: Json }).job, { error: null, last_heartbeat: '2026-07-06T12:00:05Z' });
  assert.equal(
    (detail.body as { job: { status: string } }).job.status,
    'succeeded',
    'the sample itself is not changed',
  );
});

test('scores: numbers and numeric strings (as GPU MODE sends them) are read, anything else is no score, never NaN', () => {
  for (const [input, want] of [
    ['0.0000246', 0.0000246],
    ['0.00002449489742783178', 2.449489742783178e-5],
    ['1.5E-9', 1.5e-9],
    [' 2e-5 ', 2e-5],
    [3.1e-5, 3.1e-5],
    ['NaN', null],
    ['Infinity', null],
    ['abc', null],
    ['', null],
    ['0x10', null],
    [null, null],
    [undefined, null],
  ] as const) {
    assert.equal(scoreSchema.parse(input), want, String(input));
    assert.equal(parseScore(input), want, String(input));
  }
  assert.equal(scoreSchema.safeParse(true).success, false);
  assert.equal(scoreSchema.safeParse({}).success, false);
});

test('what the user sees of the real shapes: string scores, queue lines without unknown counts, unknown job status', () => {
  const queue = (name: string) =>
    runnerQueueSchema.parse(answersOf('runnerQueue').find((a) => a.name.startsWith(name))?.body);
  assert.equal(formatRunnerQueue(queue('GitHub launcher')), 'MI300: 3 queued');
  assert.equal(formatRunnerQueue(queue('Modal')), 'T4: 6 queued, 1 runner available');
  assert.equal(
    formatRunnerQueue(queue('GitHub API')),
    'MI355X: unavailable — 403 {"message": "API rate limit exceeded for installation."}',
  );
  assert.equal(formatRunnerQueue(queue('unknown GPU')), 'MI301: unavailable — unknown gpu');
  assert.equal(formatRunnerQueue({ status: 'available', gpu: 'MI300' }), 'MI300: available');
  assert.equal(queueIsBusy(queue('GitHub launcher')), true);
  assert.equal(
    queueIsBusy({ ...queue('GitHub launcher'), queued_jobs: 0 }),
    false,
    'unknown counts do not make it busy',
  );

  const [ranked, pending, streaming, failed, timedOut, old] = answersOf('userSubmission').map((a) =>
    userSubmissionDetailSchema.parse(a.body),
  );
  assert.ok(ranked && pending && streaming && failed && timedOut && old);
  assert.equal(ranked.runs[2]?.score, 2.449489742783178e-5, 'the string score is a number after parsing');
  assert.deepEqual(rankedScoreOfSubmission(ranked, 'geom'), {
    seconds: 2.449489742783178e-5,
    source: 'run',
    rankingBy: 'geom',
    text: '24.495 µs',
  });
  assert.equal(runRow(ranked.runs[5]!).text, 'leaderboard on MI300: passed · 24.607 µs [secret]');
  assert.equal(submissionHeadline(ranked), '#4201 amd-fp8-mm · submission.py · done (succeeded)');
  assert.equal(formatRunnerQueue(ranked.runner_queue!), 'MI300: 0 queued');
  assert.equal(submissionPassed(ranked), true);
  const shown = resultFromSubmission(ranked);
  assert.deepEqual(Object.keys(shown.results[0]!.runs), ['test', 'benchmark', 'leaderboard']);
  assert.equal(shown.results[1]?.runs.test?.run?.passed, true, 'secret runs are there, without their results');
  assert.deepEqual(shown.results[1]?.runs.test?.run?.result, {});

  assert.equal(pending.runner_queue, null);
  assert.equal(describeSubmissionStatus(pending).label, 'queued');
  assert.equal(submissionFinished(pending), false);

  assert.equal(submissionHeadline(streaming), '#4201 amd-fp8-mm · submission.py · done (status unknown)');
  assert.deepEqual(describeJobStatus(streaming.job?.status), {
    status: 'unknown',
    terminal: false,
    ok: false,
    label: 'status unknown',
    explanation: '',
  });
  assert.equal(describeSubmissionStatus(streaming).label, 'done');
  assert.equal(submissionFinished(streaming), true);
  assert.equal(submissionPassed(streaming), true);

  assert.equal(submissionPassed(failed), false);
  assert.match(resultFromSubmission(failed).results[0]?.error ?? '', /ranked validation failed on MI300/);
  assert.equal(describeSubmissionStatus(timedOut).label, 'timed out');
  assert.equal(resultFromSubmission(timedOut).results[0]?.error, 'hard timeout reached');

  assert.equal(old.job, null);
  assert.equal(old.runner_queue, undefined);
  assert.equal(submissionHeadline(old), '#4201 amd-fp8-mm · submission.py · done');
  assert.equal(describeSubmissionStatus(old).label, 'done');
  assert.equal(rankedScoreOfSubmission(old)?.text, '24.495 µs');

  const [list] = answersOf('userSubmissions').map((a) => userSubmissionListSchema.parse(a.body));
  assert.deepEqual(
    list?.map(submissionRow).map((r) => [r.id, r.gpu, r.status, r.score]),
    [
      [4201, 'MI300', 'done', '24.495 µs'],
      [4200, '-', 'done', '-'],
    ],
  );
  const [accepted, oldAccepted] = answersOf('backgroundAccepted').map((a) => backgroundAcceptedSchema.parse(a.body));
  assert.equal(formatRunnerQueue(accepted!.runner_queue!), 'MI300: 2 queued');
  assert.deepEqual([oldAccepted?.details.id, oldAccepted?.runner_queue], [4201, undefined]);
  const broken = backgroundAcceptedSchema.parse({ details: { id: 7 }, runner_queue: { queued_jobs: 'lots' } });
  assert.deepEqual(
    [broken.details.id, broken.runner_queue],
    [7, null],
    'a malformed queue does not lose the accepted submission',
  );

  const boards = describeLeaderboards(leaderboardListSchema.parse(answersOf('leaderboards')[0]?.body), NOW);
  assert.deepEqual(
    boards.map((b) => [b.name, b.closed, b.gpus.join(','), b.rankingBy, b.lang]),
    [
      ['amd-fp8-mm', false, 'MI300', 'geom', 'py'],
      ['grayscale_cuda', true, 'A100,H100,T4', 'last', 'cu'],
    ],
  );
  const bare = describeLeaderboards(leaderboardListSchema.parse([{ name: 'x' }]), NOW)[0];
  assert.deepEqual([bare?.deadlineText, bare?.gpus, bare?.lang, bare?.summary], ['no deadline', [], undefined, '']);

  const [testResult, leaderboardResult, , , failedRunner] = answersOf('resultEvent').map((a) =>
    resultEventSchema.parse(a.body),
  );
  assert.equal(testResult?.results[0]?.runs.test?.run?.passed, true);
  assert.equal(rankedScoreOfResult(leaderboardResult!, 'geom')?.text, '24.495 µs');
  assert.deepEqual(failedRunner?.results[0]?.runs, {});
  assert.equal(failedRunner?.results[0]?.error, 'Could not download artifacts');
  const [, cancelled] = answersOf('errorEvent').map((a) => errorEventSchema.parse(a.body));
  assert.deepEqual([cancelled?.detail, cancelled?.status_code], ['Submission cancelled', undefined]);
});

test('429 as GPU MODE sends it (no Retry-After header, the wait in the text) is explained with that wait', async (t) => {
  for (const answer of answersOf('errorBody').filter((a) => a.status === 429)) {
    const server = await startFakeServer((_req, res) => {
      res.writeHead(answer.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer.body));
    });
    t.after(() => server.close());
    const client = createRunnerClient({ baseUrl: server.url, cliId: 'id-1', extensions: false });
    const err = await client
      .submitBackground({
        leaderboard: 'amd-fp8-mm',
        gpu: 'MI300',
        mode: 'leaderboard',
        file: { name: 'a.py', content: 'x = 1\n' },
      })
      .catch((e: unknown) => e);
    assert.ok(err instanceof RunnerClientError && err.retryAfterMs === undefined, 'no header');
    const explained = explainGpuModeError(err);
    assert.ok(explained instanceof GpuModeError, answer.name);
    assert.equal(explained.type, 'rate-limited');
    assert.equal(explained.retryAfterMs, 1_234_000, answer.name);
    assert.match(
      explained.message,
      /Rate limit exceeded: 3\/3 leaderboard submissions per hour\. Try again in 1234s\.\): POST http[^ ]+\. Try again in 21 min\./,
    );
  }
});

test('the client reads the real-shaped answers end to end over HTTP', async (t) => {
  const body = (kind: AnswerKind, i = 0) => JSON.stringify(answersOf(kind)[i]?.body);
  const server = await startFakeServer((req, res) => {
    const send = (status: number, text: string | undefined) =>
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(text);
    const url = req.url ?? '';
    if (url === '/runner_queue/MI300') return send(200, body('runnerQueue'));
    if (url.startsWith('/user/submissions/4201')) return send(200, body('userSubmission', 2));
    if (url.startsWith('/user/submissions')) return send(200, body('userSubmissions'));
    if (url === '/leaderboards') return send(200, body('leaderboards'));
    if (url.startsWith('/submission/')) return send(202, body('backgroundAccepted', 1));
    if (url.startsWith('/submissions/')) return send(200, body('rankedSubmissions'));
    return send(404, '{"detail":"Not Found"}');
  });
  t.after(() => server.close());
  const client = createRunnerClient({ baseUrl: server.url, cliId: 'id-1', extensions: false });
  assert.equal(formatRunnerQueue(await client.runnerQueue('MI300')), 'MI300: 3 queued');
  assert.equal(
    submissionHeadline(await client.getSubmission(4201)),
    '#4201 amd-fp8-mm · submission.py · done (status unknown)',
  );
  assert.equal(submissionRow((await client.listSubmissions())[0]!).score, '24.495 µs');
  assert.equal((await client.listLeaderboards()).length, 2);
  assert.equal((await client.rankedSubmissions('amd-fp8-mm', 'MI300'))[1]?.submission_score, 3.1e-5);
  const accepted = await client.submitBackground({
    leaderboard: 'amd-fp8-mm',
    gpu: 'MI300',
    mode: 'test',
    file: { name: 'a.py', content: 'x = 1\n' },
  });
  assert.deepEqual([accepted.details.id, accepted.runner_queue], [4201, undefined]);
});

test('polling ends on every variant of a finished submission; the wait of a 429 comes from its text', async () => {
  const pending = userSubmissionDetailSchema.parse(answersOf('userSubmission')[1]?.body);
  for (const answer of answersOf('userSubmission').filter((a) => (a.body as { done: boolean }).done)) {
    for (const v of [{ label: 'as sent', body: answer.body }, ...variants(answer)]) {
      const done = userSubmissionDetailSchema.parse(v.body);
      let calls = 0;
      const client = { getSubmission: async () => (calls++ === 0 ? pending : done) };
      const statuses: string[] = [];
      const last = await pollSubmission(client, 4201, {
        intervalMs: 0,
        onUpdate: (u) => statuses.push(u.status.label),
      });
      assert.equal(last.id, 4201, `${answer.name} / ${v.label}`);
      assert.ok(calls >= 2 && calls <= 4, `${answer.name} / ${v.label}: ${calls} polls`);
      assertShown(statuses, `${answer.name} / ${v.label}`);
    }
  }
  const limited = new RunnerClientError('http', 'Request failed with status 429', {
    method: 'GET',
    url: 'http://h/user/submissions/1',
    status: 429,
    detail: 'Rate limit exceeded: 3/3 test submissions per hour. Try again in 0s.',
  });
  let call = 0;
  const ranked = userSubmissionDetailSchema.parse(answersOf('userSubmission')[0]?.body);
  const delays: number[] = [];
  await pollSubmission({ getSubmission: async () => (call++ === 0 ? Promise.reject(limited) : ranked) }, 1, {
    intervalMs: 50,
    onRetry: (r) => delays.push(r.delayMs),
  });
  assert.deepEqual(delays, [0], 'the text said 0 s: not the 50 ms backoff');
});
