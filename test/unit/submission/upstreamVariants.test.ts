// The whole submission workflow driven through every upstream answer the real GPU MODE service can send, with each
// optional or informational field removed, then nulled, in turn (test/contract/upstreamAnswers.ts, derived from
// kernelbot's code). A small scripted server on loopback serves one answer set: the first sample of every route,
// with the answer under test swapped in. For every variant the workflow must resolve (never throw), end in a
// result (or the runner's own error event), never a failure to read the answer, and what the CLI and the editor
// then show must not say null, undefined or NaN.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { answersOf, variants, type AnswerKind, type Json, type UpstreamAnswer } from '../../contract/upstreamAnswers';
import { connect, runSubmission, type SubmissionOutcome } from '../../../src/core/submission/index';
import { renderErrorEvent, renderResult } from '../../../src/cli/render/submissionResult';
import { resultLines, viewOfOutcome } from '../../../src/extension/resultModel';
import { startFakeServer } from '../client/fakeServer';

const SOLUTION = Buffer.from(
  '#!POPCORN leaderboard amd-fp8-mm\n#!POPCORN gpu MI300\n\ndef custom_kernel(data):\n    return data\n',
);
const BAD_WORDS = /\bnull\b|\bundefined\b|\bNaN\b/;

type Answers = Partial<Record<AnswerKind, Json>>;

/** The first sample of each route, and the finished submission polls end on. */
function defaults(): Answers {
  const first = (kind: AnswerKind) => answersOf(kind)[0]?.body as Json;
  const done = answersOf('userSubmission').find((a) => (a.body as { done?: boolean }).done === true)?.body as Json;
  return {
    health: first('health'),
    leaderboards: first('leaderboards'),
    runnerQueue: first('runnerQueue'),
    backgroundAccepted: first('backgroundAccepted'),
    userSubmission: done,
    statusEvent: first('statusEvent'),
    resultEvent: answersOf('resultEvent').find((a) => /profile/.test(a.name))?.body as Json,
  };
}

const idOf = (body: Json): number | undefined =>
  body && typeof body === 'object' && !Array.isArray(body) && typeof body.id === 'number' ? body.id : undefined;

/** One scripted GPU MODE: `answers` as they come; a not-yet-finished submission is answered once, then the finished one. */
async function serve(answers: Answers) {
  const base = defaults();
  const all = { ...base, ...answers };
  let polls = 0;
  const json = (res: ServerResponse, status: number, body: Json) =>
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body ?? null));
  return startFakeServer((req, res) => {
    const url = (req.url ?? '').split('?')[0] as string;
    if (url === '/health') return json(res, 200, all.health as Json);
    if (url === '/leaderboards') return json(res, 200, all.leaderboards as Json);
    if (url.startsWith('/runner_queue/')) return json(res, 200, all.runnerQueue as Json);
    if (req.method === 'POST' && url.startsWith('/submission/')) {
      // the id the polls answer with, whatever the variant left of the 202's informational fields
      const accepted = JSON.parse(JSON.stringify(all.backgroundAccepted)) as { details?: { id?: number } };
      if (accepted.details) accepted.details.id = idOf(base.userSubmission as Json);
      return json(res, 202, accepted as Json);
    }
    if (url.startsWith('/user/submissions/')) {
      polls += 1;
      const current = all.userSubmission as { done?: boolean };
      const body = current?.done === false && polls > 1 ? base.userSubmission : all.userSubmission;
      const withId = JSON.parse(JSON.stringify(body)) as Record<string, Json>;
      withId.id = idOf(base.userSubmission as Json) ?? 0;
      return json(res, 200, withId);
    }
    if (req.method === 'POST') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(`event: status\ndata: ${JSON.stringify(all.statusEvent)}\n\n`);
      const last = answers.errorEvent !== undefined ? ['error', answers.errorEvent] : ['result', all.resultEvent];
      res.end(`event: ${last[0]}\ndata: ${JSON.stringify(last[1])}\n\n`);
      return;
    }
    return json(res, 404, { detail: `no route ${req.method} ${url}` });
  });
}

/** What the user would read: the CLI's rendering and the editor's output-channel lines. */
function shown(outcome: SubmissionOutcome): string[] {
  const out: string[] = [];
  if (outcome.result) out.push(renderResult(outcome.result));
  if (outcome.error) out.push(renderErrorEvent(outcome.error));
  if (outcome.score) out.push(outcome.score.text);
  if (outcome.jobStatus) out.push(outcome.jobStatus.label, outcome.jobStatus.explanation);
  const view = viewOfOutcome(
    outcome,
    { title: 't', fileName: 'submission.py', hiddenNoiseLines: 0 },
    { perfettoMaxBytes: 1 << 30 },
  );
  out.push(...resultLines(view));
  return out;
}

async function runWith(answers: Answers, mode: 'leaderboard' | 'profile') {
  const server = await serve(answers);
  try {
    const connection = await connect({
      baseUrl: server.url,
      cliId: 'cli-id-for-variants',
      popcornConfigPath: '/nonexistent/.popcorn.yaml',
    });
    const events: string[] = [];
    const outcome = await runSubmission(
      { filePath: 'submission.py', content: SOLUTION, mode },
      {
        connection,
        surface: 'cli',
        pollIntervalMs: 1,
        onEvent: (e) => ('text' in e ? events.push(e.text) : undefined),
      },
    );
    return { outcome, events };
  } finally {
    await server.close();
  }
}

/** Which mode exercises a route: the background route for test/benchmark/leaderboard answers, streaming for SSE. */
const MODE: Partial<Record<AnswerKind, 'leaderboard' | 'profile'>> = {
  health: 'leaderboard',
  leaderboards: 'leaderboard',
  runnerQueue: 'leaderboard',
  backgroundAccepted: 'leaderboard',
  userSubmission: 'leaderboard',
  statusEvent: 'profile',
  resultEvent: 'profile',
  errorEvent: 'profile',
};

for (const [kind, mode] of Object.entries(MODE) as Array<[AnswerKind, 'leaderboard' | 'profile']>) {
  test(`every variant of ${kind}: the workflow ends with what is known`, async () => {
    const samples: UpstreamAnswer[] = answersOf(kind);
    let count = 0;
    for (const sample of samples) {
      for (const v of [{ label: 'as sent', body: sample.body }, ...variants(sample)]) {
        count += 1;
        const what = `${sample.name} · ${v.label}`;
        const { outcome, events } = await runWith({ [kind]: v.body }, mode);
        // the in-stream rate limit is explained as the background route's 429 (a failure with a wait)
        const limited = kind === 'errorEvent' && /Rate limit exceeded/.test(JSON.stringify(v.body));
        const expected = limited ? 'rate-limited' : outcome.explanation?.kind;
        assert.equal(outcome.explanation?.kind, expected, `${what}: ${outcome.kind}`);
        const ends = limited ? ['failed'] : kind === 'errorEvent' ? ['error'] : ['result', 'error'];
        assert.ok(ends.includes(outcome.kind), `${what}: ${outcome.kind} ${outcome.explanation?.message ?? ''}`);
        for (const text of [...shown(outcome), ...events]) assert.doesNotMatch(text, BAD_WORDS, `${what}: ${text}`);
      }
    }
    assert.ok(count > samples.length, `${kind}: variants were generated`);
  });
}
