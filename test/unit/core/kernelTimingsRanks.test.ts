// The timing lens on a multi-process profile: a kernel every rank ran says "slowest rank r" where the ranks'
// averages differ, decided in core (addRankShares, timingsByIdentifier) from the summary's per-rank top kernels.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  addRankShares,
  rankTooltip,
  timingLensTitle,
  timingsByIdentifier,
  type ProfiledKernel,
} from '../../../src/core/kernelTimings';
import type { TraceRank, TraceRanks } from '../../../src/core/protocol/traceSummary';

const GEMM = 'void gemm_kernel<float>(float*, float const*, int)';
const SEND = 'ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)';

function rank(r: number | null, kernels: Array<[string, number, number]>): TraceRank {
  const kernelNs = kernels.reduce((n, [, , ns]) => n + ns, 0);
  return {
    rank: r,
    pid: 100 + (r ?? 99),
    ppid: 99,
    host: null,
    agentIds: r === null ? [] : [`Agent ${r + 2}`],
    device: r,
    outputs: [],
    kernelCalls: kernels.reduce((n, [, calls]) => n + calls, 0),
    kernelNs,
    computeNs: kernelNs,
    communicationNs: 0,
    communicationPercent: 0,
    copyNs: 0,
    busyNs: kernelNs,
    busyPercent: null,
    topKernels: kernels.map(([name, calls, totalNs]) => ({
      name,
      shortName: name,
      role: name === SEND ? 'communication' : 'compute',
      calls,
      totalNs,
      percent: (100 * totalNs) / kernelNs,
    })),
    copies: [],
    cases: [],
  };
}

function ranks(processes: TraceRank[]): TraceRanks {
  return { imbalanceLine: '', from: 'manifest', processes, imbalance: [] };
}

function merged(r: TraceRanks): ProfiledKernel[] {
  const byName = new Map<string, ProfiledKernel>();
  for (const p of r.processes)
    for (const k of p.topKernels) {
      const m = byName.get(k.name) ?? { name: k.name, calls: 0, totalNs: 0 };
      m.calls += k.calls;
      m.totalNs += k.totalNs;
      byName.set(k.name, m);
    }
  addRankShares(byName, r);
  return [...byName.values()];
}

test('a kernel slower on one rank: the lens names it, the hover gives both averages', () => {
  const r = ranks([
    rank(0, [
      [GEMM, 3, 30_000],
      [SEND, 2, 80_000],
    ]),
    rank(1, [
      [GEMM, 3, 51_000],
      [SEND, 2, 40_000],
    ]),
    rank(2, [
      [GEMM, 3, 30_300],
      [SEND, 2, 81_000],
    ]),
    rank(null, []),
  ]);
  const gemm = timingsByIdentifier(merged(r)).get('gemm_kernel')!;
  assert.deepEqual(gemm.slowestRank, { rank: 1, avgNs: 17_000, fastestAvgNs: 10_000 });
  assert.equal(timingLensTitle(gemm), '⏱ 12.4 µs avg · 9 calls · slowest rank 1');
  assert.equal(rankTooltip(gemm), 'Slowest on rank 1: 17.0 µs avg, fastest rank 10.0 µs.');
});

test('no rank named: ranks alike, a kernel missing from a rank, one rank, or no ranks at all', () => {
  const alike = ranks([rank(0, [[GEMM, 2, 20_000]]), rank(1, [[GEMM, 2, 20_001]])]);
  assert.equal(timingsByIdentifier(merged(alike)).get('gemm_kernel')!.slowestRank, undefined);
  assert.equal(timingLensTitle(timingsByIdentifier(merged(alike)).get('gemm_kernel')!), '⏱ 10.0 µs avg · 4 calls');
  // rank 1 does not list it: its time there is unknown, so no slowest can be told
  const missing = ranks([rank(0, [[GEMM, 2, 20_000]]), rank(1, [[SEND, 2, 90_000]]), rank(2, [[GEMM, 2, 50_000]])]);
  assert.equal(merged(missing).find((k) => k.name === GEMM)!.ranks, undefined);
  assert.equal(timingsByIdentifier(merged(missing)).get('gemm_kernel')!.slowestRank, undefined);
  const one = ranks([rank(0, [[GEMM, 2, 20_000]]), rank(null, [])]);
  assert.equal(timingsByIdentifier(merged(one)).get('gemm_kernel')!.slowestRank, undefined);
  assert.equal(
    timingsByIdentifier([{ name: GEMM, calls: 2, totalNs: 20_000 }]).get('gemm_kernel')!.slowestRank,
    undefined,
  );
});
