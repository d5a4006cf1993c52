// A multi-process profile in rocpd databases read per rank: one merged database of several pids, and one
// `<pid>_results.db` per process, give each rank the numbers of a one-process read of that pid's rows alone.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { summarizePath } from '../../../src/trace/index';
import { traceSummarySchema, type TraceSummary } from '../../../src/core/protocol/traceSummary';
import { tempDir } from './helpers';
import { HOST, RANKS, assertRankTotalsAlone } from './multiRankRun';
import { writeRocpdRanks } from './multiRankRocpd';

type Rank = NonNullable<TraceSummary['ranks']>['processes'][number];

/** What a rank's row says, less the files it came from. */
function numbers(r: Rank): unknown {
  const { outputs: _outputs, ...rest } = r;
  return rest;
}

async function alone(spec: (typeof RANKS)[number]): Promise<TraceSummary> {
  const dir = tempDir(`rocpd-one-${spec.pid}`);
  writeRocpdRanks(path.join(dir, `${spec.pid}_results.db`), [spec]);
  const s = await summarizePath(dir);
  assert.equal(s.ranks, undefined, 'one process: no ranks section');
  return s;
}

function assertLikeAlone(rank: Rank | undefined, one: TraceSummary, agent: number): void {
  assert.ok(rank);
  assert.ok(rank.kernelCalls > 0);
  assertRankTotalsAlone(rank, one, agent);
  assert.equal(rank.cases.length, one.markers.length);
  assert.ok(rank.cases.length > 0);
  for (const m of one.markers) {
    const c: Rank['cases'][number] | undefined = rank.cases.find((x) => x.name === m.name);
    assert.equal(c?.rangeNs, m.totalNs, m.name);
    assert.equal(
      c?.kernelNs,
      m.kernels.reduce((n, k) => n + k.totalNs, 0),
    );
  }
}

test('one merged rocpd database of four pids reads as four ranks, each equal to its pid alone', async () => {
  const dir = tempDir('rocpd-merged');
  writeRocpdRanks(path.join(dir, 'merged_results.db'));
  const s = await summarizePath(dir);
  traceSummarySchema.parse(s);
  assert.ok(s.ranks, 'a ranks section');
  const byDevice = [...RANKS].sort((a, b) => a.agent - b.agent);
  assert.deepEqual(
    s.ranks.processes.map((p) => [p.rank, p.pid, p.host, p.agentIds]),
    byDevice.map((x, i) => [i, x.pid, HOST, [`Agent ${x.agent}`]]),
  );
  for (const p of s.ranks.processes) assert.deepEqual(p.outputs, ['merged_results.db']);
  // the whole run is every pid's rows together
  assert.equal(s.kernelTotals.calls, 18 * RANKS.length);
  for (const spec of RANKS)
    assertLikeAlone(
      s.ranks.processes.find((p) => p.pid === spec.pid),
      await alone(spec),
      spec.agent,
    );
  // pid 3011 (Agent 3, rank 2) computes longest in case 1, as in the CSV layout
  assert.match(s.ranks.imbalanceLine, /^4 ranks: rank 2 \(GPU 2\) is the slowest/);
});

test('per-process <pid>_results.db files group by pid and read as the merged database does', async () => {
  const dir = tempDir('rocpd-per-pid');
  mkdirSync(path.join(dir, HOST));
  for (const spec of RANKS) writeRocpdRanks(path.join(dir, HOST, `${spec.pid}_results.db`), [spec]);
  const s = await summarizePath(dir);
  traceSummarySchema.parse(s);
  assert.ok(s.ranks, 'a ranks section');
  assert.equal(s.ranks.from, 'files');
  assert.equal(s.ranks.processes.length, RANKS.length);
  for (const spec of RANKS) {
    const rank: Rank | undefined = s.ranks.processes.find((p) => p.pid === spec.pid);
    assert.deepEqual(rank?.outputs, [`${HOST}/${spec.pid}_results.db`]);
    assertLikeAlone(rank, await alone(spec), spec.agent);
  }
  const mergedDir = tempDir('rocpd-merged-again');
  writeRocpdRanks(path.join(mergedDir, 'merged_results.db'));
  const merged = await summarizePath(mergedDir);
  assert.deepEqual(s.ranks.processes.map(numbers), merged.ranks?.processes.map(numbers));
  assert.equal(s.ranks.imbalanceLine, merged.ranks?.imbalanceLine);
});

test("a merged database the runner's manifest lists for every process: each pid keeps its own rank", async () => {
  const dir = tempDir('rocpd-merged-manifest');
  writeRocpdRanks(path.join(dir, 'merged_results.db'));
  // ranks in pid order (not device order): the manifest's, not the devices'
  const processes = RANKS.map((r, i) => ({
    pid: r.pid,
    ppid: 3000,
    rank: i,
    devices: [r.agent - 1],
    outputs: ['merged_results.db'],
  }));
  writeFileSync(path.join(dir, 'kernel-runner-processes.json'), JSON.stringify({ version: 1, processes }));
  const s = await summarizePath(dir);
  assert.equal(s.ranks?.from, 'manifest');
  assert.deepEqual(
    s.ranks.processes.map((p) => [p.rank, p.pid, p.agentIds]).sort((a, b) => Number(a[0]) - Number(b[0])),
    RANKS.map((r, i) => [i, r.pid, [`Agent ${r.agent}`]]),
  );
  for (const spec of RANKS)
    assertLikeAlone(
      s.ranks.processes.find((p) => p.pid === spec.pid),
      await alone(spec),
      spec.agent,
    );
});
