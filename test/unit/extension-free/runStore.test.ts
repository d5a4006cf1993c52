// The Runs view's store (src/extension/runStore.ts) on real folders: runs kept with copies of their traces, read
// back by a new store (a reload), bounded in size with the oldest runs removed from disk first, deleted; folders
// it did not write are left out.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunStore } from '../../../src/extension/runs/store';
import { withKeptTraces } from '../../../src/extension/resultModel';
import type { ResultView } from '../../../src/webview/protocol';
import { MI300X_PEAKS, roofline, rooflineKernel, rooflineOnlySummary } from '../../support/rooflineSummary';

const fixture = join(import.meta.dirname, '../../../../shared/fixtures/rocprof/batched_gemm__28_results.db');

function view(over: Partial<ResultView> = {}): ResultView {
  return {
    title: 'Profile: gemm.py',
    fileName: 'gemm.py',
    leaderboard: 'gemm',
    gpu: 'MI300',
    mode: 'profile',
    target: 'embedded runner',
    startedAt: new Date(0).toISOString(),
    elapsedS: 1,
    outcome: 'success',
    runs: [],
    profiles: [],
    reports: [],
    hiddenNoiseLines: 0,
    ...over,
  };
}

const toStore = (file: string, v: ResultView) => ({
  file,
  uri: `file:///w/${file}`,
  mode: v.mode,
  title: v.title,
  target: 'embedded runner',
  startedAt: 1,
  view: v,
});

describe('run store', () => {
  let dir: string;
  let maxBytes: number;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kr-runstore-'));
    maxBytes = 1 << 30;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps a copy of a local trace; the stored view points at it; a new store reads the run back', async () => {
    const store = new RunStore(join(dir, 'runs'), () => maxBytes);
    let changes = 0;
    store.onDidChange(() => changes++);
    const { run, view: stored } = await store.save(
      toStore('gemm.py', view({ profiles: [{ key: 'profile.0', localPath: fixture, perfetto: 'none' }] })),
    );
    assert.equal(run.traces.length, 1);
    const kept = join(store.dirOf(run.id), run.traces[0]!);
    assert.equal(statSync(kept).size, statSync(fixture).size);
    assert.equal(stored.profiles[0]?.localPath, kept);
    assert.ok(run.bytes >= statSync(fixture).size);
    assert.ok(changes >= 1);

    const again = new RunStore(join(dir, 'runs'), () => maxBytes);
    await again.load();
    assert.deepEqual(
      again.list().map((r) => [r.id, r.file, r.mode, r.outcome]),
      [[run.id, 'gemm.py', 'profile', 'success']],
    );
    assert.equal((await again.view(run.id))?.profiles[0]?.localPath, kept);
  });

  it('a panel that changed what it shows before the run was kept (its Kernels (ISA) section) moves to the kept trace and keeps the section', async () => {
    const store = new RunStore(join(dir, 'runs'), () => maxBytes);
    const opened = view({
      profiles: [
        { key: 'profile.0', localPath: fixture, perfetto: 'available' },
        { key: 'profile.1', downloadUrl: 'http://127.0.0.1:9/gone.zip', perfetto: 'available' },
      ],
    });
    // what the panel shows by the time the store is done: a new view object, with the section read from its trace
    const isa = { status: 'none' as const, codeObjects: [], kernels: [], unmatched: [], note: 'no code objects' };
    const shown = { ...opened, profiles: opened.profiles.map((p) => ({ ...p, isa })) };
    const { run, view: kept } = await store.save(toStore('gemm.py', opened));
    const now = withKeptTraces(shown, kept);
    assert.equal(now.profiles[0]?.localPath, join(store.dirOf(run.id), run.traces[0]!), 'on the kept copy');
    assert.deepEqual(now.profiles[0]?.isa, isa, 'the section stays');
    // a trace the store could not keep (its runner is gone): the profile stays as it was
    assert.deepEqual(now.profiles[1], shown.profiles[1]);
    assert.equal(run.traces.length, 1);
  });

  it('keeps the counter totals and peaks of a roofline for the timing lens, and reads them back', async () => {
    const gemm = rooflineKernel({
      name: 'void gemm<float>(float*)',
      dispatches: 4,
      durationNs: 1e6,
      valu: { f32: 2e9 },
      hbmBytes: 1e9,
      l2Bytes: 1e9,
      l1Bytes: 1e9,
      ldsBytes: 0,
    });
    const onlyCounted = rooflineKernel({
      name: 'copy(float*)',
      dispatches: 3,
      durationNs: 1e4,
      valu: { f32: 1e5 },
      hbmBytes: 1e7,
      l2Bytes: 1e7,
      l1Bytes: 1e7,
      ldsBytes: 0,
    });
    const summary = rooflineOnlySummary(roofline([gemm, onlyCounted]));
    summary.kernels = [
      {
        name: gemm.name,
        shortName: 'gemm',
        calls: 5,
        totalNs: 5e6,
        avgNs: 1e6,
        minNs: 1e6,
        maxNs: 1e6,
        stddevNs: 0,
        percent: 100,
        agentIds: [],
        launches: [],
        launchesTruncated: false,
      },
    ];
    const store = new RunStore(join(dir, 'runs'), () => maxBytes);
    const { run } = await store.save(
      toStore('gemm.hip', view({ profiles: [{ key: 'profile.0', summary, perfetto: 'none' }] })),
    );
    const expected = [
      // traced: its calls from the trace, its counters from the roofline
      { name: gemm.name, calls: 5, totalNs: 5e6, counters: { dispatches: 4, ns: 4e6, flops: 8e9, hbmBytes: 4e9 } },
      // counted only (a counter collection without a kernel trace): its dispatches are its calls
      { name: 'copy(float*)', calls: 3, totalNs: 3e4, counters: { dispatches: 3, ns: 3e4, flops: 3e5, hbmBytes: 3e7 } },
    ];
    assert.deepEqual(run.kernels, expected);
    assert.deepEqual(run.peaks, {
      hbmGBps: MI300X_PEAKS.hbmGBps,
      valuFp32: MI300X_PEAKS.valuFp32,
      mfmaFp32: MI300X_PEAKS.mfmaFp32,
    });
    const again = new RunStore(join(dir, 'runs'), () => maxBytes);
    await again.load();
    assert.deepEqual(again.list()[0]?.kernels, expected);
    assert.deepEqual(again.list()[0]?.peaks, run.peaks);
  });

  it('a moved storage folder: the view points at the trace where it is now', async () => {
    const store = new RunStore(join(dir, 'runs'), () => maxBytes);
    const { run } = await store.save(
      toStore('gemm.py', view({ profiles: [{ key: 'profile.0', localPath: fixture, perfetto: 'none' }] })),
    );
    renameSync(join(dir, 'runs'), join(dir, 'moved'));
    const moved = new RunStore(join(dir, 'moved'), () => maxBytes);
    await moved.load();
    assert.equal((await moved.view(run.id))?.profiles[0]?.localPath, join(dir, 'moved', run.id, run.traces[0]!));
  });

  it('stays within its bound: the oldest runs and their folders go first, the newest stays', async () => {
    const store = new RunStore(join(dir, 'runs'), () => maxBytes);
    const size = statSync(fixture).size;
    const withTrace = () => view({ profiles: [{ key: 'profile.0', localPath: fixture, perfetto: 'none' }] });
    const a = await store.save(toStore('a.py', withTrace()));
    const b = await store.save(toStore('b.py', withTrace()));
    maxBytes = Math.floor(size * 2.5);
    const c = await store.save(toStore('c.py', withTrace()));
    assert.deepEqual(
      store.list().map((r) => r.file),
      ['c.py', 'b.py'],
    );
    assert.deepEqual(
      readdirSync(join(dir, 'runs')).sort(),
      [b.run.id, c.run.id].sort(),
      `${a.run.id} removed from disk`,
    );
    maxBytes = 1;
    await store.save(toStore('d.py', withTrace()));
    assert.deepEqual(
      store.list().map((r) => r.file),
      ['d.py'],
      'only the newest, though it alone is over the bound',
    );
  });

  it('a submission stored again (its outcome came again after a reload) is kept once, here and in a new store', async () => {
    const store = new RunStore(join(dir, 'runs'), () => maxBytes);
    const withTrace = view({ profiles: [{ key: 'profile.0', localPath: fixture, perfetto: 'none' }] });
    const submission = 'stream 7 http://127.0.0.1:8787';
    const first = await store.save({ ...toStore('gemm.py', withTrace), submission });
    const again = await store.save({ ...toStore('gemm.py', withTrace), submission });
    assert.equal(again.run.id, first.run.id);
    assert.deepEqual(again.view, first.view);
    assert.deepEqual(readdirSync(join(dir, 'runs')), [first.run.id], 'no second folder');

    const reloaded = new RunStore(join(dir, 'runs'), () => maxBytes);
    assert.equal((await reloaded.save({ ...toStore('gemm.py', withTrace), submission })).run.id, first.run.id);
    const other = await reloaded.save({
      ...toStore('gemm.py', withTrace),
      submission: 'stream 8 http://127.0.0.1:8787',
    });
    const unnamed = await reloaded.save(toStore('gemm.py', withTrace));
    assert.deepEqual(
      reloaded.list().map((r) => [r.id, r.submission]),
      [
        [unnamed.run.id, undefined],
        [other.run.id, 'stream 8 http://127.0.0.1:8787'],
        [first.run.id, submission],
      ],
    );
  });

  it('run.json is written whole, last: nothing written aside is left; its size counts the run.json', async () => {
    const store = new RunStore(join(dir, 'runs'), () => maxBytes);
    const { run } = await store.save(
      toStore('gemm.py', view({ profiles: [{ key: 'profile.0', localPath: fixture, perfetto: 'none' }] })),
    );
    const folder = store.dirOf(run.id);
    assert.deepEqual(readdirSync(folder).sort(), [run.traces[0], 'run.json'].sort());
    const onDisk = readdirSync(folder).reduce((n, f) => n + statSync(join(folder, f)).size, 0);
    assert.ok(Math.abs(run.bytes - onDisk) <= 2, `${run.bytes} bytes counted, ${onDisk} on disk`);
  });

  it('delete removes the run and its folder; unknown ids are refused', async () => {
    const store = new RunStore(join(dir, 'runs'), () => maxBytes);
    const { run } = await store.save(toStore('gemm.py', view()));
    assert.equal(await store.delete(run.id), true);
    assert.deepEqual(readdirSync(join(dir, 'runs')), []);
    assert.equal(await store.delete(run.id), false);
    assert.equal(await store.view(run.id), undefined);
  });

  it('folders it did not write are left out and left alone', async () => {
    const root = join(dir, 'runs');
    mkdirSync(join(root, 'garbage'), { recursive: true });
    writeFileSync(join(root, 'garbage', 'run.json'), '{not json');
    mkdirSync(join(root, 'other-name'), { recursive: true });
    const foreign = {
      run: {
        id: '../../escape',
        file: 'x',
        mode: 'test',
        title: 't',
        target: 't',
        outcome: 'success',
        startedAt: 0,
        storedAt: 0,
        headline: '',
        bytes: 0,
        traces: [],
      },
      view: view(),
    };
    writeFileSync(join(root, 'other-name', 'run.json'), JSON.stringify(foreign));
    writeFileSync(join(root, 'stray.txt'), 'x');
    const store = new RunStore(root, () => maxBytes);
    await store.load();
    assert.deepEqual(store.list(), []);
    assert.deepEqual(readdirSync(root).sort(), ['garbage', 'other-name', 'stray.txt']);
  });

  it('a save cut short long ago (no run.json) is removed on load; a recent one, a foreign or unreadable folder stay', async () => {
    const root = join(dir, 'runs');
    const hourAgo = Date.now() - 61 * 60 * 1000;
    const folder = (name: string, files: Record<string, string>) => {
      mkdirSync(join(root, name), { recursive: true });
      for (const [f, text] of Object.entries(files)) writeFileSync(join(root, name, f), text);
    };
    folder(`${hourAgo}-a1b2c3`, { 'profile.0.zip': 'PK', 'run.json.part': '{"run":' });
    folder(`${hourAgo}-d4e5f6`, {});
    const recent = `${Date.now()}-a1b2c3`;
    folder(recent, { 'profile.0.zip': 'PK' });
    folder(`${hourAgo}-0f0f0f`, { 'run.json': '{"run": {"id": "from another version"}}' });
    folder('1000-nothex', {});
    folder('garbage', {});
    const store = new RunStore(root, () => maxBytes);
    await store.load();
    assert.deepEqual(store.list(), []);
    assert.deepEqual(readdirSync(root).sort(), [recent, `${hourAgo}-0f0f0f`, '1000-nothex', 'garbage'].sort());
  });

  it('headlines: the score, the kernel time of a profile, the tests passed', async () => {
    const store = new RunStore(join(dir, 'runs'), () => maxBytes);
    const scored = await store.save(
      toStore(
        'a.py',
        view({
          mode: 'leaderboard',
          rankedScore: { seconds: 1.2e-5, text: '12.000 µs', source: 'run', rankingBy: 'geom' },
        }),
      ),
    );
    assert.equal(scored.run.headline, 'score 12.000 µs');
    const tested = await store.save(
      toStore(
        'b.py',
        view({
          mode: 'test',
          runs: [
            {
              key: 'test',
              success: true,
              passed: false,
              exitCode: 0,
              durationS: 1,
              command: 'x',
              tests: [
                { index: 0, spec: 's', status: 'pass', passed: true },
                { index: 1, spec: 's', status: 'fail', passed: false },
              ],
              benchmarks: [],
            },
          ],
        }),
      ),
    );
    assert.equal(tested.run.headline, '1/2 tests passed');
  });
});
