// The compare page's GPU-to-GPU copies in real Chromium (src/webview/compare.ts bundled as the webview bundles it):
// two 4-rank profiles in rocprofv3's layout, each pair of the whole profile with both sides' copies, bytes and time,
// its change and B / A, biggest change first, new and vanished pairs marked, an agent id that is not a GPU shown as
// text (hostile markup inert); past 64 pairs the rest counted in a note; no section when neither side copied.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { PeerCopy, TraceSummary } from '../../src/core/protocol/traceSummary';
import { compareSummaries, summarizePath } from '../../src/trace/index';
import type { CompareView } from '../../src/webview/compareProtocol';
import { openComparePage } from '../support/webviewBrowser';
import { tempDir } from '../unit/trace/helpers';
import { CHANGED_PEER_COPIES, writeMultiRankRun } from '../unit/trace/multiRankRun';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const chromiumPath = process.env.KR_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
if (!haveChromium)
  console.error(
    `webviewComparePeerCopies.test.ts: ${chromiumPath} is missing, so the compare page's copies are NOT tested in a browser`,
  );

const HOSTILE = '<img src=x onerror="window.__pwned=1">Agent 9';

async function profile(peerCopies: (agent: number) => Array<[number, number]>): Promise<TraceSummary> {
  const dir = tempDir('webview-peer');
  writeMultiRankRun(dir, { peerCopies });
  return summarizePath(dir);
}

function view(a: TraceSummary, b: TraceSummary): CompareView {
  return {
    title: 'Compare',
    a: { label: 'before', path: '/tmp/before' },
    b: { label: 'after', path: '/tmp/after' },
    comparison: compareSummaries(a, b, { a: 'before', b: 'after' }),
    comparedAt: new Date(0).toISOString(),
  };
}

const copy = (src: string, dst: string, srcGpu: number | null, dstGpu: number | null, totalNs: number): PeerCopy => ({
  srcAgentId: src,
  dstAgentId: dst,
  srcGpu,
  dstGpu,
  calls: 3,
  totalNs,
  bytes: 3 << 20,
});

describe(
  "webview: the compare page's GPU-to-GPU copies",
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

    const render = async (v: CompareView) => {
      await show(v);
      return (await page.evaluate(`(() => ({
        note: document.querySelector('section.peer-compare > p.note')?.textContent ?? null,
        caption: document.querySelector('table.peer-compare-table caption')?.textContent ?? null,
        headers: [...document.querySelectorAll('table.peer-compare-table thead th')].map((th) => th.textContent),
        rows: [...document.querySelectorAll('table.peer-compare-table tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
        marks: [...document.querySelectorAll('table.peer-compare-table .mark')].map((m) => m.className),
        more: document.querySelector('section.peer-compare .peer-more')?.textContent ?? null,
        imgs: document.querySelectorAll('img, iframe').length,
        pwned: window.__pwned ?? null,
      }))()`)) as {
        note: string | null;
        caption: string | null;
        headers: string[];
        rows: string[][];
        marks: string[];
        more: string | null;
        imgs: number;
        pwned: unknown;
      };
    };

    test('each pair on both sides, biggest change first, new and vanished marked; a hostile agent id stays text', async () => {
      // B: GPU 1 → GPU 2 4.5x slower, GPU 2 → GPU 3 4x faster and a new copy to GPU 0, GPU 3 copies nothing
      const a = await profile((agent) => [[(agent % 4) + 1, 200]]);
      const b = await profile((agent) => CHANGED_PEER_COPIES[agent] ?? []);
      // CSV traces record no sizes: no bytes columns
      const csv = await render(view(a, b));
      assert.deepEqual(csv.headers, ['from', 'to', '', 'A copies', 'A time', 'B copies', 'B time', 'Δ time', 'B / A']);
      assert.deepEqual(csv.rows[0], ['GPU 1', 'GPU 2', '', '1', '200 ns', '1', '900 ns', '+700 ns', '4.50× (+350%)']);
      b.peerCopies = [...(b.peerCopies ?? []), copy(HOSTILE, 'Agent 1', null, 0, 100)];
      const seen = await render(view(a, b));
      assert.equal(seen.note, 'All pairs: 800 ns → 1.55 µs · +750 ns · 1.94× (+94%)');
      assert.equal(seen.caption, 'Copies per GPU pair, biggest change of time first');
      assert.deepEqual(seen.headers, [
        'from',
        'to',
        '',
        'A copies',
        'A bytes',
        'A time',
        'B copies',
        'B bytes',
        'B time',
        'Δ time',
        'B / A',
      ]);
      assert.deepEqual(seen.rows, [
        ['GPU 1', 'GPU 2', '', '1', '–', '200 ns', '1', '–', '900 ns', '+700 ns', '4.50× (+350%)'],
        ['GPU 2', 'GPU 0', 'new', '–', '–', '–', '1', '–', '300 ns', '+300 ns', '–'],
        ['GPU 3', 'GPU 0', 'vanished', '1', '–', '200 ns', '–', '–', '–', '−200 ns', '–'],
        ['GPU 2', 'GPU 3', '', '1', '–', '200 ns', '1', '–', '50.0 ns', '−150 ns', '0.25× (−75%)'],
        [HOSTILE, 'GPU 0', 'new', '–', '–', '–', '3', '3.0 MiB', '100 ns', '+100 ns', '–'],
        ['GPU 0', 'GPU 1', '', '1', '–', '200 ns', '1', '–', '200 ns', '±0', '1.00× (±0%)'],
      ]);
      assert.deepEqual(seen.marks, ['mark mark-b-only', 'mark mark-a-only', 'mark mark-b-only']);
      assert.equal(seen.more, null);
      mkdirSync(path.join(repoRoot, '.test-output'), { recursive: true });
      await page
        .locator('section.peer-compare')
        .screenshot({ path: path.join(repoRoot, '.test-output/webview-compare-peer-copies.png') });
      assert.equal(seen.imgs, 0);
      assert.equal(seen.pwned, null);
      assert.deepEqual(dialogs, []);
    });

    test('past 64 pairs: the first 64 rows and the rest counted with their time; neither side copying: no section', async () => {
      const a = await profile(() => []);
      const b = await profile(() => []);
      // 70 pairs of a 2-host job: GPU i → GPU j on each host, 10 ns * (i * 8 + j + 1) in B only
      const pairs: PeerCopy[] = [];
      for (const host of ['n1', 'n2'])
        for (let i = 0; i < 6; i++)
          for (let j = 0; j < 6; j++)
            if (pairs.length < 70)
              pairs.push(copy(`${host}/Agent ${i}`, `${host}/Agent ${j}`, i, j, 10 * (i * 8 + j + 1)));
      b.peerCopies = pairs;
      const seen = await render(view(a, b));
      assert.equal(seen.caption, 'Copies per GPU pair, biggest change of time first (top 64 of 70)');
      assert.equal(seen.rows.length, 64);
      // the six smallest left out: 10, 10, 20, 20, 30, 30 ns (GPU 0 → GPU 0..2 on both hosts)
      assert.equal(seen.more, '6 more pairs: A 0 ns, B 120 ns');
      assert.deepEqual(seen.rows[0]?.slice(0, 2), ['GPU 5', 'GPU 5']);
      assert.equal(seen.rows[0]?.[9], '+460 ns');

      const none = await render(view(a, a));
      assert.deepEqual([none.note, none.caption, none.rows.length], [null, null, 0]);
    });
  },
);
