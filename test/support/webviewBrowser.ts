// For the webview tests in real Chromium (Debian's, driven by playwright-core): src/webview/render.ts's renderTrace
// (and compare.ts's renderComparison) bundled as the webview bundles it (esbuild, iife, browser), and a headless Chromium to run it in.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A script defining `window.renderForTest(summary)`: the body's `how` ('append' keeps earlier renders). */
export async function renderTraceBundle(how: 'append' | 'replace'): Promise<string> {
  const esbuild = await import('esbuild');
  const body =
    how === 'append' ? 'document.body.appendChild(renderTrace(s))' : 'document.body.replaceChildren(renderTrace(s))';
  const out = await esbuild.build({
    stdin: {
      contents: `import { renderTrace } from './src/webview/render'; (window as any).renderForTest = (s: any) => { ${body}; };`,
      resolveDir: repoRoot,
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
  });
  return out.outputFiles[0]?.text ?? '';
}

/** A script defining `window.renderCompareForTest(view)`: src/webview/compare.ts's page, replacing the body. */
async function renderCompareBundle(): Promise<string> {
  const esbuild = await import('esbuild');
  const out = await esbuild.build({
    stdin: {
      contents: `import { renderComparison } from './src/webview/compare'; (window as any).renderCompareForTest = (v: any) => { document.body.replaceChildren(renderComparison(v, { reveal: () => {} })); };`,
      resolveDir: repoRoot,
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
  });
  return out.outputFiles[0]?.text ?? '';
}

export async function launchChromium(executablePath: string): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/** A Chromium page showing the compare page of `render(view)` with its style sheets; alerts are dismissed and kept. */
export async function openComparePage(executablePath: string): Promise<{
  browser: Browser;
  page: Page;
  dialogs: string[];
  render(view: unknown): Promise<void>;
}> {
  const bundle = await renderCompareBundle();
  const browser = await launchChromium(executablePath);
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const css = ['media/results.css', 'media/compare.css'].map((f) => readFileSync(path.join(repoRoot, f), 'utf8'));
  const render = async (view: unknown): Promise<void> => {
    await page.setContent('<!doctype html><html><body></body></html>');
    await page.addStyleTag({ content: css.join('') });
    await page.addScriptTag({ content: bundle });
    await page.evaluate(
      (x) => (globalThis as unknown as { renderCompareForTest(v: unknown): void }).renderCompareForTest(x),
      view,
    );
  };
  return { browser, page, dialogs, render };
}
