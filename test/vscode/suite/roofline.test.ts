// Profile on MI300 with kernelRunner.profile.counters = roofline on the embedded runner: the test stand-in
// rocprofv3 (test/bin) writes one pass_<n>/ per counter group, stand-in rocminfo / amd-smi print our MI300X
// samples (test/fixtures/gpu-info) so the runner writes sysinfo.csv with clocks. The results panel's summary has
// the roofline with its peaks, timings of one pass, and the timing CodeLens says each kernel's bound.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KernelRunnerApi } from '../../../src/extension/api';
import { activateExtension, setting, repoRoot, waitFor, workspaceDir } from './helpers';

const timed = vscode.Uri.file(join(workspaceDir, 'timed_kernels.py'));

/** A folder with `rocminfo` and `amd-smi` that print the MI300X samples (as test/integration/runner/counterHelpers.ts). */
function gpuInfoBin(): string {
  const bin = mkdtempSync(join(tmpdir(), 'kr-gpuinfo-'));
  chmodSync(bin, 0o755); // the runner's jobs may run as another user
  const fixtures = join(repoRoot, 'test/fixtures/gpu-info');
  writeFileSync(
    join(bin, 'rocminfo'),
    `#!/bin/sh\n# test stand-in for rocminfo\nexec cat '${join(fixtures, 'rocminfo-mi300x.txt')}'\n`,
  );
  writeFileSync(
    join(bin, 'amd-smi'),
    `#!/bin/sh\n# test stand-in for amd-smi: static --json only\n[ "$1 $2" = "static --json" ] || exit 2\nexec cat '${join(fixtures, 'amd-smi-static-mi300x.json')}'\n`,
  );
  chmodSync(join(bin, 'rocminfo'), 0o755);
  chmodSync(join(bin, 'amd-smi'), 0o755);
  return bin;
}

async function timingLenses(uri: vscode.Uri): Promise<Array<{ line: number; title: string }>> {
  const raw = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 100);
  return raw
    .filter((l) => l.command?.title.startsWith('⏱'))
    .map((l) => ({ line: l.range.start.line + 1, title: l.command?.title ?? '' }));
}

describe('roofline: Profile with kernelRunner.profile.counters = roofline on the embedded runner', function () {
  this.timeout(180_000);
  let api: KernelRunnerApi;
  let bin: string;

  before(async () => {
    api = await activateExtension();
    bin = gpuInfoBin();
    await setting('embedded.path', [bin, join(repoRoot, 'test/bin')]);
    await setting('embedded.gpuName', 'MI300');
    await setting('profile.counters', 'roofline');
    await setting('openResults', 'always');
  });

  after(async () => {
    for (const k of ['embedded.path', 'embedded.gpuName', 'profile.counters', 'openResults'])
      await setting(k, undefined);
    api.closePanels();
    rmSync(bin, { recursive: true, force: true });
  });

  it("the panel's summary has the roofline (peaks from the runner's sysinfo.csv, timings of one pass) and the timing lens the bound", async () => {
    await vscode.commands.executeCommand('kernelRunner.profile', timed);
    const run = api.lastRun();
    assert.equal(run?.view?.outcome, 'success', api.lastRunLines().join('\n'));
    const panel = await waitFor('the profile panel', () => api.panels().find((p) => p.ready && p.view.profiles.length));
    const summary = panel.view.profiles[0]?.summary;
    assert.ok(summary, 'a summary in the panel');
    assert.equal(summary.passes?.timingsFrom, 'pass_1', JSON.stringify(summary.passes));
    assert.ok((summary.passes?.count ?? 0) > 1, 'a multi-pass counter run');
    // the stand-in replays 3 addition_kernel and 2 subtract_kernel dispatches per run of the program, whatever the pass
    const calls = (name: string): number[] => summary.kernels.filter((k) => k.name.includes(name)).map((k) => k.calls);
    assert.deepEqual(calls('addition_kernel'), [3], JSON.stringify(summary.kernels.map((k) => [k.name, k.calls])));
    assert.deepEqual(calls('subtract_kernel'), [2]);
    const roofline = summary.roofline;
    assert.ok(roofline, 'the summary has the roofline');
    assert.deepEqual(
      Object.entries(roofline.peaks)
        .filter(([, v]) => v === null)
        .map(([k]) => k),
      [],
      `every peak known; sources ${JSON.stringify(summary.sources.filter((x) => x.pid === null))}, skipped ${JSON.stringify(summary.skipped.filter((x) => !x.path.startsWith('pass_')))}, missing ${JSON.stringify(roofline.missing)}`,
    );
    assert.ok(roofline.kernels.length > 0);
    assert.deepEqual(
      roofline.kernels.filter((k) => k.bound === null).map((k) => k.name),
      [],
      'every kernel has its bound',
    );

    const doc = await vscode.workspace.openTextDocument(timed);
    const lineOf = (text: string) =>
      doc
        .getText()
        .split('\n')
        .findIndex((l) => l.includes(text)) + 1;
    const lenses = await waitFor('the timing lenses with the bound', async () => {
      const l = await timingLenses(timed);
      return l.length === 2 && l.every((x) => x.title.includes('-bound')) ? l : undefined;
    });
    assert.deepEqual(
      lenses.map((l) => l.line),
      [lineOf('__global__ void addition_kernel'), lineOf('void subtract_kernel')],
    );
    assert.match(
      lenses[0]?.title ?? '',
      /^⏱ \d[\d.]* (ns|µs|ms) avg · 3 calls · (memory-bound, \d[\d.]*% of HBM roof|compute-bound, \d[\d.]*% of FP32 roof)$/,
    );
    assert.match(
      lenses[1]?.title ?? '',
      /^⏱ \d[\d.]* (ns|µs|ms) avg · 2 calls · (memory|compute)-bound, \d[\d.]*% of (HBM|FP32) roof$/,
    );
  });
});
