// A submission far past the service's limit (200 MB against 1 MB) is refused before it is read whole: on its
// Content-Length before any of the body is read, and a chunked one as soon as what came passes the limit. The
// client counts what the kernel took from it before the answer (or the close) came: that is at most what the
// server read plus the two sockets' buffers, so a server that read on would have taken far more. The runner
// answers the next request after.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { startTestRunner, type TestRunner } from './helpers';

const MB = 1_000_000;
const TOTAL = 200 * MB;
const BOUNDARY = 'kr-oversized';
/**
 * What may pass besides the 1 MB limit and its form overhead: what the two sockets' kernel buffers take (the
 * client's send buffer, the server's receive buffer, which grows only while the server reads), ~4 MB on Linux's
 * loopback. A read of the whole body would be 200 MB.
 */
const MARGIN = 16 * 1024 * 1024;
const CHUNK = 64 * 1024;

let runner: TestRunner;
before(async () => {
  runner = await startTestRunner();
});
after(() => runner.dispose());

interface Refusal {
  /** Bytes of the body the kernel took from the client before the answer came or the connection closed. */
  sent: number;
  status: number;
  text: string;
}

/** Sends a 200 MB multipart body (with its length, or chunked) and stops once the server answers or closes. */
function sendOversized(chunked: boolean): Promise<Refusal> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(runner.url).port), '127.0.0.1');
    const answer: Buffer[] = [];
    let sent = 0;
    let stopped = false;
    const stop = () => {
      stopped = true;
    };
    socket.on('data', (c: Buffer) => {
      answer.push(c);
      stop();
    });
    socket.on('error', stop); // EPIPE/ECONNRESET once the server closed: the answer came first
    socket.on('close', () => {
      stop();
      const text = Buffer.concat(answer).toString('utf8');
      resolve({ sent, status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text });
    });
    const opening = Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.py"\r\n` +
        `Content-Type: application/octet-stream\r\n\r\n`,
    );
    const lengthHeader = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${TOTAL}`;
    socket.once('connect', () => {
      socket.write(
        `POST /script/CPU/test HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
          `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\n${lengthHeader}\r\n\r\n`,
      );
      const filler = Buffer.alloc(CHUNK, '#');
      const frame = (b: Buffer) =>
        chunked ? Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]) : b;
      let body = 0;
      const pump = () => {
        while (!stopped && body < TOTAL) {
          const piece = body === 0 ? opening : filler.subarray(0, Math.min(CHUNK, TOTAL - body));
          body += piece.length;
          // counted once the kernel has it: what the socket still buffers in Node was not sent
          const ok = socket.write(frame(piece), (err) => {
            if (!err) sent += piece.length;
          });
          if (!ok) {
            socket.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
    socket.setTimeout(120_000, () => {
      socket.destroy();
      reject(new Error(`no answer and no close after ${sent} bytes`));
    });
  });
}

async function assertRefused(r: Refusal): Promise<void> {
  assert.equal(r.status, 413, r.text.slice(0, 300));
  assert.match(r.text, /too large \(limit: 1MB\)/);
  assert.ok(r.sent <= MB + MARGIN, `the client sent ${r.sent} bytes before the refusal (limit 1 MB + ${MARGIN})`);
  assert.deepEqual(readdirSync(path.join(runner.dataDir, 'jobs')), [], 'no job was made');
  const health = await fetch(`${runner.url}/health`);
  assert.equal(health.status, 200, 'the runner answers after');
}

test('200 MB with its Content-Length: 413 before the body is read', async (t) => {
  const started = performance.now();
  const r = await sendOversized(false);
  t.diagnostic(`refused after ${(performance.now() - started).toFixed(0)} ms, ${r.sent} bytes sent`);
  await assertRefused(r);
});

test('200 MB chunked: 413 once the limit is passed, and the connection closed', async (t) => {
  const started = performance.now();
  const r = await sendOversized(true);
  t.diagnostic(`refused after ${(performance.now() - started).toFixed(0)} ms, ${r.sent} bytes sent`);
  await assertRefused(r);
});
