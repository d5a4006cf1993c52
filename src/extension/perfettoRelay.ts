// "Open in Perfetto UI": a loopback page that opens ui.perfetto.dev from the user's click and hands it the
// trace by postMessage (PING until PONG, then {perfetto: {buffer, title, fileName}}; see shared docs rocprof.md).
// Webviews cannot open popups or post to other windows, so the page is served here, on 127.0.0.1 (a trusted
// origin for Perfetto UI), under an unguessable path, with a strict CSP.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const PERFETTO_ORIGIN = 'https://ui.perfetto.dev';

interface Entry {
  bytes: Uint8Array;
  title: string;
  fileName: string;
  expires: number;
}

const TTL_MS = 30 * 60 * 1000;

export class PerfettoRelay {
  private server: Server | undefined;
  private base: string | undefined;
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly perfettoOrigin = PERFETTO_ORIGIN) {}

  /** Serves the trace; returns the page's URL (valid for 30 minutes). */
  async publish(bytes: Uint8Array, title: string, fileName: string): Promise<string> {
    const base = await this.start();
    this.sweep();
    const id = randomBytes(18).toString('base64url');
    this.entries.set(id, { bytes, title, fileName, expires: Date.now() + TTL_MS });
    return `${base}/perfetto/${id}/`;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, e] of this.entries) if (e.expires < now) this.entries.delete(id);
  }

  private async start(): Promise<string> {
    if (this.base) return this.base;
    const server = createServer((req, res) => {
      const m = /^\/perfetto\/([\w-]{20,})\/(trace)?$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
      const entry = m?.[1] ? this.entries.get(m[1]) : undefined;
      if (req.method !== 'GET' || !m || !entry || entry.expires < Date.now()) {
        res
          .writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' })
          .end('This trace link has expired: use "Open in Perfetto UI" again.\n');
        return;
      }
      if (m[2] === 'trace') {
        res.writeHead(200, {
          'Content-Type': 'application/octet-stream',
          'Content-Length': entry.bytes.byteLength,
          'Cache-Control': 'no-store',
        });
        res.end(entry.bytes);
        return;
      }
      const nonce = randomBytes(18).toString('base64');
      res.writeHead(200, {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
        'Content-Security-Policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'`,
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
      });
      res.end(relayPage(nonce, entry.title, entry.fileName, this.perfettoOrigin));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    server.unref();
    this.server = server;
    this.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.base;
  }

  async dispose(): Promise<void> {
    this.entries.clear();
    const s = this.server;
    this.server = undefined;
    this.base = undefined;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }
}

/** The relay page. Title and file name travel as JSON in a data attribute-free script constant, escaped for HTML. */
function relayPage(nonce: string, title: string, fileName: string, origin: string): string {
  // JSON.stringify + escaping `<` keeps any title from closing the script element.
  const data = JSON.stringify({ title, fileName, origin })
    .replace(/</g, '\\u003c')
    .replace(/\u2028|\u2029/g, '');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Open trace in Perfetto UI</title>
<style nonce="${nonce}">
body{font:15px system-ui,sans-serif;max-width:40em;margin:3em auto;padding:0 1em;color:#222;background:#fafafa}
button{font:inherit;padding:.6em 1.2em;cursor:pointer}#status{margin-top:1em;white-space:pre-wrap}
@media (prefers-color-scheme: dark){body{color:#ddd;background:#1e1e1e}}
</style></head>
<body>
<h1>Open trace in Perfetto UI</h1>
<p id="what"></p>
<button id="open" type="button" autofocus>Open in Perfetto UI</button>
<p id="status" role="status" aria-live="polite"></p>
<script nonce="${nonce}">
(() => {
  const cfg = ${data};
  const status = document.getElementById('status');
  document.getElementById('what').textContent = cfg.title + ' (' + cfg.fileName + ')';
  const say = (t) => { status.textContent = t; };
  let buffer;
  const loaded = fetch('trace').then((r) => { if (!r.ok) throw new Error('HTTP ' + r.status); return r.arrayBuffer(); })
    .then((b) => { buffer = b; say('Trace loaded (' + b.byteLength + ' bytes). Click the button to open it.'); })
    .catch((e) => say('Could not load the trace: ' + e.message));
  document.getElementById('open').addEventListener('click', async () => {
    const win = window.open(cfg.origin + '/#!/', 'perfetto-ui');
    if (!win) { say('The browser blocked the new tab: allow pop-ups for this page and click again.'); return; }
    await loaded;
    if (!buffer) return;
    say('Waiting for Perfetto UI…');
    let tries = 0;
    const timer = setInterval(() => {
      if (++tries > 600) { clearInterval(timer); say('Perfetto UI did not answer within a minute.'); return; }
      win.postMessage('PING', cfg.origin);
    }, 100);
    window.addEventListener('message', function onMessage(e) {
      if (e.origin !== cfg.origin || e.data !== 'PONG') return;
      window.removeEventListener('message', onMessage);
      clearInterval(timer);
      win.postMessage({ perfetto: { buffer, title: cfg.title, fileName: cfg.fileName } }, cfg.origin);
      say('Sent to Perfetto UI. You can close this tab.');
    });
  });
})();
</script>
</body></html>`;
}
