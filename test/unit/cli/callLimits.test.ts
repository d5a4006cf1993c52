// The MCP server's bound on a tool call: past its limit, or when the client cancels, the call answers with an error
// at once and the work's signal is aborted (so what it holds is let go), whether or not the work ever ends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boundCall, callLimitMs } from '../../../src/cli/mcp/callLimits';

/** Work that never ends by itself: it only notices its signal. */
function stuck(seen: { aborted?: unknown }) {
  return (signal: AbortSignal) =>
    new Promise<never>(() => signal.addEventListener('abort', () => (seen.aborted = signal.reason), { once: true }));
}

test('past its limit a call answers with the limit, and its work is told to stop', async () => {
  const seen: { aborted?: unknown } = {};
  await assert.rejects(boundCall('compare', 5, new AbortController().signal, stuck(seen)), (err: Error) => {
    assert.match(err.message, /^compare: stopped after its time limit of 5 ms \(nothing of it is kept\)$/);
    return true;
  });
  assert.ok(seen.aborted instanceof Error);
});

test('a submit past its limit says its job was cancelled; get_run says the run goes on', async () => {
  await assert.rejects(boundCall('submit', 1, new AbortController().signal, stuck({})), /the job was cancelled/);
  await assert.rejects(boundCall('get_run', 1, new AbortController().signal, stuck({})), /call get_run again/);
});

test('a cancelled call answers at once, before its limit, and its work is told to stop', async () => {
  const outer = new AbortController();
  const seen: { aborted?: unknown } = {};
  const call = boundCall('isa', 3_600_000, outer.signal, stuck(seen));
  outer.abort();
  await assert.rejects(call, /^CallLimitError: isa: cancelled$|isa: cancelled/);
  assert.ok(seen.aborted instanceof Error);
});

test('work that ends in time answers with its value, and its signal stays quiet', async () => {
  let signal: AbortSignal | undefined;
  const value = await boundCall('isa', 3_600_000, new AbortController().signal, async (s) => {
    signal = s;
    return 42;
  });
  assert.equal(value, 42);
  assert.equal(signal?.aborted, false);
});

test('each tool has its limit; KERNEL_RUNNER_MCP_TIME_LIMIT_S lowers them all, never raises one', () => {
  assert.equal(callLimitMs('submit', {}), 120 * 60_000);
  assert.equal(callLimitMs('profile_digest', {}), 10 * 60_000);
  assert.equal(callLimitMs('submit', { KERNEL_RUNNER_MCP_TIME_LIMIT_S: '30' }), 30_000);
  assert.equal(callLimitMs('isa', { KERNEL_RUNNER_MCP_TIME_LIMIT_S: '100000' }), 10 * 60_000);
  assert.equal(callLimitMs('isa', { KERNEL_RUNNER_MCP_TIME_LIMIT_S: 'soon' }), 10 * 60_000);
});
