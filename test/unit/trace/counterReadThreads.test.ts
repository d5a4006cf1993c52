// A counter collection is read in one pass on two cores or fewer unless KERNEL_RUNNER_TRACE_THREADS says otherwise
// (traceWorkerPool.ts counterReadThreads: measured slower in parallel there), and by the default threads above.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { counterReadThreads, defaultThreads } from '../../../src/trace/traceWorkerPool';

test('counter read threads: none by default on two cores or fewer, the default threads above, the setting always', () => {
  const cores = availableParallelism();
  assert.equal(counterReadThreads({}), cores <= 2 ? 0 : defaultThreads({}));
  assert.equal(counterReadThreads({ KERNEL_RUNNER_TRACE_THREADS: '3' }), 3);
  assert.equal(counterReadThreads({ KERNEL_RUNNER_TRACE_THREADS: '0' }), 0);
  assert.equal(counterReadThreads({ KERNEL_RUNNER_TRACE_THREADS: '9' }), 4, 'at most 4, as every read');
});
