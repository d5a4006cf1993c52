// Agent mode in the chat asks to submit the open file: Kernel Runner's confirmation (the submit tool's
// prepareInvocation) shows in the chat as a person sees it and names file, mode and target; Skip submits nothing,
// Allow runs the tests on the embedded runner and the agent gets the run's answer.
//
// code-server's VS Code has no language model, and VS Code keeps its built-in agent mode (Copilot Chat) disabled
// until a GitHub sign-in completes the chat setup. So, as a person without a GitHub account would: the window has a
// model of its own (test/vscode/agent-model, test-only: scripted answers, registered with
// vscode.lm.registerLanguageModelChatProvider, its vendor configured as a provider group as "Manage Models..." adds
// one), Copilot Chat is enabled from the palette, and the request goes out in Agent mode with that model picked.
// Everything between the model's tool call and Kernel Runner is VS Code's own agent mode and chat UI.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assert, openFile, openWorkbench, runCommand, shot, webviewFrame } from './workbench.mjs';

const TEST_EXTENSION = 'kernel-runner-test.kernel-runner-test-agent-model';

/** Chat on (the run's settings turn AI features off) and the test extension installed, for this window only. */
function prepare({ userData, extensionsDir, root }) {
  const settingsFile = join(userData, 'User/settings.json');
  const settings = readFileSync(settingsFile, 'utf8');
  writeFileSync(settingsFile, JSON.stringify({ ...JSON.parse(settings), 'chat.disableAIFeatures': false }, null, 2));
  // An extension installed from a folder, as the extensions folder's manifest lists one: the workbench payload keeps
  // one extensionDevelopmentPath (given two, only the last one loads), and that one is Kernel Runner's.
  const manifestFile = join(extensionsDir, 'extensions.json');
  const manifest = existsSync(manifestFile) ? readFileSync(manifestFile, 'utf8') : undefined;
  const location = join(root, 'test/vscode/agent-model');
  writeFileSync(
    manifestFile,
    JSON.stringify([
      ...JSON.parse(manifest ?? '[]'),
      {
        identifier: { id: TEST_EXTENSION },
        version: JSON.parse(readFileSync(join(location, 'package.json'), 'utf8')).version,
        location: { $mid: 1, path: location, scheme: 'file' },
        metadata: { installedTimestamp: Date.now(), source: 'vsix' },
      },
    ]),
  );
  // the scripted model's vendor as a configured provider group, as "Manage Models..." adds one
  const groupsFile = join(userData, 'User/chatLanguageModels.json');
  writeFileSync(groupsFile, JSON.stringify([{ name: 'Kernel Runner Test', vendor: 'kernel-runner-test' }]));
  return () => {
    writeFileSync(groupsFile, '[]');
    writeFileSync(settingsFile, settings);
    writeFileSync(manifestFile, manifest ?? '[]');
  };
}

/** Types a request into the chat input (replacing what is there) and sends it. */
async function ask(page, prompt) {
  const input = page.locator('.interactive-input-part .native-edit-context').first();
  await input.waitFor({ timeout: 30_000 });
  await input.focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(prompt);
  await page.keyboard.press('Enter');
}

/** VS Code's tool confirmation in the chat, once it shows `title`. */
async function confirmation(page, title) {
  const box = page.locator('.chat-tool-confirmation-carousel', { hasText: title }).filter({ visible: true }).last();
  await box.waitFor({ timeout: 60_000 });
  return box;
}

/** A button of the confirmation by its label (their accessible names are longer: "Proceed without running ..."). */
const button = (box, label) => box.locator('a.monaco-button', { hasText: new RegExp(`^${label}$`) }).first();

/** The chat's last response, once it holds `text`. */
async function responseWith(page, text) {
  const response = page.locator('.interactive-item-container.interactive-response', { hasText: text }).last();
  await response.waitFor({ timeout: 90_000 });
  return (await response.innerText()).replace(/\u00a0/g, ' ');
}

/** The Runs view's rows, without their age ("just now", "3 min ago"), newest first. */
async function runRows(page) {
  const icon = page
    .locator(
      '.activitybar .action-item:has(a[aria-label*="Kernel Runner"]), .activitybar .action-item[aria-label*="Kernel Runner"]',
    )
    .first();
  if (!(await icon.getAttribute('class'))?.includes('checked')) await icon.locator('a').first().click();
  const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Runs' }) }).first();
  await pane.waitFor({ timeout: 30_000 });
  // the view read its runs: rows, or its welcome (shown once the runs are read: earlier checks leave runs behind,
  // and an empty view while the extension still activates is not "no runs")
  await pane.locator('.monaco-list-row, .welcome-view-content', { hasText: /\S/ }).first().waitFor({ timeout: 30_000 });
  const rows = await pane.locator('.monaco-list-row').allInnerTexts();
  return rows.map((r) => r.replace(/\u00a0/g, ' ').replace(/ · (just now|\d+ \w+ ago)$/, ''));
}

export const tests = {
  async 'an agent in the chat asks to submit the open file: the confirmation names file, mode and target; Skip submits nothing, Allow runs it'(
    ctx,
  ) {
    const { page, workbenchUrl, outputDir } = ctx;
    const restore = prepare(ctx);
    try {
      await openWorkbench(page, workbenchUrl());
      await openFile(page, 'submission.py');
      const before = await runRows(page);
      // VS Code ships Copilot Chat (agent mode) built in but disables it until the chat setup (a GitHub sign-in)
      // completes: enable it. Agent mode then takes requests without the setup once the extension is enabled and a
      // provider group of models is configured (until then a request opens "Sign in to use GitHub Copilot"); the
      // test extension's palette command is listed from that moment (its `when`).
      await runCommand(page, 'Extensions: Enable All Extensions');
      await runCommand(page, 'Kernel Runner Test: Agent Mode Ready');
      await page.keyboard.press('Control+Alt+I');
      // the request goes out with the model the picker shows: wait until it shows the scripted one
      await page
        .locator('.interactive-input-part .action-label', { hasText: 'Kernel Runner Scripted Agent' })
        .first()
        .waitFor({ timeout: 60_000 });

      const title = 'Submit submission.py (test) with Kernel Runner?';
      const message = 'Run Tests: submission.py will be sent to embedded runner (the leaderboard its directives name).';
      await ask(page, 'Run the tests of the open file with Kernel Runner');
      let box = await confirmation(page, title);
      const shown = (await box.innerText()).replace(/\u00a0/g, ' ');
      assert(shown.includes(message), `confirmation: ${shown}`);
      await shot(page, outputDir, 'agent-confirmation');

      await button(box, 'Skip').click();
      const skipped = await responseWith(page, 'The submission did not run');
      // the tool result VS Code gives the agent for a skipped call, and no answer of Kernel Runner
      assert(
        skipped.includes('The user chose to skip the tool call') && !skipped.includes('Kernel Runner answered'),
        `after Skip: ${skipped}`,
      );
      assert(JSON.stringify(await runRows(page)) === JSON.stringify(before), 'after Skip the Runs view is as it was');

      await ask(page, 'Run the tests again, I will allow it this time');
      box = await confirmation(page, title);
      assert((await box.innerText()).replace(/\u00a0/g, ' ').includes(message), 'the second confirmation');
      await button(box, 'Allow in this Session').click();
      const answered = await responseWith(page, 'Kernel Runner answered');
      assert(
        /Kernel Runner answered: 3\/3 tests passed \(run_id \S+, \S*submission\.py, test\)/.test(answered),
        `after Allow: ${answered}`,
      );
      assert(answered.includes('Kernel Runner Scripted Agent'), `the answer names its model: ${answered}`);
      await shot(page, outputDir, 'agent-allowed');
      // the run as Run Tests from the palette makes it: its results panel, and on top of the Runs view
      const frame = await webviewFrame(page, 'table.tests');
      const caption = await frame.locator('table.tests caption').innerText();
      assert(caption === 'Tests: 3 of 3 passed', `caption: ${caption}`);
      // one job went to the runner in this window, this one: the Skip sent none
      // (the editor writes spaces as no-break spaces)
      const output = page.locator('.panel .view-line', { hasText: /job.\d+:.submission\.py.→/ });
      await output.first().waitFor({ timeout: 30_000 });
      const jobs = (await output.allInnerTexts()).map((l) => l.replace(/\u00a0/g, ' '));
      assert(
        jobs.length === 1 && /job \d+: submission\.py → vectoradd_py on MI300, test \(embedded runner\)/.test(jobs[0]),
        `jobs in the output: ${JSON.stringify(jobs)}`,
      );
      const after = await runRows(page);
      assert(/^submission\.py · test/.test(after[0] ?? ''), `newest run: ${after[0]}`);
      assert(
        JSON.stringify(after.slice(1)) === JSON.stringify(before.slice(0, after.length - 1)),
        `one run more: ${JSON.stringify(after)} after ${JSON.stringify(before)}`,
      );
    } finally {
      restore();
    }
  },
};
