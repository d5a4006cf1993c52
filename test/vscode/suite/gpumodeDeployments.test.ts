// GPU MODE as deployed today and as deployed before mid-June 2026, from the extension, against the contract server
// (test/contract/gpumodeServer.ts) in each mode: `current` answers with upstream's real shapes (scores as JSON
// strings, queue counts only where the launcher has them, `job` all null for streaming submissions), `old` has no
// `job` and no `runner_queue` anywhere (and no GET /runner_queue) and keeps no run results. Test, benchmark and
// leaderboard go through the background route and are polled; profile through the streaming route; an old
// deployment's background submission is picked up again after a reload.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KernelRunnerApi } from '../../../src/extension/api';
import { activateExtension, setting, waitFor, workspaceDir } from './helpers';
import { startContract, type Contract } from './contract';

/** geomean(12.5 µs, 48 µs): the contract server's public means, ranked by amd-fp8-mm's `geom`. */
const EXPECTED_SCORE = '24.495 µs';

const source = (extra = '') =>
  [
    '#!POPCORN leaderboard amd-fp8-mm',
    '#!POPCORN gpu MI300',
    'import torch',
    extra,
    '',
    'def custom_kernel(data):',
    '    a, b = data',
    '    return a + b',
    '',
  ].join('\n');

function writeFile(name: string, text: string): vscode.Uri {
  const path = join(workspaceDir, name);
  writeFileSync(path, text);
  return vscode.Uri.file(path);
}

for (const deployment of ['current', 'old'] as const) {
  const old = deployment === 'old';
  describe(`GPU MODE deployment: ${old ? 'before mid-June 2026 (no job, no runner_queue, no run results)' : "today's (upstream's shapes)"}`, function () {
    this.timeout(120_000);
    let api: KernelRunnerApi;
    let contract: Contract;
    let tmp: string;
    const popcornBefore = process.env.POPCORN_API_URL;
    const file = (kind: string) => `gmd_${deployment}_${kind}.py`;

    /** GET /user/submissions/{id} as the service answers it (what the extension had to read). */
    const raw = async (id: number) =>
      (await (
        await fetch(`${contract.url}/user/submissions/${id}`, { headers: { 'X-Popcorn-Cli-Id': contract.aliceId } })
      ).json()) as Record<string, unknown> & {
        runs: Array<{ mode: string; secret: boolean; score: unknown; result?: unknown }>;
      };

    before(async () => {
      api = await activateExtension();
      contract = await startContract({ deployment });
      tmp = mkdtempSync(join(tmpdir(), `kr-gmd-${deployment}-`));
      const popcorn = join(tmp, 'popcorn.yaml');
      writeFileSync(popcorn, `cli_id: ${contract.aliceId}\n`);
      process.env.POPCORN_API_URL = contract.url;
      api.setPopcornConfigPath(popcorn);
      api.setPollInterval(100);
      api.setMessageResponder(() => undefined);
      await setting('server', contract.url);
      await setting('openResults', 'always');
      await waitFor('the status bar to name GPU MODE', () => /GPU MODE/.test(api.statusText()));
    });

    after(async () => {
      api.setMessageResponder(undefined);
      api.setPollInterval(undefined);
      api.setPopcornConfigPath(undefined);
      await setting('server', undefined);
      await setting('openResults', undefined);
      if (popcornBefore === undefined) delete process.env.POPCORN_API_URL;
      else process.env.POPCORN_API_URL = popcornBefore;
      api.closePanels();
      await contract?.close();
      rmSync(tmp, { recursive: true, force: true });
    });

    afterEach(() => api.closePanels());

    it('Run Tests: the queue as the service counts it, the background route polled to the end, the tests in the channel', async () => {
      await vscode.commands.executeCommand('kernelRunner.runTests', writeFile(file('test'), source()));
      const lines = api.lastRunLines();
      const text = lines.join('\n');
      assert.match(
        lines[0] ?? '',
        new RegExp(
          `^━━ Tests ${file('test')} · amd-fp8-mm on MI300 · test · GPU MODE \\(http://127\\.0\\.0\\.1:\\d+\\)$`,
        ),
      );
      // An old deployment has no GET /runner_queue (404): nothing about the queue is said, and no failure either.
      // GPU MODE's GitHub launcher (every AMD GPU) counts only the queued jobs: nothing else is shown, no "null".
      assert.doesNotMatch(text, /runner queue/);
      assert.equal(/^▸ queue /m.test(text), !old, 'the queue is shown where the deployment counts it');
      assert.equal(/^▸ queue MI300: \d+ queued$/m.test(text), !old, text);
      const accepted = old
        ? /^▸ submission \d+ accepted \(amd-fp8-mm · MI300 · test\); polling for the result$/m
        : /^▸ submission \d+ accepted \(amd-fp8-mm · MI300 · test\) · MI300: \d+ queued; polling for the result$/m;
      assert.match(text, accepted);
      assert.ok(!/null|undefined|NaN/.test(text), text);
      const view = api.lastRun()?.view;
      assert.equal(view?.outcome, 'success', text);
      const id = view?.submissionId as number;
      // An old deployment has no job to ask: the status is unknown until the submission is `done`.
      const statusLines = old
        ? [`^▸ submission ${id}: status unknown · `, `^▸ submission ${id}: done$`]
        : [`^▸ submission ${id}: running · `];
      for (const line of statusLines) assert.match(text, new RegExp(line, 'm'));
      assert.equal(view?.jobStatus?.status, old ? 'done' : 'succeeded');
      const detail = await raw(id);
      assert.equal('job' in detail, !old);
      assert.equal('runner_queue' in detail, !old);
      // an old deployment keeps no run results to show, only the run's verdict
      assert.deepEqual(
        view?.runs[0]?.tests.map((t) => [t.spec, t.passed]),
        old
          ? []
          : [
              ['seed: 1001; size: 128', true],
              ['seed: 5236; size: 1024', true],
            ],
      );
      assert.match(text, old ? /^▸ test: passed · /m : /^ {2}✔ test 1 {2}seed: 5236; size: 1024 {2}pass$/m);
      assert.deepEqual(api.inFlight(), []);
      await waitFor('the results panel', () => api.panels().find((p) => p.ready && p.view.submissionId === id));
    });

    it('Run Benchmark: the timings (where the deployment keeps them)', async () => {
      await vscode.commands.executeCommand('kernelRunner.runBenchmark', writeFile(file('bench'), source()));
      const view = api.lastRun()?.view;
      const text = api.lastRunLines().join('\n');
      assert.equal(view?.outcome, 'success', text);
      assert.deepEqual(
        view?.runs.map((r) => r.key),
        ['benchmark'],
      );
      assert.deepEqual(
        view?.runs[0]?.benchmarks.map((b) => [b.meanNs, b.runs]),
        old
          ? []
          : [
              [12_500, 100],
              [48_000, 100],
            ],
      );
      assert.equal(/^ {2}◷ benchmark 0 {2}seed: 8135; size: 4096 {2}mean 12\.5 µs/m.test(text), !old, text);
    });

    it("Submit (leaderboard): the ranked score read from the service's string score, the secret run apart", async () => {
      api.setPickResponder((req) => (req.title === 'Submit to Leaderboard: mode' ? 'leaderboard' : undefined));
      try {
        await vscode.commands.executeCommand('kernelRunner.submit', writeFile(file('lb'), source()));
      } finally {
        api.setPickResponder(undefined);
      }
      const lines = api.lastRunLines();
      const text = lines.join('\n');
      const view = api.lastRun()?.view;
      assert.equal(view?.outcome, 'success', text);
      const detail = await raw(view?.submissionId as number);
      const ranked = detail.runs.find((r) => r.mode === 'leaderboard' && !r.secret);
      assert.equal(
        typeof ranked?.score,
        'string',
        `the service sends scores as strings: ${JSON.stringify(ranked?.score)}`,
      );
      assert.ok(lines.includes(`▸ ranked score: ${EXPECTED_SCORE}`), text);
      assert.equal(view?.rankedScore?.text, EXPECTED_SCORE);
      assert.equal(view?.rankedScore?.source, 'run');
      assert.match(text, /^▸ leaderboard: passed · score 24\.5 µs · /m);
      assert.match(text, /^▸ leaderboard \(secret run\): passed · score 24\.6 µs · /m);
      assert.ok(view?.runs.some((r) => r.secret));
      const panel = await waitFor('the results panel', () =>
        api.panels().find((p) => p.ready && p.view.submissionId === view?.submissionId),
      );
      assert.equal(panel.view.rankedScore?.text, EXPECTED_SCORE);
    });

    it('Profile: the streaming route (heartbeats only), each trace zip saved and summarised', async () => {
      await vscode.commands.executeCommand('kernelRunner.profile', writeFile(file('profile'), source()));
      const text = api.lastRunLines().join('\n');
      const view = api.lastRun()?.view;
      assert.equal(view?.outcome, 'success', text);
      assert.match(text, /^▸ \[\d\d:\d\d\] processing$/m);
      assert.deepEqual(
        view?.profiles.map((p) => p.key),
        ['profile.0', 'profile.1'],
      );
      for (const p of view?.profiles ?? []) {
        assert.ok(p.localPath && existsSync(p.localPath), `saved: ${p.localPath}`);
        assert.ok((p.summary?.kernels.length ?? 0) > 0, 'summarised with the trace toolkit');
        assert.match(text, new RegExp(`^▸ ${p.key.replace('.', '\\.')}: trace saved to `, 'm'));
      }
      assert.ok(
        view?.reports.some((r) => r.startsWith('profile.0 benchmark.0.report:\nKernel report for case 0')),
        JSON.stringify(view?.reports),
      );
      assert.deepEqual(api.inFlight(), [], 'a streamed submission is not kept for a reload');
    });

    // only an old deployment's status comes from `done` alone
    (old ? it : it.skip)(
      'a background submission is picked up again after a reload (its status from `done` alone)',
      async () => {
        // held `running` by the service until released below, after the reload has picked it up
        const uri = writeFile(file('slow'), source('# contract: hold'));
        const running = vscode.commands.executeCommand('kernelRunner.runTests', uri);
        const entry = await waitFor('the submission to be in flight', () =>
          api.inFlight().find((e) => e.file === file('slow')),
        );
        assert.deepEqual(
          [entry.kind, entry.service, entry.mode, entry.leaderboard],
          ['poll', 'gpumode', 'test', 'amd-fp8-mm'],
        );
        assert.ok(entry.acceptedAt >= entry.startedAt);
        await waitFor('a poll', () => api.lastRunLines().some((l) => l.startsWith(`▸ submission ${entry.id}: `)));
        await api.reactivate();
        await running;
        await waitFor('the new activation to pick it up', () =>
          api.lastRunLines().some((l) => l.startsWith(`▸ picking up submission ${entry.id} again`)),
        );
        assert.deepEqual(await contract.release(), [entry.id]);
        await waitFor(
          'the resumed submission to finish',
          () => (api.lastRun()?.jobId === entry.id && api.lastRun()?.view ? true : undefined),
          60_000,
        );
        const lines = api.lastRunLines();
        assert.match(lines[0] ?? '', new RegExp(`· submission ${entry.id}, resumed$`));
        assert.equal(api.lastRun()?.view?.outcome, 'success', lines.join('\n'));
        await waitFor('the entry to be forgotten', () => api.inFlight().length === 0);
      },
    );
  });
}
