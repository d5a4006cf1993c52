/* global document */
// Two profile runs in the workspace, selected together in the explorer, "Compare Two Profiles…" from its context
// menu: the compare panel shows the headline, the chart of the biggest changes, the kernel table with the new,
// vanished and base-name-paired kernels marked, and the per-case sections.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  assert,
  horizontalLayout,
  kernelRunnerIcon,
  openWorkbench,
  runCommand,
  shot,
  typeDialogPath,
  webviewFrame,
} from './workbench.mjs';

const GEMM_A = 'void gemm_kernel<float, 128>(float const*, float const*, float*, int, int, int)';
const GEMM_B = 'void gemm_kernel<float, 256>(float const*, float const*, float*, int, int, int)';
const SOFTMAX = 'softmax_kernel(float*, float const*, int)';
const NORM = 'layernorm_fwd(float*, float const*, float const*, int)';
const COPY = '__amd_rocclr_copyBuffer';
const FUSED = 'add_bias_relu(float*, float const*, int)';

/** Three benchmark cases; per case the kernels and their GPU times (µs), each launched inside the case's range. */
function run(perCase) {
  const ranges = [];
  const launches = [];
  let corr = 10;
  for (let i = 0; i < 3; i++) {
    const start = 1_000_000 + i * 1_000_000;
    ranges.push([`benchmark ${i}: m: ${1024 << i}; n: 1024; k: 1024`, 100, start, start + 900_000]);
    let gpu = start + 10_000;
    let at = start + 1_000;
    for (const [kernel, us, calls] of perCase(i)) {
      for (let c = 0; c < calls; c++) {
        launches.push({ corr: corr++, tid: 100, at, kernel, gpu: [gpu, gpu + Math.round(us * 1000)] });
        gpu += Math.round(us * 1000) + 2_000;
        at += 1_000;
      }
    }
  }
  return { ranges, launches };
}

const before = run((i) => [
  [GEMM_A, 40 * 2 ** i, 3],
  [SOFTMAX, 8 + i, 2],
  [NORM, 5, 2],
  [COPY, 3, 1],
]);
const after = run((i) => [
  [GEMM_B, 26 * 2 ** i, 3],
  [SOFTMAX, 8.6 + i, 2],
  [FUSED, 2.5, 2],
  [COPY, 3, 1],
]);

/** The shared test helper that writes a run in rocprofv3's CSV layout (TypeScript), bundled for this script. */
async function loadWriteRun(root) {
  const dir = mkdtempSync(join(tmpdir(), 'kr-ui-compare-'));
  try {
    const esbuild = await import('esbuild');
    const out = join(dir, 'rangeRuns.mjs');
    await esbuild.build({
      entryPoints: [join(root, 'test/unit/trace/rangeRuns.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: out,
      logLevel: 'warning',
    });
    return (await import(pathToFileURL(out).href)).writeRun;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const tests = {
  async 'compare two profile runs selected in the explorer'({ page, workbenchUrl, outputDir, workspace, root }) {
    const writeRun = await loadWriteRun(root);
    const a = join(workspace, 'profile-before');
    const b = join(workspace, 'profile-after');
    for (const [dir, r] of [
      [a, before],
      [b, after],
    ]) {
      mkdirSync(dir, { recursive: true });
      writeRun(dir, r);
    }
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(a, hourAgo, hourAgo);

    const dialogs = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await openWorkbench(page, workbenchUrl());
    const row = (name) => page.locator('.explorer-folders-view .monaco-list-row', { hasText: name }).first();
    await row('profile-after').waitFor({ timeout: 30_000 });
    // select both as a person does: click one, Ctrl+click the other, right-click the selection
    await row('profile-after').click();
    await row('profile-before').click({ modifiers: ['Control'] });
    const item = page.locator('.monaco-menu .action-item', { hasText: 'Compare Two Profiles…' }).first();
    // Right after start the extension's menu contributions may not be registered yet: wait for them (its activity
    // bar icon comes with them), and open the menu again until its item is there.
    await kernelRunnerIcon(page).waitFor({ timeout: 45_000 });
    for (const deadline = Date.now() + 45_000; ;) {
      await row('profile-before').click({ button: 'right' });
      try {
        await item.waitFor({ timeout: 3000 });
        break;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await page.keyboard.press('Escape');
        await page.waitForTimeout(1000);
      }
    }
    // a click that lands while the menu is still settling is dropped: the focused item then takes Enter
    await item.click();
    if (await item.isVisible().catch(() => false)) {
      await page.waitForTimeout(500);
      if (await item.isVisible().catch(() => false)) {
        await item.hover();
        await page.keyboard.press('Enter');
      }
    }

    const frame = await webviewFrame(page, 'svg.delta-chart g.bar-row');
    // the panel gets the width of the secondary side bar (chat) too
    if (await page.locator('.part.auxiliarybar').isVisible()) {
      await runCommand(page, 'View: Toggle Secondary Side Bar Visibility');
      await page
        .locator('.part.auxiliarybar')
        .waitFor({ state: 'hidden', timeout: 10_000 })
        .catch(() => {});
    }
    const sides = await frame.locator('.side-label').allInnerTexts();
    assert(
      JSON.stringify(sides) === JSON.stringify(['profile-before', 'profile-after']),
      `A is the older run: ${JSON.stringify(sides)}`,
    );
    const marks = await frame
      .locator('table.compare-kernels tbody tr')
      .evaluateAll((rows) =>
        rows.map((r) => [r.querySelector('.kernel-name')?.textContent, r.querySelector('.mark')?.textContent ?? '']),
      );
    const markOf = (short) => marks.find(([n]) => n === short)?.[1];
    assert(
      markOf('gemm_kernel<float, 256>') === 'paired by base name',
      `gemm paired by base name: ${JSON.stringify(marks)}`,
    );
    assert(
      markOf('layernorm_fwd') === 'vanished' && markOf('add_bias_relu') === 'new',
      `marks: ${JSON.stringify(marks)}`,
    );
    assert(markOf('softmax_kernel') === '', `softmax paired exactly: ${JSON.stringify(marks)}`);
    const bars = await frame
      .locator('svg.delta-chart g.bar-row')
      .evaluateAll((gs) => gs.map((g) => [g.getAttribute('aria-label'), g.querySelector('title')?.textContent ?? '']));
    assert(
      bars.length >= 4 && bars.every(([label, title]) => label && title.startsWith(label)),
      `every bar has its label and title: ${JSON.stringify(bars)}`,
    );
    assert(/^gemm_kernel<float, 256>: −/.test(bars[0][0]), `the biggest change first (gemm, less time): ${bars[0][0]}`);
    const cases = await frame.locator('details.range-case').count();
    assert(cases === 3, `a section per benchmark case: ${cases}`);
    const headline = await frame.locator('[data-headline="kernel-time"] .card-sub').innerText();
    assert(/^−\S+ µs · 0\.\d\d× \(−\d+%\)$/.test(headline), `kernel time went down: ${headline}`);
    const layout = await horizontalLayout(frame);
    assert(layout.pageOverflowPx <= 1, `page scrolls sideways by ${layout.pageOverflowPx}px`);
    const scripts = await frame.evaluate(() => document.querySelectorAll('script[src$="compare.js"]').length);
    assert(scripts === 1 && dialogs.length === 0, `our script ran, nothing else: ${scripts} ${dialogs.join(', ')}`);
    await shot(page, outputDir, 'compare');
    await frame.locator('section.ranges-compare').scrollIntoViewIfNeeded();
    await shot(page, outputDir, 'compare-cases');

    // the same page in a dark theme (a workspace setting, put back afterwards)
    const settingsFile = join(workspace, '.vscode/settings.json');
    const saved = existsSync(settingsFile) ? readFileSync(settingsFile, 'utf8') : undefined;
    const hadFolder = existsSync(join(workspace, '.vscode'));
    mkdirSync(join(workspace, '.vscode'), { recursive: true });
    writeFileSync(
      settingsFile,
      JSON.stringify({ ...(saved ? JSON.parse(saved) : {}), 'workbench.colorTheme': 'Default Dark Modern' }, null, 2),
    );
    try {
      await page.locator('.monaco-workbench.vs-dark').waitFor({ timeout: 15_000 });
      await frame.locator('section.chart-section').scrollIntoViewIfNeeded();
      await page.waitForTimeout(300);
      await shot(page, outputDir, 'compare-dark');
    } finally {
      if (!hadFolder) rmSync(join(workspace, '.vscode'), { recursive: true, force: true });
      else if (saved === undefined) rmSync(settingsFile, { force: true });
      else writeFileSync(settingsFile, saved);
    }
    rmSync(a, { recursive: true, force: true });
    rmSync(b, { recursive: true, force: true });
  },
};

/** Types a path into VS Code's own open dialog (a path box in the quick input) and accepts it. */
async function answerOpenDialog(page, title, path) {
  await page.locator('.quick-input-widget .quick-input-title', { hasText: title }).waitFor({ timeout: 10_000 });
  // With profiles saved by earlier runs the command first offers them: browse instead. Wait for whichever comes.
  const browse = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Choose a file or folder…' }).first();
  const compareButton = page.locator('.quick-input-widget .monaco-button', { hasText: 'Compare' }).first();
  await browse.or(compareButton).first().waitFor({ timeout: 30_000 });
  if (await browse.isVisible()) {
    await browse.click();
    await compareButton.waitFor({ timeout: 30_000 });
  }
  await typeDialogPath(page, path);
  // The first OK on a folder's path opens the folder in the dialog (the path gains a slash); the next takes it.
  const titled = page.locator('.quick-input-widget .quick-input-title', { hasText: title });
  for (let attempt = 0; attempt < 5 && (await titled.isVisible()); attempt++) {
    const before = await page.locator('.quick-input-widget input').inputValue();
    await compareButton.click();
    // Either the dialog closes or it opened the folder (its box changed): both are the dialog's answer to the click.
    await page
      .waitForFunction(
        ([t, v]) => {
          const w = document.querySelector('.quick-input-widget');
          const shown =
            w && w.style.display !== 'none' && (w.querySelector('.quick-input-title')?.textContent ?? '').includes(t);
          return !shown || (w.querySelector('input')?.value ?? '') !== v;
        },
        [title, before],
        { timeout: 10_000 },
      )
      .catch(() => {});
  }
  assert(!(await titled.isVisible()), `the dialog "${title}" took ${path}`);
}

const HOSTILE = [
  '<script>document.title="pwned-script";alert("script")</script>',
  '"><img src=x onerror="alert(\'img\')">',
  '<svg onload=alert("svg")>',
  '\'); alert("quote"); //',
];

tests['hostile kernel names in a comparison from the palette are shown literally and run nothing'] = async ({
  page,
  workbenchUrl,
  outputDir,
  workspace,
  root,
}) => {
  const writeRun = await loadWriteRun(root);
  const a = join(workspace, 'hostile-before');
  const b = join(workspace, 'hostile-after');
  const named = (names, scale) => run(() => names.map((n, i) => [n, (i + 1) * 10 * scale, 1]));
  mkdirSync(a, { recursive: true });
  mkdirSync(b, { recursive: true });
  writeRun(a, named(HOSTILE.slice(0, 3), 1));
  writeRun(b, named(HOSTILE.slice(1), 2));
  const dialogs = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  try {
    await openWorkbench(page, workbenchUrl());
    await runCommand(page, 'Kernel Runner: Compare Two Profiles…');
    await answerOpenDialog(page, 'Compare: A, the baseline', a);
    await answerOpenDialog(page, 'Compare hostile-before with B', b);
    const frame = await webviewFrame(page, 'svg.delta-chart g.bar-row');
    const shown = await frame
      .locator('table.compare-kernels .kernel-name')
      .evaluateAll((els) => els.map((e) => e.getAttribute('title')));
    for (const n of HOSTILE)
      assert(
        shown.some((t) => t === n),
        `full name kept literally: ${n}`,
      );
    const bars = await frame.locator('svg.delta-chart g.bar-row title').allTextContents();
    // a bar per kernel whose time changed (the img one took the same time in both), its title ending in the full name
    assert(
      bars.length === 3 && bars.every((t) => HOSTILE.includes(t.split('\n').pop())),
      `bar titles keep the names as text: ${JSON.stringify(bars)}`,
    );
    const counts = await frame.evaluate(() => ({
      injectedScripts: [...document.querySelectorAll('script')].filter((e) =>
        /alert|pwned/.test(e.textContent + (e.getAttribute('src') ?? '')),
      ).length,
      imgs: document.querySelectorAll('img').length,
      svgs: document.querySelectorAll('svg:not(.delta-chart)').length,
      handlers: [...document.querySelectorAll('*')].filter((e) =>
        [...e.attributes].some((x) => x.name.startsWith('on')),
      ).length,
      title: document.title,
    }));
    assert(
      counts.injectedScripts === 0 && counts.imgs === 0 && counts.svgs === 0 && counts.handlers === 0,
      `no injected elements: ${JSON.stringify(counts)}`,
    );
    assert(
      !counts.title.includes('pwned') && dialogs.length === 0,
      `nothing ran: ${counts.title} ${dialogs.join(', ')}`,
    );
    await shot(page, outputDir, 'compare-hostile');
  } finally {
    rmSync(a, { recursive: true, force: true });
    rmSync(b, { recursive: true, force: true });
  }
};
