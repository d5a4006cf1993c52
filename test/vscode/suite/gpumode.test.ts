// GPU MODE as a target, in real VS Code, against the contract server (test/contract/gpumodeServer.ts, its own
// process): registration into a temporary popcorn config, the leaderboard/GPU pickers and directive insertion,
// diagnostics, background submissions (ranked score, secret runs, hacked / timed out, 429s ridden out), profile
// through the streaming route, a 401 with its Re-register action, a submission picked up again after a reload,
// and My Submissions.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KernelRunnerApi } from '../../../src/extension/api';
import { activateExtension, setting, waitFor, workspaceDir } from './helpers';
import { startContract, type Contract } from './contract';

/** geomean(12.5 µs, 48 µs): the contract server's public means, ranked by amd-fp8-mm's `geom`. */
const EXPECTED_SCORE = '24.495 µs';

function submissionSource(extra = ''): string {
  return [
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
}

function writeFile(name: string, text: string): vscode.Uri {
  const path = join(workspaceDir, name);
  writeFileSync(path, text);
  return vscode.Uri.file(path);
}

describe('GPU MODE target (contract server)', function () {
  this.timeout(120_000);
  let api: KernelRunnerApi;
  let contract: Contract;
  let tmp: string;
  let popcorn: string;
  const popcornBefore = process.env.POPCORN_API_URL;

  const useCliId = (id: string) => writeFileSync(popcorn, `# popcorn-cli\ncli_id: ${id}\n`);

  before(async () => {
    api = await activateExtension();
    contract = await startContract();
    tmp = mkdtempSync(join(tmpdir(), 'kr-gpumode-'));
    popcorn = join(tmp, 'popcorn.yaml');
    // popcorn-cli's way of pointing at a service: the extension then treats that URL as GPU MODE.
    process.env.POPCORN_API_URL = contract.url;
    api.setPopcornConfigPath(popcorn);
    api.setPollInterval(200);
    api.interceptExternal(true);
    api.setMessageResponder(() => undefined);
    await setting('server', contract.url);
    await setting('openResults', 'always');
    await waitFor('the status bar to name GPU MODE', () => /GPU MODE/.test(api.statusText()));
  });

  after(async () => {
    api.setPickResponder(undefined);
    api.setMessageResponder(undefined);
    api.interceptExternal(false);
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

  afterEach(() => {
    api.setPickResponder(undefined);
    api.setMessageResponder(() => undefined);
    api.closePanels();
  });

  it('Register with GPU MODE (Discord) saves the cli_id in the popcorn config, keeps other keys, and waits for the OAuth callback', async () => {
    writeFileSync(popcorn, '# popcorn-cli config\nother_key: keep-me\n');
    const before = api.openedUrls().length;
    const registering = api.register({ provider: 'discord', reset: false });
    const url = await waitFor('the OAuth page to be opened', () =>
      api
        .openedUrls()
        .slice(before)
        .find((u) => u.startsWith('https://discord.com/oauth2/authorize')),
    );
    assert.ok(url.includes(`redirect_uri=${encodeURIComponent(`${contract.url}/auth/cli/discord`)}`), url);
    const saved = readFileSync(popcorn, 'utf8');
    const cliId = /^cli_id: (\S+)$/m.exec(saved)?.[1];
    assert.ok(cliId, saved);
    assert.match(saved, /^other_key: keep-me$/m);
    assert.match(saved, /^# popcorn-cli config$/m);
    // Not linked yet: the service refuses the id.
    assert.equal(
      (await fetch(`${contract.url}/user/submissions`, { headers: { 'X-Popcorn-Cli-Id': cliId } })).status,
      401,
    );
    const callback = await contract.oauth(url, 'user-1');
    assert.equal(callback.status, 200, callback.body);
    const outcome = await registering;
    assert.equal(outcome?.state, 'registered');
    assert.equal(outcome?.provider, 'discord');
    assert.equal(
      (await fetch(`${contract.url}/user/submissions`, { headers: { 'X-Popcorn-Cli-Id': cliId } })).status,
      200,
    );
    assert.ok(
      api.messages().some((m) => m.level === 'info' && /registered with GPU MODE through Discord/.test(m.text)),
    );

    // Re-register: the working id stays until GPU MODE accepts the new one, which then replaces it.
    const again = api.register({ provider: 'discord', reset: true });
    const url2 = await waitFor('the second OAuth page', () =>
      api
        .openedUrls()
        .slice(before + 1)
        .find((u) => u.startsWith('https://discord.com/')),
    );
    const state = new URL(url2).searchParams.get('state') ?? '';
    const newId = (JSON.parse(Buffer.from(state, 'base64url').toString('utf8')) as { cli_id: string }).cli_id;
    assert.ok(newId && newId !== cliId);
    assert.equal(
      /^cli_id: (\S+)$/m.exec(readFileSync(popcorn, 'utf8'))?.[1],
      cliId,
      'the working id is kept until the new one is accepted',
    );
    assert.equal((await contract.oauth(url2, 'user-1')).status, 200);
    assert.equal((await again)?.state, 'registered');
    assert.equal(/^cli_id: (\S+)$/m.exec(readFileSync(popcorn, 'utf8'))?.[1], newId);
    assert.equal(
      (await fetch(`${contract.url}/user/submissions`, { headers: { 'X-Popcorn-Cli-Id': cliId } })).status,
      401,
    );
    assert.match(readFileSync(popcorn, 'utf8'), /^other_key: keep-me$/m);
  });

  it('the leaderboard picker shows descriptions, deadlines (closed ones apart) and GPUs; the GPU picker the runner queue; directives go into the file', async () => {
    useCliId(contract.aliceId);
    const uri = writeFile('gm_pick.py', 'import torch\n\ndef custom_kernel(data):\n    return data\n');
    api.setPickResponder((req) =>
      req.title === 'Leaderboard for gm_pick.py'
        ? 'vectoradd'
        : req.title === 'GPU for vectoradd'
          ? 'MI300'
          : undefined,
    );
    api.setMessageResponder((m) => (m.actions.includes('Insert Directives') ? 'Insert Directives' : undefined));
    const picksBefore = api.picks().length;
    const choice = await vscode.commands.executeCommand<{ leaderboard: string; gpu: string } | undefined>(
      'kernelRunner.chooseLeaderboard',
      uri,
    );
    assert.deepEqual(
      { leaderboard: choice?.leaderboard, gpu: choice?.gpu },
      { leaderboard: 'vectoradd', gpu: 'MI300' },
    );

    const picks = api.picks().slice(picksBefore);
    const boards = picks.find((p) => p.title === 'Leaderboard for gm_pick.py');
    assert.ok(boards);
    const labels = boards.items.map((i) => i.label);
    const closedSeparator = labels.indexOf('closed (deadline passed)');
    assert.ok(closedSeparator > 0, labels.join(', '));
    assert.ok(labels.indexOf('grayscale') > closedSeparator, 'the closed leaderboard comes after the separator');
    assert.ok(labels.indexOf('vectoradd') < closedSeparator && labels.indexOf('amd-fp8-mm') < closedSeparator);
    const fp8 = boards.items.find((i) => i.label === 'amd-fp8-mm');
    assert.equal(fp8?.description, 'MI300');
    assert.match(
      fp8?.detail ?? '',
      /^FP8 block-scaled GEMM on MI300\. — closes \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \(in (29|30) days\)$/,
    );
    assert.match(boards.items.find((i) => i.label === 'grayscale')?.description ?? '', /^closed · A100, H100, MI300$/);
    assert.match(boards.items.find((i) => i.label === 'grayscale')?.detail ?? '', /closed \d{4}-\d{2}-\d{2}/);

    const gpus = picks.find((p) => p.title === 'GPU for vectoradd');
    assert.deepEqual(
      gpus?.items.map((i) => i.label),
      ['MI300', 'T4'],
    );
    // GPU MODE's GitHub launcher (AMD) counts only the queued jobs, Modal (T4) also its runners; nothing says null.
    assert.match(gpus?.items[0]?.detail ?? '', /^MI300: \d+ queued$/);
    assert.match(gpus?.items[0]?.description ?? '', /^\d+ queued$/);
    assert.match(gpus?.items[1]?.detail ?? '', /^T4: \d+ queued, 2 runners available$/);

    const doc = await vscode.workspace.openTextDocument(uri);
    assert.equal(
      doc.getText(),
      '#!POPCORN leaderboard vectoradd\n#!POPCORN gpu MI300\nimport torch\n\ndef custom_kernel(data):\n    return data\n',
    );
    await doc.save();
  });

  it('diagnostics: bad directives (server rules) and the `stream` keyword, with lines; a run refuses the file and says why', async () => {
    useCliId(contract.aliceId);
    const uri = writeFile(
      'gm_bad.py',
      [
        '#!POPCORN leaderboard vectoradd',
        '#!POPCORN gpu MI300',
        '#!POPCORN leaderbaord oops',
        '#!POPCORN gpu T4',
        'import torch',
        's = torch.cuda.Stream()',
        '',
        'def custom_kernel(data):',
        '    return data',
        '',
      ].join('\n'),
    );
    await vscode.window.showTextDocument(uri);
    const diags = await waitFor('the diagnostics', () => {
      const d = api.diagnostics(uri);
      return d.length >= 3 ? d : undefined;
    });
    const at = (code: string) => diags.find((d) => d.code === code);
    assert.equal(at('directive/unknown-directive')?.line, 2);
    assert.equal(at('directive/unknown-directive')?.severity, 'error');
    assert.match(at('directive/unknown-directive')?.message ?? '', /Invalid !POPCORN directive: leaderbaord/);
    assert.equal(at('directive/repeated-directive')?.line, 3);
    assert.match(
      at('directive/repeated-directive')?.message ?? '',
      /Found multiple values for !POPCORN directive gpus \(first on line 2\)/,
    );
    const stream = at('stream-keyword');
    assert.equal(stream?.line, 5);
    assert.equal(stream?.startColumn, 's = torch.cuda.'.length);
    assert.equal(stream?.endColumn, 's = torch.cuda.Stream'.length);
    assert.match(
      stream?.message ?? '',
      /GPU MODE rejects this file \(HTTP 500\): Your code contains work on another stream/,
    );

    const before = (await contract.requests()).length;
    await vscode.commands.executeCommand('kernelRunner.runTests', uri);
    const text = api.lastRunLines().join('\n');
    assert.match(text, /^✘ Not sent: GPU MODE would reject gm_bad\.py for these 3 problems:$/m);
    assert.match(text, /^✘ {3}gm_bad\.py:6: GPU MODE rejects this file \(HTTP 500\)/m);
    assert.match(text, /^✘ {3}gm_bad\.py:3: Invalid !POPCORN directive: leaderbaord/m);
    const err = api
      .messages()
      .filter((m) => m.level === 'error')
      .pop();
    assert.ok(err?.actions.includes('Show Problems'), JSON.stringify(err));
    const sent = (await contract.requests()).slice(before).filter((r) => r.method === 'POST');
    assert.deepEqual(sent, [], 'nothing was uploaded');

    // Fixing the file clears the diagnostics.
    const doc = await vscode.workspace.openTextDocument(uri);
    const edit = new vscode.WorkspaceEdit();
    edit.replace(uri, new vscode.Range(2, 0, 6, 0), 'import torch\n\n');
    await vscode.workspace.applyEdit(edit);
    await waitFor('the diagnostics to clear', () => api.diagnostics(uri).length === 0);
    await doc.save();
  });

  it('Submit (leaderboard) goes through the background route and renders the ranked score and the secret run', async () => {
    useCliId(contract.aliceId);
    const uri = writeFile('gm_submit.py', submissionSource());
    api.setPickResponder((req) => (req.title === 'Submit to Leaderboard: mode' ? 'leaderboard' : undefined));
    await vscode.commands.executeCommand('kernelRunner.submit', uri);
    const lines = api.lastRunLines();
    const text = lines.join('\n');
    assert.match(
      lines[0] ?? '',
      /^━━ Submit \(leaderboard\) gm_submit\.py · amd-fp8-mm on MI300 · leaderboard · GPU MODE \(http:\/\/127\.0\.0\.1:\d+\)$/,
    );
    assert.match(text, /^▸ queue MI300: \d+ queued$/m);
    const id = Number(/^▸ submission (\d+) accepted \(amd-fp8-mm · MI300 · leaderboard\)/m.exec(text)?.[1]);
    assert.ok(id > 0, text);
    assert.match(text, new RegExp(`^▸ submission ${id}: queued`, 'm'));
    assert.match(text, new RegExp(`^▸ submission ${id}: running`, 'm'));
    assert.ok(lines.includes(`▸ ranked score: ${EXPECTED_SCORE}`), text);
    assert.match(text, /^▸ leaderboard: passed · score 24\.5 µs · /m);
    assert.match(text, /^▸ leaderboard \(secret run\): passed · score 24\.6 µs · /m);
    // Upstream keeps `result` only for the public test and benchmark runs: the secret ones are passed/score only.
    assert.match(text, /^▸ test \(secret run\): passed · /m);
    assert.match(text, /^▸ test: passed, tests 2\/2 passed · /m);

    const view = api.lastRun()?.view;
    assert.equal(view?.outcome, 'success');
    assert.equal(view?.submissionId, id);
    assert.equal(view?.rankedScore?.text, EXPECTED_SCORE);
    assert.equal(view?.rankedScore?.source, 'run');
    assert.deepEqual(
      view?.runs.filter((r) => !r.secret).map((r) => r.key),
      ['test', 'benchmark', 'leaderboard'],
    );
    assert.deepEqual(
      view?.runs.filter((r) => r.secret).map((r) => r.key),
      ['test', 'benchmark', 'leaderboard'],
    );
    const bench = view?.runs.find((r) => r.key === 'benchmark' && !r.secret)?.benchmarks[0];
    assert.deepEqual([bench?.meanNs, bench?.runs], [12_500, 100]);
    assert.equal(view?.jobStatus?.status, 'succeeded');
    assert.deepEqual(api.inFlight(), [], 'nothing left in flight');
    const panel = await waitFor('the results panel', () =>
      api.panels().find((p) => p.ready && p.view.submissionId === id),
    );
    assert.equal(panel.view.rankedScore?.text, EXPECTED_SCORE);
  });

  it('a public score whose secret run failed is shown as not ranked, in the channel and the results panel', async () => {
    useCliId(contract.aliceId);
    const uri = writeFile('gm_secret.py', submissionSource('# contract: secretfail'));
    api.setPickResponder((req) => (req.title === 'Submit to Leaderboard: mode' ? 'leaderboard' : undefined));
    await vscode.commands.executeCommand('kernelRunner.submit', uri);
    const text = api.lastRunLines().join('\n');
    assert.match(
      text,
      new RegExp(`^▸ score ${EXPECTED_SCORE.replace('.', '\\.')}, not ranked: secret validation failed$`, 'm'),
    );
    assert.doesNotMatch(text, /ranked score/);
    const view = api.lastRun()?.view;
    assert.equal(view?.outcome, 'failure');
    assert.deepEqual(
      [view?.rankedScore?.text, view?.rankedScore?.notRanked],
      [EXPECTED_SCORE, 'secret validation failed'],
    );
    const panel = await waitFor('the results panel', () =>
      api.panels().find((p) => p.ready && p.view.submissionId === view?.submissionId),
    );
    assert.equal(panel.view.rankedScore?.notRanked, 'secret validation failed');
  });

  it('an Nsight Compute profile (NVIDIA GPU, download_url null) is saved and named as such: no rocprof summary, no Perfetto', async () => {
    useCliId(contract.aliceId);
    const uri = writeFile('gm_nsight.py', '#!POPCORN leaderboard vectoradd\n#!POPCORN gpu T4\nx = 1\n');
    // Profile on an NVIDIA GPU: the profile GPU set to it, as a user of GPU MODE's T4 would
    await setting('profileGpu', 'T4');
    try {
      await vscode.commands.executeCommand('kernelRunner.profile', uri);
    } finally {
      await setting('profileGpu', undefined);
    }
    const view = api.lastRun()?.view;
    const text = api.lastRunLines().join('\n');
    assert.equal(view?.outcome, 'success', text);
    assert.deepEqual(
      view?.profiles.map((p) => [p.key, p.nsightCompute, p.perfetto, p.summary === undefined]),
      [
        ['profile.0', true, 'none', true],
        ['profile.1', true, 'none', true],
      ],
    );
    for (const p of view?.profiles ?? [])
      assert.match(p.localPath ?? '', /gm_nsight-vectoradd-T4-\d{8}-\d{6}-profile\.\d-nsight-compute(-\d+)?\.zip$/);
    assert.match(
      text,
      /^▸ profile\.0: This is an Nsight Compute report \(profile_data\/profile\.ncu-rep inside\): open it with NVIDIA Nsight Compute/m,
    );
    assert.doesNotMatch(text, /Perfetto|dispatches of|profile without a trace summary/);
    const panel = await waitFor('the results panel', () =>
      api.panels().find((p) => p.ready && p.view.profiles.some((x) => x.nsightCompute)),
    );
    assert.deepEqual(
      panel.view.profiles.map((p) => [p.nsightCompute, p.perfetto]),
      [
        [true, 'none'],
        [true, 'none'],
      ],
    );
  });

  it('hacked and timed-out jobs are shown as such; 429s while polling are ridden out', async () => {
    useCliId(contract.aliceId);
    // KernelGuard checks benchmark, profile and leaderboard submissions (not test mode)
    const hacked = writeFile('gm_hacked.py', submissionSource('# contract: hacked'));
    api.setPickResponder((req) => (req.title === 'Submit to Leaderboard: mode' ? 'leaderboard' : undefined));
    await vscode.commands.executeCommand('kernelRunner.submit', hacked);
    api.setPickResponder(undefined);
    let view = api.lastRun()?.view;
    assert.equal(view?.outcome, 'failure');
    assert.equal(view?.jobStatus?.label, 'flagged as hacked');
    assert.match(api.lastRunLines().join('\n'), /^✘ job flagged as hacked: The service flagged this submission/m);
    assert.match(view?.error ?? '', /Submission rejected by KernelGuard pre-check \(reads the reference output\)/);

    const timedOut = writeFile('gm_timeout.py', submissionSource('# contract: timed_out'));
    await contract.failNext({
      method: 'GET',
      path: '^/user/submissions/\\d+$',
      status: 429,
      detail: 'Too many requests',
      retryAfter: 1,
      times: 2,
    });
    await vscode.commands.executeCommand('kernelRunner.runTests', timedOut);
    view = api.lastRun()?.view;
    const text = api.lastRunLines().join('\n');
    assert.match(text, /^▸ poll failed \(GPU MODE is rate limiting these requests \(429\)/m);
    assert.equal(view?.jobStatus?.label, 'timed out');
    assert.equal(view?.outcome, 'failure');
    assert.deepEqual(
      view?.runs.map((r) => r.key),
      ['test'],
      'the runs that finished before the limit are kept',
    );
  });

  it('Profile goes through the streaming route: reports decoded, each trace zip saved under its own name and summarised, markdown reports, noise-free output', async () => {
    useCliId(contract.aliceId);
    const uri = writeFile('gm_profile.py', submissionSource());
    await vscode.commands.executeCommand('kernelRunner.profile', uri);
    const first = api.lastRun()?.view;
    assert.equal(first?.outcome, 'success', api.lastRunLines().join('\n'));
    assert.match(api.lastRunLines().join('\n'), /^▸ \[\d\d:\d\d\] processing$/m, 'heartbeats while waiting');
    assert.deepEqual(
      first?.profiles.map((p) => p.key),
      ['profile.0', 'profile.1'],
    );
    for (const p of first?.profiles ?? []) {
      assert.ok(p.localPath && existsSync(p.localPath), `saved: ${p.localPath}`);
      assert.match(p.localPath, /gm_profile-amd-fp8-mm-MI300-\d{8}-\d{6}-profile\.\d(-\d+)?\.zip$/);
      assert.ok((p.summary?.kernels.length ?? 0) > 0, 'summarised with the trace toolkit');
    }
    assert.ok(
      first?.reports.some(
        (r) =>
          r.startsWith('profile.1 benchmark.0.report:\nKernel report for case 1') &&
          r.includes('Does it fit? ??? µs per call ✓'),
      ),
      JSON.stringify(first?.reports),
    );
    assert.match(first?.markdownReports?.[0] ?? '', /^## amd-fp8-mm · profile on MI300/);
    const stderr = first?.outputs?.find((o) => o.key === 'profile.0' && o.stream === 'stderr');
    assert.equal(stderr?.text, 'kernel done');
    assert.equal(stderr?.hiddenNoiseLines, 1);
    assert.ok(api.lastRunHiddenNoise() >= 2, 'the perfetto lines stay out of the channel too');

    await vscode.commands.executeCommand('kernelRunner.profile', uri);
    const second = api.lastRun()?.view;
    const paths = [...(first?.profiles ?? []), ...(second?.profiles ?? [])].map((p) => p.localPath);
    assert.equal(new Set(paths).size, 4, `never overwritten: ${paths.join(', ')}`);
    assert.ok(paths.every((p) => p && existsSync(p)));
  });

  it('a 401 says to re-register and offers the Re-register action; no cli_id offers Register', async () => {
    useCliId('not-a-registered-id');
    const uri = writeFile('gm_401.py', submissionSource());
    await vscode.commands.executeCommand('kernelRunner.runTests', uri);
    assert.match(
      api.lastRunLines().join('\n'),
      /✘ GPU MODE does not recognise this cli_id \(401\) \(Invalid or unauthorized auth header\): (GET .*\/gpus\/amd-fp8-mm|POST .*\/submission\/amd-fp8-mm\/MI300\/test)\. To register again, run "Kernel Runner: Register with GPU MODE"/,
    );
    const err = api
      .messages()
      .filter((m) => m.level === 'error')
      .pop();
    assert.deepEqual(err?.actions, ['Re-register', 'Show Output']);

    writeFileSync(popcorn, 'other_key: 1\n');
    await vscode.commands.executeCommand('kernelRunner.runTests', uri);
    assert.match(
      api.lastRunLines().join('\n'),
      /✘ No GPU MODE cli_id in .*popcorn\.yaml: register with GPU MODE first/,
    );
    assert.deepEqual(
      api
        .messages()
        .filter((m) => m.level === 'error')
        .pop()?.actions,
      ['Register with GPU MODE…', 'Show Output'],
    );
  });

  it('a submission in flight is picked up again after the extension is re-activated (a window reload)', async () => {
    useCliId(contract.aliceId);
    // held `running` by the service until released below, after the reload has picked it up
    const uri = writeFile('gm_slow.py', submissionSource('# contract: hold'));
    const running = vscode.commands.executeCommand('kernelRunner.runTests', uri);
    const entry = await waitFor('the submission to be in flight', () =>
      api.inFlight().find((e) => e.file === 'gm_slow.py'),
    );
    await waitFor('the job to run', () =>
      api.lastRunLines().some((l) => l.startsWith(`▸ submission ${entry.id}: running`)),
    );
    assert.equal(entry.mode, 'test');
    assert.equal(entry.leaderboard, 'amd-fp8-mm');

    const again = await api.reactivate();
    assert.equal(again, api, 'the exports stay one object');
    await running; // the old activation's run ended without a result
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
    assert.match(lines.join('\n'), new RegExp(`^▸ picking up submission ${entry.id} again`, 'm'));
    assert.equal(api.lastRun()?.view?.outcome, 'success');
    assert.equal(api.lastRun()?.view?.runs[0]?.tests.length, 2);
    // The view is recorded first; the panel, the notification and forgetting the entry follow.
    await waitFor('a results panel for it', () => api.panels().find((p) => p.view.submissionId === entry.id));
    await waitFor('the notification that it finished', () =>
      api.messages().some((m) => m.level === 'info' && m.text.includes(`submission #${entry.id} passed: gm_slow.py`)),
    );
    await waitFor('the entry to be forgotten', () => api.inFlight().length === 0);
  });

  it('My Submissions lists, shows (code + runs) and deletes (after confirmation)', async () => {
    useCliId(contract.aliceId);
    const uri = writeFile('gm_list.py', submissionSource());
    api.setPickResponder((req) => (req.title === 'Submit to Leaderboard: mode' ? 'leaderboard' : undefined));
    await vscode.commands.executeCommand('kernelRunner.submit', uri);
    const rows = await api.submissionRows();
    const submitted = rows.find((r) => r.label === 'gm_list.py');
    assert.ok(submitted, JSON.stringify(rows));
    assert.match(
      submitted.description,
      new RegExp(`^#(\\d+) · amd-fp8-mm · \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} · done · ${EXPECTED_SCORE}$`),
    );
    const id = Number(/^#(\d+)/.exec(submitted.description)?.[1]);

    const detail = await api.showSubmission(id);
    assert.equal(detail?.id, id);
    const editor = vscode.window.activeTextEditor;
    assert.equal(editor?.document.isUntitled, true);
    assert.equal(editor?.document.getText(), submissionSource());
    assert.equal(editor?.document.languageId, 'python');
    const panel = await waitFor('the submission panel', () => api.panels().find((p) => p.view.submissionId === id));
    assert.equal(panel.view.rankedScore?.text, EXPECTED_SCORE);
    assert.ok(panel.view.runs.some((r) => r.secret));
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');

    // Declined, then confirmed.
    assert.equal(await api.deleteSubmission(id, false), false);
    assert.ok((await api.submissionRows()).some((r) => r.description.startsWith(`#${id} `)));
    api.setMessageResponder((m) => (m.actions.includes('Delete') ? 'Delete' : undefined));
    assert.equal(await api.deleteSubmission(id, false), true);
    assert.ok(!(await api.submissionRows()).some((r) => r.description.startsWith(`#${id} `)));
  });
});
