// A web page in the user's browser must not be able to run code through a token-less runner. Real Chromium
// (Debian's, driven by playwright-core) opens a page served from another local origin (127.0.0.1, another port)
// that attacks the runner's streaming route: a form POST of a submission, the same form under
// `referrer=no-referrer` (Origin: null), a sandboxed iframe's fetch (Origin: null) and a `no-cors` fetch with a
// truncated multipart body. Each request reaches the runner and is answered 403 with a {detail}; no job is
// made, the submission (a script writing a marker file) never runs, and the runner keeps serving.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { connect, createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestRunner, tempDir, waitFor, type TestRunner } from './helpers';

interface Seen {
  method: string;
  path: string;
  origin: string | null;
  site: string | null;
  status: number | null;
  answer: string;
}

/**
 * A byte-for-byte TCP relay in front of the runner that notes each request head and the runner's answer: proof
 * that the browser's requests did reach the runner (rather than being stopped by the browser) and what it said.
 * It closes each connection after the answer's first chunk (the runner's refusals are one small chunk).
 */
async function recordingRelay(target: URL, seen: Seen[]): Promise<{ server: TcpServer; url: string }> {
  const server = createTcpServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    let head = '';
    let entry: Seen | null = null;
    client.on('data', (c: Buffer) => {
      if (!entry) {
        head += c.toString('latin1');
        const end = head.indexOf('\r\n\r\n');
        if (end >= 0) {
          const lines = head.slice(0, end).split('\r\n');
          const [method = '', reqPath = ''] = (lines[0] ?? '').split(' ');
          const header = (name: string) => {
            const line = lines.find((l) => l.toLowerCase().startsWith(`${name}:`));
            return line ? line.slice(name.length + 1).trim() : null;
          };
          entry = {
            method,
            path: reqPath,
            origin: header('origin'),
            site: header('sec-fetch-site'),
            status: null,
            answer: '',
          };
          seen.push(entry);
        }
      }
      upstream.write(c);
    });
    upstream.on('data', (c: Buffer) => {
      if (entry && entry.status === null) {
        const text = c.toString('utf8');
        entry.status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
        entry.answer = text.slice(text.indexOf('\r\n\r\n') + 4);
        // one request per connection (the browser would reuse it, and only heads at its start are read here)
        client.end(c);
        upstream.destroy();
        return;
      }
      client.write(c);
    });
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const chromiumPath = process.env.KR_CHROMIUM ?? '/usr/bin/chromium';
const inCi = process.env.CI === 'true';
const haveChromium = existsSync(chromiumPath);
if (!haveChromium) {
  const msg = `browser.test.ts: ${chromiumPath} is missing, so the browser attacks on the runner are NOT tested (install Debian's chromium: bash scripts/setup-vscode-test.sh)`;
  if (inCi) throw new Error(`${msg}; CI=true requires it`);
  console.error(`\n!!! SKIPPED: ${msg}\n`);
}

describe(
  'browser requests from another local origin',
  { skip: haveChromium ? false : `${chromiumPath} is missing` },
  () => {
    let runner: TestRunner;
    let relay: TcpServer;
    /** What the page calls the runner: the relay in front of it. */
    let runnerUrl: string;
    let attacker: Server;
    let attackerUrl: string;
    let browser: Browser;
    let page: Page;
    let scratch: string;
    let marker: string;
    let submission: string;
    const seen: Seen[] = [];
    const route = '/script/CPU/test';

    before(async () => {
      scratch = tempDir('kr-browser-');
      marker = path.join(scratch, 'the-submission-ran');
      submission = `open(${JSON.stringify(marker)}, "w").write("ran")\nprint("ran")\n`;
      runner = await startTestRunner();
      ({ server: relay, url: runnerUrl } = await recordingRelay(new URL(runner.url), seen));
      attacker = createServer((req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        res.end('<!doctype html><title>a page on another origin</title><body>hello</body>');
      });
      await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', () => r()));
      attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
      const { chromium } = await import('playwright-core');
      // launch() starts from a fresh, empty profile (a --user-data-dir of its own)
      browser = await chromium.launch({
        executablePath: chromiumPath,
        headless: true,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--disable-dev-shm-usage',
        ],
      });
      page = await browser.newPage();
    });

    after(async () => {
      await browser?.close();
      await new Promise<void>((r) => (attacker ? attacker.close(() => r()) : r()));
      await new Promise<void>((r) => (relay ? relay.close(() => r()) : r()));
      await runner?.dispose();
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    });

    /**
     * Runs `script` (the source of a browser-side function of `{action, code}`: this project's tsconfig has no DOM
     * library) in a fresh page of the other origin; returns the runner's answer to the POST it made.
     */
    async function attack(script: string): Promise<Seen> {
      const before = seen.length;
      await page.goto(attackerUrl);
      await page.evaluate(`(${script})(${JSON.stringify({ action: `${runnerUrl}${route}`, code: submission })})`);
      return waitFor(
        "the page's request to reach the runner and be answered",
        () => seen.slice(before).find((e) => e.method === 'POST' && e.path === route && e.status !== null),
        15_000,
      );
    }

    async function assertNothingRan(): Promise<void> {
      await new Promise((r) => setTimeout(r, 300)); // a job that had been accepted would have started by now
      assert.deepEqual(readdirSync(path.join(runner.dataDir, 'jobs')), [], 'no job was made');
      assert.equal(existsSync(marker), false, 'the submission did not run');
      const health = await fetch(`${runner.url}/health`);
      assert.equal(health.status, 200, 'the runner still serves');
    }

    function assertRefused(answer: Seen, origin: string, detail: RegExp): void {
      assert.equal(answer.status, 403, JSON.stringify(answer));
      assert.equal(answer.origin, origin, JSON.stringify(answer));
      // Chromium says the page is not the runner's own: same-site (another port of 127.0.0.1) or cross-site
      assert.ok(
        answer.site !== null && answer.site !== 'same-origin' && answer.site !== 'none',
        JSON.stringify(answer),
      );
      assert.match((JSON.parse(answer.answer) as { detail: string }).detail, detail);
    }

    /** A multipart form with the submission as its file field, posted into an iframe (the page stays). */
    const formPost = `({ action, code }) => {
    const frame = document.createElement('iframe');
    frame.name = 'sink-' + Math.random();
    document.body.append(frame);
    const form = document.createElement('form');
    form.method = 'POST';
    form.enctype = 'multipart/form-data';
    form.action = action;
    form.target = frame.name;
    const input = document.createElement('input');
    input.type = 'file';
    input.name = 'file';
    const files = new DataTransfer();
    files.items.add(new File([code], 'attack.py'));
    input.files = files.files;
    form.append(input);
    document.body.append(form);
    form.submit();
  }`;

    test('a form POST of a submission (Origin: the other page): 403, nothing runs', async () => {
      const answer = await attack(formPost);
      assertRefused(answer, attackerUrl, /Cross-origin requests are refused/);
      await assertNothingRan();
    });

    test('the same form under referrer=no-referrer (Origin: null): 403, nothing runs', async () => {
      const answer = await attack(`(args) => {
      const meta = document.createElement('meta');
      meta.name = 'referrer';
      meta.content = 'no-referrer';
      document.head.append(meta);
      (${formPost})(args);
    }`);
      assertRefused(answer, 'null', /Cross-origin requests are refused \(Origin: null\)/);
      await assertNothingRan();
    });

    test('a sandboxed iframe doing fetch (Origin: null): 403, nothing runs', async () => {
      const answer = await attack(`({ action, code }) => {
      const frame = document.createElement('iframe');
      frame.setAttribute('sandbox', 'allow-scripts');
      frame.srcdoc =
        '<script>const fd = new FormData(); fd.append("file", new Blob([' + JSON.stringify(code) + ']), "attack.py");' +
        'fetch(' + JSON.stringify(action) + ', { method: "POST", body: fd, mode: "no-cors" }).catch(() => {});</' + 'script>';
      document.body.append(frame);
    }`);
      assertRefused(answer, 'null', /Cross-origin requests are refused \(Origin: null\)/);
      await assertNothingRan();
    });

    test('a no-cors fetch with a truncated multipart body: 403, the runner keeps serving', async () => {
      const answer = await attack(`({ action, code }) => {
      const b = 'kr-attack';
      // no closing boundary
      const body = '--' + b + '\\r\\nContent-Disposition: form-data; name="file"; filename="attack.py"\\r\\n\\r\\n' + code;
      fetch(action, { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'multipart/form-data; boundary=' + b }, body }).catch(() => undefined);
    }`);
      assertRefused(answer, attackerUrl, /Cross-origin requests are refused/);
      await assertNothingRan();
    });

    test('every request the pages made reached the runner and was refused', async () => {
      const posts = seen.filter((e) => e.method === 'POST');
      assert.equal(posts.length, 4, JSON.stringify(seen, null, 1));
      for (const p of posts) assert.equal(p.status, 403, JSON.stringify(p));
      await assertNothingRan();
    });
  },
);

// What Chromium always sends is above; the rules for what other browsers may send, as raw headers.
describe('browser headers, as raw requests', () => {
  let open: TestRunner;
  let tokened: TestRunner;
  const token = 'browser-headers-token';
  before(async () => {
    open = await startTestRunner();
    tokened = await startTestRunner({ token });
  });
  after(async () => {
    await open?.dispose();
    await tokened?.dispose();
  });

  async function status(
    runner: TestRunner,
    headers: Record<string, string>,
  ): Promise<{ status: number; detail?: string }> {
    const res = await fetch(`${runner.url}/leaderboards`, { headers });
    const body = (await res.json()) as { detail?: string };
    return { status: res.status, detail: body.detail };
  }

  test("without a token: a cross-site or same-site request without Origin is refused; the user's own (none, same-origin) pass", async () => {
    for (const site of ['cross-site', 'same-site']) {
      const r = await status(open, { 'Sec-Fetch-Site': site });
      assert.equal(r.status, 403, site);
      assert.match(r.detail ?? '', new RegExp(`Sec-Fetch-Site: ${site}`));
    }
    for (const site of ['none', 'same-origin'])
      assert.equal((await status(open, { 'Sec-Fetch-Site': site })).status, 200, site);
    assert.equal((await status(open, { Origin: new URL(open.url).origin })).status, 200, "the runner's own origin");
    assert.equal((await status(open, {})).status, 200, 'a tool');
  });

  test('with a token: another origin or Origin: null is refused even with the token; the own origin passes', async () => {
    const auth = { Authorization: `Bearer ${token}` };
    for (const origin of ['null', 'http://evil.example', `http://localhost:${new URL(tokened.url).port}`]) {
      const r = await status(tokened, { ...auth, Origin: origin });
      assert.equal(r.status, 403, origin);
      assert.match(r.detail ?? '', /Cross-origin requests are refused/);
    }
    assert.equal((await status(tokened, { ...auth, Origin: new URL(tokened.url).origin })).status, 200);
    assert.equal(
      (await status(tokened, { ...auth, 'Sec-Fetch-Site': 'cross-site' })).status,
      200,
      'a token holder may use a browser tool',
    );
  });
});
