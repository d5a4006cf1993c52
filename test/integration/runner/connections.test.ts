// Uploads and connections over real sockets (node:net): a truncated, garbled or aborted upload is a 400 with a
// {detail} and the service keeps serving; a request head or body that stalls is closed after its timeout; open
// connections are capped; Node's own answers (408, 431) carry JSON. Nothing is left behind: no job, no file.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { startTestRunner, waitFor, type TestRunner } from './helpers';

interface RawAnswer {
  text: string;
  status: number | null;
  body: string;
  /** ms from the first byte sent to the socket's close */
  closedAfterMs: number;
}

function port(runner: TestRunner): number {
  return Number(new URL(runner.url).port);
}

/** Sends `parts` (a pause between them), then waits for the server to close the socket. */
function exchange(
  runner: TestRunner,
  parts: Array<string | Buffer>,
  opts: { endAfter?: boolean; limitMs?: number } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port(runner), '127.0.0.1');
    const chunks: Buffer[] = [];
    let started = 0;
    const limit = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(
          `the server did not close the connection within ${opts.limitMs ?? 10_000} ms; got: ${Buffer.concat(chunks).toString('latin1').slice(0, 300)}`,
        ),
      );
    }, opts.limitMs ?? 10_000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined); // a reset after the answer is fine
    socket.on('close', () => {
      clearTimeout(limit);
      const text = Buffer.concat(chunks).toString('utf8');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      const split = text.indexOf('\r\n\r\n');
      resolve({
        text,
        status: m ? Number(m[1]) : null,
        body: split >= 0 ? text.slice(split + 4) : '',
        closedAfterMs: Date.now() - started,
      });
    });
    socket.on('connect', () => {
      started = Date.now();
      for (const p of parts) socket.write(p);
      if (opts.endAfter) socket.end();
    });
  });
}

/** Sends the head, then `body` `step` bytes every `pauseMs` until the server closes; what was sent and answered. */
async function trickleBody(
  runner: TestRunner,
  body: string,
  step: number,
  pauseMs: number,
): Promise<{ sent: number; text: string }> {
  const socket = connect(port(runner), '127.0.0.1');
  socket.on('error', () => undefined);
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  await new Promise<void>((r) => socket.once('connect', () => r()));
  socket.write(head(Buffer.byteLength(body)));
  let sent = 0;
  while (sent < body.length && !socket.destroyed && !socket.readableEnded) {
    socket.write(body.slice(sent, sent + step));
    sent += step;
    await new Promise((r) => setTimeout(r, pauseMs));
  }
  await closed;
  return { sent, text: Buffer.concat(chunks).toString('utf8') };
}

function detailOf(answer: RawAnswer): string {
  assert.match(answer.text, /\r\ncontent-type: application\/json/i, answer.text.slice(0, 400));
  const body = JSON.parse(answer.body) as { detail?: unknown };
  assert.equal(typeof body.detail, 'string', answer.body);
  return body.detail as string;
}

const BOUNDARY = 'krtestboundary';
const MARK = 'kr-connections-should-never-run';

function multipart(content: string): string {
  return (
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.py"\r\n` +
    `Content-Type: application/octet-stream\r\n\r\n${content}\r\n--${BOUNDARY}--\r\n`
  );
}

function head(bodyLength: number, extra = ''): string {
  return (
    `POST /script/CPU/test HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\n` +
    `Content-Length: ${bodyLength}\r\nConnection: close\r\n${extra}\r\n`
  );
}

function assertNothingLeft(runner: TestRunner): void {
  assert.deepEqual(readdirSync(path.join(runner.dataDir, 'jobs')), [], 'no job folder was made');
  // the runner's own files: its lock, and the port it listens on (runnerToken.ts)
  const left = readdirSync(runner.dataDir).filter((n) => !['jobs', 'runner.lock', 'listening.json'].includes(n));
  assert.deepEqual(left, [], 'no other file in the data dir');
}

async function healthy(runner: TestRunner): Promise<void> {
  const res = await fetch(`${runner.url}/health`);
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as { status: string }).status, 'ok');
}

describe('uploads and connections (short timeouts)', () => {
  let runner: TestRunner;
  before(async () => {
    runner = await startTestRunner({
      headersTimeoutMs: 300,
      bodyIdleTimeoutMs: 300,
      bodyMinBytesPerSec: 100,
      bodyTimeoutMs: 4000,
    });
  });
  after(() => runner.dispose());

  test('a truncated multipart body (no closing boundary): 400 with a detail, the service keeps serving', async () => {
    const full = multipart(`print("${MARK}")\n`);
    const truncated = full.slice(0, full.length - 30);
    const answer = await exchange(runner, [head(Buffer.byteLength(truncated)), truncated]);
    assert.equal(answer.status, 400, answer.text);
    assert.match(detailOf(answer), /Bad multipart body: Unexpected end of form/);
    await healthy(runner);
    assertNothingLeft(runner);
  });

  test('a garbled multipart body: 400 with a detail', async () => {
    const garbage = Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 7919) % 256));
    const answer = await exchange(runner, [head(garbage.length), garbage]);
    assert.equal(answer.status, 400, answer.text);
    assert.match(detailOf(answer), /Bad multipart body/);
    // a part whose headers are cut in the middle
    const cut = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filena`;
    const second = await exchange(runner, [head(cut.length), cut]);
    assert.equal(second.status, 400, second.text);
    assert.match(detailOf(second), /Bad multipart body/);
    await healthy(runner);
    assertNothingLeft(runner);
  });

  test('a client that goes away mid-upload takes nothing down', async () => {
    const full = multipart(`print("${MARK}")\n`);
    await new Promise<void>((resolve) => {
      const socket: Socket = connect(port(runner), '127.0.0.1', () => {
        socket.write(head(Buffer.byteLength(full)) + full.slice(0, 120));
        setTimeout(() => {
          socket.resetAndDestroy();
          resolve();
        }, 50);
      });
      socket.on('error', () => undefined);
    });
    await new Promise((r) => setTimeout(r, 200));
    await healthy(runner);
    assertNothingLeft(runner);
  });

  test('half a request head, then silence: closed after the header timeout with a JSON 408', async () => {
    const answer = await exchange(
      runner,
      ['POST /script/CPU/test HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-'],
      { limitMs: 5000 },
    );
    assert.ok(answer.closedAfterMs >= 250, `closed after ${answer.closedAfterMs} ms, before the timeout`);
    assert.equal(answer.status, 408, answer.text);
    assert.match(detailOf(answer), /did not arrive in time/);
    await healthy(runner);
  });

  test('a body that stops making progress: answered 408 and closed after the idle timeout', async () => {
    const full = multipart(`print("${MARK}")\n`);
    const answer = await exchange(runner, [head(Buffer.byteLength(full)), full.slice(0, 100)], { limitMs: 5000 });
    assert.ok(answer.closedAfterMs >= 250, `closed after ${answer.closedAfterMs} ms, before the timeout`);
    assert.equal(answer.status, 408, answer.text);
    assert.match(detailOf(answer), /made no progress/);
    await healthy(runner);
    assertNothingLeft(runner);
  });

  test('a body that takes longer than the idle timeout but keeps the minimum rate is read', async () => {
    const socket = connect(port(runner), '127.0.0.1');
    socket.on('error', () => undefined);
    // an empty .py upload: refused as empty, but only once the body has been read completely
    const field = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\n${'n'.repeat(800)}\r\n`;
    const body = field + multipart('');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    await new Promise<void>((r) => socket.once('connect', () => r()));
    const started = Date.now();
    socket.write(head(Buffer.byteLength(body)));
    for (let i = 0; i < body.length && !socket.destroyed; i += 40) {
      socket.write(body.slice(i, i + 40));
      await new Promise((r) => setTimeout(r, 60)); // > 1 s in all, each pause well under the 300 ms timeout
    }
    await closed;
    assert.ok(Date.now() - started > 900, 'the body took longer than the idle timeout');
    const text = Buffer.concat(chunks).toString('utf8');
    assert.match(text, /^HTTP\/1\.1 400/, text);
    assert.match(text, /empty/i);
    assertNothingLeft(runner);
  });

  test('a body that trickles one byte at a time, never idle: answered 408 for its rate and closed', async () => {
    const full = multipart(`print("${MARK}")\n`);
    // one byte every 20 ms: never idle for the 300 ms timeout, but 50 bytes/s under the 100 it must keep
    const { sent, text } = await trickleBody(runner, full, 1, 20);
    assert.ok(sent < full.length, 'the server closed the connection before the body was complete');
    assert.match(text, /^HTTP\/1\.1 408/, text);
    assert.match(text, /bytes\/s, slower than the 100 bytes\/s it must keep/);
    assertNothingLeft(runner);
  });

  test('a body that keeps the rate but goes on past the overall limit: answered 408 and closed', async (t) => {
    // the overall limit is the only one that can end it: the idle timeout and the rate's window (30 s) are far past
    // any pause of a busy machine, where 300 ms is not (the test's writes and the runner share this process)
    const overall = await startTestRunner({ bodyIdleTimeoutMs: 30_000, bodyMinBytesPerSec: 1, bodyTimeoutMs: 4000 });
    t.after(() => overall.dispose());
    const full = multipart(`# ${'x'.repeat(60_000)}\nprint("${MARK}")\n`);
    // 100 bytes every 50 ms (2 KB/s): 30 s for the whole body, the limit is 4 s
    const { sent, text } = await trickleBody(overall, full, 100, 50);
    assert.ok(sent < full.length, 'the server closed the connection before the body was complete');
    assert.match(text, /^HTTP\/1\.1 408/, text);
    assert.match(text, /did not arrive within 4 s/);
    assertNothingLeft(overall);
  });

  test('a huge request head: 431 with a JSON detail', async () => {
    const answer = await exchange(runner, [
      `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`,
    ]);
    assert.equal(answer.status, 431, answer.text.slice(0, 200));
    assert.match(detailOf(answer), /too large/);
    await healthy(runner);
  });

  test('a garbled request line: 400 with a JSON detail', async () => {
    const answer = await exchange(runner, ['THIS IS NOT HTTP\r\n\r\n']);
    assert.equal(answer.status, 400, answer.text);
    assert.match(detailOf(answer), /Bad request/);
    await healthy(runner);
  });

  test('a streaming answer outlives the body idle timeout', async (t) => {
    // a limit a busy machine's upload of a few bytes keeps to, and no heartbeat that would keep the socket busy
    const idle = await startTestRunner({ bodyIdleTimeoutMs: 2000, heartbeatMs: 60_000 });
    t.after(() => idle.dispose());
    const res = await fetch(`${idle.url}/script/CPU/test`, {
      method: 'POST',
      body: (() => {
        const fd = new FormData();
        fd.append('file', new Blob(['import time\ntime.sleep(2.5)\nprint("done")\n']), 'slow.py');
        return fd;
      })(),
    });
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.match(text, /event: result/);
    assert.match(text, /done/);
  });
});

/**
 * A raw connection that has made one request through the local-caller checks and then starts a head it never
 * ends; null when the server closed it unanswered (the cap was reached).
 */
async function trustedAndHeld(runner: TestRunner): Promise<Socket | null> {
  const s = connect(port(runner), '127.0.0.1');
  s.on('error', () => undefined);
  await new Promise<void>((r) => s.once('connect', () => r()));
  const answered = new Promise<string | null>((r) => {
    s.once('data', (c: Buffer) => r(c.toString('utf8')));
    s.once('close', () => r(null));
  });
  s.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  const text = await answered;
  if (text === null) return null;
  assert.match(text, /^HTTP\/1\.1 200/);
  s.write('GET /health HTTP/1.1\r\nHost: 127');
  return s;
}

/** GET /health on a connection of its own that the server closes after the answer (nothing kept in a pool). */
async function healthyOnce(runner: TestRunner): Promise<void> {
  const answer = await exchange(runner, ['GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n']);
  assert.equal(answer.status, 200, answer.text);
}

describe('connection cap', () => {
  let runner: TestRunner;
  before(async () => {
    runner = await startTestRunner({ maxConnections: 4 });
  });
  after(() => runner.dispose());

  test('silent connections keep only their share (3 of 4): the oldest goes, a caller still gets through', async () => {
    const silent: Socket[] = [];
    const closedByServer: number[] = [];
    for (let i = 0; i < 4; i++) {
      const s = connect(port(runner), '127.0.0.1');
      s.on('error', () => undefined);
      s.once('close', () => closedByServer.push(i));
      await new Promise<void>((r) => s.once('connect', () => r()));
      silent.push(s);
    }
    await waitFor(
      'the oldest silent connection to be closed',
      () => (closedByServer.length ? true : undefined),
      10_000,
    );
    assert.deepEqual(closedByServer, [0]);
    await healthyOnce(runner);
    for (const s of silent) s.destroy();
    assertNothingLeft(runner);
  });

  test('past maxConnections of trusted connections, new sockets are closed at once; the service answers again once they go', async () => {
    const held: Socket[] = [];
    // the last test's sockets may still be closing on the server's side: a refused one is tried again
    await waitFor(
      'four trusted connections held',
      async () => {
        const s = await trustedAndHeld(runner);
        if (s) held.push(s);
        else await new Promise((r) => setTimeout(r, 100));
        return held.length === 4 ? true : undefined;
      },
      20_000,
    );
    for (let i = 0; i < 3; i++) {
      const extra = await exchange(runner, ['GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'], {
        limitMs: 3000,
      });
      assert.equal(extra.status, null, `an extra connection got an answer: ${extra.text}`);
      assert.equal(extra.text, '');
    }
    assert.ok(
      held.every((s) => !s.destroyed),
      'the trusted connections were kept',
    );
    for (const s of held) s.destroy();
    // raw requests with a limit: a fetch whose connection is dropped at accept can wait a long time
    await waitFor(
      'the service to answer again',
      async () => {
        const answer = await exchange(
          runner,
          ['GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'],
          { limitMs: 3000 },
        );
        return answer.status === 200 ? true : undefined;
      },
      10_000,
    );
    assertNothingLeft(runner);
  });
});
