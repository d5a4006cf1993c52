/* global window, document */
// The results webview's markdown reports (GPU MODE sends markdown) fed hostile markdown, in plain Chromium without
// VS Code's CSP: even then nothing runs, no raw HTML survives (script, img, svg, iframe, handlers), only http(s)
// links remain, and what was HTML in the source shows as text.
import { join } from 'node:path';
import { assert, shot } from './workbench.mjs';

const HOSTILE = [
  '# Report <script>window.__pwned = 1</script>',
  '',
  '<img src=x onerror="window.__pwned = 2">',
  '',
  '[click](javascript:window.__pwned=3) [docs](https://gpumode.com/docs) [data](data:text/html,<script>alert(1)</script>)',
  '',
  '<a href="https://evil.example" onclick="window.__pwned = 4">raw link</a>',
  '',
  '| kernel | time |',
  '|---|---:|',
  '| `<b>gemm</b>` | 1.5 µs |',
  '',
  '![chart](https://evil.example/x.png)',
  '',
  '<svg onload="window.__pwned = 5"></svg>',
  '',
  '<iframe src="javascript:window.__pwned = 6"></iframe>',
  '',
  '```python',
  'print("<script>")',
  '```',
].join('\n');

const view = {
  title: 'Submit (leaderboard): submission.py',
  fileName: 'submission.py',
  leaderboard: 'amd-fp8-mm',
  gpu: 'MI300',
  mode: 'leaderboard',
  target: 'GPU MODE',
  startedAt: '2026-01-01T00:00:00.000Z',
  elapsedS: 12,
  outcome: 'success',
  runs: [],
  profiles: [],
  reports: [],
  hiddenNoiseLines: 0,
  markdownReports: [HOSTILE],
};

export const tests = {
  async 'hostile markdown reports render as inert text and safe elements'({ page, root, outputDir }) {
    const dialogs = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.setContent(
      '<!DOCTYPE html><html><head><meta charset="utf-8"><title>webview</title></head><body><div id="notices"></div><div id="root"></div></body></html>',
    );
    await page.evaluate(() => {
      window.__posted = [];
      window.acquireVsCodeApi = () => ({
        postMessage: (m) => window.__posted.push(m),
        getState: () => undefined,
        setState: () => {},
      });
    });
    await page.addStyleTag({ path: join(root, 'media/results.css') });
    await page.addScriptTag({ path: join(root, 'dist/webview.js') });
    await page.evaluate((v) => window.postMessage({ method: 'state', params: { view: v } }, '*'), view);
    await page.locator('.markdown-reports article.markdown h1').waitFor({ timeout: 10_000 });
    await page.waitForTimeout(300);

    const seen = await page.evaluate(() => {
      const box = document.querySelector('.markdown-reports');
      return {
        pwned: window.__pwned ?? null,
        posted: window.__posted.map((m) => m.method),
        h1: box.querySelector('h1')?.textContent,
        dangerous: box.querySelectorAll('script, img, svg, iframe, object, embed, style, link').length,
        handlers: [...box.querySelectorAll('*')].filter((e) =>
          [...e.attributes].some((a) => a.name.startsWith('on') || a.name === 'style'),
        ).length,
        links: [...box.querySelectorAll('a')].map((a) => a.getAttribute('href')),
        cells: [...box.querySelectorAll('td')].map((td) => td.textContent),
        code: box.querySelector('pre code')?.textContent,
        codeClass: box.querySelector('pre code')?.getAttribute('class'),
        text: box.textContent,
      };
    });
    assert(seen.pwned === null, `something ran: ${seen.pwned}`);
    assert(dialogs.length === 0, `dialogs: ${dialogs.join(', ')}`);
    assert(JSON.stringify(seen.posted) === '["ready"]', `messages: ${JSON.stringify(seen.posted)}`);
    assert(seen.h1 === 'Report <script>window.__pwned = 1</script>', `heading: ${seen.h1}`);
    assert(seen.dangerous === 0 && seen.handlers === 0, JSON.stringify(seen));
    // javascript: and data: links are dropped; the raw <a> is text, in which linkify finds a plain https URL.
    assert(
      JSON.stringify(seen.links) === '["https://gpumode.com/docs","https://evil.example"]',
      `links: ${JSON.stringify(seen.links)}`,
    );
    assert(JSON.stringify(seen.cells) === '["<b>gemm</b>","1.5 µs"]', `table: ${JSON.stringify(seen.cells)}`);
    assert(
      seen.code === 'print("<script>")\n' && seen.codeClass === 'language-python',
      `code: ${seen.code} ${seen.codeClass}`,
    );
    assert(seen.text.includes('<img src=x onerror="window.__pwned = 2">'), 'raw HTML shows as text');
    assert(seen.text.includes('chart'), 'an image becomes its alt text');
    await shot(page, outputDir, 'markdown-hostile');
  },
};
