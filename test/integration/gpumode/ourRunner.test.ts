// The same GPU MODE flow against our own runner (`node dist/cli.cjs serve --port 0`, a real process), which serves
// the same routes: detection, background submit + polling to a result with a secret run and a ranked score, the
// profile stream with its archives saved per run and summarised, and `kernel-runner submissions list|show|delete`.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRunnerClient } from '../../../src/core/client/index';
import {
  detectServiceKind,
  pollSubmission,
  rankedScoreOfSubmission,
  resultFromSubmission,
  saveProfileTraces,
  submissionPassed,
  type PollUpdate,
} from '../../../src/core/gpumode/index';
import { summarizePath } from '../../../src/trace/index';
import type { TraceSummary } from '../../../src/core/protocol/traceSummary';
import { profilingPath, vectoradd } from '../submit/helpers';
import { ensureBuilt, runCli, startServe } from './helpers';

type Serve = Awaited<ReturnType<typeof startServe>>;
let serve: Serve;
let work: string;

before(async () => {
  ensureBuilt();
  serve = await startServe(['--gpu-name', 'MI300'], { PATH: profilingPath });
  work = mkdtempSync(path.join(tmpdir(), 'kr-gpumode-ours-'));
});

after(async () => {
  await serve?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

const solution = () => ({ name: 'submission.py', content: readFileSync(path.join(vectoradd, 'submission.py')) });
// Our runner is not GPU MODE: no cli_id is sent to it (and none is needed without a token).
const cli = (args: string[]) =>
  runCli([...args, '--server', serve.url], { cwd: work, env: { HOME: work, POPCORN_API_URL: '' } });

test('background route + polling to the end: runs with the secret copy, ranked score, passed', async () => {
  const client = createRunnerClient({ baseUrl: serve.url, extensions: false });
  assert.equal(await detectServiceKind(client), 'kernel-runner');
  const accepted = await client.submitBackground({
    leaderboard: 'vectoradd_py',
    gpu: 'MI300',
    mode: 'leaderboard',
    file: solution(),
  });
  const updates: PollUpdate[] = [];
  const detail = await pollSubmission(client, accepted.details.id, {
    intervalMs: 200,
    onUpdate: (u) => updates.push(u),
  });
  assert.equal(detail.done, true);
  assert.equal(updates.at(-1)?.status.status, 'succeeded');
  assert.equal(submissionPassed(detail), true);
  const result = resultFromSubmission(detail);
  assert.ok(result.results.length >= 1);
  assert.ok(result.results[0]?.runs.leaderboard?.run?.passed);
  const score = rankedScoreOfSubmission(detail);
  assert.ok(score && score.seconds > 0, JSON.stringify(detail.runs.map((r) => [r.mode, r.secret, r.score])));
  assert.equal(score.source, 'run');
  assert.equal(result.results.length, 2, 'the public run and its secret copy');
  assert.ok(
    detail.runs.some((r) => r.secret && r.mode === 'leaderboard'),
    JSON.stringify(detail.runs.map((r) => [r.mode, r.secret])),
  );
});

test('profile over the streaming route: archives saved per run (never overwritten) and summarised', async (t) => {
  const client = createRunnerClient({ baseUrl: serve.url });
  const outcome = await client.submit({ leaderboard: 'vectoradd_py', gpu: 'MI300', mode: 'profile', file: solution() });
  assert.equal(outcome.kind, 'result');
  if (outcome.kind !== 'result') return;
  const out = mkdtempSync(path.join(tmpdir(), 'kr-gpumode-traces-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const opts = {
    outDir: out,
    fileName: 'submission.py',
    leaderboard: 'vectoradd_py',
    gpu: 'MI300',
    submissionId: outcome.jobId,
    client,
  };
  const first = await saveProfileTraces(outcome.result, opts);
  const second = await saveProfileTraces(outcome.result, opts);
  assert.deepEqual(
    first.map((s) => path.basename(s.path)),
    [
      `submission-vectoradd_py-MI300-${outcome.jobId}-profile.0.zip`,
      `submission-vectoradd_py-MI300-${outcome.jobId}-profile.1.zip`,
    ],
  );
  assert.deepEqual(
    second.map((s) => path.basename(s.path)),
    [
      `submission-vectoradd_py-MI300-${outcome.jobId}-profile.0-2.zip`,
      `submission-vectoradd_py-MI300-${outcome.jobId}-profile.1-2.zip`,
    ],
  );
  for (const s of first) {
    assert.equal(readFileSync(s.path).subarray(0, 2).toString(), 'PK');
    // our runner sends its own summary: the saved archive is not summarised again, and it reads as the same trace
    assert.equal(s.summary, undefined);
    const sent: TraceSummary | undefined = outcome.result.results[0]?.runs[s.run]?.profile?.summary;
    assert.ok(sent && sent.kernels.length > 0);
    assert.deepEqual(
      (await summarizePath(s.path)).kernels.map((k) => k.name),
      sent.kernels.map((k) => k.name),
    );
  }
});

test('CLI: submissions list, show (with code), delete against our runner', async () => {
  const client = createRunnerClient({ baseUrl: serve.url, extensions: false });
  const accepted = await client.submitBackground({
    leaderboard: 'vectoradd_py',
    gpu: 'MI300',
    mode: 'test',
    file: solution(),
  });
  const id = accepted.details.id;
  await pollSubmission(client, id, { intervalMs: 200 });

  const list = await cli(['submissions', 'list']);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^ *ID +Leaderboard +File +Submitted +GPU +Status +Score$/m);
  assert.match(
    list.stdout,
    new RegExp(
      `^ *${id} +vectoradd_py +submission\\.py +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d +MI300 +done +-$`,
      'm',
    ),
  );
  const json = await cli(['submissions', 'list', '--json', '--leaderboard', 'vectoradd_py']);
  assert.ok((JSON.parse(json.stdout) as Array<{ id: number }>).some((s) => s.id === id));

  const show = await cli(['submissions', 'show', String(id), '--code']);
  assert.equal(show.code, 0, show.stderr);
  assert.match(show.stdout, new RegExp(`^#${id} vectoradd_py · submission\\.py · done \\(succeeded\\)`));
  assert.match(show.stdout, /^test +MI300 +passed/m);
  assert.ok(
    show.stdout.includes(readFileSync(path.join(vectoradd, 'submission.py'), 'utf8').trimEnd()),
    'the code is printed',
  );
  const noCode = await cli(['submissions', 'show', String(id), '--json']);
  assert.equal((JSON.parse(noCode.stdout) as { code?: string }).code, undefined);

  const refused = await cli(['submissions', 'delete', String(id)]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /pass --yes to confirm/);
  const deleted = await cli(['submissions', 'delete', String(id), '--yes']);
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.equal(deleted.stdout, `Deleted submission ${id}.\n`);
  const gone = await cli(['submissions', 'show', String(id)]);
  assert.equal(gone.code, 1);
  assert.match(
    gone.stderr,
    new RegExp(`answered 404: Submission not found \\(GET http://127\\.0\\.0\\.1:\\d+/user/submissions/${id}\\)`),
  );
  assert.doesNotMatch(gone.stderr, /GPU MODE/, 'our own runner is not called GPU MODE');
  const bad = await cli(['submissions', 'show', 'abc']);
  assert.equal(bad.code, 2);
});
