import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventDecodeError, decodeEvent } from '../../../src/core/client/events';
import { RunnerClientError, displayUrl, isRetryable, redact } from '../../../src/core/client/errors';

test('decodes a known event with its id and typed data', () => {
  const event = decodeEvent({
    id: '12',
    event: 'output',
    data: '{"stream":"stderr","text":"hi","noise":true,"kind":"perfetto"}',
  });
  assert.deepEqual(event, {
    id: 12,
    event: 'output',
    data: { stream: 'stderr', text: 'hi', noise: true, kind: 'perfetto' },
  });
});

test('upstream events without an id decode with id undefined', () => {
  const event = decodeEvent({ event: 'status', data: '{"status":"processing","elapsed_time":1.5}' });
  assert.equal(event?.id, undefined);
  assert.equal(event?.event, 'status');
});

test('unknown event names are skipped, not errors', () => {
  assert.equal(decodeEvent({ event: 'progress', data: '{}' }), undefined);
  assert.equal(decodeEvent({ data: '{}' }), undefined);
});

test('bad JSON, a bad shape or a bad id are decode errors naming the event', () => {
  assert.throws(
    () => decodeEvent({ event: 'result', data: '{not json' }),
    (e: unknown) => e instanceof EventDecodeError && /result/.test(e.message),
  );
  assert.throws(
    () => decodeEvent({ event: 'output', data: '{"stream":"stdout"}' }),
    (e: unknown) => e instanceof EventDecodeError && /text/.test(e.message),
  );
  assert.throws(
    () => decodeEvent({ id: 'x', event: 'output', data: '{"stream":"stdout","text":"","noise":false}' }),
    EventDecodeError,
  );
});

test('error messages name method and URL and hide credentials', () => {
  const url = displayUrl('http://user:secretpw@127.0.0.1:8787/jobs/1?token=abcd1234&after=3');
  assert.ok(!url.includes('secretpw') && !url.includes('abcd1234'));
  assert.match(url, /after=3/);
  const err = new RunnerClientError('http', 'Request failed with status 401', {
    method: 'post',
    url,
    status: 401,
    detail: redact('bad token abcd1234', ['abcd1234']),
  });
  assert.match(err.message, /^Request failed with status 401: POST http:\/\/127\.0\.0\.1:8787\/jobs\/1/);
  assert.ok(!err.message.includes('abcd1234'));
  assert.equal(err.type, 'http');
});

test('retryable: network, timeout, 5xx and 429; not 4xx, protocol or cancelled', () => {
  const mk = (type: 'http' | 'network' | 'protocol' | 'cancelled' | 'timeout', status?: number) =>
    new RunnerClientError(type, 's', { method: 'GET', url: 'http://x/', status });
  assert.equal(isRetryable(mk('network')), true);
  assert.equal(isRetryable(mk('timeout')), true);
  assert.equal(isRetryable(mk('http', 503)), true);
  assert.equal(isRetryable(mk('http', 429)), true);
  assert.equal(isRetryable(mk('http', 404)), false);
  assert.equal(isRetryable(mk('protocol')), false);
  assert.equal(isRetryable(mk('cancelled')), false);
  assert.equal(isRetryable(new Error('x')), false);
});
