/* global getComputedStyle */
// The extension as a person installs it: the packed .vsix (`npm run package`) installed with code-server's
// `--install-extension` into an empty extensions folder, in a VS Code server started without
// extensionDevelopmentPath. Run and Profile on MI300 on the embedded runner (the stand-in rocprofv3 first on its PATH,
// as the other checks have it), then the walkthrough: opened from the palette, its "Open Example" button run, the step
// checked off. A file the package leaves out (a bundle, a style sheet, the examples, a walkthrough page) fails here.
// run.mjs runs it after the UI checks; alone: node test/vscode/installed.mjs [--keep]
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startVscodeServer, writeSettings } from './server.mjs';
import { findTools } from './tools.mjs';
import { assert, openFile, openWorkbench, runCommand, steps, webviewFrame } from './ui/workbench.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const outputDir = join(root, '.test-output');
const say = (msg) => console.log(`[vscode-installed] ${msg}`);
const keep = process.argv.includes('--keep');

const { tools, missing, toolsDir } = findTools();
if (missing.length) {
  const msg = `real VS Code test tools missing (${missing.join(', ')}; looked in ${toolsDir}): bash scripts/setup-vscode-test.sh`;
  if (process.env.CI === 'true' || process.env.CI === '1') {
    console.error(`[vscode-installed] FAIL: ${msg}`);
    process.exit(1);
  }
  say(`SKIPPED: ${msg}`);
  process.exit(0);
}
// code-server's own command line sits beside the VS Code server it carries (lib/vscode/out/server-main.js)
const codeServer = join(dirname(tools.server), '../../../out/node/entry.js');

// 1. The package, as `npm run package` makes it.
const vsix = join(root, 'dist/kernel-runner.vsix');
rmSync(vsix, { force: true });
const pack = spawnSync('npm', ['run', 'package'], { cwd: root, encoding: 'utf8' });
if (pack.status !== 0 || !existsSync(vsix)) {
  console.error(`[vscode-installed] npm run package failed (exit ${pack.status}):\n${pack.stdout}\n${pack.stderr}`);
  process.exit(1);
}
say(/Packaged: .*/.exec(pack.stdout)?.[0] ?? 'packed');
// the package's build is the minified one without source maps: dist/ goes back to the development build the other
// suites and a developer's debugger use
const rebuild = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, encoding: 'utf8' });
if (rebuild.status !== 0) {
  console.error(
    `[vscode-installed] node scripts/build.mjs after packing failed:\n${rebuild.stdout}\n${rebuild.stderr}`,
  );
  process.exit(1);
}

// 2. A throwaway home, an empty extensions folder, the .vsix installed into it.
const tmp = mkdtempSync(join(tmpdir(), 'kr-vscode-installed-'));
const dirs = Object.fromEntries(
  ['userData', 'serverData', 'extensions', 'xdgConfig', 'xdgData', 'workspace', 'home'].map((k) => [k, join(tmp, k)]),
);
for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
const env = { ...process.env, HOME: dirs.home, XDG_CONFIG_HOME: dirs.xdgConfig, XDG_DATA_HOME: dirs.xdgData };
delete env.ELECTRON_RUN_AS_NODE;
const install = spawnSync(
  tools.node24,
  [codeServer, '--install-extension', vsix, '--extensions-dir', dirs.extensions, '--user-data-dir', dirs.userData],
  { env, encoding: 'utf8', timeout: 300_000 },
);
const installed = readdirSync(dirs.extensions).filter((d) => d.startsWith('kernel-runner.kernel-runner-'));
if (install.status !== 0 || installed.length !== 1) {
  console.error(
    `[vscode-installed] code-server --install-extension: exit ${install.status}, extensions folder ${JSON.stringify(readdirSync(dirs.extensions))}\n${install.stdout}\n${install.stderr}`,
  );
  rmSync(tmp, { recursive: true, force: true });
  process.exit(1);
}
say(`installed ${installed[0]} into an empty extensions folder`);

// the example submission a person would have open, and the file the checks' first Quick Open finds
copyFileSync(join(root, 'examples/problems/vectoradd_py/submission.py'), join(dirs.workspace, 'submission.py'));
writeFileSync(join(dirs.workspace, 'extension-host-probe.txt'), 'found by file search\n');
writeSettings(dirs.userData, root);

// 3. The VS Code server on that folder, in its own process group.
mkdirSync(outputDir, { recursive: true });
const server = await startVscodeServer({
  tools,
  dirs,
  cwd: tmp,
  env,
  logFile: join(outputDir, 'vscode-installed-server.log'),
});
const { port } = server;

let browser;
let page;
let exitCode = 0;
try {
  await server.waitUntilUp();
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({
    executablePath: tools.chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await openWorkbench(page, `http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.workspace)}`);

  // Run, then Profile on MI300, from the palette
  await openFile(page, 'submission.py');
  await runCommand(page, 'Kernel Runner: Run');
  const run = await webviewFrame(page, 'table.tests', 120_000);
  const caption = await run.locator('table.tests caption').innerText();
  assert(/^Tests: (\d+) of \1 passed$/.test(caption), `Run: ${caption}`);
  // back in the file, its editor focused (a palette opened while the results take the focus closes again)
  await page.locator('.tabs-container .tab[data-resource-name="submission.py"]').click();
  await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
  await page.locator('.editor-instance .monaco-editor.focused').first().waitFor({ timeout: 30_000 });
  await runCommand(page, 'Kernel Runner: Profile on MI300');
  const profile = await webviewFrame(page, 'table.kernels tbody tr', 120_000);
  const kernels = await profile.locator('table.kernels tbody tr').count();
  assert(kernels > 0, 'Profile on MI300: kernel rows');
  const fill = await profile
    .locator('table.kernels .bar-fill')
    .first()
    .evaluate((el) => getComputedStyle(el).backgroundColor);
  assert(!/rgba\(.*,\s*0\)$/.test(fill), `the share bars are filled (the style sheet is in the package): ${fill}`);
  say(`Run: ${caption}; Profile on MI300: ${kernels} kernels`);

  // the walkthrough, from the palette, and its "Open Example" button
  await runCommand(page, 'Welcome: Open Walkthrough...');
  const input = page.locator('.quick-input-widget input');
  await input.fill('Get started with Kernel Runner');
  await page
    .locator('.quick-input-list .monaco-list-row', { hasText: 'Get started with Kernel Runner' })
    .first()
    .click();
  const step = page.locator('.getting-started-step', { hasText: 'Open an example' }).first();
  await step.waitFor({ timeout: 30_000 });
  // VS Code marks a done step by its checkbox icon: `.codicon.complete`
  const done = step.locator('.codicon.complete');
  assert((await done.count()) === 0, 'the step is not done before its button');
  await step.click();
  await step.locator('.monaco-button, a', { hasText: 'Open Example' }).first().click();
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'vectoradd_submission.py' }).first().click();
  await page.locator('.tabs-container .tab[data-resource-name="vectoradd_submission.py"]').waitFor({ timeout: 30_000 });
  assert(existsSync(join(dirs.workspace, 'vectoradd_submission.py')), 'the example was copied into the workspace');
  // back to the walkthrough (its tab is VS Code's Welcome page)
  await page.locator('.tabs-container .tab', { hasText: 'Welcome' }).first().click();
  await done.first().waitFor({ state: 'attached', timeout: 30_000 });
  await page.screenshot({ path: join(outputDir, 'ui-installed-walkthrough.png') });
  say('walkthrough: "Open an example" run from its button and checked off');
  console.log('  ok   installed .vsix: Run, Profile on MI300, walkthrough step');
} catch (err) {
  exitCode = 1;
  await page?.screenshot({ path: join(outputDir, 'FAILED-installed.png') }).catch(() => {});
  console.log(`  FAIL installed .vsix: ${err?.stack ?? err}\n       steps: ${steps.join(', ')}`);
} finally {
  await browser?.close().catch(() => {});
  await server.stop();
  if (keep) say(`kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
}
console.log(`vscode-installed: ${exitCode ? '0 passed, 1 failed' : '1 passed, 0 failed'}`);
process.exit(exitCode);
