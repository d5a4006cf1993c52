// Issue 27 item 4: a counter collection whose one dispatch has 160,000 distinct counters, each row with its own
// timing (a hostile job's output; the read was quadratic, 95 s). The summary keeps the first counters and
// timings and folds or leaves out the rest, saying so; the dispatch is counted once. No timing is asserted here
// (bench/counters.bench.ts prints the 40,000 vs 160,000 ratio).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { summarizePath } from '../../../src/trace/index';
import { MAX_DISTINCT_NAMES, MAX_PASS_TIMINGS } from '../../../src/trace/limits';
import { FOLDED_NAMES } from '../../../src/trace/keyLimits';
import { tempDirsRemovedAfter } from '../../support/tempDirs';
import { writeManyCountersOneDispatch } from '../../support/hostileProfiles';

const tempDir = tempDirsRemovedAfter('kr-many-counters-');

test('160,000 distinct counters on one dispatch: the counters past the limit folded, the timings bounded, both said', async () => {
  const dir = tempDir('one-dispatch');
  await writeManyCountersOneDispatch(dir, 160_000);
  const summary = await summarizePath(dir);

  const kernels = summary.counters ?? [];
  assert.equal(kernels.length, 1);
  const kernel = kernels[0] as (typeof kernels)[number];
  assert.equal(kernel.dispatches, 1, 'the one dispatch is counted once');
  assert.equal(kernel.counters.length, MAX_DISTINCT_NAMES + 1, 'the first counters kept, the rest in one row');
  const folded = kernel.counters.find((c) => c.name === FOLDED_NAMES);
  assert.equal(folded?.dispatches, 160_000 - MAX_DISTINCT_NAMES, 'every folded row counted there');
  assert.equal(kernel.counters.find((c) => c.name === 'HOSTILE_0')?.mean, 0.5);

  assert.ok(
    summary.warnings.some(
      (w) => w.includes(`more than ${MAX_DISTINCT_NAMES} distinct counter names`) && w.includes(FOLDED_NAMES),
    ),
    summary.warnings.join('\n'),
  );
  assert.ok(
    summary.warnings.some((w) => w.includes(`more than ${MAX_PASS_TIMINGS} distinct timings`)),
    summary.warnings.join('\n'),
  );
  const row = summary.kernels.find((k) => k.name === 'hostile_kernel()');
  assert.equal(row?.calls, 1, 'one call in the kernel table, not one per counter');
});
