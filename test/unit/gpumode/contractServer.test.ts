// The contract server of GPU MODE (test/contract/gpumodeServer.ts) serves the shapes kernelbot writes: the same
// keys as the table of real answers (test/contract/upstreamAnswers.ts), scores as strings, the counts each
// launcher knows, a job of nulls for streaming-route submissions, the 429 without Retry-After, and an older
// deployment without `job` and `runner_queue`. Everything it serves is read by the client's schemas.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startContractServer, type ContractServerOptions } from '../../contract/gpumodeServer';
import { answersOf, applyVariant, variants, type Json, type Variant } from '../../contract/upstreamAnswers';
import { createRunnerClient } from '../../../src/core/client/index';
import {
  backgroundAcceptedSchema,
  leaderboardListSchema,
  rankedSubmissionListSchema,
  runnerQueueSchema,
  userSubmissionDetailSchema,
  userSubmissionListSchema,
} from '../../../src/core/protocol/api';
import {
  describeSubmissionStatus,
  explainGpuModeError,
  GpuModeError,
  pollSubmission,
  rankedScoreOfSubmission,
  resultFromSubmission,
  submissionHeadline,
} from '../../../src/core/gpumode/index';

const SOLUTION = '#!POPCORN leaderboard amd-fp8-mm\n#!POPCORN gpu MI300\n\ndef custom_kernel(data):\n    return data\n';

/** Every key path of a JSON value: `a.b`, `[]` for the first element of arrays, `*` for the values of `maps`. */
function keyPaths(value: Json, maps: readonly string[] = [], prefix = ''): string[] {
  if (Array.isArray(value)) {
    const first = value[0];
    return first !== undefined && typeof first === 'object' && first !== null
      ? keyPaths(first, maps, `${prefix}[]`)
      : [];
  }
  if (value === null || typeof value !== 'object') return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    const path = maps.includes(prefix) ? `${prefix}.*` : prefix ? `${prefix}.${k}` : k;
    if (!maps.includes(prefix)) out.push(path);
    out.push(...keyPaths(v, maps, path));
  }
  return [...new Set(out)].sort();
}

const sample = (kind: Parameters<typeof answersOf>[0], i = 0): Json => answersOf(kind)[i]?.body as Json;

async function server(t: import('node:test').TestContext, options: ContractServerOptions = {}) {
  const s = await startContractServer({ heartbeatMs: 5, ...options });
  t.after(() => s.close());
  const cliId = s.registeredId('alice');
  const get = async (path: string): Promise<{ status: number; body: Json; headers: Headers }> => {
    const res = await fetch(`${s.url}${path}`, { headers: { 'X-Popcorn-Cli-Id': cliId } });
    return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
  };
  const submit = async (mode: string, code = SOLUTION, route: 'background' | 'streaming' = 'background') => {
    const form = new FormData();
    form.append('file', new Blob([code]), 'submission.py');
    const res = await fetch(`${s.url}${route === 'background' ? '/submission' : ''}/amd-fp8-mm/MI300/${mode}`, {
      method: 'POST',
      body: form,
      headers: { 'X-Popcorn-Cli-Id': cliId },
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const client = createRunnerClient({ baseUrl: s.url, cliId, extensions: false });
  return { s, get, submit, client };
}

test('the answers have the keys kernelbot writes, the real answers have', async (t) => {
  const { get, submit, client } = await server(t);
  const queue = await get('/runner_queue/MI300');
  assert.deepEqual(keyPaths(queue.body), keyPaths(sample('runnerQueue')));
  assert.deepEqual(queue.body, {
    runner: 'GitHub',
    gpu: 'MI300',
    queued_jobs: 0,
    running_jobs: null,
    available_runners: null,
    status: 'available',
    error: null,
  });
  assert.deepEqual((await get('/runner_queue/t4')).body, {
    runner: 'Modal',
    gpu: 'T4',
    queued_jobs: 0,
    running_jobs: null,
    available_runners: 2,
    status: 'available',
    error: null,
  });
  assert.deepEqual((await get('/runner_queue/MI301')).body, {
    runner: 'unknown',
    gpu: 'MI301',
    queued_jobs: null,
    running_jobs: null,
    available_runners: null,
    status: 'unavailable',
    error: 'unknown gpu',
  });
  const boards = await get('/leaderboards');
  assert.deepEqual(keyPaths(boards.body), keyPaths(sample('leaderboards')));
  leaderboardListSchema.parse(boards.body);

  const accepted = await submit('leaderboard');
  assert.equal(accepted.status, 202);
  const body = JSON.parse(accepted.text) as Json;
  assert.deepEqual(keyPaths(body), keyPaths(sample('backgroundAccepted')));
  const id = backgroundAcceptedSchema.parse(body).details.id;
  const pending = await get(`/user/submissions/${id}`);
  assert.equal((pending.body as { runner_queue: Json }).runner_queue, null, 'no runs yet: no queue');
  const done = await pollSubmission(client, id, { intervalMs: 0 });
  assert.equal(done.job?.status, 'succeeded');
  const detail = (await get(`/user/submissions/${id}`)).body as { runs: Array<{ [k: string]: Json }> };
  assert.deepEqual(keyPaths(detail as Json), keyPaths(sample('userSubmission')));
  assert.deepEqual(
    detail.runs.map((r) => [r.mode, r.secret, 'result' in r, typeof r.score]),
    [
      ['test', false, true, 'object'],
      ['benchmark', false, true, 'object'],
      ['leaderboard', false, false, 'string'],
      ['test', true, false, 'object'],
      ['benchmark', true, false, 'object'],
      ['leaderboard', true, false, 'string'],
    ],
  );
  const list = (await get('/user/submissions')).body;
  assert.deepEqual(keyPaths(list), keyPaths(sample('userSubmissions')));
  assert.deepEqual(
    (list as Array<{ runs: Json[] }>)[0]?.runs.map((r) => typeof (r as { score: Json }).score),
    ['object', 'object', 'string'],
    'public passed runs, the ranked one scored',
  );
  userSubmissionListSchema.parse(list);
  const ranked = (await get('/submissions/amd-fp8-mm/MI300')).body;
  assert.deepEqual(keyPaths(ranked), keyPaths(sample('rankedSubmissions')));
  assert.equal(typeof rankedSubmissionListSchema.parse(ranked)[0]?.submission_score, 'number');

  const test = await submit('test');
  const testId = backgroundAcceptedSchema.parse(JSON.parse(test.text)).details.id;
  await pollSubmission(client, testId, { intervalMs: 0 });
  const rows = (await get('/user/submissions')).body as Array<{ id: number; runs: Json[] }>;
  assert.deepEqual(rows.find((r) => r.id === testId)?.runs, [], 'no secret leaderboard run: no runs in the list');
});

test('streaming route: a status event at once, the result with the result shapes; its submission has a job of nulls', async (t) => {
  const { get, submit } = await server(t);
  const res = await submit('profile', SOLUTION, 'streaming');
  const events = [...res.text.matchAll(/event: (\w+)\ndata: (.*)\n\n/g)].map(
    (m) => [m[1], JSON.parse(m[2] as string)] as [string, Json],
  );
  assert.deepEqual(
    events.map((e) => e[0]),
    ['status', 'result'],
  );
  assert.deepEqual(keyPaths(events[0]?.[1] as Json), keyPaths(sample('statusEvent')));
  const maps = ['results[].runs'];
  assert.deepEqual(keyPaths(events[1]?.[1] as Json, maps), keyPaths(answersOf('resultEvent')[2]?.body as Json, maps));
  const mine = (await get('/user/submissions')).body as Array<{ id: number }>;
  const detail = userSubmissionDetailSchema.parse((await get(`/user/submissions/${mine[0]?.id}`)).body);
  assert.deepEqual(detail.job, { status: null, error: null, last_heartbeat: null });
  assert.equal(submissionHeadline(detail), `#${detail.id} amd-fp8-mm · submission.py · done (status unknown)`);
  assert.deepEqual(
    detail.runs.map((r) => [r.mode, r.result]),
    [
      ['profile.0', undefined],
      ['profile.1', undefined],
    ],
  );
});

test('the rate limit: 429 with the wait in its text, no Retry-After (a header only as an option); in-stream 400 on the streaming route', async (t) => {
  const { submit, client } = await server(t, {
    submissionLimit: { count: 1, windowMs: 3_600_000, retryAfterSeconds: 1234 },
  });
  assert.equal((await submit('leaderboard')).status, 202);
  assert.equal((await submit('test')).status, 202, 'test and leaderboard are separate categories');
  const limited = await submit('leaderboard');
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get('retry-after'), null);
  assert.deepEqual(JSON.parse(limited.text), {
    detail: 'Rate limit exceeded: 1/1 leaderboard submissions per hour. Try again in 1234s.',
  });
  const explained = explainGpuModeError(
    await client
      .submitBackground({
        leaderboard: 'amd-fp8-mm',
        gpu: 'MI300',
        mode: 'leaderboard',
        file: { name: 'a.py', content: SOLUTION },
      })
      .catch((e: unknown) => e),
  );
  assert.ok(
    explained instanceof GpuModeError && explained.type === 'rate-limited' && explained.retryAfterMs === 1_234_000,
    String(explained),
  );
  const stream = await submit('profile', SOLUTION, 'streaming');
  assert.equal(stream.status, 200);
  assert.match(
    stream.text,
    /^event: status\n.*\n\nevent: error\ndata: \{"status": "error", "detail": "Rate limit exceeded: 1\/1 test submissions per hour\. Try again in 1234s\.", "status_code": 400\}\n\n$/,
  );

  const { submit: submit2 } = await server(t, {
    submissionLimit: { count: 0, windowMs: 60_000, retryAfterHeader: true },
  });
  const header = await submit2('test');
  assert.equal(header.status, 429);
  assert.equal(header.headers.get('retry-after'), '60');
});

test("deployment 'old': no job, no runner_queue anywhere (no queue route either), a 202 with status and details only", async (t) => {
  const { get, submit, client } = await server(t, { deployment: 'old' });
  assert.equal((await get('/runner_queue/MI300')).status, 404);
  const accepted = JSON.parse((await submit('leaderboard')).text) as Json;
  assert.deepEqual(keyPaths(accepted), keyPaths(sample('backgroundAccepted', 1)));
  const id = backgroundAcceptedSchema.parse(accepted).details.id;
  const first = (await get(`/user/submissions/${id}`)).body as { [k: string]: Json };
  assert.ok(!('job' in first) && !('runner_queue' in first), JSON.stringify(first));
  const done = await pollSubmission(client, id, { intervalMs: 0 });
  assert.equal(done.job, null);
  assert.deepEqual(
    keyPaths((await get(`/user/submissions/${id}`)).body),
    keyPaths(answersOf('userSubmission')[5]?.body as Json),
  );
  assert.equal(submissionHeadline(done), `#${id} amd-fp8-mm · submission.py · done`);
});

test('doneBeforeStatus: polls see done with the job still running; the poller waits for the final status', async (t) => {
  const { get, submit, client } = await server(t, { doneBeforeStatus: 1 });
  const id = backgroundAcceptedSchema.parse(
    JSON.parse((await submit('leaderboard', `${SOLUTION}# contract: fail\n`)).text),
  ).details.id;
  const seen: string[] = [];
  const last = await pollSubmission(client, id, {
    intervalMs: 0,
    onUpdate: (u) => seen.push(`${u.detail.done ? 'done' : 'not done'}/${u.status.status}`),
  });
  assert.deepEqual(seen, ['not done/pending', 'not done/running', 'done/running', 'done/failed']);
  assert.equal(last.job?.error, 'ranked validation failed on MI300; submission will not appear on the leaderboard');
  const queue = runnerQueueSchema.parse((await get('/runner_queue/MI300')).body);
  assert.equal(queue.queued_jobs, 0);
});

test('contract: hold: the job stays running, poll after poll, until release(); then it ends as any other', async (t) => {
  const { s, get, submit } = await server(t);
  const held = backgroundAcceptedSchema.parse(JSON.parse((await submit('test', `${SOLUTION}# contract: hold\n`)).text))
    .details.id;
  const other = backgroundAcceptedSchema.parse(JSON.parse((await submit('test')).text)).details.id;
  const statusOf = async (id: number) =>
    userSubmissionDetailSchema.parse((await get(`/user/submissions/${id}`)).body).job?.status;
  const seen: Array<string | null | undefined> = [];
  for (let i = 0; i < 6; i++) seen.push(await statusOf(held));
  assert.deepEqual(seen, ['pending', 'running', 'running', 'running', 'running', 'running']);
  assert.deepEqual(
    [await statusOf(other), await statusOf(other), await statusOf(other)],
    ['pending', 'running', 'succeeded'],
  );
  assert.deepEqual(s.release(), [held], 'only the held one');
  assert.deepEqual(s.release(), [], 'released once');
  assert.equal(await statusOf(held), 'succeeded');
});

test("upstream's own checks, in its order and words", async (t) => {
  const { s, submit } = await server(t);
  const detail = async (r: { text: string }) => (JSON.parse(r.text) as { detail: Json }).detail;
  const big = await submit('test', `${SOLUTION}${'#'.repeat(1_000_001)}`);
  // the background route wraps to_submit_info's errors (main.run_submission_async)
  assert.deepEqual(
    [big.status, await detail(big)],
    [400, 'failed to prepare submission request: 413: Submission file is too large (limit: 1MB).'],
  );
  const stream = await submit('test', `${SOLUTION}# torch.cuda.Stream\n`);
  assert.equal(stream.status, 400);
  assert.match(
    String(await detail(stream)),
    /^failed to prepare submission request: 500: Your code contains work on another stream/,
  );
  const mode = await submit('fast');
  assert.deepEqual(
    [mode.status, await detail(mode)],
    [400, "failed to prepare submission request: 400: Invalid submission mode value: 'fast'"],
  );
  const other = await submit('test', '#!POPCORN leaderboard grayscale\nx = 1\n');
  assert.equal(other.status, 400);
  assert.match(
    String(await detail(other)),
    /^Leaderboard name `amd-fp8-mm` specified in the command doesn't match the one in the submission script header `grayscale`\.$/,
  );
  const res = await fetch(`${s.url}/submission/amd-fp8-mm/MI300/test`, {
    method: 'POST',
    headers: { 'X-Popcorn-Cli-Id': s.registeredId('alice') },
  });
  assert.equal(res.status, 422);
  assert.deepEqual(((await res.json()) as { detail: Array<{ loc: string[] }> }).detail[0]?.loc, ['body', 'file']);
  const anon = await fetch(`${s.url}/user/submissions`);
  assert.deepEqual(
    [anon.status, ((await anon.json()) as { detail: string }).detail],
    [400, 'Missing X-Web-Auth-Id or X-Popcorn-Cli-Id header'],
  );
  const unknown = await fetch(`${s.url}/amd-fp8-mm/MI300/test`, {
    method: 'POST',
    headers: { 'X-Popcorn-Cli-Id': 'nope' },
    body: new FormData(),
  });
  assert.deepEqual(
    [unknown.status, ((await unknown.json()) as { detail: string }).detail],
    [401, 'Invalid or unauthorized X-Popcorn-Cli-Id'],
  );
});

test('rewrite + applyVariant: a client polled through every variant of a finished submission, served live', async (t) => {
  let current: Variant | undefined;
  const { submit, client } = await server(t, {
    rewrite: (kind, body) => (kind === 'userSubmission' && current ? applyVariant(body, current) : body),
  });
  const all = [...variants(answersOf('userSubmission')[0]!)];
  assert.ok(all.length > 30, `${all.length}`);
  for (const v of all) {
    current = undefined;
    const id = backgroundAcceptedSchema.parse(JSON.parse((await submit('leaderboard')).text)).details.id;
    current = v;
    const done = await pollSubmission(client, id, { intervalMs: 0, settlePolls: 1 });
    assert.equal(done.id, id, v.label);
    const texts = [
      submissionHeadline(done),
      describeSubmissionStatus(done).label,
      rankedScoreOfSubmission(done, 'geom')?.text ?? '-',
      ...resultFromSubmission(done).results.map((r) => r.error),
    ];
    for (const text of texts) assert.doesNotMatch(text, /\bnull\b|\bundefined\b|NaN/, `${v.label}: ${text}`);
  }
});
