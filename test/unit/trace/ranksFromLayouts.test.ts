// Multi-process profiles in the layouts real runs write when each process is told to name its own output
// (layouts from rocprofv3's MPI guide, rocprofiler-sdk's multi-process tests and site guides, reproduced here in
// our own files): each process is one rank with its own numbers, none counted twice, none lost.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { summarizePath } from '../../../src/trace/index';
import { traceSummarySchema, type TraceSummary } from '../../../src/core/protocol/traceSummary';
import { fixture, repoRoot, tempDir } from './helpers';
import { HOST, LAUNCHER_PID, RANKS, writeMultiRankRun, type RankSpec } from './multiRankRun';
import { writeRocpdRanks } from './multiRankRocpd';

type Rank = NonNullable<TraceSummary['ranks']>['processes'][number];

/** What a rank did: the numbers a person compares, less who it is, where its files are and its GPU's node. */
function work(r: Rank | undefined): unknown {
  assert.ok(r, 'the rank is there');
  const { rank: _rank, pid: _pid, host: _host, outputs: _outputs, ppid: _ppid, ...rest } = r;
  const local = (a: string): string => a.slice(a.lastIndexOf('/') + 1);
  return {
    ...rest,
    agentIds: rest.agentIds.map(local),
    ...(rest.peerCopies
      ? {
          peerCopies: rest.peerCopies.map((c) => ({
            ...c,
            srcAgentId: local(c.srcAgentId),
            dstAgentId: local(c.dstAgentId),
          })),
        }
      : {}),
  };
}

/** The four ranks of multiRankRun.ts read in rocprofv3's default layout (CSV or rocpd): what each pid's rank did. */
const references = new Map<'csv' | 'rocpd', Promise<Map<number, Rank>>>();
function referenceRanks(format: 'csv' | 'rocpd'): Promise<Map<number, Rank>> {
  let ref = references.get(format);
  if (!ref) {
    ref = (async () => {
      const dir = tempDir(`layout-reference-${format}`);
      if (format === 'csv') writeMultiRankRun(dir);
      else for (const r of RANKS) writeRocpdRanks(path.join(dir, `${r.pid}_results.db`), [r]);
      const s = await summarizePath(dir);
      return new Map((s.ranks?.processes ?? []).flatMap((r) => (r.pid === null ? [] : [[r.pid, r] as const])));
    })();
    references.set(format, ref);
  }
  return ref;
}

/** The default layout's files of each process, copied to where `place` puts them (null: not written). */
function relayout(tag: string, place: (pid: number, file: string) => string | null): string {
  const from = tempDir(`${tag}-from`);
  writeMultiRankRun(from);
  const dir = tempDir(tag);
  for (const f of readdirSync(path.join(from, HOST))) {
    const pid = Number(f.slice(0, f.indexOf('_')));
    const to = place(pid, f.slice(f.indexOf('_') + 1));
    if (to === null) continue;
    mkdirSync(path.dirname(path.join(dir, to)), { recursive: true });
    copyFileSync(path.join(from, HOST, f), path.join(dir, to));
  }
  return dir;
}

/** The rank each pid is given below: not the device order the ranks would otherwise follow. */
const RANK_OF = new Map(RANKS.map((r, i) => [r.pid, RANKS.length - 1 - i]));
const rankOf = (r: RankSpec): number => RANK_OF.get(r.pid) as number;

async function assertNamedRanks(dir: string, format: 'csv' | 'rocpd', samePids: boolean): Promise<TraceSummary> {
  const ref = await referenceRanks(format);
  const s = await summarizePath(dir);
  traceSummarySchema.parse(s);
  assert.ok(s.ranks);
  assert.deepEqual(s.warnings, []);
  const ranked = s.ranks.processes.filter((p) => p.rank !== null);
  assert.deepEqual(
    ranked.map((p) => p.rank),
    [0, 1, 2, 3],
  );
  for (const r of RANKS) {
    const got = ranked.find((p) => p.rank === rankOf(r));
    assert.deepEqual(work(got), work(ref.get(r.pid)), `rank ${rankOf(r)} is pid ${r.pid}'s work`);
    if (samePids) assert.equal(got?.pid, r.pid);
  }
  const total = [...ref.values()].reduce((n, r) => n + r.kernelCalls, 0);
  assert.equal(s.kernelTotals.calls, total, 'no dispatch lost or counted twice');
  return s;
}

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

test('rocprofv3 -d %h.%p.%env{OMPI_COMM_WORLD_RANK}% (its MPI guide): the rank in each folder name is the rank', async () => {
  const dir = relayout('mpi-guide', (pid, kind) => {
    const r = RANKS.find((x) => x.pid === pid);
    // the launcher (rocprofv3 outside mpirun) writes only its agent_info, in a folder of its own
    return `${HOST}.${pid}.${r ? rankOf(r) : 0}/${HOST}/${pid}_${kind}`;
  });
  const s = await assertNamedRanks(dir, 'csv', true);
  assert.equal(s.ranks?.processes.find((p) => p.pid === LAUNCHER_PID)?.rank, null, 'the launcher is no rank');
});

test('the same with the `<pid>_` files straight in the per-process folder (rocprofv3 outside mpirun): ranks from the folders', async () => {
  const dir = relayout('mpi-guide-flat', (pid, kind) => {
    const r = RANKS.find((x) => x.pid === pid);
    return r ? `${HOST}.${pid}.${rankOf(r)}/${pid}_${kind}` : null;
  });
  await assertNamedRanks(dir, 'csv', true);
});

test('rocprofv3 -o results_%rank% (one flat folder, no pid in the names): ranks from the names', async () => {
  const dir = relayout('o-rank', (pid, kind) => {
    const r = RANKS.find((x) => x.pid === pid);
    return r ? `results_${rankOf(r)}_${kind}` : null;
  });
  const s = await assertNamedRanks(dir, 'csv', false);
  assert.deepEqual(
    s.ranks?.processes.map((p) => p.outputs.find((o) => o.endsWith('_kernel_trace.csv'))),
    [
      'results_0_kernel_trace.csv',
      'results_1_kernel_trace.csv',
      'results_2_kernel_trace.csv',
      'results_3_kernel_trace.csv',
    ],
  );
});

test('rocpd -o out_mp_%rank% (rocprofiler-sdk multi-process test): one database a rank, ranks from the names', async () => {
  const dir = tempDir('rocpd-o-rank');
  for (const r of RANKS) writeRocpdRanks(path.join(dir, `out_mp_${rankOf(r)}_results.db`), [r]);
  await assertNamedRanks(dir, 'rocpd', true);
});

test("a merged rocpd database: each pid's rank is the one its recorded environment announced", async () => {
  const dir = tempDir('rocpd-env');
  writeRocpdRanks(path.join(dir, 'merged_results.db'), RANKS, {
    environment: (r) => ({
      OMPI_COMM_WORLD_RANK: String(rankOf(r)),
      OMPI_COMM_WORLD_LOCAL_RANK: '0',
      PATH: '/usr/bin',
    }),
  });
  await assertNamedRanks(dir, 'rocpd', true);
});

test('two nodes whose ranks say the same node-local rank: a warning, ranks by host, device and pid, nothing lost', async () => {
  const dir = tempDir('rocpd-local-rank');
  const ref = await referenceRanks('rocpd');
  for (const host of ['node-a', 'node-b']) {
    mkdirSync(path.join(dir, host));
    RANKS.forEach((r) =>
      writeRocpdRanks(path.join(dir, host, `${r.pid}_results.db`), [r], {
        host,
        environment: () => ({ LOCAL_RANK: String(r.agent - 1) }),
      }),
    );
  }
  const s = await summarizePath(dir);
  assert.ok(
    s.warnings.some((w) => /both have rank \d+ in their recorded environment/.test(w)),
    s.warnings.join('\n'),
  );
  assert.ok(!s.warnings.some((w) => /same GPU/.test(w)), 'GPUs of two nodes are not one GPU');
  const ranked = s.ranks?.processes ?? [];
  assert.deepEqual(
    ranked.map((p) => [p.rank, p.host, p.pid]),
    ['node-a', 'node-b'].flatMap((host, h) =>
      [...RANKS].sort((a, b) => a.agent - b.agent).map((r, i) => [h * 4 + i, host, r.pid]),
    ),
  );
  for (const p of ranked) assert.deepEqual(work(p), work(ref.get(p.pid as number)));
});

test('names whose only difference is a pid-sized number are not taken for ranks (-o run_%p)', async () => {
  const dir = relayout('o-pid', (pid, kind) => (RANKS.some((x) => x.pid === pid) ? `run_${pid}_${kind}` : null));
  const s = await summarizePath(dir);
  // ranks follow the devices, as for any names that say nothing of them
  assert.deepEqual(
    s.ranks?.processes.map((p) => [p.rank, p.device]),
    [
      [0, 0],
      [1, 1],
      [2, 2],
      [3, 3],
    ],
  );
});

test('rocprof-compute under MPI (a workload folder a rank, `<output>/<rank>/`): each folder one rank, counted once', async () => {
  const workload = path.join(repoRoot, 'test/fixtures/rocprof-compute-workload/mi300x-6.4.1');
  const one = await summarizePath(workload);
  const dir = tempDir('compute-ranks');
  for (const rank of [1, 0]) {
    mkdirSync(path.join(dir, String(rank)));
    for (const f of readdirSync(workload)) copyFileSync(path.join(workload, f), path.join(dir, String(rank), f));
  }
  const s = await summarizePath(dir);
  traceSummarySchema.parse(s);
  assert.equal(s.kernelTotals.calls, 2 * one.kernelTotals.calls);
  assert.deepEqual(
    s.ranks?.processes.map((p) => [
      p.rank,
      p.kernelCalls,
      p.kernelNs,
      p.outputs.some((o) => o === `${p.rank}/pmc_perf.csv`),
    ]),
    [
      [0, one.kernelTotals.calls, one.kernelTotals.totalNs, true],
      [1, one.kernelTotals.calls, one.kernelTotals.totalNs, true],
    ],
  );
});

test('rocpd -o out_%rank% from two nodes in one folder (same pids on both): GPUs of each node apart, each rank its own', async () => {
  const ref = await referenceRanks('rocpd');
  const dir = tempDir('rocpd-two-nodes-flat');
  const byDevice = [...RANKS].sort((a, b) => a.agent - b.agent);
  ['node-a', 'node-b'].forEach((host, h) =>
    byDevice.forEach((r, i) => writeRocpdRanks(path.join(dir, `out_${h * 4 + i}_results.db`), [r], { host })),
  );
  const s = await summarizePath(dir);
  traceSummarySchema.parse(s);
  assert.deepEqual(s.warnings, [], 'no GPU shared by two ranks');
  assert.deepEqual(s.agents.map((a) => a.id).sort(), [
    ...['node-a', 'node-b'].flatMap((h) => [1, 2, 3, 4].map((n) => `${h}/Agent ${n}`)),
  ]);
  const ranked = s.ranks?.processes ?? [];
  assert.deepEqual(
    ranked.map((p) => [p.rank, p.host, p.pid, p.device, p.agentIds]),
    ['node-a', 'node-b'].flatMap((host, h) =>
      byDevice.map((r, i) => [h * 4 + i, host, r.pid, i, [`${host}/Agent ${r.agent}`]]),
    ),
  );
  for (const p of ranked) {
    const one = ref.get(p.pid as number) as Rank;
    assert.deepEqual(work(p), work(one), `rank ${p.rank}`);
  }
  assert.equal(s.kernelTotals.calls, 2 * [...ref.values()].reduce((n, r) => n + r.kernelCalls, 0));
});

test('flat CSV sets of two nodes (-o results_%rank%, nothing names a node): the shared-GPU warning says it may be two nodes', async () => {
  const dir = relayout('o-rank-two-nodes', (pid, kind) => {
    const r = RANKS.find((x) => x.pid === pid);
    return r ? `results_${rankOf(r)}_${kind}` : null;
  });
  // the second node's ranks 4-7: the same GPUs by number, the same pids
  for (const f of readdirSync(dir))
    copyFileSync(
      path.join(dir, f),
      path.join(
        dir,
        f.replace(/^results_(\d)_/, (_, n: string) => `results_${Number(n) + 4}_`),
      ),
    );
  const s = await summarizePath(dir);
  assert.equal(s.ranks?.processes.filter((p) => p.rank !== null).length, 8);
  const shared = s.warnings.filter((w) => /ran kernels on the same GPU/.test(w));
  assert.equal(shared.length, 4);
  for (const w of shared) assert.match(w, /or on GPUs of different nodes: their files do not say which node/);
});

test("a rank driving two GPUs from two threads (rocprofv3's MPI transpose sample): said, its busy share of both", async () => {
  const from = tempDir('two-gpus-from');
  writeMultiRankRun(from);
  const dir = tempDir('two-gpus');
  // rank 0 is pids 3012 and 3014's work (GPUs 0 and 1), rank 1 is 3011 and 3013's (GPUs 2 and 3), each as one process
  const ranksOf: Array<[number, number]> = [
    [3012, 3014],
    [3011, 3013],
  ];
  ranksOf.forEach(([a, b], rank) => {
    for (const kind of ['kernel_trace', 'hip_api_trace', 'marker_api_trace', 'memory_copy_trace']) {
      const rows = (pid: number): string[] =>
        readFileSync(path.join(from, HOST, `${pid}_${kind}.csv`), 'utf8')
          .trimEnd()
          .split('\n');
      writeFileSync(path.join(dir, `results_${rank}_${kind}.csv`), [...rows(a), ...rows(b).slice(1)].join('\n') + '\n');
    }
    copyFileSync(path.join(from, HOST, `${a}_agent_info.csv`), path.join(dir, `results_${rank}_agent_info.csv`));
  });
  const s = await summarizePath(dir);
  traceSummarySchema.parse(s);
  const ranked = s.ranks?.processes ?? [];
  assert.deepEqual(
    ranked.map((p) => [p.rank, p.device, p.agentIds]),
    [
      [0, 0, ['Agent 1', 'Agent 2']],
      [1, 2, ['Agent 3', 'Agent 4']],
    ],
  );
  for (const p of ranked) {
    const agents = s.agents.filter((a) => p.agentIds.includes(a.id));
    assert.equal(p.busyNs, agents[0]!.busyNs + agents[1]!.busyNs, 'busy: the sum over its GPUs');
    assert.equal(p.busyPercent, (p.busyNs / (2 * s.wall!.spanNs)) * 100, 'of both GPUs’ time');
    assert.ok(
      s.warnings.includes(
        `rank ${p.rank} ran kernels on 2 GPUs (${p.agentIds.join(', ')}): its device is the first, its busy time the sum over them`,
      ),
    );
  }
});
