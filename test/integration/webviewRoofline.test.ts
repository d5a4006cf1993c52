// The results webview's Roofline and Speed-of-light sections in real Chromium (Debian's, driven by playwright-core),
// src/webview/render.ts bundled as the webview bundles it: the log-log chart's ceilings and points sit where the
// numbers put them, the points a log axis cannot show are left out with a note that names them, an unknown peak is
// said and not drawn, the missing counters are named, the chart is one tab stop walked by the arrow keys, and
// hostile kernel and range names are shown as text with nothing injected. Screenshots go to .test-output/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { TraceSummary } from '../../src/core/protocol/traceSummary';
import { launchChromium, renderTraceBundle } from '../support/webviewBrowser';
import { MI300X_PEAKS, roofline, rooflineKernel, rooflineOnlySummary, speedOfLight } from '../support/rooflineSummary';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const chromiumPath = process.env.KR_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
if (!haveChromium)
  console.error(
    `webviewRoofline.test.ts: ${chromiumPath} is missing, so the roofline chart is NOT tested in a browser`,
  );

const GEMM = 'void gemm<"><img src=x onerror="window.__pwned=1">>(half const*, half*)';
const COPY = '<script>window.__pwned=2</script>copy_kernel(float*)';
const SOFTMAX = 'softmax_kernel(float*, float const*, int) \'"><svg onload=window.__pwned=3>';
const MEMSET = 'memset_kernel(int*)';
const ODD = 'odd_kernel(float*)';

const gemm = rooflineKernel({
  name: GEMM,
  dispatches: 4,
  durationNs: 2e6,
  mfma: { f16: 1.2e12, f8: 1e9 },
  hbmBytes: 2e9,
  l2Bytes: 4e9,
  l1Bytes: 2e10,
  ldsBytes: 5e10,
});
// AI 0.025 FLOP/B, 100 GFLOP/s: 75% of the HBM slope there (0.025 × 5324.8 GB/s)
const copy = rooflineKernel({
  name: COPY,
  dispatches: 150,
  durationNs: 1e5,
  valu: { f32: 1e7 },
  hbmBytes: 4e8,
  l2Bytes: 4e8,
  l1Bytes: 8e8,
  ldsBytes: 0,
});
// AI exactly 1 and 1000 GFLOP/s at HBM (and 10 at L2): a point on the decade grid lines
const softmax = rooflineKernel({
  name: SOFTMAX,
  dispatches: 20,
  durationNs: 1e6,
  valu: { f32: 9e8, f64: 1e8 },
  hbmBytes: 1e9,
  l2Bytes: 1e8,
  l1Bytes: 5e8,
  ldsBytes: 2e8,
});
const memset = rooflineKernel({
  name: MEMSET,
  dispatches: 2,
  durationNs: 5e4,
  hbmBytes: 1e8,
  l2Bytes: 1e8,
  l1Bytes: 1e8,
  ldsBytes: 0,
});
// values a log axis has no place for (as a reader could hand them over): negative, infinite, NaN
const odd = {
  ...rooflineKernel({
    name: ODD,
    durationNs: 1e5,
    valu: { f32: 3e8 },
    hbmBytes: 1e8,
    l2Bytes: 1e8,
    l1Bytes: 1e8,
    ldsBytes: 1e8,
  }),
  aiL2: -1,
  aiL1: Infinity,
  aiLds: NaN,
};

const KERNELS = [gemm, softmax, copy, memset, odd];

function summaryWithKernels(): TraceSummary {
  return rooflineOnlySummary(
    roofline(KERNELS, {
      peaksFrom: 'roofline.csv',
      peaks: { ...MI300X_PEAKS, mfmaFp8: null },
      missing: [{ quantity: 'mfmaFlops', counters: ['SQ_INSTS_VALU_MFMA_MOPS_F6F4'] }],
    }),
    speedOfLight([gemm, copy]),
  );
}

const RANGES = ['benchmark 0: n: <img src=x onerror="window.__pwned=4">', 'benchmark 1: n: 2048'];

function summaryWithRanges(): TraceSummary {
  const r = roofline([gemm, copy], {
    ranges: [
      { name: RANGES[0]!, kernels: [gemm, copy] },
      {
        name: RANGES[1]!,
        kernels: [
          { ...gemm, gflopsPerSecond: 3e5 },
          { ...copy, aiHbm: 0.05 },
        ],
      },
    ],
    peaks: { ...MI300X_PEAKS, hbmGBps: null },
    missing: [{ quantity: 'peaks.hbmGBps', counters: ['max_mclk'] }],
  });
  return rooflineOnlySummary(r, speedOfLight([gemm, copy], [{ name: RANGES[0]!, kernels: [gemm] }]));
}

interface Seen {
  ceilings: Array<{ key: string; label: string; title: string }>;
  points: Array<{
    id: string;
    kernel: string;
    range: string | null;
    label: string;
    title: string;
    shown: boolean;
    box: { x: number; y: number };
  }>;
  unknown: string[];
  missing: string[];
  skipped: string;
  rows: Array<{ kernel: string; cells: string[] }>;
  sol: Array<{ kernel: string; rows: string[][] }>;
  legend: string[];
  imgs: number;
  scripts: number;
  handlers: string[];
  pwned: unknown;
}

const SEEN = `(() => {
  const chart = document.querySelector('svg.roofline-chart');
  const box = (el) => { const r = el.querySelector('.pt-mark').getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; };
  return {
    ceilings: [...document.querySelectorAll('g.ceiling')].map((g) => ({ key: g.getAttribute('data-ceiling'), label: g.getAttribute('aria-label'), title: g.querySelector('title').textContent })),
    points: [...document.querySelectorAll('g.pt')].map((g) => ({ id: g.getAttribute('data-point'), kernel: g.getAttribute('data-kernel'), range: g.getAttribute('data-range'), label: g.getAttribute('aria-label'), title: g.querySelector('title').textContent, shown: getComputedStyle(g).display !== 'none', box: box(g) })),
    unknown: [...document.querySelectorAll('.roofline-unknown')].map((p) => p.textContent),
    missing: [...document.querySelectorAll('.roofline-section .roofline-missing')].map((p) => p.textContent),
    skipped: document.querySelector('.roofline-skipped')?.textContent ?? '',
    rows: [...document.querySelectorAll('table.roofline-table tbody tr')].map((tr) => ({ kernel: tr.getAttribute('data-kernel'), cells: [...tr.querySelectorAll('td')].map((td) => td.textContent) })),
    sol: [...document.querySelectorAll('details.sol-kernel')].map((d) => ({ kernel: d.getAttribute('data-kernel'), rows: [...d.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)) })),
    legend: [...document.querySelectorAll('.roofline-legend:not(.roofline-cases) li')].map((li) => li.getAttribute('title')),
    imgs: document.querySelectorAll('img, iframe, svg:not(.roofline-chart):not(.legend-icon)').length,
    scripts: document.querySelectorAll('script').length,
    handlers: [...document.querySelectorAll('*')].flatMap((el) => [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => el.tagName + ' ' + a.name)),
    pwned: window.__pwned ?? null,
  };
})()`;

/** Where a decade's grid line of an axis is on the page: x for the intensity axis, y for the performance axis. */
const GRID = `((label, axis) => {
  const t = [...document.querySelectorAll('svg.roofline-chart .tick-label')].find((e) => e.textContent === label && (axis === 'x' ? e.getAttribute('text-anchor') === 'middle' : e.getAttribute('text-anchor') === 'end'));
  if (!t) return null;
  const r = t.getBoundingClientRect();
  return axis === 'x' ? r.x + r.width / 2 : r.y + r.height / 2;
})`;

describe(
  'webview: the roofline chart and the speed-of-light table',
  { skip: haveChromium ? false : `${chromiumPath} is missing` },
  () => {
    let browser: Browser;
    let page: Page;
    let bundle = '';
    const dialogs: string[] = [];

    before(async () => {
      bundle = await renderTraceBundle('replace');
      browser = await launchChromium(chromiumPath);
      page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      mkdirSync(path.join(repoRoot, '.test-output'), { recursive: true });
    });

    after(async () => {
      await browser?.close();
    });

    const render = async (s: TraceSummary): Promise<Seen> => {
      await page.setContent('<!doctype html><html><body></body></html>');
      await page.addStyleTag({ content: readFileSync(path.join(repoRoot, 'media/results.css'), 'utf8') });
      await page.addScriptTag({ content: bundle });
      // handed over as a structured-clone argument, as the extension posts it to the webview (NaN and ±Infinity survive)
      await page.evaluate(
        (x) => (globalThis as unknown as { renderForTest(v: unknown): void }).renderForTest(x),
        s as unknown,
      );
      return (await page.evaluate(SEEN)) as Seen;
    };

    test('ceilings, points at their numbers, unknown peaks and missing counters said, hostile names as text', async () => {
      const seen = await render(summaryWithKernels());

      // every bandwidth; VALU and MFMA FP32 always; VALU FP64 and MFMA FP16 because a kernel uses them (VALU FP32 and
      // FP64 have one peak, as L1 and LDS have here: one line, both named); MFMA BF16 and FP64 not (no kernel uses them); FP8 used but its
      // peak unknown: said, not drawn
      assert.deepEqual(
        seen.ceilings.map((c) => c.key).sort(),
        ['hbmGBps', 'l1GBps ldsGBps', 'l2GBps', 'mfmaFp16', 'mfmaFp32', 'valuFp32 valuFp64'].sort(),
      );
      assert.ok(
        seen.ceilings.find((c) => c.key === 'hbmGBps')?.label === 'HBM 5.32 TB/s',
        JSON.stringify(seen.ceilings),
      );
      assert.ok(
        seen.ceilings.find((c) => c.key === 'valuFp32 valuFp64')?.label === 'VALU FP32 · VALU FP64 81.7 TFLOP/s',
        JSON.stringify(seen.ceilings),
      );
      assert.ok(
        seen.ceilings.find((c) => c.key === 'mfmaFp16')?.label === 'MFMA FP16 1.31 PFLOP/s',
        JSON.stringify(seen.ceilings),
      );
      assert.deepEqual(seen.unknown, [
        'MFMA FP8 ceiling not drawn: its peak is unknown (roofline.csv has no MFMAF8Flops value).',
      ]);
      assert.deepEqual(seen.missing, ['mfmaFlops could not be computed: missing SQ_INSTS_VALU_MFMA_MOPS_F6F4']);

      // 5 kernels × 4 levels: memset has no FLOPs (4 left out), copy no LDS bytes (AI 0), odd's L2/L1/LDS are -1, ∞, NaN
      assert.equal(seen.points.length, 20 - 4 - 1 - 3);
      assert.match(
        seen.skipped,
        /^8 of 20 points are not drawn: a log scale has no place for zero, negative or unknown values\. /,
      );
      assert.match(seen.skipped, /memset_kernel\(int\*\): 0 FLOP\/s/);
      assert.match(seen.skipped, /<script>window\.__pwned=2<\/script>copy_kernel\(float\*\): LDS AI 0 FLOP\/B/);
      assert.match(seen.skipped, /odd_kernel\(float\*\): L2 AI -1\.00 FLOP\/B, L1 AI Infinity, LDS AI NaN/);

      // only the HBM points show at first, HBM being where the bound is judged
      assert.deepEqual(
        seen.points
          .filter((p) => p.shown)
          .map((p) => p.id)
          .sort(),
        ['0:hbm', '1:hbm', '2:hbm', '4:hbm'],
      );
      // softmax's HBM point (AI 1, 1000 GFLOP/s) sits on the grid lines "1" and "1k"; its L2 point on "10"
      const at = (id: string) => seen.points.find((p) => p.id === id)?.box;
      const gridX = async (label: string) =>
        (await page.evaluate(`${GRID}(${JSON.stringify(label)}, 'x')`)) as number | null;
      const gridY = async (label: string) =>
        (await page.evaluate(`${GRID}(${JSON.stringify(label)}, 'y')`)) as number | null;
      const near = (a: number | null | undefined, b: number | null | undefined, what: string) =>
        assert.ok(typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) < 1.5, `${what}: ${a} vs ${b}`);
      near(at('1:hbm')?.x, await gridX('1'), 'AI 1 on the "1" line');
      near(at('1:hbm')?.y, await gridY('1k'), '1000 GFLOP/s on the "1k" line');
      await page.locator('input[data-level="l2"]').check();
      const l2 = (await page.evaluate(
        `(() => { const r = document.querySelector('g.pt[data-point="1:l2"] .pt-mark').getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`,
      )) as { x: number; y: number };
      near(l2.x, await gridX('10'), 'AI 10 on the "10" line');
      near(l2.y, at('1:hbm')?.y, 'a kernel has one FLOP rate at every level');
      await page.locator('input[data-level="l2"]').uncheck();
      // higher GFLOP/s is higher up; higher AI further right
      assert.ok((at('0:hbm')?.y ?? 0) < (at('1:hbm')?.y ?? 0) && (at('0:hbm')?.x ?? 0) > (at('1:hbm')?.x ?? 0));

      // hover text: the numbers, the bound, the share of the roof, and the full name
      const copyHbm = seen.points.find((p) => p.id === '2:hbm');
      assert.equal(
        copyHbm?.label,
        '<script>window.__pwned=2</script>copy_kernel(float*) · HBM: AI 0.0250 FLOP/B, 100 GFLOP/s · memory-bound, 75% of roof',
      );
      assert.equal(copyHbm?.title, `${copyHbm?.label}\n${COPY}`);
      assert.equal(seen.points.find((p) => p.id === '0:hbm')?.kernel, GEMM);

      // the table behind the chart, every row with its numbers
      assert.deepEqual(
        seen.rows.map((r) => r.kernel),
        KERNELS.map((k) => k.name),
      );
      assert.deepEqual(seen.rows[2]?.cells, [
        COPY,
        '150',
        '100 µs',
        '100 GFLOP/s',
        '0.0250 FLOP/B',
        '0.0250 FLOP/B',
        '0.0125 FLOP/B',
        '0 FLOP/B',
        'memory',
        '75%',
      ]);
      assert.equal(seen.rows[0]?.cells[8], 'compute');
      assert.equal(seen.rows[3]?.cells[9], '–', 'no FLOPs: no share of the roof');
      assert.deepEqual(
        seen.legend,
        KERNELS.map((k) => k.name),
      );

      // speed of light: a table per kernel with % of peak bars
      assert.deepEqual(
        seen.sol.map((k) => k.kernel),
        [GEMM, COPY],
      );
      assert.deepEqual(seen.sol[1]?.rows[2], ['L2-Fabric Read BW', '4.00 TB/s', '5.32 TB/s', '75.1%']);
      assert.deepEqual(seen.sol[1]?.rows[3], ['L2 Cache Hit Rate', '62.5%', '–', '–']);

      await page
        .locator('section.roofline-section')
        .screenshot({ path: path.join(repoRoot, '.test-output/webview-roofline.png') });
      assert.equal(seen.imgs, 0, 'no element made from a name');
      assert.equal(seen.scripts, 1, 'only the test bundle');
      assert.deepEqual(seen.handlers, [], 'no event-handler attribute anywhere');
      assert.equal(seen.pwned, null);
      assert.deepEqual(dialogs, []);
    });

    test('the levels toggle; the chart is one tab stop, arrow keys walk the shown points left to right', async () => {
      await render(summaryWithKernels());
      await page.locator('input[data-level="l2"]').check();
      const shown = (await page.evaluate(
        `[...document.querySelectorAll('g.pt')].filter((g) => getComputedStyle(g).display !== 'none').map((g) => g.getAttribute('data-point')).sort()`,
      )) as string[];
      assert.deepEqual(shown, ['0:hbm', '0:l2', '1:hbm', '1:l2', '2:hbm', '2:l2', '4:hbm']);
      await page.locator('input[data-level="l2"]').uncheck();

      const readout = page.locator('.roofline-readout');
      await page.locator('svg.roofline-chart').focus();
      // the leftmost shown point first: copy (AI 0.025)
      assert.match(await readout.innerText(), /copy_kernel\(float\*\) · HBM: AI 0\.0250 FLOP\/B/);
      await page.keyboard.press('ArrowRight');
      assert.match(
        await readout.innerText(),
        /^softmax_kernel.* · HBM: AI 1\.00 FLOP\/B, 1\.00 TFLOP\/s · memory-bound, 19% of roof$/,
      );
      await page.keyboard.press('End');
      assert.match(
        await readout.innerText(),
        /^void gemm<.* · HBM: AI 601 FLOP\/B, 601 TFLOP\/s · compute-bound, 735% of roof$/,
      );
      await page.keyboard.press('ArrowRight');
      assert.match(await readout.innerText(), /copy_kernel/, 'wraps round');
      assert.equal(await page.locator('g.pt.pt-active').count(), 1);
      await page.locator('g.pt[data-point="1:hbm"]').hover();
      assert.match(await readout.innerText(), /^softmax_kernel/);
    });

    test('per benchmark case: a point per kernel and case; an unknown HBM peak leaves its slope out and says why', async () => {
      const seen = await render(summaryWithRanges());
      await page
        .locator('section.roofline-section')
        .screenshot({ path: path.join(repoRoot, '.test-output/webview-roofline-ranges.png') });
      assert.deepEqual(
        seen.points.filter((p) => p.id.endsWith(':hbm')).map((p) => [p.kernel, p.range]),
        [
          [GEMM, RANGES[0]],
          [COPY, RANGES[0]],
          [GEMM, RANGES[1]],
          [COPY, RANGES[1]],
        ],
      );
      assert.ok(!seen.ceilings.some((c) => c.key === 'hbmGBps'));
      assert.deepEqual(seen.unknown, [
        'HBM ceiling not drawn: its peak is unknown (the spec peak needs GPU facts this profile did not record (max_mclk)).',
      ]);
      assert.deepEqual(seen.missing, [], 'a missing peak is said at its ceiling only');
      assert.deepEqual(
        seen.rows.map((r) => r.cells[1]),
        [RANGES[0], RANGES[0], RANGES[1], RANGES[1]],
      );
      assert.match(
        seen.points.find((p) => p.id === '0:hbm')?.label ?? '',
        new RegExp(` · ${RANGES[0]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} · HBM: `),
      );
      assert.deepEqual(seen.legend, [GEMM, COPY], 'a kernel keeps one colour over the cases');
      const sameColour = (await page.evaluate(
        `[...document.querySelectorAll('g.pt.pt-hbm')].map((g) => [...g.classList].find((c) => c.startsWith('colour-')))`,
      )) as string[];
      assert.deepEqual(sameColour, ['colour-0', 'colour-1', 'colour-0', 'colour-1']);
      // each point carries its case's number; the legend says which case that is
      const caseNos = (await page.evaluate(
        `[...document.querySelectorAll('g.pt.pt-hbm')].map((g) => g.querySelector('.pt-case')?.textContent ?? null)`,
      )) as Array<string | null>;
      assert.deepEqual(caseNos, ['1', '1', '2', '2']);
      const cases = (await page.evaluate(
        `[...document.querySelectorAll('ul.roofline-cases li')].map((li) => li.textContent)`,
      )) as string[];
      assert.deepEqual(cases, [`1${RANGES[0]}`, `2${RANGES[1]}`]);
      const perCase = (await page.evaluate(
        `[...document.querySelectorAll('.sol-ranges caption')].map((c) => c.textContent)`,
      )) as string[];
      assert.deepEqual(perCase, [`Speed of light in ${RANGES[0]}`]);
      assert.equal(seen.imgs, 0);
      assert.equal(seen.pwned, null);
      assert.deepEqual(dialogs, []);
    });

    test('a summary without counters has no roofline section', async () => {
      const s = rooflineOnlySummary(roofline([]));
      delete s.roofline;
      await render(s);
      assert.equal(await page.locator('.roofline-sections').count(), 0);
    });
  },
);
