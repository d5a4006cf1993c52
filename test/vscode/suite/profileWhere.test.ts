// "Profile where the GPUs are" (item 4), in real VS Code: Profile on MI300 against a leaderboard that has no MI300
// but another AMD Instinct GPU offers "Profile on MI355X", and one click profiles the same file there; a target
// without a profiler (the embedded runner without rocprofv3) offers "Profile on GPU MODE", which profiles the same
// file on GPU MODE's service (the contract server, as POPCORN_API_URL) without changing kernelRunner.server, and
// registers first when there is no cli_id yet. Against GPU MODE itself (the contract server as kernelRunner.server),
// amd-mxfp4-mm runs on MI355X only: the same offer, then one profile on MI355X over the streaming route.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KernelRunnerApi } from '../../../src/extension/api';
import type { ResultView } from '../../../src/webview/protocol';
import { activateExtension, setting, repoRoot, waitFor, workspaceDir } from './helpers';
import { startContract, type Contract } from './contract';

const cfg = () => vscode.workspace.getConfiguration('kernelRunner');
const submission = vscode.Uri.file(join(repoRoot, 'examples/problems/vectoradd_py/submission.py'));

describe('Profile where the GPUs are', function () {
  this.timeout(150_000);
  let api: KernelRunnerApi;
  let contract: Contract;
  let tmp: string;
  let popcorn: string;
  const popcornBefore = process.env.POPCORN_API_URL;

  /** The run after the one that failed: started by the button, finished, with its view. */
  const nextView = (what: string, test: (v: ResultView) => boolean) =>
    waitFor(
      what,
      () => {
        const v = api.lastRun()?.view;
        return !api.isRunning() && v && test(v) ? v : undefined;
      },
      120_000,
    );
  const errorsSince = (n: number) =>
    api
      .messages()
      .slice(n)
      .filter((m) => m.level === 'error');

  before(async () => {
    api = await activateExtension();
    contract = await startContract();
    tmp = mkdtempSync(join(tmpdir(), 'kr-profile-where-'));
    popcorn = join(tmp, 'popcorn.yaml');
    process.env.POPCORN_API_URL = contract.url;
    api.setPopcornConfigPath(popcorn);
    api.setPollInterval(100);
    api.interceptExternal(true);
    await setting('server', undefined);
    await setting('embedded.path', [join(repoRoot, 'test/bin')]);
    await setting('openResults', 'always');
  });

  after(async () => {
    api.setMessageResponder(undefined);
    api.setPickResponder(undefined);
    api.interceptExternal(false);
    api.setPollInterval(undefined);
    api.setPopcornConfigPath(undefined);
    for (const k of ['embedded.path', 'embedded.gpuName', 'embedded.profiler', 'openResults'])
      await setting(k, undefined);
    if (popcornBefore === undefined) delete process.env.POPCORN_API_URL;
    else process.env.POPCORN_API_URL = popcornBefore;
    api.closePanels();
    await contract?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  afterEach(() => {
    api.setMessageResponder(undefined);
    api.setPickResponder(undefined);
    api.closePanels();
  });

  it('a leaderboard without MI300 but with MI355X: "Profile on MI355X" profiles the same file there, in one click', async () => {
    await setting('embedded.gpuName', 'MI355X');
    const seen = api.messages().length;
    api.setMessageResponder((m) => (m.actions.includes('Profile on MI355X') ? 'Profile on MI355X' : undefined));
    await vscode.commands.executeCommand('kernelRunner.profile', submission);
    const [offer] = errorsSince(seen);
    assert.match(
      offer?.text ?? '',
      /Leaderboard "vectoradd_py" on embedded runner has no MI300 GPU; it offers MI355X\. rocprofv3 runs on any AMD Instinct GPU: profile on MI355X instead\?/,
    );
    assert.deepEqual(offer?.actions, ['Profile on MI355X', 'Show Output']);

    const view = await nextView('the profile on MI355X', (v) => v.gpu === 'MI355X');
    const lines = api.lastRunLines();
    assert.equal(view.outcome, 'success', lines.join('\n'));
    assert.match(
      lines[0] ?? '',
      /^━━ Profile submission\.py · vectoradd_py on MI355X · profile · embedded runner \(http:\/\/127\.0\.0\.1:\d+\)$/,
    );
    assert.ok(
      view.profiles[0]?.summary && view.profiles[0].summary.kernels.length > 0,
      'profiled with the stand-in rocprofv3',
    );
    assert.equal(errorsSince(seen).length, 1, 'the button ran the profile on MI355X, not another failing run first');
    await setting('embedded.gpuName', undefined);
  });

  it('no profiler on the target: "Profile on GPU MODE" registers first (no cli_id yet), then profiles the same file on GPU MODE; kernelRunner.server stays', async () => {
    await setting('embedded.gpuName', 'MI300');
    await setting('embedded.profiler', 'none');
    writeFileSync(popcorn, '# popcorn-cli\nother: kept\n');
    const uri = vscode.Uri.file(join(workspaceDir, 'pw_kernel.py'));
    writeFileSync(uri.fsPath, 'import torch\n\ndef custom_kernel(data):\n    a, b = data\n    return a + b\n');
    // The embedded runner's leaderboards, then GPU MODE's (the remembered vectoradd_py is not one of them).
    api.setPickResponder((req) => {
      if (req.title === 'Leaderboard for pw_kernel.py')
        return req.items.some((i) => i.label === 'vectoradd_py') ? 'vectoradd_py' : 'amd-fp8-mm';
      if (req.title === 'Register with GPU MODE') return 'Discord';
      return undefined;
    });
    api.setMessageResponder((m) => (m.actions.includes('Profile on GPU MODE') ? 'Profile on GPU MODE' : undefined));
    const seen = api.messages().length;
    const opened = api.openedUrls().length;
    const requests = (await contract.requests()).length;
    await vscode.commands.executeCommand('kernelRunner.profile', uri);
    assert.match(
      api.lastRunLines().join('\n'),
      /^✘ The embedded runner has no profiler: rocprofv3 is not on its PATH\./m,
    );
    assert.deepEqual(errorsSince(seen)[0]?.actions, ['Profile on GPU MODE', 'Select Target…', 'Show Output']);

    // No cli_id: registration first, as "Register with GPU MODE" does it; the browser finishes the OAuth page.
    const page = await waitFor('the OAuth page', () =>
      api
        .openedUrls()
        .slice(opened)
        .find((u) => u.startsWith('https://discord.com/')),
    );
    assert.equal((await contract.oauth(page, 'pw-person')).status, 200);
    const view = await nextView('the profile on GPU MODE', (v) => v.target === 'GPU MODE');
    const lines = api.lastRunLines();
    assert.equal(view.outcome, 'success', lines.join('\n'));
    assert.match(
      lines[0] ?? '',
      new RegExp(
        `^━━ Profile pw_kernel\\.py · amd-fp8-mm on MI300 · profile · GPU MODE \\(${contract.url.replace(/\./g, '\\.')}\\)$`,
      ),
    );
    assert.deepEqual(
      view.profiles.map((p) => p.key),
      ['profile.0', 'profile.1'],
    );
    for (const p of view.profiles)
      assert.ok(
        p.localPath && existsSync(p.localPath) && (p.summary?.kernels.length ?? 0) > 0,
        `saved and summarised: ${p.localPath}`,
      );
    const cliId = /^cli_id: (\S+)$/m.exec(readFileSync(popcorn, 'utf8'))?.[1];
    assert.ok(cliId, 'the new cli_id is in the popcorn config');
    assert.match(readFileSync(popcorn, 'utf8'), /^other: kept$/m);
    const posted = (await contract.requests()).slice(requests).filter((r) => r.method === 'POST');
    assert.deepEqual(
      posted.map((r) => [r.path, r.cliId]),
      [['/amd-fp8-mm/MI300/profile', cliId]],
      'one profile, on the streaming route, with the new identity',
    );
    const server = cfg().inspect<string>('server');
    assert.deepEqual(
      [server?.workspaceValue, server?.globalValue],
      [undefined, undefined],
      'kernelRunner.server untouched',
    );
    assert.match(api.statusText(), /embedded runner/);

    // With the cli_id now saved, the button goes straight to GPU MODE.
    const seen2 = api.messages().length;
    const opened2 = api.openedUrls().length;
    await vscode.commands.executeCommand('kernelRunner.profile', uri);
    const again = await nextView('the second profile on GPU MODE', (v) => v.target === 'GPU MODE' && v !== view);
    assert.equal(again.outcome, 'success');
    assert.equal(errorsSince(seen2).length, 1);
    assert.equal(api.openedUrls().length, opened2, 'no registration this time');
    await setting('embedded.profiler', undefined);
  });

  it('GPU MODE, amd-mxfp4-mm (MI355X only): "Profile on MI355X" profiles there over the streaming route, and the file keeps asking for MI300', async () => {
    writeFileSync(popcorn, `cli_id: ${contract.aliceId}\n`);
    await setting('server', contract.url);
    await waitFor('the status bar to name GPU MODE', () => /GPU MODE/.test(api.statusText()));
    const text = [
      '#!POPCORN leaderboard amd-mxfp4-mm',
      'import torch',
      '',
      'def custom_kernel(data):',
      '    a, b = data',
      '    return a + b',
      '',
    ].join('\n');
    const uri = vscode.Uri.file(join(workspaceDir, 'pw_mxfp4.py'));
    writeFileSync(uri.fsPath, text);
    const offerText =
      /^Kernel Runner: pw_mxfp4\.py: Leaderboard "amd-mxfp4-mm" on GPU MODE has no MI300 GPU; it offers MI355X\. rocprofv3 runs on any AMD Instinct GPU: profile on MI355X instead\?$/;
    const posts = async (from: number) =>
      (await contract.requests())
        .slice(from)
        .filter((r) => r.method === 'POST')
        .map((r) => [r.path, r.cliId]);
    const start = (await contract.requests()).length;
    try {
      // 1. Profile on MI300, the offer read and left unanswered: nothing has been submitted (no MI300 attempt either).
      api.setMessageResponder(() => undefined);
      let seen = api.messages().length;
      await vscode.commands.executeCommand('kernelRunner.profile', uri);
      let [offer] = errorsSince(seen);
      assert.match(offer?.text ?? '', offerText);
      assert.deepEqual(offer?.actions, ['Profile on MI355X', 'Show Output']);
      assert.deepEqual(await posts(start), [], 'the offer comes before anything is submitted');

      // 2. Profile on MI300 again, answered with the button: one profile, on MI355X, over the streaming route.
      api.setMessageResponder((m) => (m.actions.includes('Profile on MI355X') ? 'Profile on MI355X' : undefined));
      seen = api.messages().length;
      await vscode.commands.executeCommand('kernelRunner.profile', uri);
      [offer] = errorsSince(seen);
      assert.match(offer?.text ?? '', offerText);
      const view = await nextView('the profile on MI355X', (v) => v.gpu === 'MI355X');
      const lines = api.lastRunLines();
      const out = lines.join('\n');
      assert.equal(view.outcome, 'success', out);
      assert.equal(view.target, 'GPU MODE');
      assert.equal(view.leaderboard, 'amd-mxfp4-mm');
      assert.match(
        lines[0] ?? '',
        new RegExp(
          `^━━ Profile pw_mxfp4\\.py · amd-mxfp4-mm on MI355X · profile · GPU MODE \\(${contract.url.replace(/\./g, '\\.')}\\)$`,
        ),
      );
      assert.match(out, /^▸ \[\d\d:\d\d\] processing$/m, "the streaming route's heartbeats");
      assert.deepEqual(
        await posts(start),
        [['/amd-mxfp4-mm/MI355X/profile', contract.aliceId]],
        'exactly one POST, the streaming profile route on MI355X',
      );
      assert.deepEqual(
        view.profiles.map((p) => p.key),
        ['profile.0', 'profile.1'],
      );
      for (const p of view.profiles) {
        assert.ok(p.localPath && existsSync(p.localPath), `saved: ${p.localPath}`);
        assert.ok((p.summary?.kernels.length ?? 0) > 0, `summarised: ${p.key}`);
        assert.match(out, new RegExp(`^▸ ${p.key.replace('.', '\\.')}: trace saved to `, 'm'));
      }
      assert.equal(errorsSince(seen).length, 1, 'only the offer: the button ran the profile on MI355X');
      const panel = await waitFor('the results panel of the MI355X profile', () =>
        api.panels().find((p) => p.ready && p.view.gpu === 'MI355X'),
      );
      // the panel opens on the run's own traces at once; the Runs view keeps copies (the recorded view points there)
      assert.deepEqual(
        panel.view.profiles.map((p) => [p.key, p.summary?.kernels.length]),
        view.profiles.map((p) => [p.key, p.summary?.kernels.length]),
      );
      for (const p of panel.view.profiles)
        assert.ok(p.localPath && existsSync(p.localPath), `the panel's trace: ${p.localPath}`);
      assert.equal(readFileSync(uri.fsPath, 'utf8'), text, 'no gpu directive written into the file');

      // 3. A later Profile: the choice for the file did not become MI355X (only its leaderboard is remembered, a
      // profile's GPU never is): MI300 is asked for again and the offer comes back, with nothing submitted.
      api.setMessageResponder(() => undefined);
      seen = api.messages().length;
      const before = (await contract.requests()).length;
      await vscode.commands.executeCommand('kernelRunner.profile', uri);
      [offer] = errorsSince(seen);
      assert.match(offer?.text ?? '', offerText);
      assert.deepEqual(offer?.actions, ['Profile on MI355X', 'Show Output']);
      assert.deepEqual(await posts(before), []);
      const profileGpu = cfg().inspect<string>('profileGpu');
      assert.deepEqual(
        [profileGpu?.workspaceValue, profileGpu?.globalValue],
        [undefined, undefined],
        'kernelRunner.profileGpu untouched',
      );
    } finally {
      await setting('server', undefined);
      await waitFor('the status bar to name the embedded runner', () => /embedded runner/.test(api.statusText()));
    }
  });

  it('a multi-GPU leaderboard where a job gets one device: Run Tests and Profile stop before sending, naming the slot and the setting that give it; set so, its tests pass', async () => {
    const alltoall = vscode.Uri.file(join(repoRoot, 'examples/problems/distributed/alltoall_py/submission.py'));
    const slotAdvice = /Run it on MI300x8: set kernelRunner\.embedded\.gpuName to MI300x8/;
    try {
      await setting('embedded.gpuName', 'MI300');
      api.setMessageResponder(() => undefined);
      let seen = api.messages().length;
      await vscode.commands.executeCommand('kernelRunner.runTests', alltoall);
      let [refusal] = errorsSince(seen);
      assert.match(
        refusal?.text ?? '',
        /Not sent: alltoall_py is a multi-GPU problem: its test cases need 8 GPUs \(world_size up to 8, one process a rank\), and MI300 on the embedded runner gives a job one device\./,
      );
      assert.match(refusal?.text ?? '', slotAdvice);
      assert.deepEqual(refusal?.actions, ['Select Target…', 'Show Output']);
      assert.doesNotMatch(api.lastRunLines().join('\n'), /eval\.py: test on/, 'the evaluator never started');

      // the default of a machine without GPUs (a CPU slot): Profile on MI300 says where it runs too, rather than
      // pointing at any MI300 runner
      await setting('embedded.gpuName', 'CPU');
      seen = api.messages().length;
      await vscode.commands.executeCommand('kernelRunner.profile', alltoall);
      [refusal] = errorsSince(seen);
      assert.match(
        refusal?.text ?? '',
        /its benchmark cases need 8 GPUs .*CPU on the embedded runner gives a job one device\./,
      );
      assert.match(refusal?.text ?? '', slotAdvice);

      // done as it says: the embedded runner has a slot of eight (the ranks share this machine), the tests pass
      await setting('embedded.gpuName', 'MI300x8');
      seen = api.messages().length;
      await vscode.commands.executeCommand('kernelRunner.runTests', alltoall);
      const view = await nextView('the tests on MI300x8', (v) => v.gpu === 'MI300x8');
      assert.equal(view.outcome, 'success', api.lastRunLines().join('\n'));
      assert.deepEqual(errorsSince(seen), []);
    } finally {
      await setting('embedded.gpuName', undefined);
    }
  });
});
