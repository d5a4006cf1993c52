// Counters of a multi-process profile: every rocprofv3 process numbers its dispatches from 1, so the whole profile's
// counter table tells processes apart (a dispatch scope per process), joins a counter pass's processes to the timing
// pass's by the manifest's rank (else by pid order, with a warning), and puts each dispatch in its own process's
// rocTX range.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { summarizePath } from '../../../src/trace/index';
import type { TraceSummary } from '../../../src/core/protocol/traceSummary';
import Database from 'better-sqlite3';
import { tempDir } from './helpers';
import { RANKS } from './multiRankRun';
import { writeRocpdRanks } from './multiRankRocpd';

const KERNEL = 'k(float*)';
const COUNTER_HEADER =
  'Correlation_Id,Dispatch_Id,Agent_Id,Queue_Id,Process_Id,Thread_Id,Grid_Size,Kernel_Id,Kernel_Name,Workgroup_Size,LDS_Block_Size,Scratch_Size,VGPR_Count,Accum_VGPR_Count,SGPR_Count,Counter_Name,Counter_Value,Start_Timestamp,End_Timestamp';
const KERNEL_HEADER =
  '"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"';
const MARKER_HEADER = '"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"';

interface ProcessSpec {
  pid: number;
  rank: number;
  /** Counter values of every dispatch of this process. */
  counters: Record<string, number>;
  /** rocTX ranges: name and the dispatch ids in it. */
  ranges?: Array<[string, number[]]>;
}

/** Dispatch d of a process starts here (ns): the same in every process and pass, as a replayed program's are. */
const startOf = (d: number): number => 1_000_000 + d * 10_000;
const DURATION = 500;

/** One process's output set in `dir` (kernel trace, counter collection, and a marker trace when it has ranges). */
function writeProcess(dir: string, p: ProcessSpec, dispatches: number): string[] {
  mkdirSync(dir, { recursive: true });
  const agent = `"Agent ${p.rank + 2}"`;
  const kernels: string[] = [];
  const counters: string[] = [];
  for (let d = 1; d <= dispatches; d++) {
    const [start, end] = [startOf(d), startOf(d) + DURATION];
    kernels.push(
      `"KERNEL_DISPATCH",${agent},1,0,${p.pid},${d},5,"${KERNEL}",${d},${start},${end},0,0,8,0,16,64,1,1,1024,1,1`,
    );
    for (const [name, value] of Object.entries(p.counters))
      counters.push(
        `${d},${d},${agent},1,${p.pid},${p.pid},1024,5,"${KERNEL}",64,0,0,8,0,16,${name},${value},${start},${end}`,
      );
  }
  const files = [
    [`${p.pid}_kernel_trace.csv`, [KERNEL_HEADER, ...kernels]],
    [`${p.pid}_counter_collection.csv`, [COUNTER_HEADER, ...counters]],
  ] as Array<[string, string[]]>;
  if (p.ranges) {
    const markers = p.ranges.map(([name, ids], i) => {
      const from = startOf(Math.min(...ids)) - 100;
      const to = startOf(Math.max(...ids)) + DURATION + 100;
      return `"MARKER_CORE_RANGE_API","${name}",${p.pid},${p.pid},${1000 + i},${from},${to}`;
    });
    files.push([`${p.pid}_marker_api_trace.csv`, [MARKER_HEADER, ...markers]]);
  }
  for (const [name, lines] of files) writeFileSync(path.join(dir, name), lines.join('\n') + '\n');
  return files.map(([name]) => name);
}

/** Writes every pass's processes (pass folders when there are several) and, when asked, the runner's manifest. */
function writeProfile(passes: ProcessSpec[][], dispatches: number, manifest: boolean | 'without ranks'): string {
  const root = tempDir('rank-counters');
  const entries: Array<{ pid: number; ppid: null; rank: number | null; devices: number[]; outputs: string[] }> = [];
  passes.forEach((processes, n) => {
    const sub = passes.length > 1 ? `pass_${n + 1}/host` : 'host';
    for (const p of processes) {
      const outputs = writeProcess(path.join(root, sub), p, dispatches).map((f) => `${sub}/${f}`);
      entries.push({ pid: p.pid, ppid: null, rank: manifest === true ? p.rank : null, devices: [p.rank], outputs });
    }
  });
  if (manifest)
    writeFileSync(
      path.join(root, 'kernel-runner-processes.json'),
      JSON.stringify({ version: 1, processes: entries }, null, 2),
    );
  return root;
}

const rooflineKernel = (s: TraceSummary) => s.roofline?.kernels.find((k) => k.name === KERNEL);
const solMetric = (s: TraceSummary, metric: string) =>
  s.speedOfLight?.kernels.find((k) => k.name === KERNEL)?.metrics.find((m) => m.metric === metric)?.value;

const FOUR_RANKS: ProcessSpec[] = [0, 1, 2, 3].map((rank) => ({
  pid: 5000 + 7 * rank,
  rank,
  counters: { TCP_TOTAL_CACHE_ACCESSES_sum: 100 * (rank + 1), SQ_WAVES: 16 },
}));

for (const manifest of [true, false])
  test(`four ranks whose Dispatch_Ids collide (1..6 each), ${manifest ? 'with' : 'without'} the manifest: 24 dispatches in the whole profile's roofline`, async () => {
    const s = await summarizePath(writeProfile([FOUR_RANKS], 6, manifest));
    const k = rooflineKernel(s);
    assert.ok(k, 'a roofline point of the kernel');
    assert.equal(k.dispatches, 24);
    // the mean over every rank's dispatches: (100 + 200 + 300 + 400) / 4 accesses of 64 bytes
    assert.equal(k.l1Bytes, 250 * 64);
    assert.equal(s.speedOfLight?.kernels.find((x) => x.name === KERNEL)?.dispatches, 24);
    if (!manifest) return;
    const ranks = s.ranks?.processes.filter((p) => p.rank !== null) ?? [];
    assert.equal(ranks.length, 4);
    const perRank = ranks.map((r) => r.roofline?.kernels.find((x) => x.name === KERNEL)?.dispatches ?? 0);
    assert.deepEqual(perRank, [6, 6, 6, 6]);
    assert.equal(
      k.dispatches,
      perRank.reduce((a, b) => a + b, 0),
      "the whole profile's dispatches are the ranks' together",
    );
  });

// L2 hit rate per dispatch = hits (pass 1) / (hits + misses (pass 2)): its mean tells a right join from a wrong one.
// Rank 0: 90 / (90 + 10) = 90 %, rank 1: 50 / (50 + 50) = 50 %; mean 70 %. Joined rank 0 to rank 1 it would be
// 90 / 140 and 50 / 60: a mean of 73.8 %.
const hits = (pid: number, rank: number): ProcessSpec => ({
  pid,
  rank,
  counters: { TCC_HIT_sum: rank === 0 ? 90 : 50, TCP_TOTAL_CACHE_ACCESSES_sum: 100 },
});
const misses = (pid: number, rank: number): ProcessSpec => ({
  pid,
  rank,
  counters: { TCC_MISS_sum: rank === 0 ? 10 : 50 },
});

test("two passes of two ranks with the manifest: pass 2's counters join their own rank's dispatches (pids in the other order)", async () => {
  // pass_2's rank 0 has the larger pid: pid order would join it to pass_1's rank 1
  const dir = writeProfile(
    [
      [hits(301, 0), hits(302, 1)],
      [misses(401, 1), misses(402, 0)],
    ],
    6,
    true,
  );
  const s = await summarizePath(dir);
  assert.equal(s.passes?.count, 2);
  assert.deepEqual(s.passes?.counters, ['pass_1', 'pass_2']);
  assert.equal(rooflineKernel(s)?.dispatches, 12, "pass 2's dispatches are pass 1's");
  assert.equal(solMetric(s, 'L2 Cache Hit Rate'), 70);
  assert.ok(!s.warnings.some((w) => /pid order/.test(w)), s.warnings.join('\n'));
});

test("two passes of two ranks, a manifest without ranks (no rocpd database): joined by each process's own device", async () => {
  const dir = writeProfile(
    [
      [hits(301, 0), hits(302, 1)],
      [misses(401, 1), misses(402, 0)],
    ],
    6,
    'without ranks',
  );
  const s = await summarizePath(dir);
  assert.equal(rooflineKernel(s)?.dispatches, 12);
  assert.equal(solMetric(s, 'L2 Cache Hit Rate'), 70);
  assert.ok(!s.warnings.some((w) => /pid order/.test(w)), s.warnings.join('\n'));
  // pass 2's processes are pass 1's run again: not ranks of their own; each rank's roofline has both passes
  assert.deepEqual(
    s.ranks?.processes.map((p) => [p.rank, p.pid, p.roofline?.kernels.map((k) => k.dispatches)]),
    [
      [0, 301, [6]],
      [1, 302, [6]],
    ],
  );
});

test('two passes of two ranks without a manifest: joined by pid order, with a warning saying so', async () => {
  const dir = writeProfile(
    [
      [hits(301, 0), hits(302, 1)],
      [misses(401, 0), misses(402, 1)],
    ],
    6,
    false,
  );
  const s = await summarizePath(dir);
  assert.equal(rooflineKernel(s)?.dispatches, 12);
  assert.equal(solMetric(s, 'L2 Cache Hit Rate'), 70);
  assert.ok(
    s.warnings.some((w) => /processes of different passes told apart by pid order/.test(w)),
    s.warnings.join('\n'),
  );
});

// L1 accesses per dispatch in pass 2 (pass 1 has L2 misses): rank 0's 100, rank 1's 300
const accesses = (pid: number, rank: number): ProcessSpec => ({
  pid,
  rank,
  counters: { TCP_TOTAL_CACHE_ACCESSES_sum: rank === 0 ? 100 : 300 },
});

test("two passes of two ranks without a manifest: each rank's roofline joins its passes by the scopes' pid order, with their warning", async () => {
  const s = await summarizePath(
    writeProfile(
      [
        [misses(301, 0), misses(302, 1)],
        [accesses(401, 0), accesses(402, 1)],
      ],
      6,
      false,
    ),
  );
  assert.ok(
    s.warnings.some((w) => /processes of different passes told apart by pid order/.test(w)),
    s.warnings.join('\n'),
  );
  const ranks = s.ranks?.processes ?? [];
  assert.deepEqual(
    ranks.map((p) => [p.rank, p.pid]),
    [
      [0, 301],
      [1, 302],
    ],
  );
  const whole = rooflineKernel(s);
  assert.equal(whole?.dispatches, 12);
  const perRank = ranks.map((p) => p.roofline?.kernels.find((k) => k.name === KERNEL));
  assert.deepEqual(
    perRank.map((k) => k?.dispatches),
    [6, 6],
  );
  // pass 2's accesses joined to their own rank's dispatches (64 bytes each), the whole's the mean of both
  assert.deepEqual(
    perRank.map((k) => k?.l1Bytes),
    [100 * 64, 300 * 64],
  );
  assert.equal(whole?.l1Bytes, 200 * 64);
  // each rank's roofline is what its two processes' files read alone give (one process in two passes: no guess)
  for (const [rank, pids] of [
    [0, [301, 401]],
    [1, [302, 402]],
  ] as const) {
    const one = await summarizePath(writeProfile([[misses(pids[0], rank)], [accesses(pids[1], rank)]], 6, false));
    assert.ok(!one.warnings.some((w) => /pid order/.test(w)));
    assert.deepEqual(ranks[rank]?.roofline, one.roofline, `rank ${rank}`);
  }
});

test('one process in two passes (new pid each pass): joined as one, no warning', async () => {
  const dir = writeProfile([[hits(301, 0)], [misses(401, 0)]], 6, false);
  const s = await summarizePath(dir);
  assert.equal(rooflineKernel(s)?.dispatches, 6);
  assert.equal(solMetric(s, 'L2 Cache Hit Rate'), 90);
  assert.ok(!s.warnings.some((w) => /pid order/.test(w)), s.warnings.join('\n'));
});

test("rocTX ranges of two ranks: the same Dispatch_Id in each rank's own range", async () => {
  // dispatch 2 is in case A on rank 0 and in case B on rank 1
  const ranks: ProcessSpec[] = [
    {
      pid: 601,
      rank: 0,
      counters: { TCP_TOTAL_CACHE_ACCESSES_sum: 100 },
      ranges: [
        ['case A', [1, 2]],
        ['case B', [3, 4]],
      ],
    },
    {
      pid: 602,
      rank: 1,
      counters: { TCP_TOTAL_CACHE_ACCESSES_sum: 400 },
      ranges: [
        ['case A', [1]],
        ['case B', [2, 3, 4]],
      ],
    },
  ];
  for (const manifest of [true, false]) {
    const s = await summarizePath(writeProfile([ranks], 4, manifest));
    const ranges = new Map(s.roofline?.ranges.map((r) => [r.name, r.kernels.find((k) => k.name === KERNEL)]));
    assert.equal(ranges.get('case A')?.dispatches, 3, `manifest ${manifest}`);
    assert.equal(ranges.get('case A')?.l1Bytes, ((100 + 100 + 400) / 3) * 64);
    assert.equal(ranges.get('case B')?.dispatches, 5);
    assert.equal(ranges.get('case B')?.l1Bytes, ((100 + 100 + 400 * 3) / 5) * 64);
  }
});

test("a merged rocpd database of four processes: each process's counters of its own dispatches (Dispatch_Ids 1..3 in each)", async () => {
  const dir = tempDir('rocpd-merged-counters');
  const file = path.join(dir, 'merged_results.db');
  writeRocpdRanks(file);
  const db = new Database(file);
  try {
    // the columns of rocpd's pmc_events view that the reader selects
    db.exec(`CREATE TABLE pmc_events (guid TEXT, event_id INTEGER, pmc_id INTEGER, dispatch_id INTEGER, name TEXT,
      pid INTEGER, duration INTEGER, counter_name TEXT, counter_value REAL)`);
    const row = db.prepare('INSERT INTO pmc_events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    let event = 0;
    RANKS.forEach((r, n) => {
      for (let d = 1; d <= 3; d++) {
        event++;
        row.run('g', event, 1, d, KERNEL, r.pid, 500, 'TCP_TOTAL_CACHE_ACCESSES_sum', 100 * (n + 1));
        row.run('g', event, 2, d, KERNEL, r.pid, 500, 'SQ_WAVES', 16);
      }
    });
  } finally {
    db.close();
  }
  const s = await summarizePath(dir);
  const k = rooflineKernel(s);
  assert.equal(k?.dispatches, 3 * RANKS.length);
  assert.equal(k?.l1Bytes, 250 * 64);
  // one file of every process, its counters by pid: each rank's roofline is its own pid's three dispatches
  assert.equal(s.ranks?.processes.length, RANKS.length);
  const ranks = s.ranks.processes;
  for (const [n, r] of RANKS.entries()) {
    const own = ranks.find((p) => p.pid === r.pid)?.roofline?.kernels.find((x) => x.name === KERNEL);
    assert.equal(own?.dispatches, 3, `pid ${r.pid}`);
    assert.equal(own?.l1Bytes, 100 * (n + 1) * 64, `pid ${r.pid}`);
  }
});

test("a merged rocpd database whose counters do not name their pid: no rank's roofline (they cannot be told apart)", async () => {
  const dir = tempDir('rocpd-merged-counters-no-pid');
  const file = path.join(dir, 'merged_results.db');
  writeRocpdRanks(file);
  const db = new Database(file);
  try {
    db.exec(`CREATE TABLE pmc_events (guid TEXT, event_id INTEGER, pmc_id INTEGER, dispatch_id INTEGER, name TEXT,
      duration INTEGER, counter_name TEXT, counter_value REAL)`);
    const row = db.prepare('INSERT INTO pmc_events VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    for (let d = 1; d <= 3; d++) row.run('g', d, 1, d, KERNEL, 500, 'TCP_TOTAL_CACHE_ACCESSES_sum', 100);
  } finally {
    db.close();
  }
  const s = await summarizePath(dir);
  assert.equal(rooflineKernel(s)?.dispatches, 3);
  assert.equal(s.ranks?.processes.length, RANKS.length);
  assert.ok(s.ranks.processes.every((p) => p.roofline === undefined));
});

test('four ranks read by worker threads in parts: the same roofline as one thread reads', async () => {
  const dir = writeProfile([FOUR_RANKS], 40, true);
  const one = await summarizePath(dir, { parallel: { threads: 0 } });
  const many = await summarizePath(dir, { parallel: { threads: 2, minBytes: 0, partBytes: 1024 } });
  assert.equal(rooflineKernel(one)?.dispatches, 160);
  assert.deepEqual(many.roofline, one.roofline);
  assert.deepEqual(many.speedOfLight, one.speedOfLight);
});

test('a launcher process without GPU work in every pass: no pid-order guess for it', async () => {
  const dir = writeProfile(
    [
      [hits(301, 0), hits(302, 1)],
      [misses(401, 0), misses(402, 1)],
    ],
    6,
    true,
  );
  // the launcher of each pass: agent info only, listed without rank or devices
  const manifestPath = path.join(dir, 'kernel-runner-processes.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { processes: unknown[] };
  for (const [pass, pid] of [
    ['pass_1', 300],
    ['pass_2', 400],
  ] as const) {
    const name = `${pass}/host/${pid}_agent_info.csv`;
    writeFileSync(
      path.join(dir, name),
      '"Node_Id","Logical_Node_Id","Agent_Type","Cpu_Cores_Count","Simd_Count","Cu_Count","Wave_Front_Size","Name","Vendor_Name","Product_Name","Model_Name"\n0,0,"CPU",96,0,0,0,"AMD EPYC 9654","CPU","AMD EPYC 9654",""\n',
    );
    manifest.processes.push({ pid, ppid: null, rank: null, devices: [], outputs: [name] });
  }
  writeFileSync(manifestPath, JSON.stringify(manifest));
  const s = await summarizePath(dir);
  assert.equal(rooflineKernel(s)?.dispatches, 12);
  assert.equal(solMetric(s, 'L2 Cache Hit Rate'), 70);
  assert.ok(!s.warnings.some((w) => /pid order/.test(w)), s.warnings.join('\n'));
});
