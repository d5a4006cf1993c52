// A multi-process profile read per rank: each rank's numbers equal a one-process read of its own files, the
// collectives apart from compute, the slowest rank named first; the runner's manifest wins over the file names.
import assert from 'node:assert/strict';
import { copyFileSync, createWriteStream, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import test from 'node:test';
import { ZipArchive } from 'archiver';
import { summarizePath } from '../../../src/trace/index';
import type { ParallelRun } from '../../../src/trace/parallelKernelTrace';
import { renderTraceTables } from '../../../src/cli/render/traceTables';
import { traceSummarySchema, type RankCase, type TraceSummary } from '../../../src/core/protocol/traceSummary';
import { communicationLibrary, kernelRole } from '../../../src/trace/kernelRole';
import Ajv from 'ajv';
import { compareSummaries } from '../../../src/trace/compare';
import { renderComparison } from '../../../src/cli/render/compareTables';
import { traceComparisonSchema } from '../../../src/core/protocol/traceComparison';
import { buildDigest, digestText, isMore } from '../../../src/trace/digest/index';
import { repoRoot, tempDir } from './helpers';
import {
  A2A,
  CASES,
  GEMM,
  HOST,
  LAUNCHER_PID,
  RANKS,
  RCCL,
  assertRankTotalsAlone,
  writeMultiRankRun,
} from './multiRankRun';

function ranksOf(s: TraceSummary): NonNullable<TraceSummary['ranks']> {
  assert.ok(s.ranks, 'the summary has a ranks section');
  return s.ranks;
}

test('communication kernels are told from compute by name, in one place', () => {
  assert.equal(communicationLibrary(RCCL), 'rccl');
  assert.equal(communicationLibrary('_Z13ncclKernel_AllReduce_RING_LL_Sum_floatP14ncclDevComm'), 'rccl');
  assert.equal(communicationLibrary('void rocshmem::internal::put_kernel(int*)'), 'rocshmem');
  assert.equal(communicationLibrary(A2A), 'own');
  assert.equal(communicationLibrary('cross_device_reduce_1stage<half, 8>(RankData*)'), 'own');
  assert.equal(kernelRole(GEMM), 'compute');
  assert.equal(kernelRole('void at::native::reduce_kernel<512, 1>(ReduceOp)'), 'compute');
  assert.equal(kernelRole('void at::native::vectorized_elementwise_kernel<4, gather_kernel>()'), 'compute');
});

test('a folder of per-process CSV sets: ranks by device, the launcher listed but not a rank', async () => {
  const dir = tempDir('ranks');
  writeMultiRankRun(dir);
  const s = await summarizePath(dir);
  traceSummarySchema.parse(s);
  const r = ranksOf(s);
  assert.equal(r.from, 'files');
  const byDevice = [...RANKS].sort((a, b) => a.agent - b.agent);
  assert.deepEqual(
    r.processes.map((p) => [p.rank, p.pid, p.device, p.agentIds]),
    [...byDevice.map((x, i) => [i, x.pid, x.agent - 1, [`Agent ${x.agent}`]]), [null, LAUNCHER_PID, null, []]],
  );
  const launcher = r.processes.at(-1);
  assert.deepEqual(launcher?.outputs, [`${HOST}/${LAUNCHER_PID}_agent_info.csv`]);
  // pid 3011 (Agent 3: rank 2) computes longest, in case 1, 46% over the median
  const rank2 = byDevice.findIndex((x) => x.pid === 3011);
  const case1 = r.imbalance.find((c) => c.name === CASES[1]);
  assert.equal(case1?.slowestRank, rank2);
  assert.equal(case1?.slowestNs, 9000);
  assert.equal(case1?.medianNs, 6150);
  assert.match(
    r.imbalanceLine,
    new RegExp(
      `^4 ranks: rank ${rank2} \\(GPU 2\\) is the slowest in 1 of 2 cases; worst "${CASES[1]}": rank ${rank2} \\(GPU 2\\) 9\\.00 µs vs median 6\\.15 µs \\(\\+46%\\)`,
    ),
  );
  assert.match(r.imbalanceLine, /1 process\(es\) without GPU work not counted$/);
  // the whole run's slowest by compute, and case 0's (pid 3013, Agent 4)
  assert.equal(r.imbalance[0]?.name, null);
  assert.equal(r.imbalance[0]?.slowestRank, rank2);
  assert.equal(r.imbalance.find((c) => c.name === CASES[0])?.slowestRank, 3);
  for (const p of r.processes.filter((x) => x.rank !== null)) {
    const spec = RANKS.find((x) => x.pid === p.pid) as (typeof RANKS)[number];
    const gemm = 3 * (spec.gemmNs[0] + spec.gemmNs[1]);
    const comm = 6 * (400 + spec.agent * 10) + 6 * (600 + (4 - spec.agent) * 50);
    assert.equal(p.computeNs, gemm, `rank ${p.rank} compute`);
    assert.equal(p.communicationNs, comm, `rank ${p.rank} communication`);
    assert.equal(p.kernelNs, gemm + comm);
    assert.equal(p.kernelCalls, 18);
    assert.deepEqual(
      p.topKernels.map((k) => [k.name, k.role]).sort(),
      [
        [A2A, 'communication'],
        [GEMM, 'compute'],
        [RCCL, 'communication'],
      ].sort(),
    );
    assert.deepEqual(p.copies.map((c) => c.direction).sort(), ['DEVICE_TO_DEVICE', 'DEVICE_TO_HOST', 'HOST_TO_DEVICE']);
    assert.deepEqual(
      p.cases.map((c) => [c.name, c.computeNs]).sort(),
      CASES.map((name, i) => [name, 3 * (spec.gemmNs[i] as number)]).sort(),
    );
  }
});

test("each rank's numbers equal a one-process read of its own files", async () => {
  const dir = tempDir('equal');
  const files = writeMultiRankRun(dir);
  const whole = ranksOf(await summarizePath(dir));
  for (const spec of RANKS) {
    const own = tempDir(`own-${spec.pid}`);
    mkdirSync(path.join(own, HOST));
    for (const f of files.get(spec.pid) ?? []) copyFileSync(path.join(dir, f), path.join(own, f));
    const one = await summarizePath(own);
    assert.equal(one.ranks, undefined, 'one process: no ranks section');
    const rank = whole.processes.find((p) => p.pid === spec.pid);
    assert.ok(rank);
    assert.deepEqual(rank.outputs, (files.get(spec.pid) ?? []).sort());
    assertRankTotalsAlone(rank, one, spec.agent);
    for (const m of one.markers) {
      const c: RankCase | undefined = rank.cases.find((x) => x.name === m.name);
      assert.ok(c, m.name);
      assert.equal(c.rangeNs, m.totalNs, m.name);
      assert.equal(c.calls, m.calls);
      assert.equal(
        c?.kernelNs,
        m.kernels.reduce((n, k) => n + k.totalNs, 0),
      );
      assert.equal(
        c?.communicationNs,
        m.kernels.filter((k) => kernelRole(k.name) === 'communication').reduce((n, k) => n + k.totalNs, 0),
      );
    }
    assert.equal(rank.cases.length, one.markers.length);
  }
});

test("the runner's manifest gives the ranks, parents and devices; a zip reads as the folder", async () => {
  const dir = tempDir('manifest');
  writeMultiRankRun(dir, { manifest: true });
  const s = await summarizePath(dir);
  const r = ranksOf(s);
  assert.equal(r.from, 'manifest');
  assert.deepEqual(
    r.processes.map((p) => [p.rank, p.pid, p.ppid, p.device]),
    [...RANKS.map((x, i) => [i, x.pid, LAUNCHER_PID, x.agent - 1]), [null, LAUNCHER_PID, 1, null]],
  );
  assert.ok(s.skipped.some((x) => x.path === 'kernel-runner-processes.json'));

  const zip = path.join(tempDir('zip'), 'profile.zip');
  const archive = new ZipArchive({ zlib: { level: 6 } });
  const out = createWriteStream(zip);
  archive.pipe(out);
  archive.file(path.join(dir, 'kernel-runner-processes.json'), { name: 'kernel-runner-processes.json' });
  for (const f of readdirSync(path.join(dir, HOST))) archive.file(path.join(dir, HOST, f), { name: `${HOST}/${f}` });
  await archive.finalize();
  if (!out.writableFinished) await once(out, 'finish');
  assert.deepEqual((await summarizePath(zip)).ranks, r);
});

test('a broken manifest is a warning: ranks come from the file names, nothing is lost', async () => {
  const dir = tempDir('broken');
  writeMultiRankRun(dir);
  writeFileSync(path.join(dir, 'kernel-runner-processes.json'), '{"version": 1, "processes": [{"pid": "x"}]}');
  const s = await summarizePath(dir);
  const r = ranksOf(s);
  assert.equal(r.from, 'files');
  assert.equal(r.processes.filter((p) => p.rank !== null).length, 4);
  assert.ok(s.warnings.some((w) => /kernel-runner-processes\.json: not a version 1 process manifest/.test(w)));
  assert.equal(s.kernelTotals.calls, 4 * 18);
});

test('summarize prints the imbalance line first, then a per-rank table and the cases per rank', async () => {
  const dir = tempDir('cli');
  writeMultiRankRun(dir);
  const s = await summarizePath(dir);
  const lines = renderTraceTables(s).split('\n');
  assert.equal(lines[0], `Load imbalance: ${ranksOf(s).imbalanceLine}`);
  const head = lines.findIndex((l) => /^ {2}Rank +Pid +Device +Busy/.test(l));
  assert.ok(head > 0, 'a per-rank table');
  const rows = lines.slice(head + 1, head + 6);
  assert.match(rows[2] as string, /^ {2}2 \* +3011 +GPU 2 /, 'the slowest rank is marked');
  assert.match(rows[4] as string, /^ {2}- +3000 +- .*no GPU work$/);
  const cases = lines.findIndex((l) => /^ {2}Case +rank 0 +rank 1 +rank 2 +rank 3 +slowest vs median$/.test(l));
  assert.match(lines[cases + 2] as string, /^ {2}benchmark 1: m: 4096 .*9\.00 µs \* .* \+46%$/);
  // the GPU busy table names each GPU's rank, as the panel's busy cards and timeline rows do
  const busy = lines.findIndex((l) => l.startsWith('GPU busy'));
  const busyRows = lines.slice(busy + 2, busy + 6);
  assert.equal(busyRows.length, 4);
  for (const p of ranksOf(s).processes.filter((r) => r.rank !== null)) {
    const row = busyRows.find((l) => l.startsWith(`  ${p.agentIds[0]} · rank ${p.rank} `));
    assert.ok(row, `${p.agentIds[0]} named rank ${p.rank} in\n${busyRows.join('\n')}`);
  }
});

test("the ranks' traces read by worker threads: the workers of one file read the next, numbers unchanged", async () => {
  const dir = tempDir('workers');
  writeMultiRankRun(dir);
  const single = await summarizePath(dir, { parallel: { threads: 0 } });
  const runs: ParallelRun[] = [];
  const parallel = await summarizePath(dir, {
    parallel: { threads: 2, minBytes: 0, partBytes: 256 },
    onParallelRun: (run) => runs.push(run),
  });
  assert.deepEqual(parallel.ranks, single.ranks);
  assert.deepEqual(parallel.kernels, single.kernels);
  assert.equal(runs.length, RANKS.length, 'one parallel read per rank trace');
  assert.ok(runs[0]?.workers && runs[0].workers > 0, 'the first file had workers');
  // every later file took the workers the file before gave back, warm, instead of starting its own
  for (const run of runs.slice(1)) assert.equal(run.prestarted, run.workers);
});

test('the digest carries the imbalance line and a line a rank, the slowest first, within its byte budget', async () => {
  const dir = tempDir('digest');
  writeMultiRankRun(dir);
  const s = await summarizePath(dir);
  const validate = new Ajv({ allErrors: true, strict: true }).compile(
    JSON.parse(readFileSync(path.join(repoRoot, 'docs/digest.schema.json'), 'utf8')),
  );
  const trace = { file: 'profile', sha256: null };
  const d = buildDigest(s, { trace, maxBytes: 16384 });
  assert.ok(validate(d), JSON.stringify(validate.errors));
  assert.equal(d.ranks?.imbalance, ranksOf(s).imbalanceLine);
  const rows = (d.ranks?.ranks ?? []).filter((r) => !isMore(r));
  assert.equal(rows.length, 5, 'four ranks and the launcher');
  const slowest = ranksOf(s).imbalance[0]?.slowestRank;
  assert.deepEqual(rows[0] && 'rank' in rows[0] ? [rows[0].rank, rows[0].slowestCases] : null, [slowest, 1]);
  for (const r of ranksOf(s).processes) {
    const line = rows.find((x) => 'pid' in x && x.pid === r.pid);
    assert.ok(line && 'computeNs' in line);
    assert.deepEqual(
      [line.kernelNs, line.computeNs, line.communicationNs, line.busyNs],
      [r.kernelNs, r.computeNs, r.communicationNs, r.busyNs],
    );
  }
  // the smallest budget: still valid and within it, the slowest rank kept
  const small = buildDigest(s, { trace, maxBytes: 2048 });
  assert.ok(validate(small), JSON.stringify(validate.errors));
  assert.ok(Buffer.byteLength(digestText(small)) <= 2048 || small.budget.exceeded);
  const first = small.ranks?.ranks[0];
  assert.equal(first && 'rank' in first ? first.rank : null, slowest);
  // a one-process profile's digest has no ranks
  const one = tempDir('digest-one');
  mkdirSync(path.join(one, HOST));
  for (const f of readdirSync(path.join(dir, HOST)).filter((f) => f.startsWith(`${RANKS[0]?.pid}_`)))
    copyFileSync(path.join(dir, HOST, f), path.join(one, HOST, f));
  assert.equal(buildDigest(await summarizePath(one), { trace }).ranks, undefined);
});

test('compare pairs ranks by rank number: each side its compute, communication, busy and slowest rank', async () => {
  const dirA = tempDir('cmp-a');
  writeMultiRankRun(dirA);
  const dirB = tempDir('cmp-b');
  writeMultiRankRun(dirB, { manifest: true }); // ranks in pid order: other processes at the same rank numbers
  const a = await summarizePath(dirA);
  const b = await summarizePath(dirB);
  const c = compareSummaries(a, b);
  traceComparisonSchema.parse(c);
  assert.equal(c.ranks?.length, 4);
  for (const r of c.ranks ?? []) {
    const pa = ranksOf(a).processes.find((p) => p.rank === r.rank);
    const pb = ranksOf(b).processes.find((p) => p.rank === r.rank);
    assert.deepEqual([r.aPid, r.bPid], [pa?.pid, pb?.pid]);
    assert.deepEqual([r.compute.a, r.compute.b], [pa?.computeNs, pb?.computeNs]);
    assert.equal(r.compute.deltaNs, (pb?.computeNs ?? 0) - (pa?.computeNs ?? 0));
    assert.deepEqual([r.busy.a, r.busy.b], [pa?.busyNs, pb?.busyNs]);
    assert.deepEqual(r.slowest, {
      a: ranksOf(a).imbalance[0]?.slowestRank === r.rank,
      b: ranksOf(b).imbalance[0]?.slowestRank === r.rank,
    });
  }
  assert.deepEqual(c.imbalance, { a: ranksOf(a).imbalanceLine, b: ranksOf(b).imbalanceLine });
  const text = renderComparison(c);
  assert.match(text, /^Load imbalance A: 4 ranks: /m);
  assert.match(text, /^ {2}Rank +A compute +B compute +Δ compute/m);
});

test('a single-GPU job whose evaluator spawned a child (one process with GPU work) has no ranks section', async () => {
  const dir = tempDir('one-gpu');
  const files = writeMultiRankRun(dir);
  for (const spec of RANKS.slice(1)) for (const f of files.get(spec.pid) ?? []) rmSync(path.join(dir, f));
  const s = await summarizePath(dir);
  assert.equal(s.ranks, undefined);
  assert.equal(s.kernelTotals.calls, 18);
  assert.deepEqual(
    s.processes.map((p) => p.pid),
    [LAUNCHER_PID, RANKS[0]?.pid],
  );
});
