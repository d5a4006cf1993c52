import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunnerClientError } from '../../../src/core/client/errors';
import {
  EXTENSION_REGISTER_HINTS,
  GpuModeError,
  explainGpuModeError,
  parseRetryAfter,
  parseRetryAfterText,
  retryAfterMs,
} from '../../../src/core/gpumode/index';

const url = 'http://127.0.0.1:4000/user/submissions/7';
const http = (status: number, detail?: string) =>
  new RunnerClientError('http', `Request failed with status ${status}`, { method: 'GET', url, status, detail });

function explain(err: unknown, hints?: typeof EXTENSION_REGISTER_HINTS): GpuModeError {
  const e = explainGpuModeError(err, { hints });
  assert.ok(e instanceof GpuModeError);
  return e;
}

test('401 says the cli_id is not recognised and how to register again, naming method and URL', () => {
  const e = explain(http(401, 'Invalid or unauthorized X-Popcorn-Cli-Id'));
  assert.equal(e.type, 'unregistered');
  assert.match(e.message, /GET http:\/\/127\.0\.0\.1:4000\/user\/submissions\/7/);
  assert.match(e.message, /kernel-runner register discord --reset/);
  assert.match(explain(http(401), EXTENSION_REGISTER_HINTS).message, /Kernel Runner: Register with GPU MODE/);
});

test('400 without identity, 413, 429 with its wait, other 4xx with the detail, 5xx', () => {
  const missing = explain(http(400, 'Missing X-Popcorn-Cli-Id header'));
  assert.equal(missing.type, 'no-identity');
  assert.match(missing.message, /To register, run `kernel-runner register discord`/);
  const large = explain(http(413, 'Submission file is too large (limit: 1MB)'));
  assert.equal(large.type, 'too-large');
  assert.match(large.message, /at most 1 MB/);
  const limited = explain(Object.assign(http(429, 'Rate limit exceeded'), { retryAfterMs: 30_000 }));
  assert.equal(limited.type, 'rate-limited');
  assert.equal(limited.retryAfterMs, 30_000);
  assert.match(limited.message, /Try again in 30 s/);
  const bad = explain(http(400, 'Invalid GPU type MI301'));
  assert.equal(bad.type, 'bad-request');
  assert.match(bad.message, /\(400\) \(Invalid GPU type MI301\): GET http/);
  assert.equal(explain(http(502)).type, 'server');
  assert.equal(explain(new RunnerClientError('network', 'Cannot reach', { method: 'GET', url })).type, 'network');
  const other = new Error('bug');
  assert.equal(explainGpuModeError(other), other);
});

test('Retry-After: seconds or an HTTP date', () => {
  assert.equal(parseRetryAfter('3'), 3000);
  assert.equal(parseRetryAfter('1.5'), 1500);
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now), 10_000);
  assert.equal(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now), 0);
  assert.equal(parseRetryAfter('soon'), undefined);
  assert.equal(parseRetryAfter(undefined), undefined);
});

test('429 as GPU MODE sends it: no Retry-After header, the wait in its text ("Try again in 1234s.")', () => {
  const text = 'Rate limit exceeded: 3/3 leaderboard submissions per hour. Try again in 1234s.';
  const limited = explain(http(429, text));
  assert.equal(limited.type, 'rate-limited');
  assert.equal(limited.retryAfterMs, 1_234_000);
  assert.match(
    limited.message,
    /\(429\) \(Rate limit exceeded: 3\/3 leaderboard submissions per hour\. Try again in 1234s\.\): GET http[^ ]+\. Try again in 21 min\.$/,
  );
  assert.equal(retryAfterMs(http(429, text)), 1_234_000, 'the poller reads the same wait');
  const header = explain(Object.assign(http(429, text), { retryAfterMs: 5000 }));
  assert.equal(header.retryAfterMs, 5000, 'a Retry-After header wins over the text');
  assert.equal(explain(http(429, 'Rate limit exceeded')).retryAfterMs, undefined);
  assert.match(explain(http(429, 'Rate limit exceeded')).message, /Wait a little before trying again\.$/);
  assert.equal(
    explain(http(400, 'The bot is currently not accepting any new submissions, please try again later.')).retryAfterMs,
    undefined,
  );
});

test('the wait of a text: seconds as GPU MODE writes them, and other units', () => {
  assert.equal(parseRetryAfterText('Try again in 1234s.'), 1_234_000);
  assert.equal(parseRetryAfterText('Rate limit exceeded: 1/1 test submissions per hour. Try again in 0s.'), 0);
  assert.equal(parseRetryAfterText('try again in 30 seconds'), 30_000);
  assert.equal(parseRetryAfterText('Try again in 2 min'), 120_000);
  assert.equal(parseRetryAfterText('Try again in 1.5h'), 5_400_000);
  assert.equal(parseRetryAfterText('Try again in 250ms'), 250);
  assert.equal(parseRetryAfterText('please try again later'), undefined);
  assert.equal(parseRetryAfterText('Try again in 5 sheep'), undefined);
  assert.equal(parseRetryAfterText(undefined), undefined);
});
