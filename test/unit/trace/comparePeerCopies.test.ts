// compare's GPU-to-GPU copies: two multi-rank profiles (rocprofv3's per-process CSV layout) whose ranks copy to other
// GPUs for other times; each (source GPU, destination GPU) pair of the whole profile on both sides, paired by GPU
// index, biggest change of time first, a pair of one side only with null on the other; compare's text cut to --top
// with the rest counted; the digest's baseline (the MCP compare answer) within its byte budget and schema.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import Ajv from 'ajv';
import { compareSummaries } from '../../../src/trace/compare';
import { comparePeerCopies } from '../../../src/trace/comparePeerCopies';
import { summarizePath } from '../../../src/trace/index';
import { renderComparison } from '../../../src/cli/render/compareTables';
import { traceComparisonSchema, type PeerCopyDelta } from '../../../src/core/protocol/traceComparison';
import type { PeerCopy, TraceSummary } from '../../../src/core/protocol/traceSummary';
import { buildDigest, digestText, isMore } from '../../../src/trace/digest/index';
import { compareTool } from '../../../src/cli/mcp/tools';
import type { ProfileDigest } from '../../../src/core/protocol/profileDigest';
import { repoRoot, tempDir } from './helpers';
import { CHANGED_PEER_COPIES, writeMultiRankRun } from './multiRankRun';
import { writeRocpdRanks } from './multiRankRocpd';

function profileDir(tag: string, peerCopies?: (agent: number) => Array<[number, number]>): string {
  const dir = tempDir(tag);
  writeMultiRankRun(dir, peerCopies ? { peerCopies } : {});
  return dir;
}

async function profile(tag: string, peerCopies?: (agent: number) => Array<[number, number]>): Promise<TraceSummary> {
  return summarizePath(profileDir(tag, peerCopies));
}

const side = (totalNs: number) => ({ calls: 1, totalNs, bytes: null });
const pair = (src: number, dst: number, a: number | null, b: number | null, ratio: number | null): PeerCopyDelta => ({
  srcAgentId: `Agent ${src + 1}`,
  dstAgentId: `Agent ${dst + 1}`,
  srcGpu: src,
  dstGpu: dst,
  a: a === null ? null : side(a),
  b: b === null ? null : side(b),
  deltaTotalNs: (b ?? 0) - (a ?? 0),
  ratio,
});

test('two multi-rank profiles: every GPU pair on both sides, biggest change first, one-side pairs with null', async () => {
  const a = await profile('cmp-peer-a');
  const b = await profile('cmp-peer-b', (agent) => CHANGED_PEER_COPIES[agent] ?? []);
  const c = traceComparisonSchema.parse(compareSummaries(a, b));
  assert.deepEqual(c.peerCopies, [
    pair(1, 2, 200, 900, 4.5),
    pair(2, 0, null, 300, null),
    pair(3, 0, 200, null, null),
    pair(2, 3, 200, 50, 0.25),
    pair(0, 1, 200, 200, 1),
  ]);

  const lines = renderComparison(c, { top: 2 }).split('\n');
  const head = lines.indexOf('GPU-to-GPU copies, biggest change first (2 of 5 pairs)');
  assert.ok(head > 0, lines.join('\n'));
  assert.deepEqual(lines.slice(head + 1, head + 6), [
    '  All pairs: A 800 ns, B 1.45 µs, change +650 ns (1.81x)',
    '  Pair                A copies  B copies  A time  B time   Δ time    B/A',
    '  GPU 1 → GPU 2              1         1  200 ns  900 ns  +700 ns  4.50x',
    '  GPU 2 → GPU 0  new         -         1       -  300 ns  +300 ns      -',
    '  3 more pairs: A 600 ns, B 250 ns',
  ]);
  // the default --top (15) shows every pair, and nothing counts as more
  const all = renderComparison(c);
  assert.match(all, /\n {2}GPU 3 → GPU 0 {2}gone +1 +- +200 ns +- +-200 ns +-\n/);
  assert.ok(!all.includes('more pairs'), all);
});

test('peer copies on one side only: every pair gone; on neither side: no section', async () => {
  const a = await profile('cmp-peer-one-a');
  const none = await profile('cmp-peer-none', () => []);
  assert.equal(none.peerCopies, undefined);
  const c = compareSummaries(a, none);
  assert.deepEqual(c.peerCopies, [
    pair(0, 1, 200, null, null),
    pair(1, 2, 200, null, null),
    pair(2, 3, 200, null, null),
    pair(3, 0, 200, null, null),
  ]);
  assert.deepEqual(
    compareSummaries(none, a).peerCopies?.map((p) => [p.a, p.deltaTotalNs]),
    [
      [null, 200],
      [null, 200],
      [null, 200],
      [null, 200],
    ],
  );
  const neither = compareSummaries(none, none);
  assert.equal('peerCopies' in neither, false);
  assert.ok(!renderComparison(neither).includes('GPU-to-GPU'));
});

test('pairs match by host and GPU index, not agent id; an end that is not a GPU matches by agent id', () => {
  const copy = (src: string, dst: string, srcGpu: number | null, dstGpu: number | null, totalNs: number): PeerCopy => ({
    srcAgentId: src,
    dstAgentId: dst,
    srcGpu,
    dstGpu,
    calls: 2,
    totalNs,
    bytes: 4096,
  });
  const d = comparePeerCopies(
    [
      copy('n1/Agent 2', 'n1/Agent 3', 0, 1, 1000),
      copy('n2/Agent 2', 'n2/Agent 3', 0, 1, 500),
      copy('(other agents)', '(other agents)', null, null, 70),
    ],
    [copy('n1/Agent 9', 'n1/Agent 10', 0, 1, 400), copy('(other agents)', '(other agents)', null, null, 100)],
  );
  assert.deepEqual(
    d.map((p) => [p.srcAgentId, p.dstAgentId, p.a?.totalNs ?? null, p.b?.totalNs ?? null, p.deltaTotalNs, p.ratio]),
    [
      ['n1/Agent 9', 'n1/Agent 10', 1000, 400, -600, 0.4],
      ['n2/Agent 2', 'n2/Agent 3', 500, null, -500, null],
      ['(other agents)', '(other agents)', 70, 100, 30, 100 / 70],
    ],
  );
  assert.deepEqual(d[0]?.b, { calls: 2, totalNs: 400, bytes: 4096 });
});

test("the digest's baseline (MCP compare): the pairs with their change, cut to the budget with the rest counted", async () => {
  const a = await profile('cmp-peer-digest-a');
  const b = await profile('cmp-peer-digest-b', (agent) => CHANGED_PEER_COPIES[agent] ?? []);
  const validate = new Ajv({ allErrors: true, strict: true }).compile(
    JSON.parse(readFileSync(path.join(repoRoot, 'docs/digest.schema.json'), 'utf8')),
  );
  const trace = { file: 'profile', sha256: null };
  const d = buildDigest(b, { trace, baseline: { summary: a, trace } });
  assert.ok(validate(d), JSON.stringify(validate.errors));
  const row = (from: number, to: number, an: number | null, bn: number | null, ratio: number | null) => ({
    from: `GPU ${from}`,
    to: `GPU ${to}`,
    a: an === null ? null : side(an),
    b: bn === null ? null : side(bn),
    deltaNs: (bn ?? 0) - (an ?? 0),
    ratio,
  });
  assert.deepEqual(d.baseline?.peerCopies, [
    row(1, 2, 200, 900, 4.5),
    row(2, 0, null, 300, null),
    row(3, 0, 200, null, null),
    row(2, 3, 200, 50, 0.25),
    row(0, 1, 200, 200, 1),
  ]);
  // the barest level keeps no pair: all five counted, with all the change (1350 ns of |Δ|)
  const tight = buildDigest(b, { trace, baseline: { summary: a, trace }, maxBytes: 2048 });
  assert.ok(validate(tight), JSON.stringify(validate.errors));
  assert.ok(Buffer.byteLength(digestText(tight)) <= 2048 || tight.budget.exceeded);
  const pairs = tight.baseline?.peerCopies ?? [];
  const kept = pairs.filter((p) => !isMore(p)).length;
  const more = pairs.find(isMore);
  assert.equal(kept + (more?.more ?? 0), 5);
  assert.ok(kept < 5, `a tight budget cuts the pairs (kept ${kept})`);
  const keptChange = pairs.reduce((n, p) => n + (isMore(p) ? 0 : Math.abs(p.deltaNs)), 0);
  assert.equal(more?.sharePercent, Math.round((1000 * (1350 - keptChange)) / 1350) / 10);
  assert.ok(tight.budget.entriesLeftOut >= 5 - kept);
  // a baseline without peer copies on either side adds no section
  const none = await profile('cmp-peer-digest-none', () => []);
  assert.equal(buildDigest(none, { trace, baseline: { summary: none, trace } }).baseline?.peerCopies, undefined);
});

test("MCP compare of two profile folders: the digest's baseline carries the pair that changed most first", async () => {
  const out = await compareTool({
    a: profileDir('cmp-peer-mcp-a'),
    b: profileDir('cmp-peer-mcp-b', (agent) => CHANGED_PEER_COPIES[agent] ?? []),
  });
  assert.equal(out.kind, 'profiles');
  const digest = out.digest as ProfileDigest;
  assert.deepEqual(digest.baseline?.peerCopies?.[0], {
    from: 'GPU 1',
    to: 'GPU 2',
    a: side(200),
    b: side(900),
    deltaNs: 700,
    ratio: 4.5,
  });
  assert.equal(digest.baseline?.peerCopies?.length, 5);
});

test('rocpd profiles: the pairs carry both sides bytes, and the text shows bytes columns', async () => {
  const dir = tempDir('cmp-peer-rocpd');
  writeRocpdRanks(path.join(dir, 'merged_results.db'));
  const s = await summarizePath(dir);
  const c = compareSummaries(s, s);
  assert.equal(c.peerCopies?.length, 4);
  for (const p of c.peerCopies ?? []) {
    assert.deepEqual([p.a, p.b], [side64k, side64k]);
    assert.deepEqual([p.deltaTotalNs, p.ratio], [0, 1]);
  }
  const lines = renderComparison(c).split('\n');
  const head = lines.indexOf('GPU-to-GPU copies, biggest change first');
  assert.deepEqual(lines.slice(head + 2, head + 4), [
    '  Pair             A copies  B copies   A bytes   B bytes  A time  B time  Δ time    B/A',
    '  GPU 0 → GPU 1           1         1  64.0 KiB  64.0 KiB  200 ns  200 ns    0 ns  1.00x',
  ]);
});

const side64k = { calls: 1, totalNs: 200, bytes: 1 << 16 };
