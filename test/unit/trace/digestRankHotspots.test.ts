// The digest of a multi-process profile with PC samples carries the slowest rank's own hot spots: the rank the
// summary's imbalance names, its samples and kernels as that rank's one-process read gives them, each list cut at the
// digest's level like the whole profile's; valid against docs/digest.schema.json at every budget; absent for a
// profile of one process.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import Ajv from 'ajv';
import type { DigestHotspotKernel } from '../../../src/core/protocol/profileDigest';
import { processChoices } from '../../../src/core/format/index';
import { buildDigest, digestText, isMore } from '../../../src/trace/digest/index';
import { summarizePath } from '../../../src/trace/index';
import { repoRoot, tempDir } from './helpers';
import { GEMM, RANKS, writeMultiRankRun } from './multiRankRun';

const validate = new Ajv({ allErrors: true, strict: true }).compile(
  JSON.parse(readFileSync(path.join(repoRoot, 'docs/digest.schema.json'), 'utf8')),
);
const trace = { file: 'profile', sha256: null };
const round1 = (x: number) => Math.round(x * 10) / 10;

test("the digest's slowest rank hot spots are that rank's own, cut like the whole's within the budget", async () => {
  const dir = tempDir('digest-rank-hot');
  writeMultiRankRun(dir, { pcSamples: true, manifest: true });
  const s = await summarizePath(dir);
  const slowest = s.ranks?.imbalance[0]?.slowestRank;
  assert.equal(typeof slowest, 'number');
  const own = s.hotspots?.processes?.find((p) => p.rank === slowest);
  assert.ok(own, 'the slowest rank was sampled');
  // the stand-in's rank 0 (pid 3011) computes 1000 + 3000 ns a gemm: the longest, and the most gemm samples
  assert.equal(own.pid, RANKS[0]!.pid);
  const totalSamples = s.hotspots?.processes?.reduce((n, p) => n + p.samples, 0);
  assert.equal(totalSamples, s.hotspots?.samples);

  const d = buildDigest(s, { trace, maxBytes: 16384 });
  assert.ok(validate(d), JSON.stringify(validate.errors, null, 2));
  assert.equal(d.budget.level, 0);
  const r = d.hotspots?.slowestRank;
  assert.ok(r);
  assert.deepEqual([r.rank, r.pid, r.samples], [slowest, own.pid, own.samples]);
  const kernels = r.kernels.filter((k): k is DigestHotspotKernel => !isMore(k));
  assert.deepEqual(
    kernels.map((k) => [k.kernel, k.samples, k.percent]),
    own.kernels.map((k) => [k.shortName, k.samples, round1(100 * k.share)]),
  );
  const gemm = own.kernels.find((k) => k.name === GEMM)!;
  assert.equal(gemm.samples, 3 * (RANKS[0]!.gemmNs[0] / 100 + RANKS[0]!.gemmNs[1] / 100));
  // its lines as the whole's are: file (last two parts), line, share of the kernel's samples
  const dg = kernels.find((k) => k.kernel === gemm.shortName)!;
  assert.deepEqual(
    dg.lines.filter((l) => !isMore(l)),
    gemm.lines.slice(0, dg.lines.filter((l) => !isMore(l)).length).map((l) => ({
      file: l.file.split('/').filter(Boolean).length <= 2 ? l.file : `…/${l.file.split('/').slice(-2).join('/')}`,
      line: l.line,
      percent: round1(100 * l.share),
    })),
  );
  // a rank's share differs from the whole's: its gemm is a bigger part of its own samples than of all
  const whole = s.hotspots!.kernels.find((k) => k.name === GEMM)!;
  assert.ok(gemm.share !== whole.share && own.samples < s.hotspots!.samples);

  // a small budget cuts the rank's kernels like the whole's, with a `+N more` end counted as left out
  let cut = false;
  for (const maxBytes of [8192, 6144, 5120]) {
    const small = buildDigest(s, { trace, maxBytes });
    assert.ok(validate(small), `${maxBytes}: ${JSON.stringify(validate.errors, null, 2)}`);
    assert.ok(Buffer.byteLength(digestText(small)) <= maxBytes, `${maxBytes}`);
    assert.equal(small.budget.exceeded, false);
    const rank = small.hotspots?.slowestRank;
    assert.equal(rank?.rank, slowest, `${maxBytes}: the slowest rank is kept`);
    const wholeKept = small.hotspots!.kernels.filter((k) => !isMore(k)).length;
    assert.equal(rank!.kernels.filter((k) => !isMore(k)).length, Math.min(own.kernels.length, wholeKept));
    const more = rank!.kernels.find(isMore);
    if (more) {
      cut = true;
      assert.equal(more.more, own.kernels.length - wholeKept);
    }
  }
  assert.ok(cut, 'some budget cut the rank kernels');
  // a budget the bare digest fits only without them: they are given up, the rest of the digest kept within it
  const withoutRank = buildDigest(
    { ...s, hotspots: { ...s.hotspots!, processes: undefined } },
    { trace, maxBytes: 4096 },
  );
  assert.equal(withoutRank.budget.exceeded, false);
  const tight = buildDigest(s, { trace, maxBytes: 4096 });
  assert.ok(validate(tight), JSON.stringify(validate.errors, null, 2));
  assert.equal(tight.budget.exceeded, false);
  assert.ok(Buffer.byteLength(digestText(tight)) <= 4096);
  assert.equal(tight.hotspots?.slowestRank, undefined);
  assert.deepEqual(tight, withoutRank);
});

test('the rank choice labels: ranks in order, the slowest marked, unranked processes by pid', async () => {
  const dir = tempDir('digest-rank-hot-labels');
  writeMultiRankRun(dir, { pcSamples: true, manifest: true });
  const s = await summarizePath(dir);
  const slowest = s.ranks!.imbalance[0]!.slowestRank;
  assert.deepEqual(
    processChoices(s.hotspots!.processes!, slowest).map((c) => c.label),
    RANKS.map((_, i) => (i === slowest ? `rank ${i} (slowest)` : `rank ${i}`)),
  );
  assert.deepEqual(
    processChoices(
      [
        { rank: null, pid: 7, host: 'a' },
        { rank: null, pid: 7, host: 'b' },
      ],
      null,
    ).map((c) => c.label),
    ['pid 7 on a', 'pid 7 on b'],
  );
  assert.deepEqual(
    processChoices([{ rank: null, pid: 7, host: 'a' }], 0).map((c) => c.label),
    ['pid 7'],
  );
});

test('a one-process profile: no slowest rank hot spots', async () => {
  const dir = tempDir('digest-rank-hot-one');
  writeMultiRankRun(dir, { pcSamples: true, manifest: true });
  const s = await summarizePath(dir);
  const one = { ...s, hotspots: { ...s.hotspots!, processes: undefined } };
  assert.equal(buildDigest(one, { trace }).hotspots?.slowestRank, undefined);
  const noRanks = { ...s, ranks: undefined };
  assert.equal(buildDigest(noRanks, { trace }).hotspots?.slowestRank, undefined);
  assert.ok(buildDigest(s, { trace }).hotspots?.slowestRank, 'the same profile with both has them');
});
