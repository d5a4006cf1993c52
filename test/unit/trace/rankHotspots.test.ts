// Hot spots of a multi-process profile per rank: each process's PC samples read on their own equal a one-process
// read of that rank's own files; ranks come from the runner's manifest, processes from the file names without it.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { hotspotsPath } from '../../../src/trace/pcSampling/hotspots';
import { summarizePath } from '../../../src/trace/index';
import { pcHotspotsSchema } from '../../../src/core/protocol/pcSampling';
import { renderProcessHotspots } from '../../../src/cli/render/hotspots';
import { tempDir } from './helpers';
import { GEMM, HOST, LAUNCHER_PID, RANKS, writeMultiRankRun } from './multiRankRun';

/** A folder holding only `files` (relative to `from`), as a one-process profile of that rank. */
function ownFolder(from: string, files: string[], name: string): string {
  const dir = tempDir(name);
  for (const f of files) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    copyFileSync(path.join(from, f), path.join(dir, f));
  }
  return dir;
}

test('hotspots of a multi-process profile: per rank (from the manifest), each equal to a read of its own files', async () => {
  const dir = tempDir('rank-hot');
  const files = writeMultiRankRun(dir, { manifest: true, pcSamples: true });
  const hot = pcHotspotsSchema.parse(await hotspotsPath(dir));
  const processes = hot.processes ?? [];
  // the manifest ranks in pid order; the launcher sampled nothing and is not listed
  assert.deepEqual(
    processes.map((p) => [p.rank, p.pid, p.host]),
    RANKS.map((r, i) => [i, r.pid, HOST]),
  );
  assert.ok(!processes.some((p) => p.pid === LAUNCHER_PID));
  assert.equal(
    processes.reduce((s, p) => s + p.samples, 0),
    hot.samples,
    'the ranks share out every sample of the whole',
  );
  for (const [i, r] of RANKS.entries()) {
    const p = processes[i]!;
    const own = await hotspotsPath(ownFolder(dir, files.get(r.pid)!, `rank-hot-${r.pid}`));
    assert.equal(own.processes, undefined, 'one process: no per-process section');
    assert.equal(p.samples, own.samples);
    assert.deepEqual(p.kernels, own.kernels);
    // the gemm's samples follow its duration: 3 dispatches of each case's ns / 100
    const gemm = p.kernels.find((k) => k.name === GEMM)!;
    assert.equal(gemm.samples, 3 * (r.gemmNs[0] / 100 + r.gemmNs[1] / 100));
  }
  // ranks differ: rank 0 (pid 3011) samples its gemm more than rank 1 (pid 3012)
  assert.notDeepEqual(processes[0]!.kernels, processes[1]!.kernels);

  const text = renderProcessHotspots(hot, { top: 2 }).join('\n');
  for (const [i, r] of RANKS.entries()) {
    const head = `Rank ${i} (pid ${r.pid}, ${HOST}): ${processes[i]!.samples} PC samples in 3 kernels`;
    assert.ok(text.includes(head), `${head}\nin\n${text}`);
  }
});

test('without a manifest: one entry per process from the file names, ranks unknown', async () => {
  const dir = tempDir('rank-hot-names');
  writeMultiRankRun(dir, { pcSamples: true });
  const hot = await hotspotsPath(dir);
  assert.deepEqual(
    hot.processes?.map((p) => [p.rank, p.pid]),
    RANKS.map((r) => [null, r.pid]).sort((a, b) => (a[1] as number) - (b[1] as number)),
  );
  assert.match(renderProcessHotspots(hot, { top: 1 }).join('\n'), /^Process pid 3011, mi300x8-node: /m);
});

test("without a manifest the summary's hot spots carry the ranks its rank table gives (GPU order), in rank order", async () => {
  const dir = tempDir('rank-hot-summary');
  writeMultiRankRun(dir, { pcSamples: true });
  const summary = await summarizePath(dir);
  const ranks = summary.ranks?.processes.filter((p) => p.rank !== null) ?? [];
  assert.equal(ranks.length, RANKS.length);
  const byPid = new Map(ranks.map((r) => [r.pid, r.rank]));
  const hot = summary.hotspots?.processes ?? [];
  assert.deepEqual(
    hot.map((p) => [p.rank, p.pid]),
    ranks.map((r) => [r.rank, r.pid]),
  );
  for (const p of hot) assert.equal(p.rank, byPid.get(p.pid), `pid ${p.pid}`);
  // the standalone reader, which builds no rank table, still knows them by pid only
  assert.ok((await hotspotsPath(dir)).processes?.every((p) => p.rank === null));
});

test('one process sampled: no per-process section', async () => {
  const dir = tempDir('rank-hot-one');
  const files = writeMultiRankRun(dir, { pcSamples: true });
  const hot = await hotspotsPath(ownFolder(dir, files.get(RANKS[0]!.pid)!, 'rank-hot-one-own'));
  assert.equal(hot.processes, undefined);
  assert.ok(hot.samples > 0);
});
