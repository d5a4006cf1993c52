// Runs files through the real runner: the embedded one (in the extension host) and a separately started
// `kernel-runner serve --token`, and checks what a person sees in the output channel and the results panel; a job
// on a self-hosted runner is followed again after a window reload.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KernelRunnerApi } from '../../../src/extension/api';
import { summarizePath } from '../../../src/trace/index';
import { activateExtension, markedAlive, setting, repoRoot, waitFor, workspaceDir } from './helpers';

const submission = vscode.Uri.file(join(repoRoot, 'examples/problems/vectoradd_py/submission.py'));
const NOISE = /perfetto\.cc:|simple_timer\.cpp|^[WEIF]\d{8} |\[rocprofv3\]/;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

describe('runs', function () {
  this.timeout(120_000);
  let api: KernelRunnerApi;

  before(async () => {
    api = await activateExtension();
    // The test stand-in rocprofv3 (test/bin) on the embedded runner's PATH, and a GPU named MI300.
    await setting('embedded.path', [join(repoRoot, 'test/bin')]);
    await setting('embedded.gpuName', 'MI300');
    await setting('openResults', 'always');
  });

  after(async () => {
    for (const k of [
      'embedded.path',
      'embedded.gpuName',
      'embedded.profiler',
      'openResults',
      'server',
      'showProfilerNoise',
    ])
      await setting(k, undefined);
    api.closePanels();
  });

  afterEach(() => api.closePanels());

  it('Run Tests on the example problem with the embedded runner streams its output into the channel', async () => {
    await vscode.commands.executeCommand('kernelRunner.runTests', submission);
    const lines = api.lastRunLines();
    const text = lines.join('\n');
    assert.match(
      lines[0] ?? '',
      /^━━ Tests submission\.py · vectoradd_py on MI300 · test · embedded runner \(http:\/\/127\.0\.0\.1:\d+\)$/,
    );
    assert.match(text, /^eval\.py: test on 3 case\(s\)/m, "the evaluator's stdout, live");
    assert.match(text, /^eval\.py: seed default$/m, 'its stderr too');
    assert.match(text, /^3\/3 tests passed$/m);
    assert.match(text, /^ {2}✔ test 0 {2}size: \d+; seed: \d+ {2}pass(: .*)?$/m);
    assert.match(lines[lines.length - 2] ?? '', /^━━ passed: submission\.py · test · /);
    const run = api.lastRun();
    assert.ok(run?.jobId && run.jobId > 0);
    assert.equal(run?.view?.outcome, 'success');
    assert.equal(run?.view?.runs[0]?.tests.length, 3);
    const panel = await waitFor('the results panel to be ready', () => api.panels().find((p) => p.ready));
    assert.equal(panel.title, 'Tests: submission.py');
    assert.equal(panel.view.runs[0]?.tests.filter((t) => t.passed).length, 3);
    assert.match(api.statusText(), /embedded runner/);
  });

  it("a file over the service's 1 MB limit is refused in the pre-flight's words; no run is made", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kr-big-'));
    try {
      const big = join(dir, 'big.py');
      writeFileSync(big, `print(1)\n${'#'.repeat(1_000_000)}\n`);
      await vscode.commands.executeCommand('kernelRunner.runTests', submission);
      const before = api.lastRun();
      assert.ok(before?.jobId);
      await vscode.commands.executeCommand('kernelRunner.run', vscode.Uri.file(big));
      assert.ok(
        api
          .lastRunLines()
          .some((l) =>
            l.includes(
              'Not sent: big.py: Submission file is too large (limit: 1MB). This file has 1,000,010 bytes; the limit is 1,000,000.',
            ),
          ),
        api.lastRunLines().join('\n'),
      );
      assert.deepEqual(api.lastRun(), before, 'no run was recorded for big.py');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('hides profiler noise and counts it; kernelRunner.showProfilerNoise shows it', async () => {
    const noisy = vscode.Uri.file(join(workspaceDir, 'noisy_script.py'));
    await vscode.commands.executeCommand('kernelRunner.run', noisy);
    let lines = api.lastRunLines();
    // stdout and stderr are separate pipes, so only the order within each stream is the program's to decide.
    const program = api.lastRunProgramLines();
    assert.deepEqual([...program].sort(), ['program line 1', 'program line 2 (stderr)', 'program line 3']);
    assert.ok(program.indexOf('program line 1') < program.indexOf('program line 3'), program.join('\n'));
    assert.ok(!lines.some((l) => NOISE.test(l)), lines.join('\n'));
    assert.equal(api.lastRunHiddenNoise(), 3);
    assert.ok(lines.includes('▸ 3 profiler log lines hidden (setting kernelRunner.showProfilerNoise shows them)'));

    await setting('showProfilerNoise', true);
    try {
      await vscode.commands.executeCommand('kernelRunner.run', noisy);
      lines = api.lastRunLines();
      assert.equal(lines.filter((l) => l.startsWith('· ')).length, 3);
      assert.ok(lines.some((l) => l.startsWith('· [320.801]') && l.includes('perfetto.cc:47304')));
      assert.ok(!lines.some((l) => l.includes('hidden')));
    } finally {
      await setting('showProfilerNoise', undefined);
    }
  });

  it("Profile on MI300 (stand-in rocprofv3 on the runner's PATH) opens the webview with the trace summary", async () => {
    await vscode.commands.executeCommand('kernelRunner.profile', submission);
    const run = api.lastRun();
    const lines = api.lastRunLines();
    assert.equal(run?.view?.outcome, 'success', lines.join('\n'));
    assert.ok(!lines.some((l) => NOISE.test(l)), 'rocprof noise stays out of the channel');
    assert.ok(api.lastRunHiddenNoise() > 0, 'the stand-in printed noise, which was counted');
    const profile = run?.view?.profiles[0];
    assert.ok(profile?.summary, 'a trace summary came with the result');
    assert.match(profile.downloadUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+\/jobs\/\d+\/artifacts\//);

    // "The right numbers": the panel shows what the trace toolkit computes from the downloaded artifact.
    const dir = mkdtempSync(join(tmpdir(), 'kr-trace-'));
    try {
      const zip = join(dir, 'trace.zip');
      api.setDownloadDestination(zip);
      const panel = await waitFor('the profile panel', () =>
        api.panels().find((p) => p.ready && p.view.profiles.length),
      );
      await api.simulateWebviewMessage({ method: 'downloadTrace', params: { profileKey: profile.key } });
      assert.ok(statSync(zip).size > 0);
      const expected = await summarizePath(zip);
      const shown = panel.view.profiles[0]!.summary!;
      assert.deepEqual(
        shown.kernels.map((k) => [k.shortName, k.calls, k.totalNs]),
        expected.kernels.map((k) => [k.shortName, k.calls, k.totalNs]),
      );
      assert.equal(shown.kernelTotals.calls, expected.kernelTotals.calls);
      assert.ok(shown.kernels.length > 0);
      assert.ok(
        lines.some((l) => l.startsWith('▸ profile.0: ') && l.includes(`${expected.kernelTotals.calls} dispatches`)),
      );
    } finally {
      api.setDownloadDestination(undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('Profile says clearly when the target has no profiler or no MI300', async () => {
    api.setMessageResponder(() => undefined);
    try {
      await setting('embedded.profiler', 'none');
      try {
        await vscode.commands.executeCommand('kernelRunner.profile', submission);
        assert.match(
          api.lastRunLines().join('\n'),
          /✘ The embedded runner has no profiler: rocprofv3 is not on its PATH\./,
        );
        assert.deepEqual(
          api
            .messages()
            .filter((m) => m.level === 'error')
            .pop()?.actions,
          ['Profile on GPU MODE', 'Select Target…', 'Show Output'],
        );
      } finally {
        await setting('embedded.profiler', undefined);
      }
      await setting('embedded.gpuName', 'CPU');
      try {
        await vscode.commands.executeCommand('kernelRunner.profile', submission);
        assert.match(
          api.lastRunLines().join('\n'),
          /✘ Leaderboard "vectoradd_py" on embedded runner has no MI300 GPU \(it offers: CPU\), and no other AMD Instinct GPU to profile on\./,
        );
        assert.deepEqual(
          api
            .messages()
            .filter((m) => m.level === 'error')
            .pop()?.actions,
          ['Select Target…', 'Show Output'],
        );
      } finally {
        await setting('embedded.gpuName', 'MI300');
      }
    } finally {
      api.setMessageResponder(undefined);
    }
  });

  it('Cancel kills the job on the runner', async () => {
    const slow = vscode.Uri.file(join(workspaceDir, 'slow_script.py'));
    const running = vscode.commands.executeCommand('kernelRunner.run', slow);
    const mark = await waitFor('the slow script to start', () =>
      api
        .lastRunLines()
        .map((l) => /^slow_script started mark=(\S+)$/.exec(l)?.[1])
        .find(Boolean),
    );
    assert.ok(markedAlive(mark));
    assert.ok(api.isRunning());
    assert.match(api.statusText(), /slow_script\.py · test · running/);
    await vscode.commands.executeCommand('kernelRunner.cancel');
    await running;
    const run = api.lastRun();
    assert.equal(run?.view?.outcome, 'cancelled');
    assert.match(
      api.lastRunLines().join('\n'),
      new RegExp(`▸ Cancelled: job ${run?.jobId} on embedded runner is cancelled\\.`),
    );
    // the embedded runner has a token of its own: a request without it is refused
    assert.equal((await fetch(`${run?.baseUrl}/jobs/${run?.jobId}`)).status, 401);
    const embeddedToken = await api.embeddedRunnerToken();
    assert.ok(embeddedToken && embeddedToken.length >= 40, 'the embedded runner has a random token');
    const job = (await (
      await fetch(`${run?.baseUrl}/jobs/${run?.jobId}`, { headers: { Authorization: `Bearer ${embeddedToken}` } })
    ).json()) as { state: string };
    assert.equal(job.state, 'cancelled');
    await waitFor('the program to be gone', () => !markedAlive(mark), 15_000);
    assert.ok(!api.lastRunLines().some((l) => l.includes('finished without being cancelled')));
    assert.ok(!api.isRunning());
  });

  it('Run against a separately started `kernel-runner serve --token` (token from SecretStorage)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kr-serve-'));
    const cli = join(repoRoot, 'dist/cli.cjs');
    assert.ok(existsSync(cli), 'dist/cli.cjs is built');
    const child: ChildProcess = spawn(
      process.execPath,
      [cli, 'serve', '--port', '0', '--token', 'T0ken-for-test', '--data-dir', dataDir, '--gpu-name', 'MI300'],
      {
        env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      let out = '';
      child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
      const url = await waitFor(
        'serve to listen',
        () => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1],
        20_000,
      );
      await setting('server', url);

      // Without the token: a clear 401 message.
      await vscode.commands.executeCommand('kernelRunner.runTests', submission);
      assert.match(
        api.lastRunLines().join('\n'),
        /✘ The runner at http:\/\/127\.0\.0\.1:\d+ refused the credentials \(401\): set one with "Kernel Runner: Set Token"/,
      );

      await api.storeToken(url, 'T0ken-for-test');
      await vscode.commands.executeCommand('kernelRunner.runTests', submission);
      const text = api.lastRunLines().join('\n');
      assert.match(
        text,
        new RegExp(
          `· test · ${url.replace(/^http:\/\//, '').replace(/\./g, '\\.')} \\(${url.replace(/\./g, '\\.')}\\)`,
        ),
      );
      assert.match(text, /^3\/3 tests passed$/m);
      assert.equal(api.lastRun()?.view?.outcome, 'success');
      assert.equal(api.lastRun()?.baseUrl, url);
    } finally {
      child.kill('SIGTERM');
      await setting('server', undefined);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('Run against a loopback `kernel-runner serve` started without flags: its stored token is found (no SecretStorage token)', async () => {
    // serve's default data dir for this user (the extension host's HOME): the token is generated and stored there
    const stateDir = join(
      process.env.XDG_STATE_HOME?.startsWith('/') ? process.env.XDG_STATE_HOME : join(homedir(), '.local', 'state'),
      'kernel-runner',
    );
    assert.ok(!existsSync(join(stateDir, 'token')), `no token of an earlier run in ${stateDir}`);
    const env: NodeJS.ProcessEnv = { ...process.env, ELECTRON_RUN_AS_NODE: '1' };
    delete env.KERNEL_RUNNER_TOKEN;
    const child = spawn(
      process.execPath,
      [join(repoRoot, 'dist/cli.cjs'), 'serve', '--port', '0', '--gpu-name', 'MI300'],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let out = '';
      child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
      const url = await waitFor(
        'serve to listen',
        () => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1],
        20_000,
      );
      await waitFor('the token line', () => /generated a token/.test(out) || undefined, 10_000);
      assert.equal((await fetch(`${url}/leaderboards`)).status, 401, 'the runner requires its token');
      await setting('server', url);
      await vscode.commands.executeCommand('kernelRunner.runTests', submission);
      const text = api.lastRunLines().join('\n');
      assert.match(text, /^3\/3 tests passed$/m);
      assert.equal(api.lastRun()?.view?.outcome, 'success');
      const token = readFileSync(join(stateDir, 'token'), 'utf8').trim();
      assert.ok(!text.includes(token), 'the token is not shown');
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('close', r));
      }
      await setting('server', undefined);
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  it('a job on a self-hosted runner is followed again after a window reload; Cancel then still kills it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kr-serve-resume-'));
    const child = spawn(
      process.execPath,
      [
        join(repoRoot, 'dist/cli.cjs'),
        'serve',
        '--port',
        '0',
        '--no-token',
        '--data-dir',
        dataDir,
        '--gpu-name',
        'MI300',
      ],
      {
        env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      let out = '';
      child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
      const url = await waitFor(
        'serve to listen',
        () => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1],
        20_000,
      );
      await setting('server', url);
      const slow = vscode.Uri.file(join(workspaceDir, 'slow_script.py'));
      const running = vscode.commands.executeCommand('kernelRunner.run', slow);
      const mark = await waitFor('the slow script to start', () =>
        api
          .lastRunLines()
          .map((l) => /^slow_script started mark=(\S+)$/.exec(l)?.[1])
          .find(Boolean),
      );
      const entry = await waitFor('the job to be kept for a reload', () =>
        api.inFlight().find((e) => e.file === 'slow_script.py'),
      );
      assert.deepEqual(
        [entry.kind, entry.service, entry.baseUrl, entry.leaderboard],
        ['stream', 'kernel-runner', url, 'script'],
      );
      await waitFor('a few ticks', () => api.lastRunLines().includes('tick 2'));

      await api.reactivate();
      await running; // the old activation stopped following without cancelling
      assert.ok(markedAlive(mark), 'the reload left the job running');
      const resumed = await waitFor('the resumed job to show new output', () => {
        const lines = api.lastRunLines();
        const last = Math.max(...lines.map((l) => Number(/^tick (\d+)$/.exec(l)?.[1] ?? -1)));
        return lines[0]?.endsWith(`· job ${entry.id}, resumed`) && last >= 6 ? lines : undefined;
      });
      assert.match(
        resumed[0] ?? '',
        new RegExp(
          `^━━ Run slow_script\\.py · script on MI300 · test · 127\\.0\\.0\\.1:\\d+ \\(${url.replace(/\./g, '\\.')}\\) · job ${entry.id}, resumed$`,
        ),
      );
      assert.ok(resumed.includes(`slow_script started mark=${mark}`), 'the output from the start, replayed');
      assert.ok(api.isRunning());
      assert.match(api.statusText(), /slow_script\.py · test · running/);

      await vscode.commands.executeCommand('kernelRunner.cancel');
      assert.match(
        api.lastRunLines().join('\n'),
        new RegExp(`^▸ Cancelled: job ${entry.id} on 127\\.0\\.0\\.1:\\d+ is cancelled\\.$`, 'm'),
      );
      assert.equal(api.lastRun()?.view?.outcome, 'cancelled');
      const job = (await (await fetch(`${url}/jobs/${entry.id}`)).json()) as { state: string };
      assert.equal(job.state, 'cancelled');
      await waitFor('the program to be gone', () => !markedAlive(mark), 15_000);
      assert.deepEqual(api.inFlight(), []);
      // kept once, under the submission's name (a reload before the entry was forgotten would keep it once again)
      assert.deepEqual(
        api
          .storedRuns()
          .filter((r) => r.submission === `stream ${entry.id} ${url}`)
          .map((r) => [r.file, r.outcome, r.submission]),
        [['slow_script.py', 'cancelled', `stream ${entry.id} ${url}`]],
      );
    } finally {
      child.kill('SIGTERM');
      await setting('server', undefined);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('against GPU MODE (upstream protocol): test mode goes through the background route and polls to the result', async () => {
    // Our runner serves the upstream routes to clients that do not ask for the extensions, which is how the
    // extension talks to GPU MODE's service (recognised here through POPCORN_API_URL, as popcorn-cli does). Since
    // long SSE connections drop, test/benchmark/leaderboard go to the background route and are polled.
    const dataDir = mkdtempSync(join(tmpdir(), 'kr-upstream-'));
    const child = spawn(
      process.execPath,
      [
        join(repoRoot, 'dist/cli.cjs'),
        'serve',
        '--port',
        '0',
        '--no-token',
        '--data-dir',
        dataDir,
        '--gpu-name',
        'MI300',
      ],
      {
        env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const popcornBefore = process.env.POPCORN_API_URL;
    const popcorn = join(dataDir, 'popcorn.yaml');
    writeFileSync(popcorn, 'cli_id: any-id-our-runner-ignores\n');
    api.setPopcornConfigPath(popcorn);
    api.setPollInterval(300);
    try {
      let out = '';
      child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
      const url = await waitFor(
        'serve to listen',
        () => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1],
        20_000,
      );
      process.env.POPCORN_API_URL = url;
      await setting('server', url);
      await waitFor('the status bar to name GPU MODE', () => /GPU MODE/.test(api.statusText()));
      await vscode.commands.executeCommand('kernelRunner.run', vscode.Uri.file(join(workspaceDir, 'noisy_script.py')));
      const lines = api.lastRunLines();
      const text = lines.join('\n');
      assert.match(lines[0] ?? '', / · GPU MODE \(http:\/\/127\.0\.0\.1:\d+\)$/);
      assert.ok(!lines.some((l) => l.startsWith('▸ job ')), 'no job event without the extensions');
      assert.match(text, /^▸ queue MI300: \d+ queued, \d+ running, \d+ runners? available$/m);
      const id = Number(/^▸ submission (\d+) accepted \(script · MI300 · test\)/m.exec(text)?.[1]);
      assert.ok(id > 0, text);
      assert.match(text, new RegExp(`^▸ submission ${id}: (queued|running|succeeded)`, 'm'));
      assert.ok(!lines.some((l) => NOISE.test(l)), text);
      const view = api.lastRun()?.view;
      assert.equal(view?.outcome, 'success', text);
      assert.equal(view?.submissionId, id);
      assert.ok(view?.notes?.some((n) => n.includes('keep no program output')));
      assert.deepEqual(api.inFlight(), []);
    } finally {
      api.setPopcornConfigPath(undefined);
      api.setPollInterval(undefined);
      if (popcornBefore === undefined) delete process.env.POPCORN_API_URL;
      else process.env.POPCORN_API_URL = popcornBefore;
      child.kill('SIGTERM');
      await setting('server', undefined);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a dead server gives a clear error message', async () => {
    const port = await freePort();
    await setting('server', `http://127.0.0.1:${port}`);
    try {
      await vscode.commands.executeCommand('kernelRunner.runTests', submission);
      const text = api.lastRunLines().join('\n');
      assert.match(
        text,
        new RegExp(
          `✘ Cannot reach the runner at http://127\\.0\\.0\\.1:${port}: connection refused \\(nothing is listening there\\)\\. Is \`kernel-runner serve\` running\\?`,
        ),
      );
      assert.ok(!api.isRunning());
    } finally {
      await setting('server', undefined);
    }
  });
});
