// `kernel-runner compare` with significance, as users run it (the built CLI): two results saved by `submit --json`
// compared per benchmark case with Welch's test (seeded timings: a 5% slowdown over 100 runs is "slower", the same
// code "no change detected"), and two profiles with per-dispatch verdicts in the table and in --json.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureBuilt, runCli, tempDir } from './submit/helpers';
import { seededRandom } from '../support/random';
import { writeRun, type Launch } from '../unit/trace/rangeRuns';

let work: string;
before(() => {
  ensureBuilt();
  work = tempDir('kr-compare-sig-');
});
after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A `submit --json` body with a benchmark run whose cases have these (mean, cv) timings over `runs` runs, seeded. */
function resultFile(name: string, cases: Array<[string, number, number]>, seed: number, runs = 100): string {
  const rand = seededRandom(seed);
  const map: Record<string, string> = { 'benchmark-count': String(cases.length), check: 'pass' };
  cases.forEach(([spec, mean, cv], i) => {
    const xs = Array.from(
      { length: runs },
      () => mean * (1 + cv * Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand())),
    );
    const m = xs.reduce((a, b) => a + b, 0) / runs;
    const sd = Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (runs - 1));
    Object.assign(map, {
      [`benchmark.${i}.spec`]: spec,
      [`benchmark.${i}.runs`]: String(runs),
      [`benchmark.${i}.mean`]: String(m),
      [`benchmark.${i}.std`]: String(sd),
    });
  });
  const run = {
    success: true,
    passed: true,
    command: 'python eval.py benchmark',
    stdout: '',
    stderr: '',
    exit_code: 0,
    duration: 1,
    result: map,
  };
  const body = {
    ok: true,
    result: {
      status: 'success',
      results: [
        {
          success: true,
          error: '',
          system: { gpu: 'MI300X', cpu: '', platform: '', torch: '' },
          runs: { benchmark: { start: '', end: '', compilation: null, run, profile: null } },
        },
      ],
      reports: [],
    },
    traces: [],
  };
  const file = path.join(work, name);
  writeFileSync(file, JSON.stringify(body));
  return file;
}

test("two submit --json results: per case, Welch's verdict with its interval (table and --json)", async () => {
  const a = resultFile(
    'a.json',
    [
      ['size: 1024', 50_000, 0.05],
      ['size: 8192', 400_000, 0.05],
    ],
    1,
  );
  const b = resultFile(
    'b.json',
    [
      ['size: 1024', 52_500, 0.05],
      ['size: 8192', 400_000, 0.05],
    ],
    2,
  );
  const r = await runCli(['compare', a, b]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /size: 1024 .* \+\d+\.\d% \[\+\d+\.\d%, \+\d+\.\d%\] slower$/m);
  assert.match(r.stdout, /size: 8192 .* no change detected$/m);
  const j = await runCli(['compare', a, b, '--json']);
  const body = JSON.parse(j.stdout) as {
    cases: Array<{ spec: string; change: { verdict: string; method: string; interval: [number, number] } }>;
  };
  assert.deepEqual(
    body.cases.map((c) => [c.spec, c.change.verdict, c.change.method]),
    [
      ['size: 1024', 'slower', 'welch'],
      ['size: 8192', 'no-change', 'welch'],
    ],
  );
  const [lo, hi] = body.cases[0]!.change.interval;
  assert.ok(lo > 0 && lo < 0.05 && hi > 0.05, `${lo}, ${hi}`);
  const mixed = await runCli(['compare', a, path.join(work, 'nothing')]);
  assert.equal(mixed.code, 2);
  assert.match(mixed.stderr, /is not a result saved by `kernel-runner submit --json`/);
});

test("two profiles: each kernel's change judged from its per-dispatch spread, too few dispatches said so", async () => {
  const dirs = ['pa', 'pb'].map((n) => path.join(work, n));
  dirs.forEach((dir, side) => {
    mkdirSync(dir, { recursive: true });
    const launches: Launch[] = [];
    let gpu = 10_000;
    for (let i = 0; i < 40; i++) {
      const dur = (side === 0 ? 1000 : 1500) + (i % 5) * 10;
      launches.push({ corr: 10 + i, tid: 100, at: 1100 + i, kernel: 'slow_kernel(float*)', gpu: [gpu, gpu + dur] });
      gpu += dur + 10;
    }
    launches.push({ corr: 90, tid: 100, at: 1200, kernel: 'once_kernel(int*)', gpu: [gpu, gpu + 500] });
    writeRun(dir, { launches, ranges: [['benchmark 0: n: 1', 100, 1000, 2000]] });
  });
  const j = await runCli(['compare', ...dirs, '--json']);
  assert.equal(j.code, 0, j.stderr);
  const c = JSON.parse(j.stdout) as {
    kernels: Array<{ shortName: string; change?: { verdict: string } }>;
    kernelTimeChange: { verdict: string };
  };
  assert.deepEqual(
    c.kernels.map((k) => [k.shortName, k.change?.verdict]),
    [
      ['slow_kernel', 'slower'],
      ['once_kernel', 'not-enough-runs'],
    ],
  );
  assert.equal(c.kernelTimeChange.verdict, 'slower');
  const t = await runCli(['compare', ...dirs]);
  assert.match(t.stdout, /slow_kernel .* \+\d+% \[\+\d+(\.\d)?%, \+\d+(\.\d)?%\] slower$/m);
  assert.match(t.stdout, /once_kernel .* not enough runs to tell$/m);
});
