// The wording of GPU-to-GPU copies, shared by the CLI and the results webview (src/core/format/peerCopies.ts).
import assert from 'node:assert/strict';
import test from 'node:test';
import {
  gpuMatrix,
  gpuPairLabel,
  gpuRankLabel,
  peerCopyText,
  rankOfAgent,
  rankOfGpu,
  rankPairsBeyondMatrix,
  type GpuPair,
  type RankGpus,
} from '../../../src/core/format/index';

const pair = (src: number | null, dst: number | null, extra: Partial<GpuPair> = {}): GpuPair => ({
  srcAgentId: `Agent ${src ?? 9}`,
  dstAgentId: `Agent ${dst ?? 9}`,
  srcGpu: src,
  dstGpu: dst,
  calls: 12,
  totalNs: 1_200_000,
  bytes: 48 * 1024 * 1024,
  ...extra,
});

test('a pair reads "GPU 0 → GPU 3: 12 copies, 48.0 MiB, 1.20 ms"; no bytes from CSV; an unknown end by its agent', () => {
  assert.equal(peerCopyText(pair(0, 3)), 'GPU 0 → GPU 3: 12 copies, 48.0 MiB, 1.20 ms');
  assert.equal(peerCopyText(pair(1, 2, { calls: 1, totalNs: 200, bytes: null })), 'GPU 1 → GPU 2: 1 copy, 200 ns');
  assert.equal(gpuPairLabel(pair(null, 2)), 'Agent 9 → GPU 2');
  assert.equal(peerCopyText(pair(0, 1, { calls: 1234 })), 'GPU 0 → GPU 1: 1,234 copies, 48.0 MiB, 1.20 ms');
});

test('the matrix: every GPU of either end in order, each pair at its cell; none when it would mislead', () => {
  const m = gpuMatrix([pair(3, 0), pair(0, 3), pair(1, 1)], 16);
  assert.ok(m);
  assert.deepEqual(m.gpus, [0, 1, 3]);
  assert.equal(m.at(3, 0)?.srcGpu, 3);
  assert.equal(m.at(0, 1), undefined);
  assert.equal(gpuMatrix([pair(0, 1), pair(null, 1)], 16), null, 'an end that is not a known GPU');
  // two hosts' GPU 0 → GPU 1 are two pairs at one cell
  assert.equal(gpuMatrix([pair(0, 1), pair(0, 1, { srcAgentId: 'b/Agent 2', dstAgentId: 'b/Agent 3' })], 16), null);
  const seventeen = Array.from({ length: 16 }, (_, i) => pair(0, i + 1));
  assert.equal(gpuMatrix(seventeen, 16), null, 'more GPUs than the widest matrix');
  assert.equal(gpuMatrix(seventeen.slice(1), 16)?.gpus.length, 16);
  assert.equal(gpuMatrix([], 16), null);
});

/** An all-to-all of `gpus` GPUs, rank r on GPU r sending to every other: the ranks and the whole profile's matrix. */
function allToAll(gpus: number): { processes: RankGpus[]; pairs: GpuPair[] } {
  const processes: RankGpus[] = Array.from({ length: gpus }, (_, r) => ({
    rank: r as number | null,
    device: r as number | null,
    agentIds: [`Agent ${r + 2}`],
    peerCopies: Array.from({ length: gpus }, (_, d) => d)
      .filter((d) => d !== r)
      .map((d) => pair(r, d, { totalNs: 1000 + 10 * r + d })),
  }));
  const launcher: RankGpus = { rank: null, device: null, agentIds: [] };
  return { processes: [...processes, launcher], pairs: processes.flatMap((p) => p.peerCopies ?? []) };
}

test("per-rank pairs: left out when each is its own GPU's row of the matrix, listed when they say who sent", () => {
  const { processes, pairs } = allToAll(8);
  assert.equal(pairs.length, 56);
  assert.equal(rankPairsBeyondMatrix(processes, pairs), false, "MI300x8, one rank a GPU: the matrix's rows");
  assert.deepEqual(
    [...rankOfGpu(processes)].sort(),
    [0, 1, 2, 3, 4, 5, 6, 7].map((g) => [g, g]),
  );
  // ranks are not their GPUs' numbers: still the matrix's rows, named by their rank
  const shifted = processes.map((p): RankGpus => (p.rank === null ? p : { ...p, rank: (p.rank + 3) % 8 }));
  assert.equal(rankPairsBeyondMatrix(shifted, pairs), false);
  assert.equal(rankOfGpu(shifted).get(0), 3);

  const listed = (why: string, ps: readonly RankGpus[], ws: readonly GpuPair[] = pairs) =>
    assert.equal(rankPairsBeyondMatrix(ps, ws), true, why);
  listed(
    'a rank drives two GPUs',
    processes.map((p, i) => (i === 2 ? { ...p, agentIds: ['Agent 4', 'Agent 5'] } : p)),
  );
  listed('a rank on an unknown GPU', [...processes, { rank: 8, device: null, agentIds: [] }]);
  // each case below differs from the all-to-all in that one way
  const noRow1 = pairs.filter((w) => w.srcGpu !== 1);
  listed(
    "two ranks on one GPU: the matrix's row could be either's",
    processes.map((p, i) => (i === 1 ? { rank: 1, device: 0, agentIds: ['Agent 2'] } : p)),
    noRow1,
  );
  listed(
    'a pair pulled from another GPU',
    processes.map((p, i) =>
      i === 0
        ? { ...p, peerCopies: p.peerCopies!.filter((c) => c.dstGpu !== 1) }
        : i === 1
          ? { ...p, peerCopies: [pair(0, 1)] }
          : p,
    ),
    [...noRow1.filter((w) => !(w.srcGpu === 0 && w.dstGpu === 1)), pair(0, 1)],
  );
  listed(
    "a launcher's copies",
    processes.map((p) => (p.rank === null ? { ...p, peerCopies: [pair(0, 0)] } : p)),
    [...pairs, pair(0, 0)],
  );
  listed('a matrix pair no rank made', processes, [...pairs, pair(0, 0)]);
  listed(
    'numbers that differ from the matrix',
    processes,
    pairs.map((w, i) => (i === 5 ? { ...w, calls: 99 } : w)),
  );
  listed('no matrix: an end that is not a known GPU', processes, [...pairs.slice(1), { ...pairs[0]!, dstGpu: null }]);
  const wide = allToAll(17);
  listed('no matrix: more GPUs than it draws', wide.processes, wide.pairs);
  assert.equal(
    rankPairsBeyondMatrix(
      processes.map(({ peerCopies: _, ...p }) => p),
      [],
    ),
    false,
    'no pairs at all: nothing to list',
  );
  assert.equal(rankOfGpu(processes.map((p, i) => (i === 1 ? { ...p, device: 0 } : p))).has(0), false, 'shared');
});

test('rank labels of agents: a rank per GPU, two ranks on one GPU both named, launchers left out', () => {
  const labels = rankOfAgent([
    { rank: 0, agentIds: ['Agent 1'] },
    { rank: 1, agentIds: ['Agent 2'] },
    { rank: 2, agentIds: ['Agent 2'] },
    { rank: 3, agentIds: ['Agent 3', 'Agent 4'] },
    { rank: null, agentIds: ['Agent 5'] },
  ]);
  assert.deepEqual(
    [...labels],
    [
      ['Agent 1', 'rank 0'],
      ['Agent 2', 'rank 1, 2'],
      ['Agent 3', 'rank 3'],
      ['Agent 4', 'rank 3'],
    ],
  );
});

test('a GPU the rank labels name reads `GPU 3 · rank 3`; one they leave out (shared, unknown) stays `GPU n`', () => {
  const rankOf = rankOfGpu([
    { rank: 3, device: 3, agentIds: ['Agent 5'] },
    { rank: 1, device: 1, agentIds: ['Agent 3'] },
    { rank: 2, device: 1, agentIds: ['Agent 3'] },
  ]);
  assert.equal(gpuRankLabel(3, rankOf), 'GPU 3 · rank 3');
  assert.equal(gpuRankLabel(1, rankOf), 'GPU 1');
  assert.equal(gpuRankLabel(7, rankOf), 'GPU 7');
});
