// The compare page's roofline in real Chromium (src/webview/compare.ts bundled as the webview bundles it): with
// counters on both sides each kernel's HBM point in A is joined to its point in B by an arrow (kernels paired as the
// comparison pairs them, a changed template argument included), a kernel with a point on one side only is named in a
// note, and hostile names stay text. With counters on one side the page says so and draws nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { KernelRow, TraceSummary } from '../../src/core/protocol/traceSummary';
import type { RooflineKernel } from '../../src/core/protocol/roofline';
import { compareSummaries } from '../../src/trace/index';
import type { CompareView } from '../../src/webview/compareProtocol';
import { openComparePage } from '../support/webviewBrowser';
import { roofline, rooflineKernel, rooflineOnlySummary } from '../support/rooflineSummary';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const chromiumPath = process.env.KR_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
if (!haveChromium)
  console.error(
    `webviewCompareRoofline.test.ts: ${chromiumPath} is missing, so the compare roofline is NOT tested in a browser`,
  );

const GEMM_A = 'void gemm<128>(float const*, float*)';
const GEMM_B = 'void gemm<256>(float const*, float*)';
const HOSTILE = '<img src=x onerror="window.__pwned=1">copy(float*)';
const GONE = 'layernorm(float*)';

function row(name: string, shortName: string, calls: number, totalNs: number): KernelRow {
  return {
    name,
    shortName,
    calls,
    totalNs,
    avgNs: totalNs / calls,
    minNs: null,
    maxNs: null,
    stddevNs: null,
    percent: 0,
    agentIds: [],
    launches: [],
    launchesTruncated: false,
  };
}

function side(kernels: RooflineKernel[], rows: KernelRow[]): TraceSummary {
  const s = rooflineOnlySummary(roofline(kernels));
  s.kernels = rows;
  s.kernelTotals = {
    calls: rows.reduce((n, r) => n + r.calls, 0),
    totalNs: rows.reduce((n, r) => n + r.totalNs, 0),
    distinct: rows.length,
  };
  return s;
}

const gemmA = rooflineKernel({
  name: GEMM_A,
  dispatches: 4,
  durationNs: 1e6,
  valu: { f32: 2e10 },
  hbmBytes: 1e9,
  l2Bytes: 1e9,
  l1Bytes: 1e9,
  ldsBytes: 1e9,
});
const gemmB = rooflineKernel({
  name: GEMM_B,
  dispatches: 4,
  durationNs: 5e5,
  valu: { f32: 2e10 },
  hbmBytes: 5e8,
  l2Bytes: 1e9,
  l1Bytes: 1e9,
  ldsBytes: 1e9,
});
const copyA = rooflineKernel({
  name: HOSTILE,
  dispatches: 10,
  durationNs: 1e5,
  valu: { f32: 1e7 },
  hbmBytes: 4e8,
  l2Bytes: 4e8,
  l1Bytes: 4e8,
  ldsBytes: 0,
});
const copyB = rooflineKernel({
  name: HOSTILE,
  dispatches: 10,
  durationNs: 8e4,
  valu: { f32: 1e7 },
  hbmBytes: 4e8,
  l2Bytes: 4e8,
  l1Bytes: 4e8,
  ldsBytes: 0,
});
const gone = rooflineKernel({
  name: GONE,
  dispatches: 1,
  durationNs: 1e4,
  valu: { f32: 1e6 },
  hbmBytes: 1e6,
  l2Bytes: 1e6,
  l1Bytes: 1e6,
  ldsBytes: 0,
});

function view(a: TraceSummary, b: TraceSummary): CompareView {
  return {
    title: 'Compare',
    a: { label: 'before', path: '/tmp/before' },
    b: { label: 'after', path: '/tmp/after' },
    comparison: compareSummaries(a, b, { a: 'before', b: 'after' }),
    comparedAt: new Date(0).toISOString(),
    rooflines: { a: a.roofline ?? null, b: b.roofline ?? null },
  };
}

describe(
  "webview: the compare page's roofline arrows",
  { skip: haveChromium ? false : `${chromiumPath} is missing` },
  () => {
    let browser: Browser;
    let page: Page;
    let dialogs: string[] = [];
    let show: (view: CompareView) => Promise<void>;

    before(async () => {
      ({ browser, page, dialogs, render: show } = await openComparePage(chromiumPath));
    });

    after(async () => {
      await browser?.close();
    });

    const render = async (v: CompareView): Promise<void> => {
      await show(v);
    };

    test('an arrow per kernel with points on both sides, paired as the comparison pairs them; hostile names as text', async () => {
      const a = side(
        [gemmA, copyA, gone],
        [row(GEMM_A, 'gemm<128>', 4, 4e6), row(HOSTILE, HOSTILE, 10, 1e6), row(GONE, 'layernorm', 1, 1e4)],
      );
      const b = side([gemmB, copyB], [row(GEMM_B, 'gemm<256>', 4, 2e6), row(HOSTILE, HOSTILE, 10, 8e5)]);
      const v = view(a, b);
      await render(v);
      const shortOf = (name: string) => v.comparison.roofline?.find((r) => r.name === name)?.shortName ?? '';
      const seen = (await page.evaluate(`(() => ({
      arrows: [...document.querySelectorAll('svg.roofline-chart g.roof-arrow')].map((g) => ({
        kernel: g.getAttribute('data-kernel'),
        label: g.getAttribute('aria-label'),
        a: [Number(g.querySelector('.pt-a').getAttribute('cx')), Number(g.querySelector('.pt-a').getAttribute('cy'))],
        b: [Number(g.querySelector('.pt-b').getAttribute('cx')), Number(g.querySelector('.pt-b').getAttribute('cy'))],
        head: !!g.querySelector('.arrow-head'),
      })),
      ceilings: [...document.querySelectorAll('.roofline-compare g.ceiling')].map((g) => g.getAttribute('data-ceiling')),
      skipped: document.querySelector('.roofline-compare .roofline-skipped')?.textContent ?? '',
      rows: [...document.querySelectorAll('table.roofline-compare-table tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
      imgs: document.querySelectorAll('img, iframe').length,
      handlers: [...document.querySelectorAll('*')].flatMap((el) => [...el.attributes].filter((x) => /^on/i.test(x.name)).map((x) => el.tagName + ' ' + x.name)),
      pwned: window.__pwned ?? null,
      strayText: [...document.querySelector('section.roofline-compare').childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent),
    }))()`)) as {
        strayText: string[];
        arrows: Array<{ kernel: string; label: string; a: [number, number]; b: [number, number]; head: boolean }>;
        ceilings: string[];
        skipped: string;
        rows: string[][];
        imgs: number;
        handlers: string[];
        pwned: unknown;
      };

      assert.deepEqual(
        seen.arrows.map((x) => x.kernel),
        [GEMM_B, HOSTILE],
      );
      const gemm = seen.arrows[0]!;
      // B doubled both its intensity (half the bytes) and its FLOP rate (half the time): up and to the right
      assert.ok(gemm.b[0] > gemm.a[0] && gemm.b[1] < gemm.a[1] && gemm.head, JSON.stringify(gemm));
      assert.equal(
        gemm.label,
        `${shortOf(GEMM_B)}: A AI 20.0 FLOP/B, 20.0 TFLOP/s (compute-bound, 24% of roof) → B AI 40.0 FLOP/B, 40.0 TFLOP/s (compute-bound, 49% of roof) · GFLOP/s B / A 2.00× (+100%)`,
      );
      // same intensity, 1.25× the rate: straight up
      const copy = seen.arrows[1]!;
      assert.equal(copy.a[0], copy.b[0]);
      assert.ok(copy.b[1] < copy.a[1]);
      assert.ok(seen.ceilings.includes('hbmGBps'));
      assert.equal(
        seen.skipped,
        `Not drawn (no point on one side: no counters, no FLOPs, or a value a log scale cannot show): ${shortOf(GONE)} (A has counters, B lacks them).`,
      );
      // the trace toolkit's short names (the comparison's), shown as text
      assert.deepEqual(
        seen.rows.map((r) => r[0]),
        [shortOf(GEMM_B), shortOf(HOSTILE), shortOf(GONE)],
      );
      assert.match(shortOf(HOSTILE), /^<img src=x onerror=/);
      assert.equal(seen.rows[2]?.[5], '–');
      mkdirSync(path.join(repoRoot, '.test-output'), { recursive: true });
      await page
        .locator('section.roofline-compare')
        .screenshot({ path: path.join(repoRoot, '.test-output/webview-compare-roofline.png') });
      assert.deepEqual(seen.strayText, [], 'every part of the section is an element (no "null" or stray text)');
      assert.equal(seen.imgs, 0);
      assert.deepEqual(seen.handlers, []);
      assert.equal(seen.pwned, null);
      assert.deepEqual(dialogs, []);

      // the keyboard walks the arrows by B's intensity
      await page.locator('.roofline-compare svg.roofline-chart').focus();
      assert.equal(
        (await page.locator('.roofline-compare .roofline-readout').innerText()).startsWith(
          `${shortOf(HOSTILE)}: A AI 0.0250 FLOP/B`,
        ),
        true,
      );
      await page.keyboard.press('ArrowRight');
      assert.equal(
        (await page.locator('.roofline-compare .roofline-readout').innerText()).startsWith(`${shortOf(GEMM_B)}: `),
        true,
      );
    });

    test('counters on one side only: said, no chart', async () => {
      const a = side([gemmA], [row(GEMM_A, 'gemm<128>', 4, 4e6)]);
      const b = side([], [row(GEMM_A, 'gemm<128>', 4, 3e6)]);
      delete b.roofline;
      await render(view(a, b));
      assert.equal(
        await page.locator('.roofline-compare .note').first().innerText(),
        'Only A read hardware counters: the roofline change needs them on both sides.',
      );
      assert.equal(await page.locator('.roofline-compare svg').count(), 0);
    });

    test('no counters on either side: no roofline section', async () => {
      const a = side([], [row(GEMM_A, 'gemm<128>', 4, 4e6)]);
      delete a.roofline;
      const v = view(a, a);
      delete v.rooflines;
      await render(v);
      assert.equal(await page.locator('.roofline-compare').count(), 0);
    });
  },
);
