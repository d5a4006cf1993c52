// The results webview's "Hot spots" section of a multi-process profile in real Chromium (Debian's, through
// playwright-core), render.ts bundled as the webview bundles it and served under a strict Content-Security-Policy (no
// inline script or style): a four-rank profile with PC samples (test/unit/trace/multiRankRun.ts, the runner's
// manifest) read by summarizePath. The "Rank" choice lists All ranks then each rank, the summary's slowest marked;
// choosing rank 2 (by mouse, then by keyboard) shows rank 2's own kernels and lines, All ranks the whole's again;
// hostile kernel and host names are text, nothing injected, no policy violated.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { KernelHotspots } from '../../src/core/protocol/pcSampling';
import type { TraceSummary } from '../../src/core/protocol/traceSummary';
import { summarizePath } from '../../src/trace/index';
import { launchChromium, renderTraceBundle } from '../support/webviewBrowser';
import { tempDir } from '../unit/trace/helpers';
import { writeMultiRankRun } from '../unit/trace/multiRankRun';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const chromiumPath = process.env.KR_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
if (!haveChromium)
  console.error(
    `webviewRankHotspots.test.ts: ${chromiumPath} is missing, so the per-rank hot spots are NOT tested in a browser`,
  );

const ORIGIN = 'http://webview.test';
const CSP = `default-src 'none'; script-src ${ORIGIN}/bundle.js; style-src ${ORIGIN}/results.css`;
const EVIL_KERNEL = '<img src=x onerror="window.__pwned=1">rank_kernel(int*)';
const EVIL_HOST = '"><script>window.__pwned=2</script>';

interface Seen {
  label: string | null;
  options: string[];
  value: string;
  status: string;
  kernels: Array<{ title: string; note: string; lines: string[][] }>;
}

const SEEN = `(() => {
  const sel = document.querySelector('section.hotspots select');
  return {
    label: sel ? document.querySelector('label[for="' + sel.id + '"]')?.textContent ?? null : null,
    options: sel ? [...sel.options].map((o) => o.textContent) : [],
    value: sel ? sel.value : '',
    status: document.querySelector('.hotspots-rank-status')?.textContent ?? '',
    kernels: [...document.querySelectorAll('section.hotspots .hotspots-kernel')].map((k) => ({
      title: k.querySelector('h4').textContent,
      note: k.querySelector('p.note').textContent,
      lines: [...k.querySelectorAll('table.hot-lines tbody tr')].map((tr) => [...tr.querySelectorAll('td')].slice(0, 2).map((td) => td.textContent)),
    })),
  };
})()`;

/** What the section shows for `kernels`: title, the samples note's start, and each kernel's top lines (file:line, samples). */
function expected(kernels: readonly KernelHotspots[], of: string): Seen['kernels'] {
  return kernels.slice(0, 8).map((k) => ({
    title: k.shortName,
    note: `${k.samples.toLocaleString('en-US')} samples (${(k.share * 100).toFixed(1)}% of ${of}).`,
    lines: k.lines.slice(0, 10).map((l) => [`${path.basename(l.file)}:${l.line}`, l.samples.toLocaleString('en-US')]),
  }));
}

describe('webview: hot spots per rank', { skip: haveChromium ? false : `${chromiumPath} is missing` }, () => {
  let browser: Browser;
  let page: Page;
  let summary: TraceSummary;
  const violations: string[] = [];

  const render = async (s: TraceSummary) => {
    await page.evaluate(
      (x) => (globalThis as unknown as { renderForTest(v: unknown): void }).renderForTest(x),
      s as unknown,
    );
  };

  before(async () => {
    const dir = tempDir('webview-rank-hot');
    writeMultiRankRun(dir, { pcSamples: true, manifest: true });
    summary = await summarizePath(dir);
    browser = await launchChromium(chromiumPath);
    page = await browser.newPage({ viewport: { width: 1100, height: 1400 } });
    const bundle = await renderTraceBundle('replace');
    const css = readFileSync(path.join(repoRoot, 'media/results.css'), 'utf8');
    await page.route(`${ORIGIN}/**`, (route) => {
      const url = route.request().url();
      if (url.endsWith('/bundle.js')) return route.fulfill({ contentType: 'text/javascript', body: bundle });
      if (url.endsWith('/results.css')) return route.fulfill({ contentType: 'text/css', body: css });
      return route.fulfill({
        contentType: 'text/html',
        headers: { 'Content-Security-Policy': CSP },
        body: `<!doctype html><html><head><link rel="stylesheet" href="${ORIGIN}/results.css"></head><body><script src="${ORIGIN}/bundle.js"></script></body></html>`,
      });
    });
    page.on('console', (m) => {
      if (/Content.Security.Policy/i.test(m.text())) violations.push(m.text());
    });
    await page.addInitScript({
      content: `document.addEventListener('securitypolicyviolation', (e) =>
        console.error('Content-Security-Policy violated: ' + e.violatedDirective + ' ' + e.blockedURI))`,
    });
    await page.goto(`${ORIGIN}/`);
    await page.waitForFunction(`'renderForTest' in window`);
  });

  after(async () => {
    await browser?.close();
  });

  test('the Rank choice: All ranks first, each rank, the slowest marked; rank 2 shows its own kernels', async () => {
    const hot = summary.hotspots!;
    const processes = hot.processes!;
    const slowest = summary.ranks?.imbalance[0]?.slowestRank;
    assert.equal(slowest, 0, "the stand-in's rank 0 (pid 3011) computes longest");
    assert.deepEqual(
      processes.map((p) => p.rank),
      [0, 1, 2, 3],
    );
    await render(summary);
    const all = (await page.evaluate(SEEN)) as Seen;
    assert.equal(all.label, 'Rank');
    assert.deepEqual(all.options, ['All ranks', 'rank 0 (slowest)', 'rank 1', 'rank 2', 'rank 3']);
    assert.equal(all.value, '', 'All ranks is the default');
    assert.deepEqual(all.kernels, expected(hot.kernels, 'all'));

    await page.selectOption('section.hotspots select', { label: 'rank 2' });
    const two = (await page.evaluate(SEEN)) as Seen;
    const rank2 = processes[2]!;
    assert.notDeepEqual(rank2.kernels, hot.kernels, "rank 2's kernels are not the whole's");
    assert.deepEqual(two.kernels, expected(rank2.kernels, "rank 2's"));
    assert.equal(
      two.status,
      `rank 2: ${rank2.samples.toLocaleString('en-US')} samples, read from its own files. The editor's heat stays all ranks'.`,
    );
    await page.screenshot({ path: path.join(repoRoot, '.test-output/webview-rank-hotspots.png'), fullPage: true });

    await page.selectOption('section.hotspots select', { label: 'All ranks' });
    assert.deepEqual(((await page.evaluate(SEEN)) as Seen).kernels, expected(hot.kernels, 'all'));
    assert.deepEqual(violations, []);
  });

  test('keyboard: Tab reaches the choice, arrow keys move through the ranks', async () => {
    await render(summary);
    // sequential focus navigation from the section's heading: the next stop is the choice
    await page.click('section.hotspots h3');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(`document.activeElement?.id`), 'hotspots-rank');
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
    const two = (await page.evaluate(SEEN)) as Seen;
    assert.equal(two.value, '2');
    assert.deepEqual(two.kernels, expected(summary.hotspots!.processes![2]!.kernels, "rank 2's"));
    await page.keyboard.press('Home');
    assert.deepEqual(((await page.evaluate(SEEN)) as Seen).kernels, expected(summary.hotspots!.kernels, 'all'));
  });

  test('hostile kernel and host names are text: nothing injected, no policy violated', async () => {
    const hot = summary.hotspots!;
    const processes = hot.processes!.map((p, i) => ({
      ...p,
      rank: null,
      host: i % 2 ? EVIL_HOST : 'node-a',
      kernels: p.kernels.map((k, j) => (j === 0 ? { ...k, name: EVIL_KERNEL, shortName: EVIL_KERNEL } : k)),
    }));
    await render({ ...summary, ranks: undefined, hotspots: { ...hot, processes } });
    const seen = (await page.evaluate(SEEN)) as Seen;
    assert.deepEqual(
      seen.options,
      ['All ranks', ...processes.map((p) => `pid ${p.pid} on ${p.host}`)],
      'unranked processes by pid, their host to tell them apart',
    );
    await page.selectOption('section.hotspots select', { index: 2 });
    const two = (await page.evaluate(SEEN)) as Seen;
    assert.equal(two.kernels[0]?.title, EVIL_KERNEL);
    assert.ok(two.status.startsWith(`pid ${processes[1]!.pid} on ${EVIL_HOST}: `), two.status);
    const dom = (await page.evaluate(`({
        scripts: document.querySelectorAll('script').length,
        imgs: document.querySelectorAll('img').length,
        handlers: [...document.querySelectorAll('*')].flatMap((el) => [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => el.tagName + ' ' + a.name)),
        pwned: window.__pwned ?? null,
      })`)) as { scripts: number; imgs: number; handlers: string[]; pwned: unknown };
    assert.equal(dom.scripts, 0, "the page replaced the bundle's tag; none was made");
    assert.equal(dom.imgs, 0);
    assert.deepEqual(dom.handlers, []);
    assert.equal(dom.pwned, null);
    assert.deepEqual(violations, []);
  });
});
