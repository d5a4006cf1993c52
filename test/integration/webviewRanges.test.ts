// The results webview's rocTX part in real Chromium (Debian's, driven by playwright-core): the summary of a run
// written in rocprofv3's layout, whose range and kernel names are hostile, rendered by src/webview/render.ts
// (bundled with esbuild). Each benchmark case gets its own section listing its kernels; every name shows as
// text, exactly; no element, attribute or script comes out of the data, and no dialog opens. A screenshot of the
// ranges part goes to .test-output/webview-ranges.png.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { summarizePath, type TraceSummary } from '../../src/trace/index';
import { tempDir } from '../unit/trace/helpers';
import { LAUNCHES, RANGES, writeRun, type Launch } from '../unit/trace/rangeRuns';
import { launchChromium, renderTraceBundle } from '../support/webviewBrowser';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const chromiumPath = process.env.KR_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
if (!haveChromium)
  console.error(
    `webviewRanges.test.ts: ${chromiumPath} is missing, so the per-case webview section is NOT tested in a browser`,
  );

const HOSTILE_RANGES = [
  'benchmark 0: n: <img src=x onerror="window.__pwned=1">',
  '<script>window.__pwned=2</script>',
  'worker "><svg onload="window.__pwned=3">',
];
const HOSTILE_KERNELS = [
  'void k<"><img src=x onerror=alert(1)>>(float*)',
  '<script>alert("kernel")</script>(int)',
  `void gemm<${'ck::tensor_layout::gemm::RowMajor, '.repeat(60)}float>(float const*)`,
];

describe(
  'webview: a section per rocTX range with its kernels, hostile names',
  { skip: haveChromium ? false : `${chromiumPath} is missing` },
  () => {
    let browser: Browser;
    let page: Page;
    let dir = '';
    let summary: TraceSummary;
    const dialogs: string[] = [];
    let bundle = '';

    before(async () => {
      dir = tempDir('webview-ranges');
      const ranges = RANGES.map(
        ([name, ...rest], i) =>
          [
            i === 0 ? HOSTILE_RANGES[0] : i === 1 ? HOSTILE_RANGES[2] : i === 3 ? HOSTILE_RANGES[1] : name,
            ...rest,
          ] as (typeof RANGES)[number],
      );
      const names = new Map(
        [...new Set(LAUNCHES.map((l) => l.kernel))].map((k, i) => [k, HOSTILE_KERNELS[i] as string]),
      );
      const launches: Launch[] = LAUNCHES.map((l) => ({ ...l, kernel: names.get(l.kernel) as string }));
      writeRun(dir, { ranges, launches });
      summary = await summarizePath(dir);
      bundle = await renderTraceBundle('append');
      browser = await launchChromium(chromiumPath);
      page = await browser.newPage();
      page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
    });

    after(async () => {
      await browser?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    test('each range with kernels has its section; names are text, nothing runs', async () => {
      await page.setContent('<!doctype html><html><body></body></html>');
      await page.addStyleTag({ content: readFileSync(path.join(repoRoot, 'media/results.css'), 'utf8') });
      await page.addScriptTag({ content: bundle });
      const scriptsBefore = await page.evaluate('document.querySelectorAll("script").length');
      // handed over as a structured-clone argument, as the extension posts it to the webview
      await page.evaluate(
        (s) => (globalThis as unknown as { renderForTest(x: unknown): void }).renderForTest(s),
        summary as unknown,
      );
      const seen = (await page.evaluate(`(() => {
      const sections = [...document.querySelectorAll('details.range-case')];
      const handlers = [...document.querySelectorAll('*')].flatMap((el) => [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => el.tagName + ' ' + a.name));
      return {
        sections: sections.map((d) => ({
          attr: d.getAttribute('data-range'),
          text: d.querySelector('.range-name')?.textContent,
          kernels: [...d.querySelectorAll('.kernel-name')].map((k) => k.getAttribute('title')),
        })),
        imgs: document.querySelectorAll('img, iframe, marquee').length,
        scripts: document.querySelectorAll('script').length,
        handlers,
        pwned: window.__pwned ?? null,
        note: document.querySelector('[data-range-attribution]')?.textContent ?? null,
      };
    })()`)) as {
        sections: Array<{ attr: string; text: string; kernels: string[] }>;
        imgs: number;
        scripts: number;
        handlers: string[];
        pwned: unknown;
        note: string | null;
      };

      const [k0, k1, k2] = HOSTILE_KERNELS as [string, string, string];
      assert.deepEqual(
        seen.sections,
        [
          { attr: HOSTILE_RANGES[0], text: HOSTILE_RANGES[0], kernels: [k0] },
          { attr: HOSTILE_RANGES[1], text: HOSTILE_RANGES[1], kernels: [k0, k2] },
          { attr: 'inner', text: 'inner', kernels: [k2] },
          { attr: HOSTILE_RANGES[2], text: HOSTILE_RANGES[2], kernels: [k1] },
        ].sort(
          (a, b) =>
            summary.markers.findIndex((m) => m.name === a.attr) - summary.markers.findIndex((m) => m.name === b.attr),
        ),
      );
      mkdirSync(path.join(repoRoot, '.test-output'), { recursive: true });
      await page.locator('div.ranges').screenshot({ path: path.join(repoRoot, '.test-output/webview-ranges.png') });
      assert.equal(seen.imgs, 0, 'no element made from a name');
      assert.equal(seen.scripts, scriptsBefore, 'no script element added');
      assert.deepEqual(seen.handlers, [], 'no event-handler attribute anywhere');
      assert.equal(seen.pwned, null);
      assert.deepEqual(dialogs, []);
      assert.match(
        seen.note ?? '',
        /^6 of 8 dispatches were launched inside a range, each put in the innermost range open on its launching thread/,
      );
    });
  },
);
