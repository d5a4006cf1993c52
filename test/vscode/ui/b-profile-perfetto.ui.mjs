/* global document */
// Profile on MI300 from the palette (stand-in rocprofv3 on the runner's PATH): the webview shows the top kernels
// and the links; "Open in Perfetto UI" opens the loopback relay page, which hands the trace to Perfetto UI by
// postMessage. ui.perfetto.dev is not reachable here, so the browser serves a stand-in page at its address that
// speaks the same protocol (answers PING with PONG, records the buffer it receives).
import { assert, horizontalLayout, openFile, openWorkbench, runCommand, shot, webviewFrame } from './workbench.mjs';

const FAKE_PERFETTO = `<!DOCTYPE html><html><head><title>fake perfetto</title></head><body><script>
window.addEventListener('message', (e) => {
  if (e.data === 'PING') { e.source.postMessage('PONG', e.origin); return; }
  if (e.data && e.data.perfetto) {
    const p = e.data.perfetto;
    document.title = 'received ' + p.buffer.byteLength + ' bytes ' + p.fileName + ' from ' + e.origin;
  }
});
</script></body></html>`;

export const tests = {
  async 'Profile on MI300 shows the top kernels; Open in Perfetto UI delivers the trace'({
    page,
    workbenchUrl,
    outputDir,
  }) {
    const context = page.context();
    await context.route('https://ui.perfetto.dev/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: FAKE_PERFETTO }),
    );
    // asExternalUri maps loopback ports to code-server's `/proxy/<port>/` route; this harness runs the bare VS Code
    // server without code-server's proxy layer, so the browser does that hop itself.
    await context.route(/\/proxy\/\d+\/perfetto\//, async (route) => {
      const m = /\/proxy\/(\d+)\/(perfetto\/.*)$/.exec(route.request().url());
      const response = await route.fetch({ url: `http://127.0.0.1:${m[1]}/${m[2]}` });
      await route.fulfill({ response });
    });
    await openWorkbench(page, workbenchUrl());
    await openFile(page, 'submission.py');
    await runCommand(page, 'Kernel Runner: Profile on MI300');

    const frame = await webviewFrame(page, 'table.kernels tbody tr', 90_000);
    const rows = await frame.locator('table.kernels tbody tr').count();
    assert(rows > 0, 'kernel rows');
    const first = frame.locator('table.kernels tbody tr').first();
    const shortName = await first.locator('.kernel-name').innerText();
    const fullName = await first.locator('.kernel-name').getAttribute('title');
    assert(
      shortName.length > 0 && fullName && fullName.includes(shortName),
      `short "${shortName}" inside full "${fullName}"`,
    );
    const cells = await first.locator('td').allInnerTexts();
    assert(/^\d[\d,]*$/.test(cells[1] ?? ''), `calls cell: ${cells[1]}`);
    assert(/(ns|µs|ms|s)$/.test(cells[2] ?? ''), `total cell: ${cells[2]}`);
    assert(/%$/.test(cells[6] ?? ''), `percent cell: ${cells[6]}`);
    const busy = await frame.locator('.cards .card-label').first().innerText();
    assert(/GPU busy/.test(busy), `busy card: ${busy}`);
    assert(
      (await frame.locator('section.profile').first().locator('figure.timeline svg.timeline-chart').count()) === 1,
      'timeline chart',
    );
    const links = await frame.locator('.links button').allInnerTexts();
    assert(
      links.includes('Download full trace') && links.includes('Open in Perfetto UI'),
      `links: ${links.join(', ')}`,
    );
    const layout = await horizontalLayout(frame);
    assert(
      layout.pageOverflowPx <= 1,
      `page scrolls sideways by ${layout.pageOverflowPx}px: ${JSON.stringify(layout)}`,
    );
    assert(
      layout.tables > 0 && layout.tablesInScroller === layout.tables,
      `every table in a focusable scroller: ${JSON.stringify(layout)}`,
    );
    await first.scrollIntoViewIfNeeded();
    await shot(page, outputDir, 'profile-results');

    // Keyboard: the Perfetto button is reachable and pressed with Enter, like a person without a mouse.
    const relayPromise = context.waitForEvent('page', { timeout: 30_000 });
    relayPromise.catch(() => {});
    const perfettoButton = frame.locator('section.profile').first().locator('button[data-action="open-perfetto"]');
    await perfettoButton.focus();
    await perfettoButton.press('Enter');
    // VS Code may ask before opening an external page.
    const openButton = page.locator('.monaco-dialog-box button', { hasText: 'Open' }).first();
    if (await openButton.isVisible({ timeout: 5000 }).catch(() => false)) await openButton.click();
    const relay = await relayPromise;
    await relay.waitForLoadState();
    // Directly on loopback, or through the VS Code server's port proxy (what asExternalUri gives in the browser).
    assert(
      /^http:\/\/127\.0\.0\.1:\d+(\/proxy\/\d+)?\/perfetto\/[\w-]+\/$/.test(relay.url()),
      `relay url ${relay.url()}`,
    );
    await relay.locator('#status').filter({ hasText: 'Trace loaded' }).waitFor({ timeout: 15_000 });
    const perfettoPromise = context.waitForEvent('page', { timeout: 15_000 });
    perfettoPromise.catch(() => {});
    await relay.locator('#open').click();
    const perfetto = await perfettoPromise;
    await perfetto.waitForFunction(() => document.title.startsWith('received '), null, { timeout: 20_000 });
    const title = await perfetto.title();
    assert(
      /^received [1-9]\d* bytes \S+\.pftrace from http:\/\/127\.0\.0\.1:\d+$/.test(title),
      `perfetto got: ${title}`,
    );
    await relay.locator('#status').filter({ hasText: 'Sent to Perfetto UI' }).waitFor({ timeout: 10_000 });
    await relay.screenshot({ path: `${outputDir}/ui-perfetto-relay.png` });
  },
};
