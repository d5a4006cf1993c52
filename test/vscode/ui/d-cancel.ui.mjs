// A long run cancelled the way a person does it: the Cancel button of the progress notification. The status bar
// shows the job while it runs; the output channel then says the runner cancelled it.
import { assert, openFile, openWorkbench, runCommand, shot } from './workbench.mjs';

export const tests = {
  async 'the progress notification Cancel button cancels the job on the runner'({ page, workbenchUrl, outputDir }) {
    await openWorkbench(page, workbenchUrl());
    await openFile(page, 'slow_script.py');
    await runCommand(page, 'Kernel Runner: Run');
    const output = page.locator('.output-view, .panel .monaco-editor').first();
    await output.locator('.view-line', { hasText: 'tick 1' }).first().waitFor({ timeout: 30_000 });
    const status = await page.locator('.statusbar-item', { hasText: 'slow_script.py' }).first().innerText();
    assert(/slow_script\.py · test · running · \d+:\d\d/.test(status), `status bar while running: ${status}`);
    await shot(page, outputDir, 'cancel-running');
    // Headless Chromium keeps notifications in the notification center (the bell shows a dot) rather than as
    // toasts: open it, as a person would from the bell, and press the progress notification's Cancel.
    await runCommand(page, 'Notifications: Show Notifications');
    const item = page
      .locator('.notifications-center .notification-list-item', { hasText: 'Kernel Runner: Run slow_script.py' })
      .first();
    await item.waitFor({ timeout: 15_000 });
    // The notification keeps the status bar's clock (m:ss), not the runner's 15-second heartbeat ("running · 0 s").
    const note = (await item.innerText()).replace(/\u00a0/g, ' ');
    assert(/Run slow_script\.py: running · \d+:\d\d/.test(note), `progress notification: ${note}`);
    await shot(page, outputDir, 'cancel-notification');
    await item.locator('.monaco-button', { hasText: 'Cancel' }).first().click();
    await output.locator('.view-line', { hasText: 'Cancelled: job' }).first().waitFor({ timeout: 30_000 });
    const text = (await output.locator('.view-line').allInnerTexts()).join('\n').replace(/\u00a0/g, ' ');
    assert(/▸ Cancelled: job \d+ on embedded runner is cancelled\./.test(text), `output: ${text.slice(-500)}`);
    assert(!text.includes('finished without being cancelled'), 'the program did not run to its end');
    await page.locator('.statusbar-item', { hasText: 'embedded runner' }).first().waitFor({ timeout: 10_000 });
    await shot(page, outputDir, 'cancel-done');
  },
};
