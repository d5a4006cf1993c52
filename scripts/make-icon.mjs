// media/icon.png (the Marketplace and Open VSX icon, 128x128) rendered from media/logo.svg by Chromium, so the
// picture has one source. Run after editing the SVG: node scripts/make-icon.mjs [path to chromium]
import { chromium } from 'playwright-core';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SIZE = 128;
const svg = readFileSync(join(root, 'media/logo.svg'), 'utf8');
const browser = await chromium.launch({
  executablePath: process.argv[2] ?? process.env.KR_CHROMIUM ?? '/usr/bin/chromium',
});
try {
  const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE }, deviceScaleFactor: 1 });
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
  const png = await page.locator('svg').screenshot({ omitBackground: true });
  writeFileSync(join(root, 'media/icon.png'), png);
  console.log(`media/icon.png: ${SIZE}x${SIZE}, ${png.length} bytes`);
} finally {
  await browser.close();
}
