/* global document, getComputedStyle */
// Helpers that drive the VS Code workbench in Chromium the way a person does: keyboard, palette, clicks.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Notifications the extension raised (errors show in the browser console too): for failure messages. */
export const extensionMessages = [];

/** Where a check spends its time: the helpers below record their steps; run.mjs prints them after each check. */
export const steps = [];
async function timed(name, fn) {
  const t0 = Date.now();
  try {
    return await fn();
  } finally {
    steps.push(`${name} ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  }
}

export async function openWorkbench(page, url) {
  page.on('console', (m) => {
    if (m.text().includes('Kernel Runner:')) extensionMessages.push(`${m.type()}: ${m.text().slice(0, 500)}`);
  });
  await timed('goto', () => page.goto(url));
  await timed('workbench', () => page.locator('.monaco-workbench').waitFor({ timeout: 60_000 }));
  await timed('explorer', () => explorerShown(page));
  await extensionHostAnswers(page);
}

/** The explorer shows the workspace once the remote connection is up. */
function explorerShown(page) {
  return page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: 60_000 });
}

/** Until the window's extension host answers (its file search finds the file run.mjs put in the workspace for it).
 * A new window can stay bound to an extension host that exited as it started (the server log says "Extension Host
 * Process exited with code: 0" and starts another the window never uses; seen in CI on the first file search of one
 * check and the first Open Trace of another): nothing the extensions do ever happens there, and a reload binds the
 * window to a live host. A first search takes 1-3 s otherwise. */
async function extensionHostAnswers(page) {
  const probe = 'extension-host-probe.txt';
  if (!(await quickOpen(page, probe, 15_000))) {
    steps.push('reload (no extension host answered the file search)');
    await page.keyboard.press('Escape');
    await page.reload();
    await explorerShown(page);
    if (!(await quickOpen(page, probe, 60_000))) throw new Error(`Quick Open found no ${probe}, even after a reload`);
  }
  await page.keyboard.press('Escape');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
}

/** Quick Open (Ctrl+P): type a file name, Enter; waits for its editor tab. */
export async function openFile(page, name) {
  return timed(`open ${name}`, async () => {
    if (!(await quickOpen(page, name, 60_000))) throw new Error(`Quick Open found no ${name}`);
    await page.keyboard.press('Enter');
    await page.locator(`.tabs-container .tab[data-resource-name="${name}"]`).waitFor({ timeout: 30_000 });
    await page.locator('.monaco-editor .view-lines').first().waitFor();
  });
}

/** Ctrl+P with the name typed: whether a result came within the time. */
async function quickOpen(page, name, timeout) {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor();
  await input.fill(name);
  return timed('file search', () =>
    page
      .locator('.quick-input-list .monaco-list-row')
      .first()
      .waitFor({ timeout })
      .then(
        () => true,
        () => false,
      ),
  );
}

/** F1, type the command's title, Enter (the palette as a person uses it). */
export async function runCommand(page, title) {
  return timed(`F1 ${title}`, () => runCommandUntimed(page, title));
}
async function runCommandUntimed(page, title) {
  // Right after start the workbench may still be registering the extensions' contributions: wait for Kernel
  // Runner's (its activity bar icon comes with its commands), and reopen the palette until the command is listed
  // (one whose `when` is not true yet).
  const deadline = Date.now() + 45_000;
  await kernelRunnerIcon(page)
    .waitFor({ timeout: 45_000 })
    .catch(() => {});
  for (;;) {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill(`>${title}`);
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
    const shown = await row.waitFor({ timeout: 3000 }).then(
      () => true,
      (err) => {
        if (Date.now() > deadline) throw err;
        return false;
      },
    );
    if (shown) {
      // Click the row that names the command: Enter would run whichever row the palette put first, and titles that
      // contain each other ("Register with GPU MODE…", "… (Discord)") can sort either way.
      await row.click();
      // A click that lands while the list is still being redrawn (commands coming in) is dropped: the palette stays
      // as it was. When it took, the palette closes or the command's own quick input takes its place (or the window
      // reloads).
      const took = await page
        .waitForFunction(
          (typed) => {
            const widget = document.querySelector('.quick-input-widget');
            return !widget || widget.style.display === 'none' || widget.querySelector('input')?.value !== typed;
          },
          `>${title}`,
          { timeout: 5000 },
        )
        .then(
          () => true,
          (err) => err?.name !== 'TimeoutError',
        );
      if (took) return;
      if (Date.now() > deadline) throw new Error(`the palette did not run "${title}" when its row was clicked`);
      steps.push('(click dropped)');
      await page.keyboard.press('Escape');
      continue;
    }
    steps.push('(retry)');
    await page.keyboard.press('Escape');
    await page.waitForTimeout(1000);
  }
}

/** Kernel Runner's icon in the activity bar (its view container). */
export function kernelRunnerIcon(page) {
  return page
    .locator(
      '.activitybar .action-item:has(a[aria-label*="Kernel Runner"]), .activitybar .action-item[aria-label*="Kernel Runner"]',
    )
    .first();
}

/** Until the quick input's progress bar stops (VS Code's file dialog is busy while it lists a folder or checks a path). */
async function dialogSettled(page) {
  await page
    .locator('.quick-input-widget .quick-input-progress.active')
    .waitFor({ state: 'detached', timeout: 60_000 })
    .catch(async () => {
      await page.waitForFunction(
        () => !document.querySelector('.quick-input-widget .quick-input-progress.active'),
        undefined,
        { timeout: 60_000 },
      );
    });
}

async function dialogState(page) {
  return page.evaluate(() => ({
    value: document.querySelector('.quick-input-widget input')?.value ?? '(no input)',
    message: document.querySelector('.quick-input-widget .quick-input-message')?.textContent ?? '',
    rows: [...document.querySelectorAll('.quick-input-widget .quick-input-list .monaco-list-row')]
      .slice(0, 5)
      .map((r) => r.textContent),
  }));
}

/** Types `file` into the path box of VS Code's own file dialog (in the quick input), replacing its starting folder.
 * A path in another folder makes the dialog list that folder, and while it does it may rewrite the box (back to the
 * folder): so wait until the folder's listing shows the file's row and the dialog is idle, then check the box. */
export async function typeDialogPath(page, file) {
  const input = page.locator('.quick-input-widget input');
  await input.waitFor();
  // The dialog fills in its own starting folder a moment after it opens: typing before that gets mixed into it.
  await page.waitForFunction(
    () => (document.querySelector('.quick-input-widget input')?.value ?? '') !== '',
    undefined,
    { timeout: 10_000 },
  );
  const name = basename(file);
  for (let attempt = 0; attempt < 5; attempt++) {
    await input.fill(file);
    // either the folder's listing shows the file (the path was taken), or the dialog rewrote the box under the fill
    // (e.g. `<start folder>/<file>`): then fill again
    const listed = await page.waitForFunction(
      ([want, base]) => {
        const value = document.querySelector('.quick-input-widget input')?.value ?? '';
        if (value !== want) return 'rewritten';
        const rows = document.querySelectorAll('.quick-input-widget .quick-input-list .monaco-list-row');
        return [...rows].some((r) => (r.textContent ?? '').includes(base)) ? 'listed' : false;
      },
      [file, name],
      { timeout: 60_000 },
    );
    if ((await listed.jsonValue()) !== 'listed') continue;
    await dialogSettled(page);
    if ((await input.inputValue()).endsWith(file)) return;
  }
  throw new Error(`the file dialog's path box does not keep ${file}: ${JSON.stringify(await dialogState(page))}`);
}

/** "Open Trace…" from the palette, the path typed into VS Code's own file dialog. */
export async function openTrace(page, file) {
  await runCommand(page, 'Kernel Runner: Open Trace…');
  await timed('dialog path', () => acceptDialogPath(page, file));
}

/** Types the path and presses Enter until the dialog takes it. The dialog checks the path as it is typed; an Enter
 * before that check ends gets "Please enter a path that exists" and the dialog stays (as it does for a person). */
export async function acceptDialogPath(page, file) {
  const widget = page.locator('.quick-input-widget');
  for (let attempt = 0; attempt < 5; attempt++) {
    await typeDialogPath(page, file);
    await page.keyboard.press('Enter');
    const closed = await widget.waitFor({ state: 'hidden', timeout: 10_000 }).then(
      () => true,
      () => false,
    );
    if (closed) return;
    steps.push('(dialog stayed)');
  }
  throw new Error(`the file dialog did not take ${file}: ${JSON.stringify(await dialogState(page))}`);
}

/** The frame of a results webview whose document matches `selector` (webviews nest two iframes deep). */
export async function webviewFrame(page, selector, timeoutMs = 60_000) {
  return timed(`webview ${selector}`, () => webviewFrameUntimed(page, selector, timeoutMs));
}
async function webviewFrameUntimed(page, selector, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const f of page.frames()) {
      try {
        if (await f.locator(selector).count()) return f;
      } catch {
        /* frame navigating or detached */
      }
    }
    await page.waitForTimeout(250);
  }
  throw new Error(
    `no webview frame with ${selector} within ${timeoutMs} ms; extension messages: ${extensionMessages.join(' | ') || 'none'}`,
  );
}

/** How a results page lays out sideways: the page itself must never be wider than the panel (wide tables scroll
 * inside their own focusable box instead, so headings and the first columns stay in view). */
export async function horizontalLayout(frame) {
  return frame.evaluate(() => {
    const doc = document.scrollingElement ?? document.documentElement;
    const boxes = [...document.querySelectorAll('table.data')].map((t) => t.parentElement);
    return {
      pageOverflowPx: doc.scrollWidth - doc.clientWidth,
      tables: boxes.length,
      tablesInScroller: boxes.filter(
        (b) =>
          b && b.classList.contains('table-scroll') && getComputedStyle(b).overflowX === 'auto' && b.tabIndex === 0,
      ).length,
    };
  });
}

export async function shot(page, outputDir, name) {
  await page.screenshot({ path: join(outputDir, `ui-${name}.png`) });
}

export function assert(cond, msg) {
  if (!cond) throw new Error(`assertion failed: ${msg}`);
}

/** The screenshot of one part of the window (the editor group at `index`, left to right), at most `height` tall. */
export async function groupShot(page, index, path, height = Infinity) {
  const group = page.locator('.part.editor .editor-group-container').nth(index);
  const box = await group.boundingBox();
  assert(box && box.width > 200, `editor group ${index} is shown: ${JSON.stringify(box)}`);
  await page.screenshot({ path, clip: { ...box, height: Math.min(box.height, height) } });
}

/** A settings file for the check's length, put back afterwards (its folder removed if the check made it). */
export function jsonFile(file) {
  const hadFolder = existsSync(dirname(file));
  const saved = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  const state = { value: saved ? JSON.parse(saved) : {} };
  return {
    get value() {
      return state.value;
    },
    set(values) {
      state.value = { ...state.value, ...values };
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(state.value, null, 2));
    },
    restore() {
      if (!hadFolder) rmSync(dirname(file), { recursive: true, force: true });
      else if (saved === undefined) rmSync(file, { force: true });
      else writeFileSync(file, saved);
    },
  };
}
