// A person opens the example submission, sees the CodeLens, runs the tests from the palette, reads the results.
import { assert, openFile, openWorkbench, runCommand, shot, webviewFrame } from './workbench.mjs';

export const tests = {
  async 'CodeLens shows on a kernel file, and Run Tests from the palette opens the results panel'({
    page,
    workbenchUrl,
    outputDir,
  }) {
    await openWorkbench(page, workbenchUrl());
    await openFile(page, 'submission.py');
    // The lens line appears first as an empty placeholder while VS Code resolves the lenses: wait for its text.
    const lens = page
      .locator('.contentWidgets .codelens-decoration, .monaco-editor .codelens-decoration', { hasText: 'Run' })
      .first();
    const lensText = await lens.waitFor({ timeout: 30_000 }).then(
      () => lens.innerText(),
      () =>
        page
          .locator('.monaco-editor .codelens-decoration')
          .first()
          .innerText()
          .catch(() => '(no lens)'),
    );
    assert(lensText.includes('▶ Run') && lensText.includes('⚡ Profile on MI300'), `lens text: ${lensText}`);
    await shot(page, outputDir, 'codelens');

    await runCommand(page, 'Kernel Runner: Run Tests');
    const frame = await webviewFrame(page, 'table.tests');
    const caption = await frame.locator('table.tests caption').innerText();
    assert(caption === 'Tests: 3 of 3 passed', `caption: ${caption}`);
    const badge = await frame.locator('h1 .badge').innerText();
    assert(badge === 'passed', `badge: ${badge}`);
    const status = await page
      .locator('#kernelRunner\\.status, .statusbar-item[id="kernel-runner.kernel-runner.kernelRunner.status"]')
      .first()
      .innerText()
      .catch(() => '');
    assert(/embedded runner/.test(status), `status bar: ${status}`);
    await shot(page, outputDir, 'run-tests-results');
  },
};
