// The profile digest (src/trace/digest): valid against docs/digest.schema.json, every number the summary's, within
// its byte budget with "+N more (share x%)" ends and no value cut, the same bytes for the same input, code object
// facts when the archive has them, and changes against a baseline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { summarizePath } from '../../../src/trace/summarize';
import { buildDigest, digestPath, digestText, isMore, DigestBudgetError } from '../../../src/trace/digest/index';
import { roundPercent } from '../../../src/trace/digest/precision';
import type { DigestKernel, DigestMore, ProfileDigest } from '../../../src/core/protocol/profileDigest';
import type { TraceSummary } from '../../../src/core/protocol/traceSummary';
import type { CodeObjectInfo } from '../../../src/trace/codeObjects/read';
import { fixtures, repoRoot, tempDir } from './helpers';
import { writeRun, type Launch } from './rangeRuns';

const schema = JSON.parse(readFileSync(path.join(repoRoot, 'docs/digest.schema.json'), 'utf8'));
const validate = new Ajv({ allErrors: true, strict: true }).compile(schema);

function assertValid(d: unknown): void {
  assert.ok(validate(d), JSON.stringify(validate.errors, null, 2));
}

const trace = { file: 'run.zip', sha256: null };
const kept = <T extends object>(list: Array<T | DigestMore>): T[] => list.filter((e): e is T => !isMore(e));
const moreOf = (list: unknown[]): DigestMore | undefined => list.filter(isMore)[0] as DigestMore | undefined;

/** A run of `kernels` distinct kernels (long template names), `perKernel` dispatches each, spread over `cases` ranges. */
function bigRun(dir: string, kernels: number, perKernel: number, cases: number, slow = 1, spread = true): void {
  const ranges: Array<[string, number, number, number]> = [];
  for (let c = 0; c < cases; c++)
    ranges.push([
      `benchmark ${c}: size: ${1024 << (c % 8)}; seed: ${c}`,
      100,
      1_000_000 * c + 1000,
      1_000_000 * c + 900_000,
    ]);
  const launches: Launch[] = [];
  let corr = 10;
  let gpu = 1_000_000_000;
  for (let k = 0; k < kernels; k++) {
    const name = `void ck_tile::gemm_kernel_${k}<ck_tile::tuple<float, ${'int, '.repeat(20)}ck_tile::sequence<${k}, 64, 32>>>(float const*, float*, int)`;
    for (let i = 0; i < perKernel; i++) {
      const c = spread ? (k + i) % cases : k % cases;
      const dur = Math.round((1000 + 37 * k + (i % 7) * 11) * slow);
      launches.push({ corr: corr++, tid: 100, at: 1_000_000 * c + 2000 + i, kernel: name, gpu: [gpu, gpu + dur] });
      gpu += dur + (i % 50 === 0 ? 200_000 : 50);
    }
  }
  writeRun(dir, { launches, ranges });
}

/** A summary's duration as the digest keeps it: whole nanoseconds. */
const ns = (v: number | null | undefined) => (v === null || v === undefined ? v : Math.round(v));

function numbersEqualSummary(d: ProfileDigest, s: TraceSummary): void {
  const ks = kept<DigestKernel>(d.kernels);
  ks.forEach((k, i) => {
    const row = s.kernels[i]!;
    assert.equal(k.id, `k${i + 1}`);
    assert.deepEqual(
      [k.shortName, k.calls, k.totalNs, k.avgNs, k.minNs, k.maxNs, k.stddevNs, k.percent],
      [
        row.shortName,
        row.calls,
        row.totalNs,
        ns(row.avgNs),
        ns(row.minNs),
        ns(row.maxNs),
        ns(row.stddevNs),
        roundPercent(row.percent),
      ],
    );
    assert.deepEqual(k.launch?.grid, row.launches[0]?.grid);
    assert.deepEqual(k.launch?.workgroup, row.launches[0]?.workgroup);
    assert.equal(k.launch?.calls, row.launches[0]?.calls);
    if (k.resources?.from === 'trace')
      assert.deepEqual(
        [k.resources.vgpr, k.resources.sgpr, k.resources.ldsBytes, k.resources.scratchBytes],
        [row.launches[0]?.vgpr, row.launches[0]?.sgpr, row.launches[0]?.ldsBytes, row.launches[0]?.scratchBytes],
      );
  });
  const ranges = s.markers.filter((m) => m.kernels.length > 0 || m.totalNs > 0);
  kept(d.cases).forEach((c, i) => {
    const m = ranges[i]!;
    assert.deepEqual([c.name, c.calls, c.rangeNs], [m.name, m.calls, m.totalNs]);
    assert.equal(
      c.kernelNs,
      m.kernels.reduce((n, k) => n + k.totalNs, 0),
    );
    kept(c.kernels).forEach((ck, j) => {
      assert.deepEqual([ck.calls, ck.totalNs], [m.kernels[j]!.calls, m.kernels[j]!.totalNs]);
      if (ck.kernel) assert.equal(s.kernels[Number(ck.kernel.slice(1)) - 1]!.name, m.kernels[j]!.name);
    });
  });
  assert.deepEqual(d.run.kernels, s.kernelTotals);
  assert.equal(d.run.wallNs, s.wall?.spanNs ?? null);
  for (const g of d.run.gpus) {
    const a = s.agents.find((x) => x.id === g.agentId)!;
    assert.deepEqual(
      [g.kernelCalls, g.kernelNs, g.copyNs, g.busyNs, g.busyPercent],
      [a.kernelCalls, a.kernelNs, a.copyNs, a.busyNs, a.busyPercent === null ? null : roundPercent(a.busyPercent)],
    );
  }
  kept(d.run.api.top).forEach((r, i) =>
    assert.deepEqual(r, {
      name: s.api[i]!.name,
      domain: s.api[i]!.domain,
      calls: s.api[i]!.calls,
      totalNs: s.api[i]!.totalNs,
      avgNs: ns(s.api[i]!.avgNs),
      percent: roundPercent(s.api[i]!.percent),
    }),
  );
  assert.deepEqual(
    [d.run.api.calls, d.run.api.totalNs, d.run.api.distinct],
    [s.apiTotals.calls, s.apiTotals.totalNs, s.apiTotals.distinct],
  );
}

test("a run with rocTX ranges: schema-valid, every number the summary's, cases with their kernels' shares", async () => {
  const dir = tempDir('digest-ranges');
  try {
    writeRun(dir);
    const s = await summarizePath(dir);
    const d = buildDigest(s, { trace });
    assertValid(d);
    numbersEqualSummary(d, s);
    assert.equal(d.schemaVersion, 1);
    const b0 = kept(d.cases).find((c) => c.name.startsWith('benchmark 0'))!;
    const shares = kept(b0.kernels).map((k) => k.sharePercent);
    // each share to 0.1 %: their sum within half that per share of 100
    assert.ok(Math.abs(shares.reduce((a, b) => a + b, 0) - 100) <= 0.05 * shares.length + 1e-9, String(shares));
    // 8 launches, 2 outside any range: the coverage warning says so
    assert.ok(
      kept(d.warnings).some((w) => w.kind === 'coverage' && /dispatches ran outside any rocTX range/.test(w.text)),
      JSON.stringify(d.warnings),
    );
    // occupancy estimated from the registers the trace recorded, on the agent's arch when known: here none is known
    assert.equal(d.roofline, null);
    assert.equal(d.hotspots, null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a big run: within 16 KB and within 4 KB, lists end in "+N more (share x%)", no name cut, same bytes twice', async () => {
  const dir = tempDir('digest-big');
  try {
    bigRun(dir, 120, 30, 40);
    const s = await summarizePath(dir);
    const full = JSON.stringify(s).length;
    for (const maxBytes of [16384, 4096]) {
      const d = buildDigest(s, { trace, maxBytes });
      const text = digestText(d);
      assert.ok(Buffer.byteLength(text) <= maxBytes, `${Buffer.byteLength(text)} > ${maxBytes}`);
      assert.ok(Buffer.byteLength(text) < full / 10, 'the digest is not a small part of the summary');
      assertValid(d);
      numbersEqualSummary(d, s);
      assert.equal(d.budget.exceeded, false);
      const more = moreOf(d.kernels)!;
      assert.ok(more, 'the kernel list is cut');
      assert.equal(kept(d.kernels).length + more.more, s.kernelTotals.distinct);
      const keptNs = kept<DigestKernel>(d.kernels).reduce((n, k) => n + k.totalNs, 0);
      assert.equal(
        more.sharePercent,
        Math.round((1000 * (s.kernelTotals.totalNs - keptNs)) / s.kernelTotals.totalNs) / 10,
      );
      assert.equal(more.text, `+${more.more} more (share ${more.sharePercent}%)`);
      assert.ok(moreOf(d.cases), 'the case list is cut');
      for (const k of kept<DigestKernel>(d.kernels)) {
        assert.ok(
          s.kernels.some((r) => r.shortName === k.shortName),
          `${k.shortName} is not a whole short name`,
        );
        if (k.name !== null) assert.ok(s.kernels.some((r) => r.name === k.name));
      }
      assert.ok(d.budget.entriesLeftOut > 0);
      // deterministic: the same summary, and the same files read again, give the same bytes
      assert.equal(digestText(buildDigest(s, { trace, maxBytes })), text);
      assert.equal(digestText(buildDigest(await summarizePath(dir), { trace, maxBytes })), text);
    }
    assert.throws(() => buildDigest(s, { trace, maxBytes: 100 }), DigestBudgetError);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("code objects of the archive: their registers, spills and occupancy replace the trace's", async () => {
  const dir = tempDir('digest-co');
  try {
    writeRun(dir);
    const s = await summarizePath(dir);
    // a code object as src/trace/codeObjects reads one (unit test: the reader itself is tested on real ELF files)
    const info: CodeObjectInfo = {
      file: '_code_object0.o',
      bundleEntry: null,
      target: 'amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-',
      processor: 'gfx942',
      codeObjectVersion: 5,
      metadataVersion: [1, 2],
      occupancyNote: null,
      kernels: [
        {
          name: '_Z13worker_kernelPi',
          symbol: '_Z13worker_kernelPi.kd',
          vgprCount: 128,
          sgprCount: 40,
          agprCount: 0,
          ldsBytes: 16384,
          scratchBytes: 64,
          wavefrontSize: 64,
          maxFlatWorkgroupSize: 256,
          reqdWorkgroupSize: null,
          kernargBytes: 8,
          vgprSpillCount: 3,
          sgprSpillCount: 0,
          usesDynamicStack: false,
          language: 'OpenCL C',
          occupancy: {
            wavesPerSimd: 4,
            maxWavesPerSimd: 8,
            limitedBy: ['vgpr'],
            byVgpr: 4,
            bySgpr: 8,
            byLds: 8,
            workgroupSize: 256,
            workgroupSizeFrom: 'max_flat_workgroup_size',
          },
        },
      ],
    };
    const d = buildDigest(s, { trace, codeObjects: [info] });
    assertValid(d);
    const worker = kept<DigestKernel>(d.kernels).find((k) => k.shortName === 'worker_kernel')!;
    assert.deepEqual(worker.resources, {
      vgpr: 128,
      accumVgpr: 0,
      sgpr: 40,
      ldsBytes: 16384,
      scratchBytes: 64,
      vgprSpills: 3,
      sgprSpills: 0,
      from: 'code-object',
    });
    assert.deepEqual(worker.occupancy, {
      wavesPerSimd: 4,
      maxWavesPerSimd: 8,
      limitedBy: ['vgpr'],
      from: 'code-object',
    });
    const gemm = kept<DigestKernel>(d.kernels).find((k) => k.shortName.startsWith('gemm'))!;
    assert.equal(gemm.resources?.from, 'trace');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--baseline: a kernel twice as slow with enough dispatches is "slower" with its interval; the same run is no change', async () => {
  const a = tempDir('digest-base-a');
  const b = tempDir('digest-base-b');
  try {
    // each kernel in one case: a case's kernel time has the spread of its kernels' dispatches
    bigRun(a, 4, 40, 2, 1, false);
    bigRun(b, 4, 40, 2, 2, false);
    const [sa, sb] = await Promise.all([summarizePath(a), summarizePath(b)]);
    const d = buildDigest(sb, { trace, baseline: { summary: sa, trace: { file: 'a', sha256: null } } });
    assertValid(d);
    for (const k of kept<DigestKernel>(d.kernels)) {
      assert.equal(k.change?.verdict, 'slower', JSON.stringify(k.change));
      assert.ok(k.change!.interval![0] > 0.5 && k.change!.interval![1] > 0.9);
    }
    assert.equal(d.baseline?.kernelTime.verdict, 'slower');
    const same = buildDigest(sa, { trace, baseline: { summary: sa, trace: { file: 'a', sha256: null } } });
    assertValid(same);
    for (const k of kept<DigestKernel>(same.kernels)) assert.equal(k.change?.verdict, 'no-change');
    for (const c of kept(same.cases)) assert.equal(c.change?.verdict, 'no-change', JSON.stringify(c.change));
    for (const c of kept(d.cases)) assert.equal(c.change?.verdict, 'slower', JSON.stringify(c.change));
    // kernels spread over several cases: a case's share of their spread is not known, and the digest says so
    const spreadA = tempDir('digest-base-sa');
    try {
      bigRun(spreadA, 4, 40, 2);
      const ss = await summarizePath(spreadA);
      const spreadDigest = buildDigest(ss, { trace, baseline: { summary: ss, trace: { file: 'a', sha256: null } } });
      for (const c of kept(spreadDigest.cases))
        assert.deepEqual(
          [c.change?.verdict, c.change?.text, c.change?.ratio],
          ['not-enough-runs', 'not enough runs to tell', 1],
        );
    } finally {
      rmSync(spreadA, { recursive: true, force: true });
    }
  } finally {
    rmSync(a, { recursive: true, force: true });
    rmSync(b, { recursive: true, force: true });
  }
});

test("digestPath: the trace fingerprint is the file's sha256; a folder has none", async () => {
  const dir = tempDir('digest-path');
  try {
    writeRun(dir);
    const d = await digestPath(dir, { submission: { file: 'k.py', sha256: 'a'.repeat(64) } });
    assertValid(d);
    assert.equal(d.provenance.trace.sha256, null);
    assert.equal(d.provenance.submission?.sha256, 'a'.repeat(64));
    const csv = path.join(dir, '4242_kernel_trace.csv');
    const one = await digestPath(csv);
    const { createHash } = await import('node:crypto');
    assert.equal(one.provenance.trace.sha256, createHash('sha256').update(readFileSync(csv)).digest('hex'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('PC samples only: hot spots per kernel, line, instruction and stall reason within the budget, and said plainly', async () => {
  const dir = path.join(fixtures, 'pc-sampling');
  const s = await summarizePath(dir);
  const hot = s.hotspots!;
  for (const maxBytes of [16384, 4096, 2048]) {
    const d = buildDigest(s, { trace, maxBytes });
    assertValid(d);
    assert.ok(Buffer.byteLength(digestText(d)) <= maxBytes);
    assert.equal(d.budget.exceeded, false);
    const h = d.hotspots!;
    assert.equal(h.samples, hot.samples);
    const ks = kept(h.kernels);
    assert.ok(ks.length > 0);
    // hottest first, each the summary's kernel at its share to 0.1 %
    ks.forEach((k, i) => {
      assert.equal(k.kernel, hot.kernels[i]!.shortName);
      assert.equal(k.percent, roundPercent(100 * hot.kernels[i]!.share));
    });
    assert.equal(ks.length + (moreOf(h.kernels)?.more ?? 0), hot.kernels.length);
    assert.ok(kept(ks[0]!.lines).length > 0 && kept(ks[0]!.instructions).length > 0, JSON.stringify(ks[0]));
    assert.ok(
      kept(d.warnings).some((w) => /no kernel dispatches in the trace .*only the PC-sampling hot spots/.test(w.text)),
    );
  }
  // a stochastic kernel: its stall reasons, shares of its samples
  const d = buildDigest(s, { trace });
  const stalled = kept(d.hotspots!.kernels).find((k) => kept(k.stalls).length > 0)!;
  const source = hot.kernels.find((k) => k.shortName === stalled.kernel)!;
  const [reason, samples] = Object.entries(source.stalls).sort(([, a], [, b]) => b - a)[0]!;
  assert.deepEqual(kept(stalled.stalls)[0], { reason, percent: roundPercent((100 * samples) / source.samples) });
});

test('a trace with neither kernels nor PC samples: the digest says there is nothing to digest', async () => {
  const s = await summarizePath(path.join(fixtures, 'rocm-systems__sdkdocs__hip_api_stats.csv'));
  assert.equal(s.kernelTotals.calls, 0);
  const d = buildDigest(s, { trace });
  assert.equal(d.hotspots, null);
  assert.ok(
    kept(d.warnings).some((w) => /no kernel dispatches and no PC samples/.test(w.text)),
    JSON.stringify(d.warnings),
  );
});
