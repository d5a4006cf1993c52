/* global document, getComputedStyle */
// A rocprof-compute workload folder (test/fixtures/roofline/mi300x-wide: gfx942 counters, spec peaks from sysinfo)
// opened with "Open Trace…" from the palette, its kernel names made hostile: the results panel shows the Roofline
// chart with the bandwidth and compute ceilings and a point per kernel where the CLI's summary puts them, the
// speed-of-light tables with % of peak bars, every name as text and nothing run. Screenshots in light and dark.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assert, horizontalLayout, openTrace, openWorkbench, runCommand, shot, webviewFrame } from './workbench.mjs';

const GEMM = 'gemm_f16(half const*, half const*, float*, int) [clone .kd]';
const COPY = 'vecCopy(double*, double*, double*, int, int) [clone .kd]';
export const HOSTILE_GEMM = '<script>document.title="pwned";alert("gemm")</script>gemm_f16(half const*) [clone .kd]';
export const HOSTILE_COPY = 'vecCopy"><img src=x onerror="alert(\'copy\')">(double*) [clone .kd]';

/** The fixture folder with its two kernel names replaced (CSV-quoted) by hostile ones. */
function hostileWorkload(root, dir) {
  cpSync(join(root, 'test/fixtures/roofline/mi300x-wide'), dir, { recursive: true });
  const file = join(dir, 'pmc_perf.csv');
  const q = (s) => `"${s.replace(/"/g, '""')}"`;
  const csv = readFileSync(file, 'utf8');
  assert(csv.includes(q(GEMM)) && csv.includes(q(COPY)), 'the fixture names its two kernels as expected');
  writeFileSync(file, csv.replaceAll(q(GEMM), q(HOSTILE_GEMM)).replaceAll(q(COPY), q(HOSTILE_COPY)));
}

export const tests = {
  async 'roofline chart and speed of light of a counter workload, hostile kernel names shown literally'({
    page,
    workbenchUrl,
    outputDir,
    workspace,
    root,
  }) {
    const dir = join(workspace, 'roofline-mi300x');
    mkdirSync(dir, { recursive: true });
    hostileWorkload(root, dir);
    // what the trace toolkit makes of it, as `kernel-runner summarize --json` prints it
    const cli = spawnSync(process.execPath, [join(root, 'dist/cli.cjs'), 'summarize', dir, '--json'], {
      encoding: 'utf8',
    });
    assert(cli.status === 0, `summarize: ${cli.stderr}`);
    const roofline = JSON.parse(cli.stdout).roofline;
    assert(
      roofline && roofline.kernels.length === 2,
      `the CLI reads a roofline of two kernels: ${cli.stdout.slice(0, 300)}`,
    );
    const log = (v) => typeof v === 'number' && Number.isFinite(v) && v > 0;

    const dialogs = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    try {
      await openWorkbench(page, workbenchUrl());
      await openTrace(page, dir);
      const frame = await webviewFrame(page, 'svg.roofline-chart g.pt');
      // the panel gets the width of the secondary side bar (chat) too
      if (await page.locator('.part.auxiliarybar').isVisible()) {
        await runCommand(page, 'View: Toggle Secondary Side Bar Visibility');
        await page
          .locator('.part.auxiliarybar')
          .waitFor({ state: 'hidden', timeout: 10_000 })
          .catch(() => {});
      }

      const seen = await frame.evaluate(() => ({
        ceilings: [...document.querySelectorAll('svg.roofline-chart g.ceiling')].map((g) => ({
          key: g.getAttribute('data-ceiling'),
          label: g.getAttribute('aria-label'),
          stroke: getComputedStyle(g.querySelector('.ceiling-line')).stroke,
        })),
        points: [...document.querySelectorAll('svg.roofline-chart g.pt')].map((g) => ({
          id: g.getAttribute('data-point'),
          kernel: g.getAttribute('data-kernel'),
          title: g.querySelector('title').textContent,
          shown: getComputedStyle(g).display !== 'none',
          fill: getComputedStyle(g.querySelector('.pt-mark')).fill,
        })),
        rows: [...document.querySelectorAll('table.roofline-table tbody tr')].map((tr) =>
          tr.getAttribute('data-kernel'),
        ),
        sol: [...document.querySelectorAll('details.sol-kernel')].map((d) => ({
          kernel: d.getAttribute('data-kernel'),
          bars: d.querySelectorAll('.bar').length,
        })),
        peaks: document.querySelector('figure.roofline')?.getAttribute('data-peaks-from'),
      }));
      // HBM, L2 and L1 · LDS (one peak on MI300X); VALU FP32 · FP64 and MFMA FP32 always; the MFMA types gemm_f16 uses
      const keys = seen.ceilings.map((c) => c.key);
      for (const k of ['hbmGBps', 'l2GBps', 'l1GBps ldsGBps', 'mfmaFp32', 'mfmaFp16'])
        assert(
          keys.some((x) => x.split(' ').includes(k.split(' ')[0])),
          `ceiling ${k}: ${JSON.stringify(keys)}`,
        );
      assert(
        keys.some((x) => x.includes('valuFp32')),
        `VALU FP32 ceiling: ${JSON.stringify(keys)}`,
      );
      assert(
        seen.ceilings.every((c) => c.stroke && c.stroke !== 'none'),
        `every ceiling is stroked in a theme colour: ${JSON.stringify(seen.ceilings)}`,
      );
      assert(seen.peaks === 'spec', `peaks from the spec: ${seen.peaks}`);
      // a point per kernel and level the CLI's numbers can place on log axes; HBM shown first
      const expected = roofline.kernels.flatMap((k, i) =>
        [
          ['hbm', k.aiHbm],
          ['l2', k.aiL2],
          ['l1', k.aiL1],
          ['lds', k.aiLds],
        ]
          .filter(([, ai]) => log(ai) && log(k.gflopsPerSecond))
          .map(([l]) => `${i}:${l}`),
      );
      assert(
        JSON.stringify(seen.points.map((p) => p.id).sort()) === JSON.stringify(expected.sort()),
        `points ${JSON.stringify(seen.points.map((p) => p.id))} vs ${JSON.stringify(expected)}`,
      );
      assert(
        seen.points.filter((p) => p.shown).every((p) => p.id.endsWith(':hbm')) && seen.points.some((p) => p.shown),
        'the HBM points show',
      );
      assert(
        seen.points.every((p) => p.fill && p.fill !== 'none'),
        `points filled: ${JSON.stringify(seen.points.map((p) => p.fill))}`,
      );
      // names as text: in the data attributes, the hover titles and the table
      assert(
        JSON.stringify(seen.rows) === JSON.stringify(roofline.kernels.map((k) => k.name)) &&
          [HOSTILE_GEMM, HOSTILE_COPY].every((n) => seen.rows.includes(n)),
        `table rows: ${JSON.stringify(seen.rows)}`,
      );
      for (const n of [HOSTILE_GEMM, HOSTILE_COPY])
        assert(
          seen.points.some((p) => p.kernel === n && p.title.endsWith(`\n${n}`)),
          `hover title keeps ${n}`,
        );
      assert(
        seen.sol.length === 2 && seen.sol.every((k) => k.bars > 0),
        `speed of light with bars: ${JSON.stringify(seen.sol)}`,
      );
      // the levels toggle and the keyboard reads a point out
      await frame.locator('input[data-level="l1"]').check();
      const l1 = await frame
        .locator('g.pt.pt-l1')
        .evaluateAll((gs) => gs.filter((g) => getComputedStyle(g).display !== 'none').length);
      assert(l1 === expected.filter((id) => id.endsWith(':l1')).length, `L1 points show: ${l1}`);
      await frame.locator('svg.roofline-chart').focus();
      await page.keyboard.press('ArrowRight');
      const readout = await frame.locator('.roofline-readout').innerText();
      assert(/ · (HBM|L1): AI .+ FLOP\/B, .+FLOP\/s · (memory|compute)-bound/.test(readout), `readout: ${readout}`);

      const counts = await frame.evaluate(() => ({
        injectedScripts: [...document.querySelectorAll('script')].filter((e) =>
          /alert|pwned/.test(e.textContent + (e.getAttribute('src') ?? '')),
        ).length,
        imgs: document.querySelectorAll('img').length,
        handlers: [...document.querySelectorAll('*')].filter((e) =>
          [...e.attributes].some((a) => a.name.startsWith('on')),
        ).length,
        title: document.title,
      }));
      assert(
        counts.injectedScripts === 0 && counts.imgs === 0 && counts.handlers === 0,
        `no injected elements: ${JSON.stringify(counts)}`,
      );
      assert(
        !counts.title.includes('pwned') && dialogs.length === 0,
        `nothing ran: ${counts.title} ${dialogs.join(', ')}`,
      );
      const layout = await horizontalLayout(frame);
      assert(layout.pageOverflowPx <= 1, `page scrolls sideways by ${layout.pageOverflowPx}px`);

      await frame.locator('section.roofline-section h3').scrollIntoViewIfNeeded();
      await frame.evaluate(() =>
        document.querySelector('section.roofline-section')?.scrollIntoView({ block: 'start' }),
      );
      await shot(page, outputDir, 'roofline');
      await frame.evaluate(() => document.querySelector('section.sol-section')?.scrollIntoView({ block: 'start' }));
      await shot(page, outputDir, 'roofline-sol');

      // the same chart in a dark theme (a workspace setting, put back afterwards)
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
        await frame.evaluate(() =>
          document.querySelector('section.roofline-section')?.scrollIntoView({ block: 'start' }),
        );
        await page.waitForTimeout(300);
        await shot(page, outputDir, 'roofline-dark');
      } finally {
        if (!hadFolder) rmSync(join(workspace, '.vscode'), { recursive: true, force: true });
        else if (saved === undefined) rmSync(settingsFile, { force: true });
        else writeFileSync(settingsFile, saved);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
