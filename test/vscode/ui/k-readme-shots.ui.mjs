/* global document, getComputedStyle, window */
// The first view after a profile, where it opens: Profile on MI300 of timed_kernels.py on the embedded runner (the
// stand-in rocprofv3 with roofline counters and stochastic PC sampling) opens the results panel beside the file at
// half the window. There every table fits its panel (no column cut at the right) and every bar, stall segment and
// roofline point is filled, in the light and the dark theme. Then the editor: the profile's timing lens above the
// kernels, and the heat of a trace whose PC samples fall on the kernels' lines (opened with Open Trace). The
// screenshots are the README's (scripts/screenshots.mjs copies readme-*.png into media/).
import { chmodSync, createWriteStream, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZipArchive } from 'archiver';
import { HEADER, PC_HEADER, REASON, TYPE, trace } from './i-hotspots.ui.mjs';
import {
  assert,
  groupShot,
  jsonFile,
  openFile,
  openTrace,
  openWorkbench,
  runCommand,
  webviewFrame,
} from './workbench.mjs';

const FILE = 'timed_kernels.py';
const ADD = 'void addition_kernel<float>(float*, float const*, float const*, int, int)';
const SUB = 'subtract_kernel(float*, float const*, float const*, int, int)';

/** `rocminfo` and `amd-smi static --json` answering with the recorded MI300X samples: the folder they are in (one
 * the runner's jobs can reach: they run as another user, and the test home is the harness's own). */
function gpuTools(root) {
  const dir = mkdtempSync(join(tmpdir(), 'kr-gpu-tools-'));
  chmodSync(dir, 0o755);
  const fixture = (name) => join(root, 'test/fixtures/gpu-info', name);
  writeFileSync(join(dir, 'rocminfo'), `#!/bin/sh\nexec /bin/cat '${fixture('rocminfo-mi300x.txt')}'\n`, {
    mode: 0o755,
  });
  writeFileSync(join(dir, 'amd-smi'), `#!/bin/sh\nexec /bin/cat '${fixture('amd-smi-static-mi300x.json')}'\n`, {
    mode: 0o755,
  });
  return dir;
}

/** A profile zip of the file's two kernels whose PC samples name the file's own lines (as a HIP file's would). */
async function heatZip(workspace) {
  const path = join(workspace, FILE);
  const lines = readFileSync(path, 'utf8').split('\n');
  const lineOf = (text) => {
    const i = lines.findIndex((l) => l.includes(text));
    assert(i >= 0, `${FILE} has "${text}"`);
    return i + 1;
  };
  // [dispatch, line text, samples, stall reason or issued type]
  const plan = [
    [1, 'out[i] = a[i] + b[i]', 36, 'stall:WAITCNT'],
    [1, 'int i = blockIdx.x', 6, 'issued:VALU'],
    [2, 'out[i] = a[i] - b[i]', 18, 'stall:WAITCNT'],
    [2, 'int i = blockIdx.x', 4, 'issued:SALU'],
  ];
  const rows = [PC_HEADER];
  let ts = 1;
  for (const [dispatch, text, count, what] of plan) {
    const [kind, name] = what.split(':');
    for (let n = 0; n < count; n++)
      rows.push(
        `${ts++},18446744073709551615,${dispatch},"s_nop 0","${path}:${lineOf(text)}",${dispatch},${kind === 'issued' ? 1 : 0},"${TYPE}${kind === 'issued' ? name : 'NO_INST'}","${REASON}${kind === 'stall' ? name : 'NONE'}",4`,
      );
  }
  const zip = join(workspace, 'heat-trace', 'timed-kernels-heat.zip');
  mkdirSync(join(workspace, 'heat-trace'), { recursive: true });
  const archive = new ZipArchive({ zlib: { level: 1 } });
  const out = createWriteStream(zip);
  archive.pipe(out);
  archive.append(Buffer.from(`${[HEADER, trace(1, ADD, 34_000), trace(2, SUB, 17_000)].join('\n')}\n`), {
    name: '7_kernel_trace.csv',
  });
  archive.append(Buffer.from(`${rows.join('\n')}\n`), { name: '7_pc_sampling_stochastic.csv' });
  await archive.finalize();
  if (!out.writableFinished) await once(out, 'finish');
  return zip;
}

/** What a person sees of the page's tables and charts in the panel as it is now. */
function layoutAndPaint(frame) {
  return frame.evaluate(() => {
    const transparent = (c) => !c || c === 'none' || c === 'transparent' || /rgba\(.*,\s*0\)$/.test(c);
    const tables = [...document.querySelectorAll('table.data')].map((t) => ({
      cls: t.className,
      cutPx: t.getBoundingClientRect().width - t.parentElement.clientWidth,
    }));
    const fills = [...document.querySelectorAll('.bar-fill, .stall-seg')]
      .filter((el) => el.getBoundingClientRect().width > 0)
      .map((el) => getComputedStyle(el).backgroundColor);
    const points = [...document.querySelectorAll('svg.roofline-chart .pt-mark')].map((el) => getComputedStyle(el).fill);
    const doc = document.scrollingElement ?? document.documentElement;
    return {
      panelPx: doc.clientWidth,
      pageOverflowPx: doc.scrollWidth - doc.clientWidth,
      tables,
      cut: tables.filter((t) => t.cutPx > 1),
      fills: fills.length,
      unfilled: fills.filter(transparent),
      points: points.length,
      unpainted: points.filter(transparent),
    };
  });
}

function assertReads(seen, theme) {
  const what = `${theme}: ${JSON.stringify(seen)}`;
  assert(seen.pageOverflowPx <= 1, `the page does not scroll sideways (${what})`);
  assert(seen.tables.length >= 3 && seen.cut.length === 0, `no table cut at the right (${what})`);
  assert(seen.fills >= 3 && seen.unfilled.length === 0, `every share bar and stall segment filled (${what})`);
  assert(seen.points >= 1 && seen.unpainted.length === 0, `every roofline point painted (${what})`);
}

export const tests = {
  async 'the results panel reads at half the window in light and dark; README screenshots'({
    page,
    workbenchUrl,
    outputDir,
    workspace,
    root,
    userData,
  }) {
    // a window tall enough for the summary, roofline and hot spots at once; the width is the checks' own
    await page.setViewportSize({ width: 1400, height: 2100 });
    const settings = jsonFile(join(workspace, '.vscode/settings.json'));
    // the GPU's facts as an MI300X's rocminfo and amd-smi give them (test/fixtures/gpu-info), so that the roofline
    // has its ceilings as on a GPU box: on the embedded runner's PATH, a setting of the (remote) machine
    const tools = gpuTools(root);
    const machine = jsonFile(join(userData, 'Machine/settings.json'));
    machine.set({
      'kernelRunner.embedded.path': [...machine.value['kernelRunner.embedded.path'], tools],
    });
    settings.set({
      'kernelRunner.profile.counters': 'roofline',
      'kernelRunner.profile.pcSampling': 'stochastic',
      'workbench.colorTheme': 'Default Light Modern',
    });
    try {
      await openWorkbench(page, workbenchUrl());
      // the secondary side bar (chat) and the panel take room a person would not give them here
      if (await page.locator('.part.auxiliarybar').isVisible())
        await runCommand(page, 'View: Toggle Secondary Side Bar Visibility');
      await openFile(page, FILE);
      await runCommand(page, 'Kernel Runner: Profile on MI300');
      const frame = await webviewFrame(page, 'section.hotspots table.hot-lines tbody tr', 120_000);
      await frame.locator('svg.roofline-chart g.pt').first().waitFor({ state: 'attached', timeout: 30_000 });
      if (await page.locator('.part.panel').isVisible()) await runCommand(page, 'View: Toggle Panel Visibility');
      await page.locator('.part.panel').waitFor({ state: 'hidden', timeout: 15_000 });

      // beside the file, at about half the editor area
      const groups = page.locator('.part.editor .editor-group-container');
      assert((await groups.count()) === 2, 'the results panel opened beside the file');
      const [left, right] = [await groups.nth(0).boundingBox(), await groups.nth(1).boundingBox()];
      assert(Math.abs(left.width - right.width) <= 0.1 * (left.width + right.width), 'at half the editor area');

      await page.locator('.monaco-workbench.vs').waitFor({ timeout: 15_000 });
      const light = await layoutAndPaint(frame);
      assertReads(light, 'light');
      // the speed-of-light tables fold away as a person folds them (the hot spots come after them)
      const open = frame.locator('section.sol-section details[open] > summary');
      for (let n = await open.count(); n > 0; n--) await open.first().click();
      await frame.evaluate(() => window.scrollTo(0, 0));
      await groupShot(page, 1, join(outputDir, 'readme-results.png'));

      settings.set({ 'workbench.colorTheme': 'Default Dark Modern' });
      await page.locator('.monaco-workbench.vs-dark').waitFor({ timeout: 15_000 });
      await frame.waitForFunction(() => document.body.classList.contains('vscode-dark'), null, { timeout: 15_000 });
      assertReads(await layoutAndPaint(frame), 'dark');
      await groupShot(page, 1, join(outputDir, 'ui-results-dark.png'));
      settings.set({ 'workbench.colorTheme': 'Default Light Modern' });
      await page.locator('.monaco-workbench.vs').waitFor({ timeout: 15_000 });

      // the editor: the profile's timing lens, and the heat of a trace whose samples name this file's lines
      const zip = await heatZip(workspace);
      await openTrace(page, zip);
      await webviewFrame(page, 'section.hotspots table.hot-lines tbody tr');
      await page.locator(`.tabs-container .tab[data-resource-name="${FILE}"]`).click();
      const editor = page.locator('.editor-instance .monaco-editor', { hasText: 'addition_kernel' }).first();
      await editor.locator('.codelens-decoration', { hasText: '⏱' }).first().waitFor({ timeout: 30_000 });
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll('.view-lines .view-line span')].some((s) =>
            /%/.test(getComputedStyle(s, '::after').content),
          ),
        null,
        { timeout: 30_000 },
      );
      // the file over the whole editor area: one group (the panels stay open in it, behind the file: the heat is theirs)
      await runCommand(page, 'View: Single Column Editor Layout');
      await page.locator('.part.editor .editor-group-container').nth(1).waitFor({ state: 'detached', timeout: 15_000 });
      await page.locator(`.tabs-container .tab[data-resource-name="${FILE}"]`).click();
      await editor.locator('.codelens-decoration', { hasText: '⏱' }).first().waitFor({ timeout: 30_000 });
      await groupShot(page, 0, join(outputDir, 'readme-editor.png'), 560);
    } finally {
      settings.restore();
      machine.restore();
      rmSync(tools, { recursive: true, force: true });
      rmSync(join(workspace, 'heat-trace'), { recursive: true, force: true });
    }
  },
};
