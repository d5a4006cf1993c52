// Results panels: Open Trace… on real fixtures, restore state, and a panel fed hostile kernel names.
import * as assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import type { KernelRunnerApi } from '../../../src/extension/api';
import { summarizePath } from '../../../src/trace/index';
import { hostileView } from '../hostile';
import { activateExtension, repoRoot, waitFor } from './helpers';

const fixtures = resolve(repoRoot, '../shared/fixtures/rocprof');

describe('results webview', function () {
  this.timeout(60_000);
  let api: KernelRunnerApi;

  before(async () => {
    api = await activateExtension();
  });
  afterEach(() => api.closePanels());

  it('Open Trace… summarises a rocpd database offline and the webview asks for its state', async () => {
    const db = join(fixtures, 'batched_gemm__28_results.db');
    const panel = await api.openTrace(db);
    assert.ok(panel);
    assert.equal(panel.title, 'Trace: batched_gemm__28_results.db');
    const ready = await waitFor('the webview to say ready', () => api.panels().find((p) => p.ready));
    assert.deepEqual(ready.received, ['ready'], 'the webview script ran under the CSP and spoke the protocol');
    const expected = await summarizePath(db);
    const shown = ready.view.profiles[0]?.summary;
    assert.ok(shown);
    assert.deepEqual(
      shown.kernels.map((k) => [k.name, k.calls, k.totalNs]),
      expected.kernels.map((k) => [k.name, k.calls, k.totalNs]),
    );
    assert.equal(ready.view.outcome, 'trace');
  });

  it('Open Trace… on a legacy rocprof v1 CSV and on a missing path', async () => {
    const panel = await api.openTrace(join(fixtures, 'HIP_Programming__results.stats.csv'));
    assert.ok(panel?.view.profiles[0]?.summary?.kernels.length);
    assert.equal(await api.openTrace(join(fixtures, 'does-not-exist.zip')), undefined);
  });

  it('a panel fed hostile kernel names renders without running anything (state round trip)', async () => {
    const view = hostileView();
    api.showResult(view);
    const p = await waitFor('the hostile panel to be ready', () => api.panels().find((x) => x.ready));
    assert.equal(p.view.profiles[0]?.summary?.kernels[0]?.name, view.profiles[0]?.summary?.kernels[0]?.name);
    // Messages with unknown methods or bad params are ignored, not executed.
    api.interceptExternal(true);
    try {
      const before = {
        perfetto: api.lastPerfettoUrl(),
        opened: api.openedUrls(),
        messages: api.messages(),
        panels: api.panels().length,
        view: structuredClone(p.view),
      };
      await api.simulateWebviewMessage({ method: 'openPerfetto', params: { profileKey: '<nope>' } });
      await api.simulateWebviewMessage({ method: 'eval', params: { code: 'process.exit(1)' } });
      await api.simulateWebviewMessage('ready');
      const after = api.panels();
      assert.deepEqual(
        after.at(-1)?.received.slice(-3),
        ['openPerfetto', 'eval', '?'],
        'each message reached the panel',
      );
      assert.equal(
        api.lastPerfettoUrl(),
        before.perfetto,
        'no Perfetto opened for a profile key the panel does not have',
      );
      assert.deepEqual(api.openedUrls(), before.opened, 'nothing opened outside');
      assert.deepEqual(api.messages(), before.messages, 'no notification either');
      assert.equal(after.length, before.panels, 'no panel opened or closed');
      assert.deepEqual(after.at(-1)?.view, before.view, 'the panel still shows what it was given');
      assert.equal(typeof api.statusText(), 'string', 'the extension host still runs (process.exit was not called)');
    } finally {
      api.interceptExternal(false);
    }
  });
});
