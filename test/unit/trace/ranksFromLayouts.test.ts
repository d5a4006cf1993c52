// Multi-process profiles in the layouts real runs write when each process is told to name its own output
// (layouts from rocprofv3's MPI guide, rocprofiler-sdk's multi-process tests and site guides, reproduced here in
// our own files): each process is one rank with its own numbers, none counted twice, none lost.
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { summarizePath } from '../../../src/trace/index';
import { traceSummarySchema } from '../../../src/core/protocol/traceSummary';
import { fixture, tempDir } from './helpers';

test('rocprof v1 per rank (`rocprof -o results_${RANK}.csv`): each rank one process, its stats files checks, not data', async () => {
  const dir = tempDir('v1-ranks');
  for (const rank of [0, 1])
    for (const kind of ['json', 'stats.csv', 'copy_stats.csv', 'hip_stats.csv'])
      copyFileSync(fixture(`HIP_Programming__results.${kind}`), path.join(dir, `results_${rank}.${kind}`));
  const one = await summarizePath(fixture('HIP_Programming__results.json'));
  const s = await summarizePath(dir);
  traceSummarySchema.parse(s);
  assert.equal(s.kernelTotals.calls, 2 * one.kernelTotals.calls, 'each rank counted once');
  assert.equal(s.kernelTotals.totalNs, 2 * one.kernelTotals.totalNs);
  assert.ok(s.ranks);
  assert.deepEqual(
    s.ranks.processes.map((p) => [p.rank, p.kernelCalls, p.kernelNs, p.outputs.filter((o) => o.endsWith('.json'))]),
    [
      [0, one.kernelTotals.calls, one.kernelTotals.totalNs, ['results_0.json']],
      [1, one.kernelTotals.calls, one.kernelTotals.totalNs, ['results_1.json']],
    ],
  );
  for (const rank of [0, 1])
    assert.ok(
      s.skipped.some((k) => k.path === `results_${rank}.stats.csv` && /cross-check/.test(k.reason)),
      `results_${rank}.stats.csv a check of its rank's trace`,
    );
});
