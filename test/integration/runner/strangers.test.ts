// Strangers cannot hold the runner (issue 19, item 1), attacked as it was: unauthenticated uploads that trickle
// one byte at a time and slow heads, 528 connections in all against the default cap of 256, while a token holder
// submits; and a 1 GiB body after a 401. What must not happen: the token holder reset or starved, a stranger's
// body read past its refusal, a job made.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { connect, type Socket } from 'node:net';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { post, readSse, startTestRunner, terminal, type TestRunner } from './helpers';

const TOKEN = 'kr-strangers-test-token-0123456789';
const BOUNDARY = 'krstrangers';
let runner: TestRunner;
/** The server's side of each request's connection, by the request's path: what it read is counted there. */
const serverSockets = new Map<string, Socket>();
const onRequest = (message: unknown) => {
  const { request, socket } = message as { request: { url?: string }; socket: Socket };
  if (request.url) serverSockets.set(request.url, socket);
};

before(async () => {
  subscribe('http.server.request.start', onRequest);
  runner = await startTestRunner({ token: TOKEN });
});
after(async () => {
  unsubscribe('http.server.request.start', onRequest);
  await runner.dispose();
});

const port = () => Number(new URL(runner.url).port);

function uploadHead(pathName: string, length: number): string {
  return `POST ${pathName} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${length}\r\n\r\n`;
}

interface Attacker {
  socket: Socket;
  received: string;
  closed: boolean;
}

/** A connection that sends `first` at once, then `rest` one byte every 200 ms, until it is closed or stopped. */
function trickler(first: string, rest: string, stopped: () => boolean): Promise<Attacker> {
  return new Promise((resolve) => {
    const socket = connect(port(), '127.0.0.1');
    const a: Attacker = { socket, received: '', closed: false };
    socket.on('error', () => undefined);
    socket.on('data', (c: Buffer) => (a.received += c.toString('latin1')));
    socket.on('close', () => (a.closed = true));
    socket.once('connect', () => {
      if (first) socket.write(first);
      let i = 0;
      const tick = () => {
        if (a.closed || stopped() || i >= rest.length) return;
        socket.write(rest[i++] as string);
        setTimeout(tick, 200);
      };
      setTimeout(tick, 200);
      resolve(a);
    });
  });
}

test(
  '264 unauthenticated trickling uploads and 264 slow heads: the token holder submits and gets its result',
  { timeout: 120_000 },
  async () => {
    let stop = false;
    const all: Attacker[] = [];
    const body =
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="x.py"\r\n\r\nprint("stranger")\r\n--${BOUNDARY}--\r\n`.repeat(
        50,
      );
    const head = `${uploadHead('/script/CPU/test', body.length)}`;
    try {
      const uploads = await Promise.all(Array.from({ length: 264 }, () => trickler(head, body, () => stop)));
      const slowHeads = await Promise.all(Array.from({ length: 264 }, () => trickler('', head, () => stop)));
      all.push(...uploads, ...slowHeads);
      // the token holder, while all of them are at it (a signal ends a starved request as a failure, not a hang)
      const res = await post(`${runner.url}/script/CPU/test`, {
        fileName: 'mine.py',
        content: 'print("the token holder ran")\n',
        headers: { Authorization: `Bearer ${TOKEN}` },
        signal: AbortSignal.timeout(90_000),
      });
      assert.equal(res.status, 200);
      const events = await readSse(res);
      const end = terminal(events);
      assert.equal(end.event, 'result', end.raw);
      assert.match(end.raw, /the token holder ran/);
      // every trickling upload was refused at its head and its connection closed: none holds a slot with its body
      const stillOpen = uploads.filter((a) => !a.closed).length;
      assert.equal(stillOpen, 0, `${stillOpen} refused uploads still open`);
      for (const a of uploads) {
        assert.match(a.received, /^HTTP\/1\.1 401 /);
        assert.match(a.received, /\r\nconnection: close\r\n/i);
      }
      // the slow heads keep no more than their share of the 256 connections: the oldest were closed for newer ones
      const heldHeads = slowHeads.filter((a) => !a.closed).length;
      assert.ok(heldHeads <= 192, `${heldHeads} slow heads held`);
      assert.ok(
        slowHeads.every((a) => a.received === '' || /^HTTP\/1\.1 408 /.test(a.received)),
        'no slow head got anything but a timeout',
      );
      // nothing ran but the token holder's job
      assert.deepEqual(readdirSync(path.join(runner.dataDir, 'jobs')).length, 1);
    } finally {
      stop = true;
      for (const a of all) a.socket.destroy();
    }
  },
);

test('a 1 GiB body after a 401 is not read: the connection is closed at once', { timeout: 120_000 }, async () => {
  const GiB = 1024 ** 3;
  const route = '/script/CPU/test?gigabyte';
  const socket = connect(port(), '127.0.0.1');
  socket.on('error', () => undefined);
  let received = '';
  socket.on('data', (c: Buffer) => (received += c.toString('latin1')));
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  await new Promise<void>((r) => socket.once('connect', () => r()));
  socket.write(uploadHead(route, GiB));
  const chunk = Buffer.alloc(1024 * 1024, 0x61);
  let offered = 0;
  let open = true;
  void closed.then(() => (open = false));
  while (open && offered < GiB) {
    offered += chunk.length;
    if (!socket.write(chunk)) await Promise.race([new Promise((r) => socket.once('drain', r)), closed]);
  }
  await closed;
  const server = serverSockets.get(route);
  assert.ok(server, 'the request reached the server');
  assert.match(received, /^HTTP\/1\.1 401 /, received.slice(0, 200));
  assert.match(received, /\r\nconnection: close\r\n/i);
  // what the server read: the head and what came with it, not the gigabyte
  assert.ok(server.bytesRead < 8 * 1024 * 1024, `the server read ${server.bytesRead} bytes`);
  // what the client could hand over at all (the kernel's buffers included)
  assert.ok(socket.bytesWritten < 64 * 1024 * 1024, `the client wrote ${socket.bytesWritten} bytes before the close`);
});
