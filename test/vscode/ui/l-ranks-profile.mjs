/* global document */
// A multi-GPU profile from the editor, end to end: the bundled multi-process example (examples/problems/distributed/
// alltoall_py) profiled by the embedded runner of a machine with eight MI300X (a stand-in `rocminfo` listing eight
// on the runner's PATH, a machine setting; the rocprofv3 stand-in traces each rank process apart). The leaderboard
// runs on MI300x8 only, so "Profile on MI300" offers "Profile on MI300x8", which a person clicks. The results panel
// then shows the imbalance line, one row a rank with the stand-in's slow rank (rank 3 of 8) marked alone, each rank's
// numbers those of that rank's own files read as a one-process profile by the CLI (its GPU-to-GPU copies out too),
// no per-rank pairs table (each rank's pairs are its GPU's row of the matrix, whose GPUs are named by rank), a GPU
// busy card and a timeline row per GPU; the timing lens above the file's kernels says "slowest rank 3".
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import yauzl from 'yauzl';
import {
  assert,
  groupShot,
  horizontalLayout,
  jsonFile,
  openFile,
  openWorkbench,
  runCommand,
  webviewFrame,
} from './workbench.mjs';

const RANKS = 8;
/** The stand-in's slow rank of a job of RANKS ranks (test/bin/rocprofv3, RankShape: the middle one). */
const SLOW = Math.floor((RANKS - 1) / 2);
const FILE = 'alltoall_submission.py';
const RCCL = /^ncclDevKernel_SendRecv\(/;

/** `rocminfo` answering with a CPU and eight MI300X, in a folder the runner's jobs can reach. */
function eightGpuTools() {
  const dir = mkdtempSync(join(tmpdir(), 'kr-eight-gpus-'));
  chmodSync(dir, 0o755);
  let text =
    '*******\nAgent 1\n*******\n  Marketing Name:          AMD EPYC 9654 96-Core Processor\n  Device Type:             CPU\n';
  for (let i = 2; i <= RANKS + 1; i++)
    text += `*******\nAgent ${i}\n*******\n  Marketing Name:          AMD Instinct MI300X\n  Device Type:             GPU\n`;
  writeFileSync(join(dir, 'rocminfo'), `#!/bin/sh\n# test stand-in: eight MI300X\ncat <<'EOF'\n${text}EOF\n`, {
    mode: 0o755,
  });
  return dir;
}

/** The bundled example's template with the HIP source a load_inline build of it would compile, its kernels named as
 * the stand-in's recorded trace names its dispatches: the definitions the timing lens sits on. */
function submissionWithKernels(root) {
  const template = readFileSync(join(root, 'examples/problems/distributed/alltoall_py/submission.py'), 'utf8');
  // the HIP source of the timing-lens checks' workspace file (the same kernel names as the recorded trace)
  const timed = readFileSync(join(root, 'test/vscode/workspace/timed_kernels.py'), 'utf8');
  const hip = /^HIP_SRC = r"""[\s\S]*?^"""$/m.exec(timed)?.[0];
  if (!hip) throw new Error('test/vscode/workspace/timed_kernels.py: no HIP_SRC block');
  return `${template}

# The kernels of this submission's torch extension (built with load_inline on a GPU machine; the exchange above
# runs without them).
${hip}

try:
    from torch.utils.cpp_extension import load_inline
except ImportError:
    load_inline = None
`;
}

/** The webview's own formatters (core's, src/webview/format.ts), bundled for this script. */
async function webviewFormat(root) {
  const dir = mkdtempSync(join(tmpdir(), 'kr-ui-format-'));
  try {
    const esbuild = await import('esbuild');
    const out = join(dir, 'format.mjs');
    await esbuild.build({
      entryPoints: [join(root, 'src/webview/format.ts')],
      bundle: true,
      platform: 'neutral',
      format: 'esm',
      outfile: out,
      logLevel: 'warning',
    });
    return await import(pathToFileURL(out).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function readZip(file) {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      const files = new Map();
      zip.on('entry', (e) => {
        if (e.fileName.endsWith('/')) return zip.readEntry();
        zip.openReadStream(e, (err2, stream) => {
          if (err2) return reject(err2);
          const chunks = [];
          stream.on('data', (c) => chunks.push(c));
          stream.on('end', () => {
            files.set(e.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(files));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/** `kernel-runner summarize --json` of a zip or folder, by the built CLI. */
function summarize(root, target) {
  const out = execFileSync(process.execPath, [join(root, 'dist/cli.cjs'), 'summarize', '--json', target], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, NO_COLOR: '1' },
  });
  return JSON.parse(out);
}

/**
 * The saved profile as the CLI reads it: one rank a rank process, each rank's numbers those of its own files read
 * alone (a one-process profile), RCCL's SendRecv its communication. Returns the CLI's per-rank section.
 */
async function cliRanks(root, zipPath) {
  const whole = summarize(root, zipPath);
  const ranks = whole.ranks;
  assert(ranks?.from === 'manifest', `the CLI reads the profile per rank: ${JSON.stringify(ranks)?.slice(0, 300)}`);
  const files = await readZip(zipPath);
  const manifest = JSON.parse(files.get('kernel-runner-processes.json').toString('utf8'));
  const dir = mkdtempSync(join(tmpdir(), 'kr-ui-ranks-'));
  try {
    for (const p of ranks.processes.filter((x) => x.rank !== null)) {
      const own = manifest.processes.find((m) => m.pid === p.pid);
      assert(own, `rank ${p.rank} (pid ${p.pid}) is in the manifest: ${JSON.stringify(manifest).slice(0, 500)}`);
      const alone = join(dir, `rank-${p.rank}`);
      mkdirSync(alone);
      for (const out of own.outputs) writeFileSync(join(alone, basename(out)), files.get(out));
      const one = summarize(root, alone);
      const comm = one.kernels.filter((k) => RCCL.test(k.name)).reduce((n, k) => n + k.totalNs, 0);
      const gpu = one.agents.filter((a) => a.type === 'GPU' && a.kernelCalls > 0);
      const mine = {
        kernelNs: p.kernelNs,
        computeNs: p.computeNs,
        communicationNs: p.communicationNs,
        busyNs: p.busyNs,
      };
      const alone1 = {
        kernelNs: one.kernelTotals.totalNs,
        computeNs: one.kernelTotals.totalNs - comm,
        communicationNs: comm,
        busyNs: gpu.length === 1 ? gpu[0].busyNs : null,
      };
      assert(
        JSON.stringify(mine) === JSON.stringify(alone1) && comm > 0,
        `rank ${p.rank}: the multi-process read equals its own files read alone: ${JSON.stringify({ mine, alone1 })}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return ranks;
}

/** The profile zip this check's run saved (the output channel's "full trace saved": the extension's global storage,
 * `traces/<file>-<leaderboard>-<GPU>-<job>-profile.0.zip`, written before the panel shows), the newest since `since`. */
function savedTrace(userData, since) {
  const name = new RegExp(`(^|/)traces/${FILE.replace(/\.py$/, '')}-alltoall_py-MI300x8-\\d+-profile\\.0\\.zip$`);
  const saved = readdirSync(userData, { recursive: true })
    .map(String)
    .filter((f) => name.test(f))
    .map((f) => ({ path: join(userData, f), at: statSync(join(userData, f)).mtimeMs }))
    .filter((f) => f.at >= since)
    .sort((a, b) => b.at - a.at);
  assert(saved.length > 0, `the run's trace is saved under ${userData}`);
  return saved[0].path;
}

export async function profileOnEightGpus({ page, workbenchUrl, outputDir, workspace, root, userData }) {
  const started = Date.now();
  await page.setViewportSize({ width: 1400, height: 1300 });
  const tools = eightGpuTools();
  const machine = jsonFile(join(userData, 'Machine/settings.json'));
  machine.set({ 'kernelRunner.embedded.path': [...machine.value['kernelRunner.embedded.path'], tools] });
  const file = join(workspace, FILE);
  writeFileSync(file, submissionWithKernels(root));
  try {
    await openWorkbench(page, workbenchUrl());
    if (await page.locator('.part.auxiliarybar').isVisible())
      await runCommand(page, 'View: Toggle Secondary Side Bar Visibility');
    await openFile(page, FILE);
    await runCommand(page, 'Kernel Runner: Profile on MI300');
    // the leaderboard runs on MI300x8 alone (eight rank processes): the failure's notification offers it; headless
    // Chromium keeps notifications in the center, opened as a person opens it from the bell
    await runCommand(page, 'Notifications: Show Notifications');
    const offer = page
      .locator('.notifications-center .notification-list-item', { hasText: 'profile on MI300x8 instead?' })
      .first();
    await offer.waitFor({ timeout: 120_000 });
    await offer.locator('.monaco-button', { hasText: 'Profile on MI300x8' }).first().click();
    // the center may stay open over the panel: closed as a person closes it
    const center = page.locator('.notifications-center.visible');
    if (await center.count()) {
      await page.keyboard.press('Escape');
      await center.waitFor({ state: 'detached', timeout: 15_000 }).catch(() => {});
    }

    // eight rank processes under the stand-in, then the summary: a generous bound on a loaded machine
    const frame = await webviewFrame(page, 'table.rank-table tbody tr', 300_000);
    if (await page.locator('.part.panel').isVisible()) await runCommand(page, 'View: Toggle Panel Visibility');
    const seen = await frame.evaluate(() => ({
      line: document.querySelector('.imbalance-line')?.textContent ?? '',
      rows: [...document.querySelectorAll('table.rank-table tbody tr')].map((tr) => ({
        rank: tr.getAttribute('data-rank'),
        cells: [...tr.children].map((td) => td.textContent),
        marked: tr.querySelectorAll('.slowest-mark').length,
      })),
      busyCards: [...document.querySelectorAll('.card')]
        .map((c) => c.textContent ?? '')
        .filter((t) => t.includes('GPU busy')),
      timelineRows: [...document.querySelectorAll('figure.timeline .timeline-rows .timeline-agent')].map(
        (d) => d.textContent,
      ),
      rankPairs: document.querySelectorAll('table.rank-pairs').length,
      matrixHead: [...document.querySelectorAll('table.peer-matrix thead th')].map((th) => th.textContent),
    }));
    assert(
      new RegExp(`^${RANKS} ranks: rank ${SLOW} \\(GPU ${SLOW}\\) is the slowest`).test(seen.line),
      `imbalance line: ${seen.line}`,
    );
    const ranked = seen.rows.filter((r) => r.rank !== '');
    assert(
      JSON.stringify(ranked.map((r) => [r.rank, r.cells[1]])) ===
        JSON.stringify(Array.from({ length: RANKS }, (_, i) => [String(i), `GPU ${i}`])),
      `one row a rank on its GPU: ${JSON.stringify(seen.rows)}`,
    );
    assert(
      JSON.stringify(seen.rows.filter((r) => r.marked > 0).map((r) => r.rank)) === JSON.stringify([String(SLOW)]),
      `rank ${SLOW} alone marked slowest: ${JSON.stringify(seen.rows)}`,
    );
    const cardRanks = seen.busyCards.map((t) => /GPU busy · rank (\d+) · AMD Instinct MI300X/.exec(t)?.[1]).sort();
    assert(
      JSON.stringify(cardRanks) === JSON.stringify(Array.from({ length: RANKS }, (_, i) => String(i))),
      `a GPU busy card per GPU, each naming its rank: ${JSON.stringify(seen.busyCards)}`,
    );
    assert(
      seen.timelineRows.length === RANKS && seen.timelineRows.every((t) => /^Agent \d+ · rank \d$/.test(t)),
      `a labelled timeline row per GPU: ${JSON.stringify(seen.timelineRows)}`,
    );

    // the panel's numbers are the CLI's of the trace the run saved, and those each rank's own
    const ranks = await cliRanks(root, savedTrace(userData, started));
    assert(ranks.imbalanceLine === seen.line, `the CLI's imbalance line: ${ranks.imbalanceLine}`);
    // one rank a GPU: each rank's GPU-to-GPU pairs are its GPU's row of the matrix, which names the rank
    assert(seen.rankPairs === 0, `no per-rank pairs table: ${seen.rankPairs}`);
    assert(
      JSON.stringify(seen.matrixHead) ===
        JSON.stringify(['from \\ to', ...Array.from({ length: RANKS }, (_, i) => `GPU ${i} · rank ${i}`)]),
      `the matrix's GPUs named by rank: ${JSON.stringify(seen.matrixHead)}`,
    );
    const { formatBytes, formatNs, formatPercent } = await webviewFormat(root);
    for (const p of ranks.processes.filter((x) => x.rank !== null)) {
      const row = ranked.find((r) => r.rank === String(p.rank));
      const want = [
        `${formatNs(p.busyNs)} (${formatPercent(p.busyPercent)})`,
        formatNs(p.kernelNs),
        formatNs(p.computeNs),
        formatNs(p.communicationNs),
      ];
      assert(
        JSON.stringify(row.cells.slice(2, 6)) === JSON.stringify(want),
        `rank ${p.rank}: the panel ${JSON.stringify(row.cells)}, the CLI ${JSON.stringify(want)}`,
      );
      const out = p.peerCopiesOut;
      assert(
        out && row.cells[7] === `${formatNs(out.totalNs)}${out.bytes === null ? '' : formatBytes(out.bytes)}`,
        `rank ${p.rank}: copies out ${row.cells[7]}, the CLI ${JSON.stringify(out)}`,
      );
    }

    // beside the file, the page never scrolls sideways (the rank table reads as rows of cells where it is narrow)
    const layout = await horizontalLayout(frame);
    assert(layout.pageOverflowPx <= 1, `the results page fits its panel: ${JSON.stringify(layout)}`);
    await groupShot(page, 1, join(outputDir, 'ui-ranks-profile-panel.png'));
    await frame.locator('figure.timeline').scrollIntoViewIfNeeded();
    await groupShot(page, 1, join(outputDir, 'ui-ranks-profile-timeline.png'));

    // the timing lens above the file's kernels names the slowest rank
    await page.locator(`.tabs-container .tab[data-resource-name="${FILE}"]`).first().click();
    const editor = page.locator('.editor-instance .monaco-editor', { hasText: 'addition_kernel' }).first();
    const lenses = editor.locator('.codelens-decoration', { hasText: '⏱' });
    await lenses.first().waitFor({ timeout: 60_000 });
    const texts = (await lenses.allInnerTexts()).map((t) => t.replace(/\u00a0/g, ' '));
    assert(
      texts.length >= 2 && texts.every((t) => new RegExp(`· slowest rank ${SLOW}\\b`).test(t)),
      `the timing lenses name rank ${SLOW}: ${JSON.stringify(texts)}`,
    );
    await groupShot(page, 0, join(outputDir, 'ui-ranks-profile-lens.png'), 700);
  } finally {
    machine.restore();
    rmSync(tools, { recursive: true, force: true });
    rmSync(file, { force: true });
  }
}
