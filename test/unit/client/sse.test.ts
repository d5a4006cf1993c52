import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EventSourceMessage } from 'eventsource-parser';
import { SseLimitError, createSseReader } from '../../../src/core/client/sse';

const STREAM =
  ': a comment line\n' +
  'id: 1\nevent: job\ndata: {"job_id":7,"leaderboard":"script","gpu":"CPU","mode":"test","queue_position":0}\n\n' +
  'id: 2\r\nevent: output\r\ndata: {"stream":"stdout","text":"mean 12.5 µs — ok ✓ 🚀","noise":false}\r\n\r\n' +
  'id: 3\nevent: output\ndata: {"stream":"stderr",\ndata: "text":"two data lines","noise":true}\n\n' +
  'retry: 1500\n\n' +
  'id: 4\nevent: result\ndata: {"status":"success","results":[],"reports":[]}\n\n';

function collect(feed: (reader: ReturnType<typeof createSseReader>) => void): EventSourceMessage[] {
  const out: EventSourceMessage[] = [];
  const reader = createSseReader({ onMessage: (m) => out.push(m) });
  feed(reader);
  reader.end();
  return out;
}

function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

test('parses a whole stream into messages with ids, names and joined data lines', () => {
  const messages = collect((r) => r.feed(STREAM));
  assert.deepEqual(
    messages.map((m) => [m.id, m.event]),
    [
      ['1', 'job'],
      ['2', 'output'],
      ['3', 'output'],
      ['4', 'result'],
    ],
  );
  assert.equal(JSON.parse(messages[1]!.data).text, 'mean 12.5 µs — ok ✓ 🚀');
  assert.equal(JSON.parse(messages[2]!.data).text, 'two data lines');
});

test('byte chunks split at random places (inside multi-byte characters too) give the same messages', () => {
  const whole = collect((r) => r.feed(STREAM));
  const bytes = new TextEncoder().encode(STREAM);
  const random = seeded(42);
  for (let round = 0; round < 200; round++) {
    const pieces: Uint8Array[] = [];
    for (let at = 0; at < bytes.length;) {
      const size = 1 + Math.floor(random() * 9);
      pieces.push(bytes.subarray(at, at + size));
      at += size;
    }
    assert.deepEqual(
      collect((r) => pieces.forEach((p) => r.feed(p))),
      whole,
      `round ${round}`,
    );
  }
});

test('one byte at a time still works', () => {
  const bytes = new TextEncoder().encode(STREAM);
  const messages = collect((r) => bytes.forEach((_b, i) => r.feed(bytes.subarray(i, i + 1))));
  assert.equal(messages.length, 4);
  assert.equal(JSON.parse(messages[1]!.data).text, 'mean 12.5 µs — ok ✓ 🚀');
});

test('an unterminated last event is not delivered', () => {
  const messages = collect((r) => r.feed('id: 1\nevent: output\ndata: {"a":1}\n\nid: 2\nevent: output\ndata: {"half'));
  assert.deepEqual(
    messages.map((m) => m.id),
    ['1'],
  );
});

test('reset forgets a partial event from a previous connection', () => {
  const out: EventSourceMessage[] = [];
  const reader = createSseReader({ onMessage: (m) => out.push(m) });
  reader.feed('id: 5\nevent: output\ndata: {"cut":');
  reader.reset();
  reader.feed('id: 5\nevent: output\ndata: {"whole":true}\n\n');
  assert.deepEqual(
    out.map((m) => m.data),
    ['{"whole":true}'],
  );
});

test('an event over the size limit throws a typed error', () => {
  const reader = createSseReader({ onMessage: () => undefined, maxEventSize: 1000 });
  assert.throws(
    () => reader.feed(`event: output\ndata: ${'x'.repeat(5000)}`),
    (err: unknown) => err instanceof SseLimitError && err.type === 'max-event-size',
  );
});

test('reports retry hints', () => {
  const retries: number[] = [];
  const reader = createSseReader({ onMessage: () => undefined, onRetry: (ms) => retries.push(ms) });
  reader.feed('retry: 2500\n\n');
  assert.deepEqual(retries, [2500]);
});
