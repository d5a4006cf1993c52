// Device-to-device copies per (source GPU, destination GPU) in every layout we read: rocprofv3's memory_copy_trace.csv
// of ROCm 7.0 (`"Agent <n>"`, a Stream_Id column) and 6.x (bare agent numbers, no Stream_Id), `rocpd convert`'s CSV
// (a Guid column; ends as `Agent <logical>` or type-relative `GPU <i>`), and rocpd databases (`memory_copies` with
// `src_agent_abs_index` / `dst_agent_abs_index`, or `*_absolute_index` in rocprofiler-sdk's first views). One copy
// trace throughout: two CPU sockets (nodes 0, 1) and four GPUs (nodes 2..5, GPU 0..3).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import Database from 'better-sqlite3';
import { summarizePath } from '../../../src/trace/index';
import { traceSummarySchema, type PeerCopy, type TraceSummary } from '../../../src/core/protocol/traceSummary';
import { FOLDED_PAIR, RunTables } from '../../../src/trace/tables';
import { MAX_PEER_PAIRS } from '../../../src/trace/limits';
import { tempDir, toRocprofCsv } from './helpers';

const T0 = 5_000_000;

/** [direction, source node, destination node, start offset, duration, bytes]. */
const COPIES: Array<[string, number, number, number, number, number]> = [
  ['HOST_TO_DEVICE', 0, 2, 0, 900, 1 << 20],
  ['DEVICE_TO_DEVICE', 2, 3, 1000, 100, 1 << 16],
  ['DEVICE_TO_DEVICE', 3, 5, 1200, 50, 4096],
  ['DEVICE_TO_DEVICE', 2, 3, 1300, 300, 1 << 16],
  ['DEVICE_TO_DEVICE', 2, 2, 1700, 20, 512],
  ['DEVICE_TO_HOST', 5, 1, 2000, 400, 1 << 12],
];

/** What every layout must give (bytes: null from CSV, which records none). */
function expected(bytes: boolean): PeerCopy[] {
  const pair = (src: number, dst: number, calls: number, totalNs: number, b: number): PeerCopy => ({
    srcAgentId: `Agent ${src}`,
    dstAgentId: `Agent ${dst}`,
    srcGpu: src - 2,
    dstGpu: dst - 2,
    calls,
    totalNs,
    bytes: bytes ? b : null,
  });
  return [pair(2, 2, 1, 20, 512), pair(2, 3, 2, 400, 2 << 16), pair(3, 5, 1, 50, 4096)];
}

function agentInfo(): string {
  const header = ['Node_Id', 'Logical_Node_Id', 'Agent_Type', 'Cpu_Cores_Count', 'Simd_Count', 'Cu_Count', 'Name'];
  const rows = [0, 1].map((n) => [String(n), String(n), 'CPU', '96', '0', '0', 'AMD EPYC 9654']);
  for (let n = 2; n <= 5; n++) rows.push([String(n), String(n), 'GPU', '0', '1216', '304', 'gfx942']);
  return toRocprofCsv(header, rows);
}

function copyCsv(layout: 'rocm-7.0' | 'rocm-6.x' | 'rocpd-convert' | 'rocpd-convert-type'): string {
  const id = (node: number): string => {
    if (layout === 'rocm-6.x') return String(node);
    if (layout === 'rocpd-convert-type') return node < 2 ? `CPU ${node}` : `GPU ${node - 2}`;
    return `Agent ${node}`;
  };
  const guid = layout.startsWith('rocpd-convert') ? ['Guid'] : [];
  const stream = layout === 'rocm-6.x' ? [] : ['Stream_Id'];
  const header = [
    ...guid,
    'Kind',
    'Direction',
    ...stream,
    'Source_Agent_Id',
    'Destination_Agent_Id',
    'Correlation_Id',
    'Start_Timestamp',
    'End_Timestamp',
  ];
  const rows = COPIES.map(([dir, src, dst, at, ns], i) => [
    ...guid.map(() => '0000ddb5-8903-7903-b269-cd8d3745bb8a'),
    'MEMORY_COPY',
    `MEMORY_COPY_${dir}`,
    ...stream.map(() => '0'),
    id(src),
    id(dst),
    String(i + 1),
    String(T0 + at),
    String(T0 + at + ns),
  ]);
  return toRocprofCsv(header, rows);
}

/** The pairs equal `expected`, and they add up to the DEVICE_TO_DEVICE direction (every copy's ends are named). */
function assertPairs(s: TraceSummary, bytes: boolean, layout: string): void {
  traceSummarySchema.parse(s);
  assert.deepEqual(s.peerCopies, expected(bytes), layout);
  const d2d = s.memoryCopies.find((c) => c.direction === 'DEVICE_TO_DEVICE');
  assert.equal(d2d?.calls, 4, layout);
  assert.equal(
    s.peerCopies?.reduce((n, p) => n + p.totalNs, 0),
    d2d?.totalNs,
    `${layout}: the pairs are the device-to-device copies`,
  );
  assert.equal(s.ranks, undefined, 'one process: the matrix is the summary, no ranks');
}

for (const layout of ['rocm-7.0', 'rocm-6.x', 'rocpd-convert', 'rocpd-convert-type'] as const)
  test(`memory_copy_trace.csv (${layout}): device-to-device copies per GPU pair`, async () => {
    const dir = tempDir(`peer-${layout}`);
    writeFileSync(path.join(dir, '77_agent_info.csv'), agentInfo());
    writeFileSync(path.join(dir, '77_memory_copy_trace.csv'), copyCsv(layout));
    assertPairs(await summarizePath(dir), false, layout);
  });

test('a copy trace without agent_info: the pairs are named by agent, GPU numbers unknown', async () => {
  const dir = tempDir('peer-no-info');
  writeFileSync(path.join(dir, '77_memory_copy_trace.csv'), copyCsv('rocm-7.0'));
  const s = await summarizePath(dir);
  assert.deepEqual(
    s.peerCopies?.map((p) => [p.srcAgentId, p.dstAgentId, p.srcGpu, p.dstGpu, p.calls]),
    [
      ['Agent 2', 'Agent 2', null, null, 1],
      ['Agent 2', 'Agent 3', null, null, 2],
      ['Agent 3', 'Agent 5', null, null, 1],
    ],
  );
});

test('a trace without device-to-device copies has no matrix', async () => {
  const dir = tempDir('peer-none');
  writeFileSync(path.join(dir, '77_agent_info.csv'), agentInfo());
  writeFileSync(
    path.join(dir, '77_memory_copy_trace.csv'),
    copyCsv('rocm-7.0')
      .split('\n')
      .filter((l) => !l.includes('DEVICE_TO_DEVICE'))
      .join('\n'),
  );
  const s = await summarizePath(dir);
  assert.equal(s.memoryCopies.length, 2);
  assert.equal(s.peerCopies, undefined);
});

/** A rocpd database of the copies, its `memory_copies` ends spelled `*_abs_index` or `*_absolute_index`. */
function writeRocpd(file: string, ends: 'abs_index' | 'absolute_index'): void {
  const db = new Database(file);
  try {
    db.exec(`
      CREATE TABLE rocpd_info_agent (id INTEGER PRIMARY KEY, absolute_index INTEGER, type TEXT, name TEXT, product_name TEXT, extdata TEXT);
      CREATE TABLE processes (pid INTEGER, ppid INTEGER, hostname TEXT, command TEXT);
      CREATE TABLE kernels (name TEXT, pid INTEGER, agent_abs_index INTEGER, start INTEGER, "end" INTEGER);
      CREATE TABLE memory_copies (name TEXT, pid INTEGER, start INTEGER, "end" INTEGER, size INTEGER,
        src_agent_${ends} INTEGER, dst_agent_${ends} INTEGER);
    `);
    const agent = db.prepare('INSERT INTO rocpd_info_agent VALUES (?, ?, ?, ?, ?, ?)');
    for (let n = 0; n <= 5; n++)
      agent.run(100 + n, n, n < 2 ? 'CPU' : 'GPU', n < 2 ? 'AMD EPYC 9654' : 'gfx942', 'x', '{}');
    db.prepare('INSERT INTO processes VALUES (?, ?, ?, ?)').run(77, 1, 'node', 'python3 eval.py');
    const copy = db.prepare('INSERT INTO memory_copies VALUES (?, ?, ?, ?, ?, ?, ?)');
    for (const [dir, src, dst, at, ns, bytes] of COPIES)
      copy.run(`MEMORY_COPY_${dir}`, 77, T0 + at, T0 + at + ns, bytes, src, dst);
  } finally {
    db.close();
  }
}

for (const ends of ['abs_index', 'absolute_index'] as const)
  test(`rocpd memory_copies (src_agent_${ends}): the pairs with their bytes`, async () => {
    const dir = tempDir(`peer-rocpd-${ends}`);
    writeRocpd(path.join(dir, '77_results.db'), ends);
    assertPairs(await summarizePath(dir), true, ends);
  });

test('past MAX_PEER_PAIRS pairs, further pairs are counted together and nothing is lost', () => {
  const t = new RunTables();
  for (let i = 0; i <= MAX_PEER_PAIRS; i++) t.addCopy('DEVICE_TO_DEVICE', 10, 8, `Agent ${i}`, `Agent ${i + 1}`);
  t.addCopy('DEVICE_TO_DEVICE', 5, 8, 'Agent 0', 'Agent 1'); // a pair kept before the limit still counts
  t.addCopy('HOST_TO_DEVICE', 7, 8, 'Agent 0', 'Agent 1'); // not a device-to-device copy: no pair
  t.addCopy('DEVICE_TO_DEVICE', 7, 8, null, 'Agent 1'); // one end unknown: no pair
  assert.equal(t.peerCopies.size, MAX_PEER_PAIRS + 1);
  const folded = t.peerCopies.get(FOLDED_PAIR);
  assert.equal(folded?.stats.count, 1);
  assert.equal(t.peerCopies.get('Agent 0\u0000Agent 1')?.stats.sum, 15);
  const whole = new RunTables();
  t.mergeInto(whole);
  assert.equal(whole.peerCopies.size, t.peerCopies.size);
  assert.equal(
    [...whole.peerCopies.values()].reduce((n, p) => n + p.stats.count, 0),
    MAX_PEER_PAIRS + 2,
  );
  assert.equal(whole.copies.get('DEVICE_TO_DEVICE')?.stats.count, MAX_PEER_PAIRS + 3);
});
