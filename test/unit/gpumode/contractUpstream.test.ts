// The contract server answers as kernelbot (4bdd839) does, checked against the samples transcribed from its code
// (test/contract/upstreamAnswers.ts, each naming the kernelbot file and function it comes from).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { completeOAuthInBrowser, startContractServer } from '../../contract/gpumodeServer';
import { answersOf, upstreamAnswers, type Json } from '../../contract/upstreamAnswers';
import { encodeRegistrationState } from '../../../src/core/gpumode/registration';

const SOLUTION = '#!POPCORN leaderboard amd-fp8-mm\n#!POPCORN gpu MI300\n\ndef custom_kernel(data):\n    return data\n';
const sample = (name: string) => {
  const a = upstreamAnswers.find((x) => x.name.startsWith(name));
  assert.ok(a, name);
  return a;
};

async function server(t: import('node:test').TestContext) {
  const s = await startContractServer({ heartbeatMs: 10 });
  t.after(() => s.close());
  const id = s.registeredId('alice');
  const post = async (route: string, content: string, name = 'submission.py') => {
    const form = new FormData();
    form.append('file', new Blob([content]), name);
    const res = await fetch(`${s.url}${route}`, { method: 'POST', headers: { 'X-Popcorn-Cli-Id': id }, body: form });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };
  const get = async (route: string, cliId: string | null = id) => {
    const res = await fetch(`${s.url}${route}`, { headers: cliId ? { 'X-Popcorn-Cli-Id': cliId } : {} });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const finish = async (accepted: { text: string }) => {
    const sid = (JSON.parse(accepted.text) as { details: { id: number } }).details.id;
    for (;;) {
      const d = (await get(`/user/submissions/${sid}`)).body as { done: boolean; job: { status: string } };
      if (d.done && ['succeeded', 'failed', 'hacked', 'timed_out'].includes(d.job.status))
        return d as unknown as Record<string, Json>;
    }
  };
  return { s, id, post, get, finish };
}

test('every sample names the kernelbot file and function it comes from; no {message} 429 is among them', () => {
  for (const a of upstreamAnswers)
    assert.match(a.source, /^src\/(kernelbot\/api|libkernelbot)\/[\w/]+\.py \w+/, a.name);
  assert.ok(!upstreamAnswers.some((a) => JSON.stringify(a.body).startsWith('{"message"')));
});

test('background route: every preparation error wrapped in a 400 as kernelbot words it; the streaming route sends the inner code', async (t) => {
  const { post } = await server(t);
  const cases: Array<[string, string, string, string?]> = [
    ['unknown leaderboard', '/submission/nope/MI300/test', SOLUTION.replace('amd-fp8-mm', 'nope')],
    ['a GPU the leaderboard', '/submission/amd-fp8-mm/T4/test', SOLUTION],
    ['more than 1 MB', '/submission/amd-fp8-mm/MI300/test', `${SOLUTION}${'#'.repeat(1_000_001)}`],
    ['the `stream` keyword', '/submission/amd-fp8-mm/MI300/test', `${SOLUTION}# torch.cuda.Stream\n`],
    ['an empty file', '/submission/amd-fp8-mm/MI300/test', ''],
    ['mode private', '/submission/amd-fp8-mm/MI300/private', SOLUTION],
  ];
  for (const [name, route, content] of cases) {
    const want = sample(`wrapped preparation error: ${name}`);
    const got = await post(route, content);
    assert.deepEqual([got.status, JSON.parse(got.text)], [want.status, want.body], name);
  }
  const direct = await post('/amd-fp8-mm/MI300/private', SOLUTION);
  assert.deepEqual(
    [direct.status, JSON.parse(direct.text)],
    [400, { detail: "Submission mode 'private' is not supported for this endpoint" }],
  );
});

test('a crash: job succeeded, passed false, result {}; runner failed: runs []; secret failed: the public score stays; KernelGuard and a launcher exception', async (t) => {
  const { post, finish } = await server(t);
  const runsOf = (d: Record<string, Json>) =>
    (d.runs as Array<Record<string, Json>>).map((r) => [
      r.mode,
      r.secret,
      r.passed,
      r.score === null ? null : 'score',
      r.result ?? null,
    ]);
  const crash = await finish(await post('/submission/amd-fp8-mm/MI300/test', `${SOLUTION}# contract: crash\n`));
  const crashSample = sample('a crash or a timeout').body as Record<string, Json>;
  assert.deepEqual(
    [crash.job && (crash.job as Record<string, Json>).status, runsOf(crash)],
    [(crashSample.job as Record<string, Json>).status, runsOf(crashSample)],
  );
  assert.doesNotMatch(JSON.stringify(crash), /exit_code/);
  const none = await finish(await post('/submission/amd-fp8-mm/MI300/test', `${SOLUTION}# contract: noresults\n`));
  assert.deepEqual([(none.job as Record<string, Json>).status, none.runs, none.runner_queue], ['succeeded', [], null]);
  const secret = await finish(
    await post('/submission/amd-fp8-mm/MI300/leaderboard', `${SOLUTION}# contract: secretfail\n`),
  );
  const secretSample = sample('secret validation failed').body as Record<string, Json>;
  assert.deepEqual(
    [secret.job && (secret.job as Record<string, Json>).error, runsOf(secret).map((r) => r.slice(0, 4))],
    [(secretSample.job as Record<string, Json>).error, runsOf(secretSample).map((r) => r.slice(0, 4))],
  );
  const hacked = await finish(await post('/submission/amd-fp8-mm/MI300/benchmark', `${SOLUTION}# contract: hacked\n`));
  assert.deepEqual(hacked.job && { ...(hacked.job as Record<string, Json>), last_heartbeat: null }, {
    ...((sample("KernelGuard's rejection: job").body as Record<string, Json>).job as Record<string, Json>),
    last_heartbeat: null,
  });
  const raised = await finish(await post('/submission/amd-fp8-mm/MI300/test', `${SOLUTION}# contract: raise\n`));
  assert.equal(
    (raised.job as Record<string, Json>).error,
    'Failed to trigger GitHub Action. Please check the configuration.',
  );
});

test("SSE: json.dumps spacing, text/event-stream; charset=utf-8, KernelGuard's 400, the unexpected exception, Nsight-Compute on T4", async (t) => {
  const { post } = await server(t);
  const guard = await post('/amd-fp8-mm/MI300/profile', `${SOLUTION}# contract: hacked\n`);
  assert.equal(guard.type, 'text/event-stream; charset=utf-8');
  assert.match(guard.text, /^event: status\ndata: \{"status": "processing", "elapsed_time": 0\.0\}\n\n/);
  const last = (text: string) => JSON.parse(/data: (.*)\n\n$/.exec(text)?.[1] ?? 'null') as Json;
  assert.deepEqual(last(guard.text), sample("KernelGuard's rejection in-stream").body);
  assert.deepEqual(
    last((await post('/amd-fp8-mm/MI300/test', `${SOLUTION}# contract: raise\n`)).text),
    sample('an unexpected exception').body,
  );
  const ncu = last((await post('/vectoradd/T4/profile', '#!POPCORN leaderboard vectoradd\nx = 1\n')).text) as {
    results: Array<{ runs: Record<string, { profile: Record<string, Json> }> }>;
  };
  const want = (sample('profile mode on T4').body as typeof ncu).results[0]?.runs['profile.0']?.profile;
  assert.deepEqual(Object.keys(ncu.results[0]?.runs['profile.0']?.profile ?? {}), Object.keys(want ?? {}));
  assert.deepEqual(
    [ncu.results[0]?.runs['profile.0']?.profile.profiler, ncu.results[0]?.runs['profile.0']?.profile.download_url],
    ['Nsight-Compute', null],
  );
  const roc = last((await post('/amd-fp8-mm/MI300/profile', SOLUTION)).text) as typeof ncu;
  assert.equal(roc.results[0]?.runs['profile.0']?.profile.profiler, 'rocPROF');
  assert.match(String(roc.results[0]?.runs['profile.0']?.profile.download_url), /^https:\/\/github\.com\//);
});

test('registration: padded states, provider unchecked, the callback refusals as kernelbot words them', async (t) => {
  const { s } = await server(t);
  const init = async (provider: string) =>
    ((await (await fetch(`${s.url}/auth/init?provider=${provider}`)).json()) as { state: string }).state;
  const callback = (provider: string, state: string, code: string) =>
    completeOAuthInBrowser(
      `https://x/?redirect_uri=${encodeURIComponent(`${s.url}/auth/cli/${provider}`)}&state=${encodeURIComponent(state)}`,
      code,
    );
  const padded =
    Buffer.from(JSON.stringify({ cli_id: await init('discord'), is_reset: false })).toString('base64url') + '==';
  // issued for discord, called back as github: accepted (create_user_from_cli takes the callback's provider)
  const ok = await callback('github', padded.length % 4 === 0 ? padded : padded.replace(/=+$/, ''), 'carol');
  assert.equal(ok.status, 200, ok.body);
  const again = await callback('discord', encodeRegistrationState(await init('discord'), false), 'carol');
  assert.deepEqual([again.status, JSON.parse(again.body)], [400, sample('callback: a second plain').body]);
  const never = await callback('discord', encodeRegistrationState('never-initialised', false), 'dave');
  assert.deepEqual([never.status, JSON.parse(never.body)], [400, sample('callback: a cli_id').body]);
  const reset = await callback('discord', encodeRegistrationState(await init('discord'), true), 'erin');
  assert.deepEqual([reset.status, JSON.parse(reset.body)], [400, sample('callback: a reset').body]);
});

test('rankings: user_id an integer; invite-only boards listed, /gpus 401 without auth, submit 403; stopped and banned refused', async (t) => {
  const { s, post, get, finish } = await server(t);
  await finish(await post('/submission/amd-fp8-mm/MI300/leaderboard', SOLUTION));
  const ranked = (await get('/submissions/amd-fp8-mm/MI300', null)).body as Array<Record<string, Json>>;
  assert.equal(typeof ranked[0]?.user_id, 'number');
  assert.equal(typeof (answersOf('rankedSubmissions')[0]?.body as Array<Record<string, Json>>)[0]?.user_id, 'number');
  const boards = (await get('/leaderboards', null)).body as Array<Record<string, Json>>;
  assert.equal(boards.find((b) => b.name === 'invite-only')?.visibility, 'closed');
  assert.deepEqual(await get('/gpus/invite-only', null), {
    status: 401,
    body: sample('a closed leaderboard asked').body,
  });
  const closed = await post('/submission/invite-only/MI300/test', SOLUTION.replace('amd-fp8-mm', 'invite-only'));
  assert.deepEqual([closed.status, JSON.parse(closed.text)], [403, sample('a closed (invite-only)').body]);
  s.ban('alice');
  const banned = await post('/submission/amd-fp8-mm/MI300/test', SOLUTION);
  assert.deepEqual([banned.status, JSON.parse(banned.text)], [400, sample('a banned user').body]);
  s.stop();
  const stopped = await post('/submission/amd-fp8-mm/MI300/test', SOLUTION);
  assert.deepEqual([stopped.status, JSON.parse(stopped.text)], [400, sample('the service stopped').body]);
});
