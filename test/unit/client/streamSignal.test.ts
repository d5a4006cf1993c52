// The caller's AbortSignal is shared by every reconnection attempt of a follow: a failed attempt must not leave
// a listener on it (after 11, Node prints a MaxListenersExceededWarning to the user's terminal).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTransport } from '../../../src/core/client/http';
import { RunnerClientError } from '../../../src/core/client/errors';

test("stream: a connection that fails leaves no listener on the caller's signal", async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));

  const transport = createTransport({ baseUrl: `http://127.0.0.1:${port}` });
  const controller = new AbortController();
  for (let i = 0; i < 3; i++) {
    await assert.rejects(transport.stream('GET', '/jobs/1/events', { signal: controller.signal }), (err: unknown) => {
      assert.ok(err instanceof RunnerClientError);
      assert.equal(err.type, 'network');
      return true;
    });
  }
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
});
