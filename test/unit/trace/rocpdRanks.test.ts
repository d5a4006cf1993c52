// A multi-process profile in rocpd databases read per rank: one merged database of several pids, and one
// `<pid>_results.db` per process, give each rank the numbers of a one-process read of that pid's rows alone.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { summarizePath } from '../../../src/trace/index';
import { traceSummarySchema, type TraceSummary } from '../../../src/core/protocol/traceSummary';
import { tempDir } from './helpers';
import { A2A, CASES, GEMM, HOST, RANKS, assertRankTotalsAlone, writeMultiRankRun } from './multiRankRun';
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

type Roofline = NonNullable<Rank['roofline']>;

/** A roofline less the file it was read from (a merged database's, a pid's own, a CSV). */
function points(r: Roofline | undefined): unknown {
  assert.ok(r, 'a roofline');
  const { source, ...rest } = r;
  return { ...rest, arch: source.arch };
}

const byPid = (s: TraceSummary, pid: number): Rank | undefined => s.ranks?.processes.find((p) => p.pid === pid);

test('a merged rocpd database with counters: each pid its own roofline, per kernel and per rocTX case, as its own database gives it', async () => {
  const dir = tempDir('rocpd-merged-pmc');
  writeRocpdRanks(path.join(dir, 'merged_results.db'), RANKS, { counters: true });
  const merged = await summarizePath(dir);
  traceSummarySchema.parse(merged);
  const perPidDir = tempDir('rocpd-per-pid-pmc');
  mkdirSync(path.join(perPidDir, HOST));
  for (const spec of RANKS)
    writeRocpdRanks(path.join(perPidDir, HOST, `${spec.pid}_results.db`), [spec], { counters: true });
  const perPid = await summarizePath(perPidDir);
  assert.equal(merged.roofline?.kernels.find((k) => k.name === GEMM)?.dispatches, 6 * RANKS.length);
  assert.deepEqual(points(merged.roofline), points(perPid.roofline));
  for (const spec of RANKS) {
    const own = byPid(merged, spec.pid)?.roofline;
    assert.deepEqual(own?.source, { format: 'rocpd-db', path: 'merged_results.db', arch: 'gfx942' });
    assert.equal(byPid(perPid, spec.pid)?.roofline?.source.path, `${HOST}/${spec.pid}_results.db`);
    assert.deepEqual(points(own), points(byPid(perPid, spec.pid)?.roofline), `pid ${spec.pid}`);
    // its gemm dispatches are its 1st, 4th and 7th of each case (18 in all): L1 accesses 100 * agent + dispatch
    const gemm = own?.kernels.find((k) => k.name === GEMM);
    assert.equal(gemm?.dispatches, 6);
    assert.equal(gemm?.l1Bytes, (100 * spec.agent + (1 + 4 + 7 + 10 + 13 + 16) / 6) * 64);
    assert.equal(gemm?.durationNs, (spec.gemmNs[0] + spec.gemmNs[1]) / 2);
    assert.deepEqual(
      own?.ranges.map((g) => [g.name, g.kernels.find((k) => k.name === GEMM)?.l1Bytes]),
      CASES.map((name, c) => [name, (100 * spec.agent + 4 + 9 * c) * 64]),
    );
    assert.equal(
      own?.ranges[1]?.kernels.find((k) => k.name === A2A)?.l1Bytes,
      (100 * spec.agent + (11 + 14 + 17) / 3) * 64,
    );
  }
  // the whole profile's cases: every pid's dispatches of the case
  const agents = RANKS.reduce((n, r) => n + r.agent, 0) / RANKS.length;
  assert.deepEqual(
    merged.roofline?.ranges.map((g) => [g.name, g.kernels.find((k) => k.name === GEMM)?.dispatches]),
    CASES.map((name) => [name, 3 * RANKS.length]),
  );
  assert.equal(merged.roofline?.ranges[0]?.kernels.find((k) => k.name === GEMM)?.l1Bytes, (100 * agents + 4) * 64);
});

test('rocpd counters per rank and per rocTX case equal the CSV layout of the same profile (counter_collection.csv)', async () => {
  const dbDir = tempDir('rocpd-pmc-vs-csv');
  writeRocpdRanks(path.join(dbDir, 'merged_results.db'), RANKS, { counters: true });
  const fromDb = await summarizePath(dbDir);
  const csvDir = tempDir('csv-pmc-vs-db');
  writeMultiRankRun(csvDir, { counters: true });
  const fromCsv = await summarizePath(csvDir);
  assert.equal(fromCsv.roofline?.source.format, 'counter-collection');
  assert.equal(fromCsv.roofline?.ranges.length, CASES.length);
  assert.deepEqual(points(fromDb.roofline), points(fromCsv.roofline));
  for (const spec of RANKS) {
    const csv = byPid(fromCsv, spec.pid)?.roofline;
    assert.equal(csv?.source.path, `${HOST}/${spec.pid}_counter_collection.csv`);
    assert.deepEqual(points(byPid(fromDb, spec.pid)?.roofline), points(csv), `pid ${spec.pid}`);
  }
  assert.deepEqual(fromDb.speedOfLight?.ranges, fromCsv.speedOfLight?.ranges);
});
