// The results webview's "Hot spots" section in real Chromium (Debian's, driven by playwright-core), render.ts
// bundled as the webview bundles it, on the hot spots read from rocprofiler-sdk's own stochastic samples
// (../shared/fixtures/rocprof/pc-sampling) plus a kernel whose name, file and instruction are hostile: the stall
// bar's segments are the kernel's stall counts, the tables its top lines and instructions, and the hostile strings
// are text with nothing injected, their bidirectional controls written out. Screenshot in .test-output/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { TraceSummary } from '../../src/core/protocol/traceSummary';
import type { KernelHotspots } from '../../src/core/protocol/pcSampling';
import { hotspotsPath } from '../../src/trace/pcSampling/hotspots';
import { launchChromium, renderTraceBundle } from '../support/webviewBrowser';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const chromiumPath = process.env.KR_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
if (!haveChromium)
  console.error(
    `webviewHotspots.test.ts: ${chromiumPath} is missing, so the Hot spots section is NOT tested in a browser`,
  );
const SAMPLES = path.resolve(repoRoot, '../shared/fixtures/rocprof/pc-sampling/pc_sampling_stochastic_debug.csv');

const EVIL_KERNEL = '<img src=x onerror="window.__pwned=1">kernel(int*)\u202egnp.exe';
const EVIL_FILE = '/tmp/"><script>window.__pwned=2</script>\u2066.hip\u2069\u200f';
/** Shown as text, with the bidirectional controls written out (showBidiControls), not obeyed. */
const SHOWN_KERNEL = '<img src=x onerror="window.__pwned=1">kernel(int*)\\u202egnp.exe';
const SHOWN_FILE = '/tmp/"><script>window.__pwned=2</script>\\u2066.hip\\u2069\\u200f';
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const EVIL_INST = 's_nop 0 <svg onload="window.__pwned=3">';

function summary(kernels: KernelHotspots[], base: Awaited<ReturnType<typeof hotspotsPath>>): TraceSummary {
  return {
    version: 1,
    kernels: [],
    kernelTotals: { calls: 0, totalNs: 0, distinct: 0 },
    memoryCopies: [],
    api: [],
    apiTotals: { calls: 0, totalNs: 0, distinct: 0 },
    markers: [],
    rangeAttribution: null,
    agents: [],
    processes: [],
    wall: null,
    timeline: null,
    sources: [],
    skipped: [],
    checks: [],
    warnings: [],
    hotspots: { ...base, kernels },
  };
}

describe('webview: the Hot spots section', { skip: haveChromium ? false : `${chromiumPath} is missing` }, () => {
  let browser: Browser;
  let page: Page;

  before(async () => {
    browser = await launchChromium(chromiumPath);
    page = await browser.newPage({ viewport: { width: 1100, height: 1400 } });
    mkdirSync(path.join(repoRoot, '.test-output'), { recursive: true });
  });
  after(async () => {
    await browser?.close();
  });

  test('per kernel: stall bar from its counts, top lines and instructions; hostile strings stay text', async () => {
    const hot = await hotspotsPath(SAMPLES, { top: 10 });
    const real = hot.kernels.find((k) => Object.keys(k.stalls).length >= 2 && k.lines.length >= 2)!;
    assert.ok(real, 'the fixture has a kernel with several stall reasons and lines');
    const evil: KernelHotspots = {
      ...real,
      name: EVIL_KERNEL,
      shortName: EVIL_KERNEL,
      lines: [{ ...real.lines[0]!, file: EVIL_FILE, line: 7 }],
      linesTotal: 1,
      instructions: [{ ...real.instructions[0]!, text: EVIL_INST, offset: 0x1a0 }],
      instructionsTotal: 1,
    };
    await page.setContent('<!doctype html><html><body></body></html>');
    await page.addStyleTag({ content: readFileSync(path.join(repoRoot, 'media/results.css'), 'utf8') });
    await page.addScriptTag({ content: await renderTraceBundle('replace') });
    await page.evaluate(
      (x) => (globalThis as unknown as { renderForTest(v: unknown): void }).renderForTest(x),
      summary([real, evil], hot) as unknown,
    );
    const seen = (await page.evaluate(`(() => ({
      kernels: [...document.querySelectorAll('section.hotspots .hotspots-kernel')].map((k) => ({
        title: k.querySelector('h4').textContent,
        segments: [...k.querySelectorAll('.stall-bar .stall-seg')].map((s) => ({ title: s.getAttribute('title'), width: s.getBoundingClientRect().width })),
        bar: k.querySelector('.stall-bar')?.getBoundingClientRect().width ?? 0,
        lines: [...k.querySelectorAll('table.hot-lines tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
        lineTitles: [...k.querySelectorAll('table.hot-lines tbody tr code')].map((c) => c.getAttribute('title')),
        insts: [...k.querySelectorAll('table.hot-instructions tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
      })),
      scripts: document.querySelectorAll('script').length,
      imgs: document.querySelectorAll('img, svg').length,
      handlers: [...document.querySelectorAll('*')].flatMap((el) => [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => el.tagName + ' ' + a.name)),
      pwned: window.__pwned ?? null,
    }))()`)) as {
      kernels: Array<{
        title: string;
        segments: Array<{ title: string; width: number }>;
        bar: number;
        lines: string[][];
        lineTitles: string[];
        insts: string[][];
      }>;
      scripts: number;
      imgs: number;
      handlers: string[];
      pwned: unknown;
    };
    await page.screenshot({ path: path.join(repoRoot, '.test-output/webview-hotspots.png'), fullPage: true });

    assert.equal(seen.kernels.length, 2);
    const [k0, k1] = seen.kernels;
    assert.equal(k0!.title, real.shortName);
    // one segment per stall reason, most first, each as wide as its share of the stalled samples
    const stalls = Object.entries(real.stalls).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const stalled = stalls.reduce((s, [, n]) => s + n, 0);
    assert.deepEqual(
      k0!.segments.map((s) => s.title),
      stalls.map(([r, n]) => `${r.toLowerCase().replace(/_/g, ' ')}: ${n.toLocaleString('en-US')} samples`),
    );
    k0!.segments.forEach((s, i) =>
      assert.ok(
        Math.abs(s.width - (k0!.bar * stalls[i]![1]) / stalled) < 1,
        `segment ${s.title}: ${s.width} of ${k0!.bar}`,
      ),
    );
    assert.deepEqual(
      k0!.lines.map((r) => [r[0], r[1]]),
      real.lines.map((l) => [`${path.basename(l.file)}:${l.line}`, l.samples.toLocaleString('en-US')]),
    );
    assert.deepEqual(
      k0!.insts.map((r) => [r[0], r[3]]),
      real.instructions.map((i) => [i.text, i.samples.toLocaleString('en-US')]),
    );
    // hostile: as text, nothing made of it
    assert.equal(k1!.title, SHOWN_KERNEL);
    assert.deepEqual(k1!.lineTitles, [`${SHOWN_FILE}:7`]);
    assert.doesNotMatch(
      JSON.stringify(await page.evaluate('document.body.innerText')),
      BIDI,
      'no bidirectional control is shown raw',
    );
    assert.equal(k1!.insts[0]![0], EVIL_INST);
    assert.equal(k1!.insts[0]![1], '0x1a0');
    assert.equal(seen.scripts, 1, 'only the test bundle');
    assert.equal(seen.imgs, 0);
    assert.deepEqual(seen.handlers, []);
    assert.equal(seen.pwned, null);

    // the whole fixture (one kernel per dispatch): the hottest 8 shown, the rest counted
    await page.evaluate(
      (x) => (globalThis as unknown as { renderForTest(v: unknown): void }).renderForTest(x),
      summary(hot.kernels, hot) as unknown,
    );
    const shown = await page.evaluate(
      `[...document.querySelectorAll('section.hotspots .hotspots-kernel h4')].map((e) => e.textContent)`,
    );
    assert.deepEqual(
      shown,
      hot.kernels.slice(0, 8).map((k) => k.shortName),
    );
    assert.equal(
      await page.evaluate(`document.querySelector('.hotspots-more')?.textContent`),
      `${hot.kernels.length - 8} more kernels with fewer samples: \`kernel-runner hotspots\` on the trace lists them all.`,
    );
  });
});
