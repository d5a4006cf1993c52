// For the webview tests in real Chromium (Debian's, driven by playwright-core): src/webview/render.ts's renderTrace
// (and compare.ts's renderComparison) bundled as the webview bundles it (esbuild, iife, browser), and a headless Chromium to run it in.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';

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
export async function renderCompareBundle(): Promise<string> {
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
