// sseFrame(), the one writer of server-sent events: what it writes reads back the same through the client's SSE
// reader (eventsource-parser) and the runner's event-log parser, with and without an id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EventSourceMessage } from 'eventsource-parser';
import { sseFrame } from '../../../src/core/protocol/sseFrame';
import { createSseReader } from '../../../src/core/client/sse';
import { parseFrame } from '../../../src/runner/eventLog';

test('the wire form: optional id, event, one data line, blank line', () => {
  assert.equal(sseFrame('status', '{"status":"processing"}'), 'event: status\ndata: {"status":"processing"}\n\n');
  assert.equal(sseFrame('output', '{"text":"x"}', 12), 'id: 12\nevent: output\ndata: {"text":"x"}\n\n');
});

test('frames read back through the client reader and the event log parser', () => {
  const data = JSON.stringify({ stream: 'stdout', text: 'ü 𝄞 "quoted"', noise: false });
  const got: EventSourceMessage[] = [];
  const reader = createSseReader({ onMessage: (m) => got.push(m) });
  reader.feed(sseFrame('output', data, 3) + sseFrame('result', '{}'));
  reader.end();
  assert.deepEqual(
    got.map((m) => [m.id, m.event, m.data]),
    [
      ['3', 'output', data],
      [undefined, 'result', '{}'],
    ],
  );
  assert.deepEqual(parseFrame(sseFrame('output', data, 3).slice(0, -2)), { id: 3, event: 'output', json: data });
});
