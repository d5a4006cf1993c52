// readUpload on a real HTTP server on loopback: what it leaves behind once an upload is read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readUpload, type Upload } from '../../../src/runner/http/upload';

function timers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

test("a complete upload leaves no timer running (an embedded runner's process ends with its job, not a second later)", async () => {
  let got: Upload | null = null;
  const server: Server = createServer((req, res) => {
    readUpload(req, 1 << 20).then(
      (u) => {
        got = u;
        res.end('ok');
      },
      (err: Error) => res.writeHead(400).end(err.message),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const before = timers();
  try {
    const form = new FormData();
    form.append('file', new Blob(['print("hi")\n']), 'sub.py');
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
      method: 'POST',
      body: form,
      headers: { connection: 'close' },
    });
    assert.equal(await res.text(), 'ok');
    assert.equal((got as Upload | null)?.fileName, 'sub.py');
    assert.equal((got as Upload | null)?.bytes.toString(), 'print("hi")\n');
    // the request's end was seen (the answer came after it): its check is gone with the upload settled
    assert.equal(
      timers(),
      before,
      `timers before ${before}, after ${timers()}: ${process.getActiveResourcesInfo().join(',')}`,
    );
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test("form fields beside the file: our client's multipart body gives them back; a field given twice is a 400", async () => {
  const { multipartFile } = await import('../../../src/core/client/multipart');
  const { profileFormFields } = await import('../../../src/core/profileOptions');
  const results: Array<Upload | string> = [];
  const server: Server = createServer((req, res) => {
    readUpload(req, 1 << 20).then(
      (u) => {
        results.push(u);
        res.end('ok');
      },
      (err: Error & { status?: number }) => {
        results.push(err.message);
        res.writeHead(err.status ?? 500).end(err.message);
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  try {
    const fields = profileFormFields({
      counters: 'roofline',
      kernelRegex: 'a"b\r\n--x',
      caseIndex: 1,
      launches: '[1-2]',
    });
    const body = multipartFile('file', 'sub.py', 'print("hi")\n', fields);
    const res = await fetch(url, {
      method: 'POST',
      body: body.body,
      headers: { 'content-type': body.contentType, connection: 'close' },
    });
    assert.equal(res.status, 200);
    const got = results[0] as Upload;
    assert.deepEqual(
      { ...got.fields },
      { counters: 'roofline', kernel_regex: 'a"b\r\n--x', case: '1', kernel_iteration_range: '[1-2]' },
    );
    assert.equal(got.bytes.toString(), 'print("hi")\n');

    const twice = new FormData();
    twice.append('counters', 'roofline');
    twice.append('counters', 'off');
    twice.append('file', new Blob(['x']), 'sub.py');
    const refused = await fetch(url, { method: 'POST', body: twice, headers: { connection: 'close' } });
    assert.equal(refused.status, 400);
    assert.equal(results[1], "Form field 'counters' is given twice");
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
