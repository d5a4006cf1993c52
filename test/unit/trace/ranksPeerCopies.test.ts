// A multi-process profile's GPU-to-GPU copies: each rank's pairs from its own GPU and its copies out, the whole
// profile's matrix the union of them, and how summarize's text (each rank's pairs only when they say more than the
// matrix) and the digest (within its byte budget, valid against its schema) show them, from the CSV layout (no sizes)
// and from rocpd databases (with sizes).
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import Ajv from 'ajv';
import { summarizePath } from '../../../src/trace/index';
import { renderTraceTables } from '../../../src/cli/render/traceTables';
import type { PeerCopy, TraceSummary } from '../../../src/core/protocol/traceSummary';
import { buildDigest, digestText, isMore } from '../../../src/trace/digest/index';
import { repoRoot, tempDir } from './helpers';
import { RANKS, peerOf, writeMultiRankRun } from './multiRankRun';
import { writeRocpdRanks } from './multiRankRocpd';

function ranked(s: TraceSummary): NonNullable<TraceSummary['ranks']>['processes'] {
  assert.ok(s.ranks, 'a ranks section');
  return s.ranks.processes.filter((p) => p.rank !== null);
}

/** Each rank sends its one copy from its own GPU to the next; the matrix is every rank's pair, in GPU order. */
function assertMatrix(s: TraceSummary, bytes: number | null): void {
  const ranks = ranked(s);
  for (const r of ranks) {
    const spec = RANKS.find((x) => x.pid === r.pid)!;
    assert.deepEqual(r.peerCopies, [
      {
        srcAgentId: `Agent ${spec.agent}`,
        dstAgentId: `Agent ${peerOf(spec.agent)}`,
        srcGpu: r.device,
        dstGpu: peerOf(spec.agent) - 1,
        calls: 1,
        totalNs: 200,
        bytes,
      },
    ]);
  }
  const union = ranks.flatMap((r) => r.peerCopies ?? []).sort((a, b) => (a.srcGpu ?? 0) - (b.srcGpu ?? 0));
  assert.deepEqual(s.peerCopies, union, 'the whole matrix is the ranks’ pairs together');
  assert.equal(s.ranks?.processes.find((p) => p.rank === null)?.peerCopies, undefined, 'the launcher copied nothing');
  for (const r of ranks) assert.deepEqual(r.peerCopiesOut, { calls: 1, totalNs: 200, bytes }, `rank ${r.rank} out`);
}

/** The `To GPUs` cell of each rank's row in summarize's rank table. */
function toGpus(text: string): string[] {
  const lines = text.split('\n');
  const head = lines.findIndex((l) => l.includes('To GPUs'));
  assert.ok(head > 0, text);
  const at = lines[head]!.indexOf('To GPUs') + 'To GPUs'.length;
  const rows = lines.slice(head + 1, lines.indexOf('', head));
  return rows.map((l) => l.slice(at - 9, at).trim());
}

const PER_RANK = 'GPU-to-GPU copies per rank (its 3 longest pairs; --json lists all)';

test("CSV: each rank its pair from its own GPU, the matrix their union; summarize shows the matrix, each rank's copies out", async () => {
  const dir = tempDir('peer-ranks-csv');
  writeMultiRankRun(dir);
  const s = await summarizePath(dir);
  assertMatrix(s, null);
  const text = renderTraceTables(s);
  const lines = text.split('\n');
  assert.ok(!text.includes(PER_RANK), `each rank's pair is its GPU's row of the matrix: not listed again\n${text}`);
  assert.deepEqual(toGpus(text), ['200 ns', '200 ns', '200 ns', '200 ns', '-'], 'copies out; the launcher none');
  const matrix = lines.indexOf('GPU-to-GPU copies (4 in 4 pairs): time, rows the source GPU');
  assert.ok(matrix > 0, text);
  assert.deepEqual(lines.slice(matrix + 1, matrix + 6), [
    '  from \\ to        GPU 0   GPU 1   GPU 2   GPU 3',
    '  GPU 0 · rank 0       -  200 ns       -       -',
    '  GPU 1 · rank 1       -       -  200 ns       -',
    '  GPU 2 · rank 2       -       -       -  200 ns',
    '  GPU 3 · rank 3  200 ns       -       -       -',
  ]);
  assert.ok(!text.includes('GPU-to-GPU copies: bytes'), 'no bytes matrix without sizes');
});

test("CSV: a rank that pulls from another GPU: each rank's pairs listed, the pull not among its copies out", async () => {
  const dir = tempDir('peer-ranks-pull');
  const files = writeMultiRankRun(dir);
  // rank 0 (Agent 1, pid 3012) also copies from GPU 2 (Agent 3) to its own: the matrix shows it on GPU 2's row
  const copies = files.get(3012)!.find((f) => f.endsWith('_memory_copy_trace.csv'))!;
  appendFileSync(
    path.join(dir, copies),
    '"MEMORY_COPY","MEMORY_COPY_DEVICE_TO_DEVICE",0,"Agent 3","Agent 1",9999,1000000100,1000000400\n',
  );
  const s = await summarizePath(dir);
  const rank0 = ranked(s).find((r) => r.rank === 0)!;
  assert.deepEqual(
    rank0.peerCopies?.map((c) => [c.srcGpu, c.dstGpu, c.totalNs]),
    [
      [0, 1, 200],
      [2, 0, 300],
    ],
  );
  assert.deepEqual(rank0.peerCopiesOut, { calls: 1, totalNs: 200, bytes: null }, 'the pull came in');
  const text = renderTraceTables(s);
  const lines = text.split('\n');
  const head = lines.indexOf(PER_RANK);
  assert.ok(head > 0, text);
  assert.deepEqual(lines.slice(head + 1, head + 6), [
    '  rank 0  GPU 2 → GPU 0: 1 copy, 300 ns',
    '          GPU 0 → GPU 1: 1 copy, 200 ns',
    '  rank 1  GPU 1 → GPU 2: 1 copy, 200 ns',
    '  rank 2  GPU 2 → GPU 3: 1 copy, 200 ns',
    '  rank 3  GPU 3 → GPU 0: 1 copy, 200 ns',
  ]);
  assert.deepEqual(toGpus(text), ['200 ns', '200 ns', '200 ns', '200 ns', '-']);
});

test('rocpd: the pairs carry their bytes; the matrix has a bytes table too', async () => {
  const dir = tempDir('peer-ranks-rocpd');
  writeRocpdRanks(path.join(dir, 'merged_results.db'));
  const s = await summarizePath(dir);
  assertMatrix(s, 1 << 16);
  const text = renderTraceTables(s);
  assert.ok(!text.includes(PER_RANK), text);
  const bytes = text.split('\n').indexOf('GPU-to-GPU copies: bytes, rows the source GPU');
  assert.ok(bytes > 0, text);
  assert.equal(text.split('\n')[bytes + 2], '  GPU 0 · rank 0         -  64.0 KiB         -         -');
});

test('the digest carries the pairs, longest first, within its budget; a tight budget cuts them and counts the rest', async () => {
  const dir = tempDir('peer-ranks-digest');
  writeMultiRankRun(dir, { manifest: true });
  const s = await summarizePath(dir);
  const validate = new Ajv({ allErrors: true, strict: true }).compile(
    JSON.parse(readFileSync(path.join(repoRoot, 'docs/digest.schema.json'), 'utf8')),
  );
  const trace = { file: 'profile', sha256: null };
  const d = buildDigest(s, { trace });
  assert.ok(validate(d), JSON.stringify(validate.errors));
  const pairs = (d.ranks?.peerCopies ?? []).filter((c) => !isMore(c));
  const expected = ranked(s).flatMap((r) =>
    (r.peerCopies ?? []).map((c: PeerCopy) => ({
      rank: r.rank,
      from: `GPU ${c.srcGpu}`,
      to: `GPU ${c.dstGpu}`,
      calls: c.calls,
      totalNs: c.totalNs,
      bytes: c.bytes,
    })),
  );
  assert.deepEqual(pairs, expected, 'every pair (equal times keep rank order)');
  const tight = buildDigest(s, { trace, maxBytes: 2048 });
  assert.ok(validate(tight), JSON.stringify(validate.errors));
  assert.ok(Buffer.byteLength(digestText(tight)) <= 2048 || tight.budget.exceeded);
  const kept = (tight.ranks?.peerCopies ?? []).filter((c) => !isMore(c)).length;
  const more = tight.ranks?.peerCopies?.find(isMore);
  assert.ok(kept < expected.length, `the bare level keeps fewer pairs (${kept})`);
  assert.equal(kept + (more?.more ?? 0), expected.length, 'the rest counted in a more entry');
  assert.ok(tight.budget.entriesLeftOut >= (more?.more ?? 0));
});
