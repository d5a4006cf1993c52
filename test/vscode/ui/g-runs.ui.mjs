// Several runs at once as a person sees them (two progress notifications, the second with its place in the
// queue; the status bar counting them), then a profile: the timing CodeLens above the kernels it timed, and the
// Runs view listing every run of the workspace, one of which opens into its results panel.
import { assert, openFile, openWorkbench, runCommand, shot, webviewFrame } from './workbench.mjs';

const clean = (s) => s.replace(/\u00a0/g, ' ');

/** The Kernel Runner container, from its activity bar icon (a click on an open container would close it). */
async function openKernelRunnerView(page) {
  const icon = page
    .locator(
      '.activitybar .action-item:has(a[aria-label*="Kernel Runner"]), .activitybar .action-item[aria-label*="Kernel Runner"]',
    )
    .first();
  if ((await icon.getAttribute('class'))?.includes('checked')) return;
  await icon
    .locator('a')
    .first()
    .click()
    .catch(() => icon.click());
}

export const tests = {
  async 'two runs at once: a progress notification each, the second with its queue position; the status bar counts them'({
    page,
    workbenchUrl,
    outputDir,
  }) {
    await openWorkbench(page, workbenchUrl());
    await openFile(page, 'slow_script.py');
    await runCommand(page, 'Kernel Runner: Run');
    const output = page.locator('.output-view, .panel .monaco-editor').first();
    await output.locator('.view-line', { hasText: 'tick 1' }).first().waitFor({ timeout: 30_000 });
    await runCommand(page, 'Kernel Runner: Run Benchmark');
    const status = page.locator('.statusbar-item', { hasText: '2 runs' }).first();
    await status.waitFor({ timeout: 30_000 });
    assert(
      /2 runs · slow_script\.py · benchmark/.test(clean(await status.innerText())),
      `status bar: ${await status.innerText()}`,
    );
    // each run's lines in the channel carry its tag while both write
    await output
      .locator('.view-line', { hasText: '[slow_script.py · test] tick' })
      .first()
      .waitFor({ timeout: 15_000 });

    await runCommand(page, 'Notifications: Show Notifications');
    const center = page.locator('.notifications-center');
    const first = center.locator('.notification-list-item', { hasText: 'Kernel Runner: Run slow_script.py' }).first();
    const second = center
      .locator('.notification-list-item', { hasText: 'Kernel Runner: Benchmark slow_script.py' })
      .first();
    await first.waitFor({ timeout: 15_000 });
    await second.waitFor({ timeout: 15_000 });
    await second.filter({ hasText: 'queued #1' }).waitFor({ timeout: 15_000 });
    assert(/running · \d+:\d\d/.test(clean(await first.innerText())), `first: ${await first.innerText()}`);
    assert(
      /queued #1 \(waiting for a free device\) · \d+:\d\d/.test(clean(await second.innerText())),
      `second: ${await second.innerText()}`,
    );
    await shot(page, outputDir, 'several-runs');

    // the Runs view has both on top, with their state
    await page.keyboard.press('Escape');
    await openKernelRunnerView(page);
    const runsPane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Runs' }) }).first();
    const queuedRow = runsPane
      .locator('.monaco-list-row', { hasText: 'slow_script.py · benchmark' })
      .filter({ hasText: 'queued #1' })
      .first();
    await queuedRow.waitFor({ timeout: 15_000 });
    await runsPane
      .locator('.monaco-list-row', { hasText: 'slow_script.py · test' })
      .filter({ hasText: 'running' })
      .first()
      .waitFor({ timeout: 15_000 });
    await shot(page, outputDir, 'runs-view-active');
    await runCommand(page, 'Notifications: Show Notifications');

    // Cancel each from its own notification
    await second.locator('.monaco-button', { hasText: 'Cancel' }).first().click();
    await page
      .locator('.statusbar-item', { hasText: '2 runs' })
      .first()
      .waitFor({ state: 'detached', timeout: 30_000 });
    await first.locator('.monaco-button', { hasText: 'Cancel' }).first().click();
    await output.locator('.view-line', { hasText: 'Cancelled: job' }).first().waitFor({ timeout: 30_000 });
    await page.locator('.statusbar-item', { hasText: 'embedded runner' }).first().waitFor({ timeout: 30_000 });
  },

  async 'after a profile: the timing CodeLens above the kernels it timed, and the Runs view lists the runs'({
    page,
    workbenchUrl,
    outputDir,
  }) {
    await openWorkbench(page, workbenchUrl());
    await openFile(page, 'timed_kernels.py');
    // an earlier run of this file, so that the Runs view has one to list besides the profile (what earlier checks
    // left in the workspace's store is not this check's to count on)
    await runCommand(page, 'Kernel Runner: Run');
    const output = page.locator('.output-view, .panel .monaco-editor').first();
    await output.locator('.view-line', { hasText: ': timed_kernels.py · test ·' }).first().waitFor({ timeout: 90_000 });
    await runCommand(page, 'Kernel Runner: Profile on MI300');
    await webviewFrame(page, 'table.kernels tbody tr', 90_000);

    // back to the source: the lenses follow the profile
    await page.locator('.tabs-container .tab[data-resource-name="timed_kernels.py"]').click();
    const lens = page.locator('.monaco-editor .codelens-decoration', { hasText: '⏱' });
    await lens.first().waitFor({ timeout: 30_000 });
    const titles = (await lens.allInnerTexts()).map(clean);
    assert(titles.length === 2, `timing lenses: ${titles.join(' | ')}`);
    assert(
      /⏱ \d[\d.]* (ns|µs|ms) avg · 3 calls/.test(titles[0]) && /⏱ \d[\d.]* (ns|µs|ms) avg · 2 calls/.test(titles[1]),
      `timing lenses: ${titles.join(' | ')}`,
    );
    await shot(page, outputDir, 'timing-codelens');

    // the Runs view in the Kernel Runner container
    await openKernelRunnerView(page);
    const runsPane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Runs' }) }).first();
    const row = runsPane.locator('.monaco-list-row', { hasText: 'timed_kernels.py · profile' }).first();
    await row.waitFor({ timeout: 30_000 });
    const text = clean(await row.innerText());
    assert(/kernels \d[\d.]* (ns|µs|ms) · 9 dispatches · embedded runner · just now/.test(text), `row: ${text}`);
    // the earlier run is listed below it, newest first
    const earlier = runsPane.locator('.monaco-list-row', { hasText: 'timed_kernels.py · test' }).first();
    await earlier.waitFor({ timeout: 30_000 });
    const [at, earlierAt] = [await row.getAttribute('aria-posinset'), await earlier.getAttribute('aria-posinset')];
    assert(Number(earlierAt) > Number(at), `the earlier run below the profile: rows ${at} and ${earlierAt}`);
    await row.hover();
    await shot(page, outputDir, 'runs-view');

    // a click opens the run: a second profile panel with the same kernels
    await row.click();
    await page
      .locator('.tabs-container .tab', { hasText: 'Profile: timed_kernels.py' })
      .nth(1)
      .waitFor({ timeout: 30_000 });
  },
};
