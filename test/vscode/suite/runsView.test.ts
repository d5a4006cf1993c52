// Several runs at once on the embedded runner (one MI300 slot, so the second waits in its queue), Cancel asking
// which; every run kept in the workspace's Runs view with its trace, still there after a reload, where a revived
// panel opens Perfetto from the kept trace; delete; the timing CodeLens after a profile.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KernelRunnerApi } from '../../../src/extension/api';
import { readPerfettoTrace } from '../../../src/extension/traceFiles';
import { activateExtension, markedAlive, setting, repoRoot, waitFor, workspaceDir } from './helpers';

const slow = vscode.Uri.file(join(workspaceDir, 'slow_script.py'));
const timed = vscode.Uri.file(join(workspaceDir, 'timed_kernels.py'));

async function timingLenses(
  uri: vscode.Uri,
): Promise<Array<{ line: number; title: string; command: string; args: unknown[] }>> {
  const raw = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 100);
  return raw
    .filter((l) => l.command?.title.startsWith('⏱'))
    .map((l) => ({
      line: l.range.start.line + 1,
      title: l.command?.title ?? '',
      command: l.command?.command ?? '',
      args: l.command?.arguments ?? [],
    }));
}

describe('several runs, the Runs view, the timing lens', function () {
  this.timeout(180_000);
  let api: KernelRunnerApi;

  before(async () => {
    api = await activateExtension();
    await setting('embedded.path', [join(repoRoot, 'test/bin')]);
    await setting('embedded.gpuName', 'MI300');
    await setting('openResults', 'always');
  });

  after(async () => {
    api.setPickResponder(undefined);
    api.interceptExternal(false);
    for (const k of ['embedded.path', 'embedded.gpuName', 'openResults']) await setting(k, undefined);
    api.closePanels();
  });

  afterEach(async () => {
    // a failed test leaves no run behind for the next one (each cancelled from its Runs view row)
    for (const r of api.activeRuns())
      await vscode.commands.executeCommand('kernelRunner.runs.cancel', { activeId: r.id });
    api.closePanels();
  });

  it('two runs at once: the second waits in the queue with its position; Cancel asks which, then cancels the last one directly', async () => {
    const first = vscode.commands.executeCommand('kernelRunner.run', slow);
    const mark = await waitFor('the first run to start', () =>
      api
        .lastRunLines()
        .map((l) => /^slow_script started mark=(\S+)$/.exec(l)?.[1])
        .find(Boolean),
    );
    const second = vscode.commands.executeCommand('kernelRunner.runBenchmark', slow);
    await waitFor('two runs', () => api.activeRuns().length === 2);
    assert.deepEqual(
      api.activeRuns().map((r) => [r.file, r.mode]),
      [
        ['slow_script.py', 'test'],
        ['slow_script.py', 'benchmark'],
      ],
    );
    // the second run's section: its header, then its place in the embedded runner's one-slot queue
    const queued = await waitFor('the second run to be queued', () => {
      const lines = api.lastRunLines();
      return lines[0]?.includes('Benchmark slow_script.py') && lines.find((l) => /^▸ queued #1\b/.test(l))
        ? lines
        : undefined;
    });
    assert.match(queued[0] ?? '', /^━━ Benchmark slow_script\.py · script on MI300 · benchmark · embedded runner/);
    assert.match(api.statusText(), /2 runs · slow_script\.py · benchmark/);
    // the Runs view: both runs on top with their state, newest first
    const active = (await api.runRows()).filter((r) => r.contextValue === 'kernelRunner.activeRun');
    assert.deepEqual(
      active.map((r) => r.label),
      ['slow_script.py · benchmark', 'slow_script.py · test'],
    );
    assert.match(active[0]?.description ?? '', /^queued #1 · started just now$/);
    assert.match(active[1]?.description ?? '', /^running · started just now$/);
    // in the channel, each run's lines carry its tag while both write
    await waitFor('tagged ticks of the first run', () =>
      api.channelLines().some((l) => /^\[slow_script\.py · test\] tick \d+$/.test(l)),
    );
    assert.ok(
      api.channelLines().some((l) => /^\[slow_script\.py · benchmark\] ▸ .*queued/.test(l)),
      api.channelLines().slice(-20).join('\n'),
    );

    // Cancel #1: a QuickPick of both runs; the queued benchmark is picked
    const picksBefore = api.picks().length;
    api.setPickResponder((req) => (req.title.includes('Cancel') ? 'slow_script.py · benchmark' : undefined));
    await vscode.commands.executeCommand('kernelRunner.cancel');
    await second;
    const asked = api.picks().slice(picksBefore);
    assert.equal(asked.length, 1);
    assert.deepEqual(
      asked[0]?.items.map((i) => i.label),
      ['slow_script.py · test', 'slow_script.py · benchmark'],
    );
    assert.deepEqual(
      api.activeRuns().map((r) => r.mode),
      ['test'],
    );
    assert.ok(markedAlive(mark), 'the first run goes on');
    assert.match(api.statusText(), /^\$\(sync~spin\) slow_script\.py · test · running/);

    // Cancel #2: one run left, no question
    await vscode.commands.executeCommand('kernelRunner.cancel');
    await first;
    assert.equal(api.picks().length, picksBefore + 1, 'no second QuickPick');
    assert.deepEqual(api.activeRuns(), []);
    await waitFor('the program to be gone', () => !markedAlive(mark), 15_000);
    assert.match(api.statusText(), /embedded runner/);
    assert.ok(
      !(await api.runRows()).some((r) => r.contextValue === 'kernelRunner.activeRun'),
      'no run left on top of the Runs view',
    );
    const kept = api.storedRuns().slice(0, 2);
    assert.deepEqual(
      kept.map((r) => [r.file, r.mode, r.outcome]),
      [
        ['slow_script.py', 'test', 'cancelled'],
        ['slow_script.py', 'benchmark', 'cancelled'],
      ],
    );
    api.setPickResponder(undefined);
  });

  it('two jobs on a self-hosted runner are both followed again after a reload, and both can be cancelled', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kr-serve-two-'));
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
      const first = vscode.commands.executeCommand('kernelRunner.run', slow);
      const mark = await waitFor('the first job to start', () =>
        api
          .lastRunLines()
          .map((l) => /^slow_script started mark=(\S+)$/.exec(l)?.[1])
          .find(Boolean),
      );
      const second = vscode.commands.executeCommand('kernelRunner.runBenchmark', slow);
      const kept = await waitFor('both jobs to be kept for a reload', () => {
        const e = api.inFlight().filter((x) => x.baseUrl === url);
        return e.length === 2 ? e : undefined;
      });
      assert.deepEqual(kept.map((e) => e.mode).sort(), ['benchmark', 'test']);

      const again = await api.reactivate();
      await Promise.all([first, second]); // the old activation stopped following both without cancelling
      assert.ok(markedAlive(mark), 'the reload left the running job running');
      await waitFor('both jobs followed again', () => again.activeRuns().length === 2);
      assert.deepEqual(
        again
          .activeRuns()
          .map((r) => r.mode)
          .sort(),
        ['benchmark', 'test'],
      );
      await waitFor('the status bar to count them', () => /2 runs/.test(again.statusText()));

      again.setPickResponder((req) => (req.title.includes('Cancel') ? 'slow_script.py · test' : undefined));
      await vscode.commands.executeCommand('kernelRunner.cancel');
      await waitFor('the running job to be gone', () => !markedAlive(mark), 15_000).catch(async (err: Error) => {
        const states = await Promise.all(
          kept.map(
            async (e) =>
              `${e.mode} ${e.id}: ${((await (await fetch(`${url}/jobs/${e.id}`)).json()) as { state: string }).state}`,
          ),
        );
        throw new Error(
          `${err.message}; active ${JSON.stringify(again.activeRuns())}; jobs ${states.join(', ')}; picks ${JSON.stringify(again.picks().slice(-1))}\n${again.channelLines().slice(-30).join('\n')}`,
        );
      });
      assert.deepEqual(
        again.activeRuns().map((r) => r.mode),
        ['benchmark'],
      );
      await vscode.commands.executeCommand('kernelRunner.cancel');
      assert.deepEqual(again.activeRuns(), []);
      const stateOf = async (id: number) =>
        ((await (await fetch(`${url}/jobs/${id}`)).json()) as { state: string }).state;
      for (const e of kept) {
        const seen: string[] = [];
        await waitFor(
          `job ${e.id} (${e.mode}) to be cancelled`,
          async () => (seen.push(await stateOf(e.id)), seen[seen.length - 1] === 'cancelled'),
          15_000,
        ).catch((err: Error) => {
          throw new Error(
            `${err.message}: ${[...new Set(seen)].join(' → ')}\n${again.channelLines().slice(-20).join('\n')}`,
          );
        });
      }
      assert.deepEqual(
        again.inFlight().filter((x) => x.baseUrl === url),
        [],
      );
      api = again;
    } finally {
      api.setPickResponder(undefined);
      child.kill('SIGTERM');
      await setting('server', undefined);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a profile is kept in the Runs view with its trace; after a reload the row is there and a revived panel opens Perfetto from the kept trace', async () => {
    await vscode.commands.executeCommand('kernelRunner.profile', timed);
    const oldRunner = await api.embeddedRunnerUrl();
    const run = api.storedRuns()[0];
    assert.ok(run);
    assert.deepEqual(
      [run.file, run.mode, run.outcome],
      ['timed_kernels.py', 'profile', 'success'],
      api.lastRunLines().join('\n'),
    );
    assert.equal(run.traces.length, 1);
    const zip = join(api.runStoreFolder(), run.id, run.traces[0]!);
    assert.ok(statSync(zip).size > 0, 'the trace zip is kept in the workspace storage');
    const rows = await api.runRows();
    const row = rows.find((r) => r.id === run.id);
    assert.equal(row?.label, 'timed_kernels.py · profile');
    assert.match(row?.description ?? '', /^kernels \d[\d.]* (ns|µs|ms) · 9 dispatches · embedded runner · just now$/);
    assert.equal(row?.contextValue, 'kernelRunner.run.traced');
    // the panel opens on the run's own trace at once, and points at the kept copy once the run is kept
    const panel = await waitFor('the profile panel on the kept trace', () =>
      api.panels().find((p) => p.ready && p.view.profiles[0]?.localPath === zip),
    );
    const state = { view: panel.view };

    const again = await api.reactivate();
    assert.ok(oldRunner);
    await assert.rejects(
      fetch(`${oldRunner}/leaderboards`),
      'the runner that made the trace is gone: nothing can be downloaded again',
    );
    const after = await again.runRows();
    assert.ok(
      after.some((r) => r.id === run.id && r.label === 'timed_kernels.py · profile'),
      'the Runs view lists the run after the reload',
    );

    again.interceptExternal(true);
    const revived = again.revivePanel(state);
    assert.ok(revived);
    await waitFor('the revived panel to be ready', () => again.panels().find((p) => p.ready));
    await again.simulateWebviewMessage({ method: 'openPerfetto', params: { profileKey: state.view.profiles[0]!.key } });
    const url = again.lastPerfettoUrl();
    assert.match(
      url ?? '',
      /^http:\/\/127\.0\.0\.1:\d+\/perfetto\/[\w-]+\/$/,
      'Perfetto opened from the revived panel',
    );
    const served = new Uint8Array(await (await fetch(`${url}trace`)).arrayBuffer());
    const expected = await readPerfettoTrace(zip, 1 << 30);
    assert.ok(typeof expected === 'object');
    assert.ok(served.length > 0);
    assert.deepEqual(Buffer.from(served), Buffer.from(expected.bytes), 'the relay serves the kept trace byte for byte');

    // Opened from the Runs view: a working panel too
    const opened = await again.openRun(run.id);
    assert.equal(opened?.view.profiles[0]?.summary?.kernelTotals.calls, 9);
    await waitFor('the opened run panel', () => again.panels().find((p) => p.ready && p.title === opened?.title));
    again.interceptExternal(false);
    api = again;
  });

  it("the panel ends on the kept trace when it read the run's own trace's code objects before the run was kept", async () => {
    // The order that once left a panel on the run's own trace for good: the panel's Kernels (ISA) section (read from
    // that trace, which replaces the view the panel shows) was done before the run store had copied the trace. Here
    // the store waits for it.
    api.holdRunStore(() =>
      waitFor("the panel's Kernels (ISA) section from the run's own trace", () =>
        api.panels().some((p) => p.view.profiles[0]?.isa && p.view.title.endsWith('timed_kernels.py')),
      ),
    );
    try {
      await vscode.commands.executeCommand('kernelRunner.profile', timed);
    } finally {
      api.holdRunStore(undefined);
    }
    const run = api.storedRuns()[0];
    assert.deepEqual([run?.file, run?.mode, run?.outcome], ['timed_kernels.py', 'profile', 'success']);
    const zip = join(api.runStoreFolder(), run!.id, run!.traces[0]!);
    const panel = await waitFor('the profile panel on the kept trace', () =>
      api.panels().find((p) => p.ready && p.view.profiles[0]?.localPath === zip),
    );
    assert.ok(panel.view.profiles[0]?.isa, 'its Kernels (ISA) section stays');
    assert.equal(api.panels().length, 1, 'one panel');
  });

  it('Show Results pressed after the run was kept opens the panel on the kept trace', async () => {
    await setting('openResults', 'never');
    let press: ((label: string) => void) | undefined;
    api.setMessageResponder((m) =>
      m.actions.includes('Show Results') ? new Promise<string>((resolve) => (press = resolve)) : undefined,
    );
    try {
      await vscode.commands.executeCommand('kernelRunner.profile', timed);
      const run = api.storedRuns()[0];
      assert.deepEqual([run?.file, run?.mode, run?.outcome], ['timed_kernels.py', 'profile', 'success']);
      assert.ok(press, 'the notification offers Show Results');
      assert.deepEqual(api.panels(), [], 'no panel before the button');
      press('Show Results');
      const zip = join(api.runStoreFolder(), run!.id, run!.traces[0]!);
      await waitFor('the panel opened on the kept trace', () =>
        api.panels().find((p) => p.ready && p.view.profiles[0]?.localPath === zip),
      );
    } finally {
      api.setMessageResponder(undefined);
      await setting('openResults', 'always');
    }
  });

  it('two profile runs selected in the Runs view open a comparison of their kept traces, the older as the baseline', async () => {
    await vscode.commands.executeCommand('kernelRunner.profile', timed);
    const [newer, older] = api.storedRuns().filter((r) => r.file === 'timed_kernels.py' && r.mode === 'profile');
    assert.ok(newer && older, 'two kept profiles of the file');
    // as the view passes them: the clicked row, then every selected row
    const panel = (await vscode.commands.executeCommand('kernelRunner.runs.compare', newer, [newer, older])) as
      | {
          current: {
            a: { path: string };
            b: { path: string };
            comparison: { kernels: Array<{ a: unknown; b: unknown }> };
          };
          rendered?: unknown;
        }
      | undefined;
    assert.ok(panel, 'a compare panel');
    assert.equal(panel.current.a.path, join(api.runStoreFolder(), older.id, older.traces[0]!), 'the older run is A');
    assert.equal(panel.current.b.path, join(api.runStoreFolder(), newer.id, newer.traces[0]!));
    const kernels = panel.current.comparison.kernels;
    assert.ok(
      kernels.length > 0 && kernels.every((k) => k.a !== null && k.b !== null),
      'the same kernels on both sides',
    );
    await waitFor('the compare webview to draw', () => panel.rendered);
  });

  it("the timing CodeLens shows each timed kernel's average and calls, opens its run, and goes when the kernel is removed", async () => {
    const run = api.storedRuns().find((r) => r.file === 'timed_kernels.py' && r.mode === 'profile');
    assert.ok(run, 'the profile of the test before');
    const lenses = await waitFor('the timing lenses', async () => {
      const l = await timingLenses(timed);
      return l.length ? l : undefined;
    });
    const doc = await vscode.workspace.openTextDocument(timed);
    const lineOf = (text: string) =>
      doc
        .getText()
        .split('\n')
        .findIndex((l) => l.includes(text)) + 1;
    assert.deepEqual(
      lenses.map((l) => l.line),
      [lineOf('__global__ void addition_kernel'), lineOf('void subtract_kernel')],
    );
    assert.match(lenses[0]?.title ?? '', /^⏱ \d[\d.]* (ns|µs|ms) avg · 3 calls$/);
    assert.match(lenses[1]?.title ?? '', /^⏱ \d[\d.]* (ns|µs|ms) avg · 2 calls$/);
    assert.ok(
      !lenses.some((l) => l.line === lineOf('void scale_kernel')),
      'a kernel the profile did not time has no lens',
    );
    assert.deepEqual([lenses[0]?.command, lenses[0]?.args], ['kernelRunner.runs.open', [run.id]]);

    await vscode.commands.executeCommand(lenses[0]!.command, ...lenses[0]!.args);
    const panel = await waitFor('the run opened from the lens', () => api.panels().find((p) => p.ready));
    assert.equal(panel.view.profiles[0]?.summary?.kernelTotals.calls, 9);

    const editor = await vscode.window.showTextDocument(doc);
    const original = doc.getText();
    try {
      const start = doc.getText().indexOf('__global__ void subtract_kernel');
      const end = doc.getText().indexOf('__global__ void scale_kernel');
      await editor.edit((e) => e.delete(new vscode.Range(doc.positionAt(start), doc.positionAt(end))));
      const left = await waitFor('the subtract_kernel lens to go', async () => {
        const l = await timingLenses(timed);
        return l.length === 1 ? l : undefined;
      });
      assert.equal(left[0]?.line, lineOf('__global__ void addition_kernel'));
    } finally {
      // Put the text back through the document itself (a revert command acts on whichever editor has focus, and a
      // later run would save the cut file into the workspace the other suites use).
      const all = new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length));
      const restore = new vscode.WorkspaceEdit();
      restore.replace(doc.uri, all, original);
      await vscode.workspace.applyEdit(restore);
      // a save can come back unsaved while the extension host is busy (the save waits on its participants): again
      await waitFor('the restored file to be saved', async () => !doc.isDirty || ((await doc.save()) && !doc.isDirty));
    }
    assert.equal(doc.getText(), original);
    await waitFor('the reverted file to have both lenses again', async () => (await timingLenses(timed)).length === 2);
    assert.ok(!doc.isDirty);
  });

  it('Delete removes a run: its row, its folder, and a panel opened from it is refused', async () => {
    const victim = api.storedRuns().find((r) => r.file === 'slow_script.py' && r.mode === 'benchmark');
    assert.ok(victim);
    const dir = join(api.runStoreFolder(), victim.id);
    assert.ok(existsSync(dir));
    assert.equal(await api.deleteRun(victim.id, true), true);
    assert.ok(!existsSync(dir), 'its folder is gone');
    assert.ok(!(await api.runRows()).some((r) => r.id === victim.id), 'its row is gone');
    assert.equal(await api.openRun(victim.id), undefined);
    assert.equal(await api.deleteRun(victim.id, true), false);
    assert.ok(
      api.storedRuns().some((r) => r.file === 'timed_kernels.py'),
      'other runs stay',
    );
  });
});
