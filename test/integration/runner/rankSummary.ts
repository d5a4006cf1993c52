// The read side of a multi-GPU profile of the bundled alltoall_py example, end to end, checked the same way for the
// loopback runner and Slurm: the built CLI's `summarize --json` of the downloaded archive has one rank a rank process,
// each rank's numbers equal to a one-process `summarize --json` of that rank's own files copied to a folder of their
// own, RCCL's SendRecv kernels counted as communication apart from compute, and the stand-in's slow rank (the
// middle one, rank 3 of 8) named in the imbalance line; the table output carries each rank's copies out and the
// matrix's GPUs named by rank (each rank's pairs, its GPU's row, not listed again), the digest the per-rank pairs.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ProcessManifest } from '../../../src/core/protocol/processManifest';
import { traceSummarySchema, type TraceRank, type TraceSummary } from '../../../src/core/protocol/traceSummary';
import { readZip } from './counterHelpers';
import { builtCli, tempDir } from './helpers';

const run = promisify(execFile);
const RCCL = /^ncclDevKernel_SendRecv\(/;

async function cli(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [builtCli(), ...args], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, NO_COLOR: '1' },
  });
  return stdout;
}

async function summarize(target: string): Promise<TraceSummary> {
  return traceSummarySchema.parse(JSON.parse(await cli('summarize', '--json', target)));
}

/**
 * A rank's GPU-to-GPU copies: as the stand-in writes them (test/bin/rocprofv3, RankShape.peer_copies), two copies to
 * every other rank's GPU from its own, 1-4 MiB each by the destination (rocpd, which the runner's profile holds, has
 * sizes); and equal to the one-process read of its own files.
 */
function checkPeerCopies(p: TraceRank, one: TraceSummary, worldSize: number): void {
  const others = Array.from({ length: worldSize }, (_, d) => d).filter((d) => d !== p.device);
  assert.deepEqual(
    p.peerCopies?.map((c) => [c.srcGpu, c.dstGpu, c.calls, c.bytes]),
    others.map((d) => [p.device, d, 2, 2 * (1 << 20) * (1 + (d % 4))]),
    `rank ${p.rank}: sends to every other rank's GPU`,
  );
  assert.ok(p.peerCopies?.every((c) => c.totalNs > 0));
  assert.deepEqual(p.peerCopies, one.peerCopies, `rank ${p.rank}: its pairs are a one-process read's`);
}

/** The slow rank the stand-in makes of a job of `worldSize` ranks (see test/bin/rocprofv3, RankShape). */
const slowRankOf = (worldSize: number): number => Math.floor((worldSize - 1) / 2);

export async function checkRanksEndToEnd(
  archive: Buffer,
  manifest: ProcessManifest,
  worldSize: number,
): Promise<TraceSummary> {
  const dir = tempDir('kr-ranks-');
  try {
    const zipPath = path.join(dir, 'profile.zip');
    writeFileSync(zipPath, archive);
    const whole = await summarize(zipPath);
    const ranks = whole.ranks;
    assert.ok(ranks, 'a multi-process profile is read per rank');
    assert.equal(ranks.from, 'manifest');
    const ranked = ranks.processes.filter((p) => p.rank !== null);
    assert.deepEqual(
      ranked.map((p) => p.rank),
      Array.from({ length: worldSize }, (_, r) => r),
      'one entry a rank, in rank order',
    );
    const files = await readZip(archive);
    for (const p of ranked) {
      const own = manifest.processes.find((m) => m.rank === p.rank)!;
      assert.equal(p.pid, own.pid);
      assert.equal(p.device, p.rank, `rank ${p.rank} on GPU ${p.rank}`);
      // the rank's own files alone, in a folder of their own
      const alone = path.join(dir, `rank-${p.rank}`);
      mkdirSync(alone);
      for (const out of own.outputs) writeFileSync(path.join(alone, path.basename(out)), files.get(out)!);
      const one = await summarize(alone);
      assert.equal(one.ranks, undefined, 'one process is not read per rank');
      assert.equal(p.kernelCalls, one.kernelTotals.calls, `rank ${p.rank}: kernel calls`);
      assert.equal(p.kernelNs, one.kernelTotals.totalNs, `rank ${p.rank}: kernel time`);
      const comm = one.kernels.filter((k) => RCCL.test(k.name));
      assert.equal(comm.length, 1, `rank ${p.rank}: RCCL's SendRecv in its own trace`);
      assert.equal(p.communicationNs, comm[0]!.totalNs, `rank ${p.rank}: communication = its SendRecv kernels`);
      assert.equal(p.computeNs, one.kernelTotals.totalNs - comm[0]!.totalNs, `rank ${p.rank}: compute = the rest`);
      assert.ok(p.computeNs > 0 && p.communicationNs > 0);
      const gpu = one.agents.filter((a) => a.type === 'GPU' && a.kernelCalls > 0);
      assert.equal(gpu.length, 1, `rank ${p.rank}: one GPU did its work`);
      assert.equal(p.busyNs, gpu[0]!.busyNs, `rank ${p.rank}: busy = its GPU's`);
      assert.equal(
        p.copyNs,
        one.memoryCopies.reduce((n, c) => n + c.totalNs, 0),
        `rank ${p.rank}: copies`,
      );
      checkPeerCopies(p, one, worldSize);
      const sendRecv = p.topKernels.find((k) => RCCL.test(k.name));
      assert.equal(sendRecv?.role, 'communication', `rank ${p.rank}: SendRecv is communication`);
      assert.ok(
        p.topKernels.filter((k) => k !== sendRecv).every((k) => k.role === 'compute'),
        `rank ${p.rank}: every other top kernel is compute`,
      );
    }
    const slow = slowRankOf(worldSize);
    const byCompute = [...ranked].sort((a, b) => b.computeNs - a.computeNs);
    assert.equal(byCompute[0]!.rank, slow, 'the stand-in stretched this rank');
    assert.equal(ranks.imbalance[0]?.name, null);
    assert.equal(ranks.imbalance[0]?.slowestRank, slow);
    assert.match(ranks.imbalanceLine, new RegExp(`\\brank ${slow}\\b`), 'the slowest rank is named');
    // the others waited for it inside their collectives
    const slowComm = ranked.find((p) => p.rank === slow)!.communicationNs;
    assert.ok(
      ranked.every((p) => p.rank === slow || p.communicationNs > slowComm),
      'every other rank communicates longer',
    );

    assert.deepEqual(
      whole.peerCopies,
      ranked
        .flatMap((p) => p.peerCopies ?? [])
        .sort((a, b) => (a.srcGpu ?? 0) - (b.srcGpu ?? 0) || (a.dstGpu ?? 0) - (b.dstGpu ?? 0)),
      "the profile's GPU-to-GPU matrix is every rank's pairs",
    );
    assert.equal(whole.peerCopies?.length, worldSize * (worldSize - 1), 'all to all');

    const table = await cli('summarize', zipPath);
    assert.ok(table.includes(`Load imbalance: ${ranks.imbalanceLine}`), table);
    assert.ok(!table.includes('GPU-to-GPU copies per rank'), `each rank's pairs are its GPU's matrix row:\n${table}`);
    for (const p of ranked) {
      const own = p.peerCopies ?? [];
      assert.deepEqual(
        p.peerCopiesOut,
        {
          calls: 2 * (worldSize - 1),
          totalNs: own.reduce((n, c) => n + c.totalNs, 0),
          bytes: own.reduce((n, c) => n + (c.bytes ?? 0), 0),
        },
        `rank ${p.rank}: its copies out are all its pairs (from its GPU)`,
      );
      assert.match(table, new RegExp(`\\n {2}GPU ${p.device} · rank ${p.rank} +(-|\\d)`), 'matrix rows name the rank');
    }
    assert.ok(
      table.includes(`GPU-to-GPU copies (${2 * worldSize * (worldSize - 1)} in ${worldSize * (worldSize - 1)} pairs)`),
      table,
    );
    const rankRows = table.split('\n').filter((l) => /^\s+\d+( \*)?\s+\d+\s+GPU \d+\s/.test(l));
    assert.equal(rankRows.length, worldSize, `one table row a rank:\n${table}`);
    assert.deepEqual(
      rankRows.filter((l) => /^\s+\d+ \*/.test(l)).map((l) => Number(/\d+/.exec(l)![0])),
      [slow],
      'the slowest rank is marked, alone',
    );

    const digest = JSON.parse(await cli('summarize', '--digest', zipPath)) as {
      ranks?: {
        imbalance: string;
        ranks: Array<{ rank: number | null; computeNs: number; communicationNs: number }>;
        peerCopies?: Array<{ rank?: number | null; from?: string; to?: string; totalNs?: number; more?: number }>;
      };
    };
    const longestPair = [...(whole.peerCopies ?? [])].sort((a, b) => b.totalNs - a.totalNs)[0]!;
    assert.deepEqual(
      digest.ranks?.peerCopies?.[0] && [digest.ranks.peerCopies[0].from, digest.ranks.peerCopies[0].to],
      [`GPU ${longestPair.srcGpu}`, `GPU ${longestPair.dstGpu}`],
      "the digest's pairs, the longest first",
    );
    assert.equal(digest.ranks?.imbalance, ranks.imbalanceLine);
    const first = digest.ranks.ranks[0]!;
    assert.equal(first.rank, slow, 'the digest lists the slowest rank first');
    assert.equal(first.computeNs, ranked.find((p) => p.rank === slow)!.computeNs);
    assert.ok(digest.ranks.ranks.length >= 2, 'more ranks than the slowest');
    return whole;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
