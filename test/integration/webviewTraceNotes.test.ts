// The results webview (src/webview/render.ts bundled with esbuild, in Debian's Chromium through playwright-core) on
// summaries of real layouts: kernels from kernel_stats alone show copy busy with the kernel part unknown, not a
// GPU busy figure; roctxProfilerPause/Resume show as profiler control with the kernels of each paused window; a
// GPU-time range note says ranges were matched by time within the process.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { summarizePath, type TraceSummary } from '../../src/trace/index';
import { fixture } from '../unit/trace/helpers';
import { LAUNCHES, PID, writeRun } from '../unit/trace/rangeRuns';
import { tempDirsRemovedAfter } from '../support/tempDirs';
import { launchChromium, renderTraceBundle } from '../support/webviewBrowser';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const chromiumPath = process.env.KR_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
if (!haveChromium)
  console.error(
    `webviewTraceNotes.test.ts: ${chromiumPath} is missing, so these webview notes are NOT tested in a browser`,
  );
const tempDir = tempDirsRemovedAfter('kr-webview-notes-');

describe(
  'webview: copy-only busy, profiler control, ranges by time',
  { skip: haveChromium ? false : `${chromiumPath} is missing` },
  () => {
    let browser: Browser;
    let page: Page;
    let bundle = '';

    before(async () => {
      bundle = await renderTraceBundle('replace');
      browser = await launchChromium(chromiumPath);
      page = await browser.newPage();
      await page.setContent('<!doctype html><html><body></body></html>');
      await page.addScriptTag({ content: bundle });
    });

    after(async () => {
      await browser?.close();
    });

    const render = async (s: TraceSummary): Promise<void> => {
      await page.evaluate(
        (x) => (globalThis as unknown as { renderForTest(v: unknown): void }).renderForTest(x),
        s as unknown,
      );
    };

    test('kernels from kernel_stats alone: the GPU card is copy busy, the kernel part unknown', async () => {
      const dir = tempDir('stats');
      copyFileSync(
        path.join(repoRoot, 'test/fixtures/trace-layouts/9_kernel_stats.csv'),
        path.join(dir, '9_kernel_stats.csv'),
      );
      copyFileSync(fixture('rocm-systems__sdkdocs__memory_copy_trace.csv'), path.join(dir, '9_memory_copy_trace.csv'));
      await render(await summarizePath(dir));
      const card = (await page.evaluate(
        `(() => { const c = document.querySelector('.card[data-agent="Agent 4"]'); return c ? [c.querySelector('.card-label').textContent, c.querySelector('.card-sub').textContent] : null; })()`,
      )) as [string, string] | null;
      assert.ok(card, 'a card for the GPU');
      assert.match(card[0], /^Copy busy · /);
      assert.match(card[1], /kernel part unknown \(kernel times from kernel_stats, no intervals\)$/);
      const text = (await page.evaluate('document.body.textContent')) as string;
      assert.doesNotMatch(text, /GPU busy · /);
    });

    test('paused windows are listed with their kernels; a GPU-time note names the rule', async () => {
      const dir = tempDir('pause');
      // no API trace, dispatches on another thread; one starts in `benchmark 0` while the profiler is paused
      writeRun(dir, { hip: false, launches: LAUNCHES.map((l) => ({ ...l, tid: 4243 })) });
      const file = path.join(dir, `${PID}_marker_api_trace.csv`);
      writeFileSync(
        file,
        readFileSync(file, 'utf8') +
          `"MARKER_CONTROL_API","roctxProfilerPause",${PID},100,90,1350,1351\n"MARKER_CONTROL_API","roctxProfilerResume",${PID},100,91,1700,1701\n`,
      );
      const s = await summarizePath(dir);
      await render(s);
      const seen = (await page.evaluate(`(() => ({
      caption: document.querySelector('.profiler-control caption')?.textContent ?? null,
      rows: [...document.querySelectorAll('.profiler-control tbody tr')].map((r) => [...r.querySelectorAll('td')].map((d) => d.textContent)),
      note: document.querySelector('[data-range-attribution]')?.textContent ?? null,
    }))()`)) as { caption: string | null; rows: string[][]; note: string | null };
      assert.match(seen.caption ?? '', /Profiler control \(roctxProfilerPause ×1, roctxProfilerResume ×1\)/);
      assert.equal(seen.rows.length, 1);
      assert.deepEqual(seen.rows[0]?.slice(2), ['1', 'void gemm<float, 2>(float const*, float*, int) ×1']);
      assert.match(
        seen.note ?? '',
        /by GPU time within the process .*\(1 in a range of another thread: none was open on their own\)/,
      );
    });

    test('a multi-pass counter run: a note says which pass the timings come from', async () => {
      const dir = tempDir('passes');
      for (const [pass, counter] of [
        ['pass_1', 'SQ_WAVES'],
        ['pass_2', 'GRBM_COUNT'],
      ] as const) {
        mkdirSync(path.join(dir, pass), { recursive: true });
        writeFileSync(
          path.join(dir, pass, '7_counter_collection.csv'),
          `"Dispatch_Id","Agent_Id","Kernel_Name","Counter_Name","Counter_Value","Start_Timestamp","End_Timestamp"\n1,"Agent 2","k",${counter},8,100,200\n`,
        );
      }
      await render(await summarizePath(dir));
      const note = (await page.evaluate(`document.querySelector('.trace-passes')?.textContent ?? null`)) as
        string | null;
      assert.equal(
        note,
        '2 counter passes (the program once per counter group): timings from pass_1, counters from pass_1, pass_2',
      );
    });
  },
);
