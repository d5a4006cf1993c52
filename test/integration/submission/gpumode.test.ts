// The submission workflow end to end against the contract server of GPU MODE (test/contract, derived from
// kernelbot's code): detection, the background route polled to the end with the service's string scores, the
// secret run, a failing test run that still "succeeded", profile over the streaming route with its inline zips
// saved and summarised, the identity checks (none, unknown), GPU MODE's own checks before sending, a rate limit
// whose wait is only in the text, resume of a background submission after a restart, and an older deployment
// without `job` and `runner_queue`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PUBLIC_MEANS_NS, scoreOf, startContractServer } from '../../contract/gpumodeServer';
import {
  connect,
  resumeSubmission,
  runSubmission,
  testsOf,
  type ResumeState,
  type SubmissionEvent,
  type SubmissionRequest,
} from '../../../src/core/submission/index';
import { summarizePath } from '../../../src/trace/index';

const SOLUTION = '#!POPCORN leaderboard amd-fp8-mm\n#!POPCORN gpu MI300\n\ndef custom_kernel(data):\n    return data\n';

type ServerOptions = Parameters<typeof startContractServer>[0];

async function setup(t: import('node:test').TestContext, options: ServerOptions = {}) {
  const server = await startContractServer({ heartbeatMs: 30, ...options });
  t.after(() => server.close());
  const cliId = server.registeredId('alice');
  const missingConfig = path.join(tmpdir(), `kr-no-popcorn-${process.pid}.yaml`);
  const go = async (
    req: SubmissionRequest,
    extra: Partial<Parameters<typeof runSubmission>[1]> & { cliId?: string | null } = {},
  ) => {
    const events: SubmissionEvent[] = [];
    const { cliId: id = cliId, ...rest } = extra;
    const connection = await connect({
      baseUrl: server.url,
      ...(id ? { cliId: id } : {}),
      popcornConfigPath: missingConfig,
    });
    const outcome = await runSubmission(req, {
      connection,
      surface: 'cli',
      pollIntervalMs: 50,
      onEvent: (e) => events.push(e),
      ...rest,
    });
    return { outcome, events, connection };
  };
  return { server, cliId, go };
}

const file = (text: string, mode: SubmissionRequest['mode']): SubmissionRequest => ({
  filePath: 'submission.py',
  content: Buffer.from(text),
  mode,
});
const posts = (server: { requests: Array<{ method: string; path: string }> }) =>
  server.requests.filter((r) => r.method === 'POST');

test("leaderboard: background route polled to the end, the service's score, the secret run apart", async (t) => {
  const { server, go, cliId } = await setup(t);
  const { outcome, events, connection } = await go(file(`${SOLUTION}# contract: slow=2\n`, 'leaderboard'));
  assert.equal(connection.service, 'gpumode');
  assert.equal(outcome.kind, 'result', JSON.stringify(outcome.explanation));
  assert.equal(outcome.route, 'background');
  assert.equal(outcome.passed, true);
  assert.equal(outcome.jobStatus?.status, 'succeeded');
  assert.ok(outcome.score && outcome.score.source === 'run');
  assert.ok(Math.abs(outcome.score.seconds - scoreOf(PUBLIC_MEANS_NS, 'geom')) < 1e-12, `${outcome.score.seconds}`);
  assert.equal(outcome.result?.results.length, 2, 'public and secret runs');
  const accepted = events.find((e) => e.type === 'accepted');
  assert.ok(accepted?.type === 'accepted' && accepted.resume?.kind === 'poll' && accepted.resume.id === outcome.id);
  const phases = events.filter((e) => e.type === 'status' && e.changed).map((e) => (e.type === 'status' ? e.text : ''));
  assert.ok(phases.includes('running') && phases.at(-1) === 'succeeded', phases.join(' → '));
  assert.ok(
    events.some((e) => e.type === 'queue'),
    'the queue was shown before submitting',
  );
  assert.ok(server.requests.filter((r) => r.path.startsWith('/submission')).every((r) => r.cliId === cliId));
});

test('a failing test run: the job succeeded, the runs say what failed (as popcorn-cli shows it)', async (t) => {
  const { go } = await setup(t);
  const { outcome } = await go(file(`${SOLUTION}# contract: fail\n`, 'test'));
  assert.equal(outcome.kind, 'result');
  assert.equal(outcome.jobStatus?.status, 'succeeded');
  assert.equal(outcome.passed, false);
  const tests = testsOf(outcome.result?.results[0]?.runs.test?.run?.result ?? {});
  assert.ok(tests.length > 0 && tests.some((x) => !x.passed));
});

test('profile: the streaming route, heartbeats only, each inline zip saved and summarised', async (t) => {
  const { go } = await setup(t);
  const out = mkdtempSync(path.join(tmpdir(), 'kr-workflow-gm-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const { outcome, events } = await go(file(SOLUTION, 'profile'), {
    traces: { outDir: out, summarize: summarizePath },
  });
  assert.equal(outcome.kind, 'result', JSON.stringify(outcome.explanation ?? outcome.error));
  assert.equal(outcome.route, 'stream');
  assert.equal(outcome.liveOutput, false);
  assert.ok(outcome.traces.length > 0);
  assert.deepEqual(readdirSync(out).sort(), outcome.traces.map((s) => path.basename(s.path)).sort());
  for (const s of outcome.traces) assert.ok(s.summary && s.summary.kernels.length > 0, s.summaryError);
  assert.ok(
    events.some((e) => e.type === 'status' && /^\[\d\d:\d\d\] /.test(e.text)),
    'upstream heartbeats shown',
  );
});

test('identity: none (register offered, nothing sent) and unknown (re-register offered)', async (t) => {
  const { server, go } = await setup(t);
  const none = await go(file(SOLUTION, 'test'), { cliId: null });
  assert.equal(none.outcome.kind, 'failed');
  assert.equal(none.outcome.explanation?.kind, 'no-identity');
  assert.deepEqual(
    none.outcome.explanation?.actions.map((a) => a.id),
    ['register'],
  );
  assert.equal(posts(server).length, 0);

  const unknown = await go(file(SOLUTION, 'test'), { cliId: 'not-a-registered-id' });
  assert.equal(unknown.outcome.kind, 'failed');
  assert.equal(unknown.outcome.explanation?.kind, 'unregistered');
  assert.deepEqual(
    unknown.outcome.explanation?.actions.map((a) => a.id),
    ['reregister'],
  );
});

test("GPU MODE's own checks stop the file before anything is sent, with file:line", async (t) => {
  const { server, go } = await setup(t);
  const { outcome } = await go(file(`${SOLUTION}# uses torch.cuda.Stream\n`, 'test'));
  assert.equal(outcome.kind, 'failed');
  assert.equal(outcome.explanation?.kind, 'rejected');
  assert.ok(
    outcome.explanation?.problems?.some((p) => /^submission\.py:\d+/.test(p)),
    outcome.explanation?.message,
  );
  assert.equal(posts(server).length, 0);
});

test('resume: a background submission given up at a restart is followed again from its state', async (t) => {
  const { go, server } = await setup(t);
  const controller = new AbortController();
  let state: ResumeState | undefined;
  const first = await go(file(`${SOLUTION}# contract: slow=4\n`, 'benchmark'), {
    signal: controller.signal,
    onEvent: (e) => {
      if (e.type !== 'accepted') return;
      state = e.resume; // what the editor persists
      controller.abort(new Error('window reload'));
    },
  });
  assert.equal(first.outcome.kind, 'cancelled');
  assert.match(first.outcome.explanation?.message ?? '', /keeps running on GPU MODE/);
  const id = first.outcome.id as number;
  assert.ok(state && state.kind === 'poll' && state.id === id && state.leaderboard === 'amd-fp8-mm');
  const connection = await connect({ baseUrl: server.url, cliId: server.registeredId('alice') });
  const again = await resumeSubmission(state, { connection, surface: 'editor', pollIntervalMs: 50 });
  assert.equal(again.kind, 'result', JSON.stringify(again.explanation));
  assert.equal(again.id, id);
  assert.equal(again.passed, true);
  assert.equal(posts(server).length, 1, 'resumed without submitting again');
});

test('profile with counters on GPU MODE: not an option there, so the run says it profiles without them', async (t) => {
  const { go } = await setup(t);
  const out = mkdtempSync(path.join(tmpdir(), 'kr-workflow-gm-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const { outcome, events } = await go(
    { ...file(SOLUTION, 'profile'), profile: { counters: 'roofline', caseIndex: 0 } },
    { traces: { outDir: out, summarize: summarizePath } },
  );
  assert.equal(outcome.kind, 'result', JSON.stringify(outcome.explanation ?? outcome.error));
  const notes = events.flatMap((e) => (e.type === 'note' ? [e.text] : []));
  assert.ok(
    notes.some(
      (n) =>
        n ===
        "counters and kernel selection (counters=roofline, case=0) are options of Kernel Runner's runners; GPU MODE profiles without them",
    ),
    notes.join(' | '),
  );
});
