// The statistics behind `compare`'s verdicts: Student's t against published tables, Welch's test on seeded noise
// (two runs of the same code are "no change" >= 95% of the time; a 5% change with 100 runs a case is found >= 95%).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compareCaseTimings,
  judgeChange,
  judgeDispatches,
  judgeTotals,
  studentTCdf,
  studentTQuantile,
  welch,
  type SampleMoments,
} from '../../../src/trace/significance';
import { seededRandom } from '../../support/random';

const close = (actual: number, expected: number, tol: number) =>
  assert.ok(Math.abs(actual - expected) <= tol, `${actual} is not within ${tol} of ${expected}`);

test("Student's t: CDF and quantiles match the published table (two-sided 95% and 99% critical values)", () => {
  // df: [t(0.975), t(0.995)] from any t table
  const table: Array<[number, number, number]> = [
    [1, 12.706, 63.657],
    [2, 4.303, 9.925],
    [5, 2.571, 4.032],
    [10, 2.228, 3.169],
    [30, 2.042, 2.75],
    [120, 1.98, 2.617],
  ];
  for (const [df, t975, t995] of table) {
    close(studentTQuantile(0.975, df), t975, 0.002);
    close(studentTQuantile(0.995, df), t995, 0.002);
    close(studentTCdf(t975, df), 0.975, 0.0002);
    close(studentTCdf(-t995, df), 0.005, 0.0001);
  }
  close(studentTCdf(0, 7.5), 0.5, 1e-12);
  close(studentTQuantile(0.975, 1e7), 1.959964, 1e-5); // the normal limit
});

test('Welch: the textbook example (unequal variances) gives its df, interval and p-value', () => {
  // a: mean 20.0, sd 2, n 10; b: mean 22.5, sd 4, n 20 → se = sqrt(0.4 + 0.8), df = 1.44 / (0.16/9 + 0.64/19)
  const r = welch({ mean: 20, std: 2, n: 10 }, { mean: 22.5, std: 4, n: 20 }, 0.95);
  assert.ok(r);
  const se = Math.sqrt(0.4 + 0.8);
  close(r.df, 1.44 / (0.16 / 9 + 0.64 / 19), 1e-9);
  const q = studentTQuantile(0.975, r.df);
  close(r.interval[0], 2.5 - q * se, 1e-9);
  close(r.interval[1], 2.5 + q * se, 1e-9);
  close(r.pValue, 2 * studentTCdf(-2.5 / se, r.df), 1e-12);
  assert.equal(welch({ mean: 1, std: 0, n: 1 }, { mean: 1, std: 0, n: 5 }), null);
});

/** n runs of a timing with mean `mean` and relative spread `cv` (normal, Box-Muller), as an evaluator reports them. */
function runs(rand: () => number, n: number, mean: number, cv: number): SampleMoments {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const z = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
    xs.push(mean * (1 + cv * z));
  }
  const m = xs.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (n - 1));
  return { mean: m, std: sd, n };
}

test('seeded noise: identical code is "no change" >= 95% of the time; a 5% change with 100 runs a case is detected >= 95%', () => {
  const rand = seededRandom(20261202);
  const trials = 2000;
  let same = 0;
  let slower = 0;
  let faster = 0;
  // 5% run-to-run spread (coefficient of variation), as GPU MODE's benchmark cases commonly show
  for (let i = 0; i < trials; i++) {
    const base = runs(rand, 100, 50_000, 0.05);
    if (judgeChange(base, runs(rand, 100, 50_000, 0.05), 'welch').verdict === 'no-change') same++;
    if (judgeChange(base, runs(rand, 100, 52_500, 0.05), 'welch').verdict === 'slower') slower++;
    if (judgeChange(base, runs(rand, 100, 47_500, 0.05), 'welch').verdict === 'faster') faster++;
  }
  assert.ok(same / trials >= 0.95, `identical code called "no change" in ${same} of ${trials}`);
  assert.ok(slower / trials >= 0.95, `a 5% slowdown detected in ${slower} of ${trials}`);
  assert.ok(faster / trials >= 0.95, `a 5% speed-up detected in ${faster} of ${trials}`);
});

test('the verdict carries the interval of the relative change, and too few runs say so instead of guessing', () => {
  const c = judgeChange({ mean: 100, std: 5, n: 100 }, { mean: 110, std: 5, n: 100 }, 'welch');
  assert.equal(c.verdict, 'slower');
  assert.equal(c.text, 'slower');
  assert.ok(c.interval && c.interval[0] > 0 && c.interval[0] < 0.1 && c.interval[1] > 0.1);
  close(c.ratio as number, 1.1, 1e-12);
  const one = judgeChange({ mean: 100, std: 0, n: 1 }, { mean: 200, std: 0, n: 1 }, 'welch');
  assert.equal(one.verdict, 'not-enough-runs');
  assert.equal(one.text, 'not enough runs to tell');
  assert.equal(one.interval, null);
  assert.equal(one.ratio, 2);
  // per-dispatch spread: too few dispatches is not a verdict
  assert.equal(
    judgeDispatches({ avgNs: 10, stddevNs: 1, calls: 3 }, { avgNs: 20, stddevNs: 1, calls: 3 }).verdict,
    'not-enough-runs',
  );
  assert.equal(
    judgeDispatches({ avgNs: 10, stddevNs: 1, calls: 50 }, { avgNs: 20, stddevNs: 1, calls: 50 }).verdict,
    'slower',
  );
  assert.equal(
    judgeDispatches({ avgNs: 10, stddevNs: null, calls: 50 }, { avgNs: 20, stddevNs: 1, calls: 50 }).verdict,
    'not-enough-runs',
  );
  assert.equal(
    judgeTotals([{ calls: 50, avgNs: 10, stddevNs: 1 }], [{ calls: 50, avgNs: 8, stddevNs: 1 }]).verdict,
    'faster',
  );
});

test('per-dispatch spread on seeded noise: 200 dispatches of the same kernel are "no change" >= 95% of the time', () => {
  const rand = seededRandom(7);
  let same = 0;
  for (let i = 0; i < 1000; i++) {
    const a = runs(rand, 200, 10_000, 0.1);
    const b = runs(rand, 200, 10_000, 0.1);
    if (
      judgeDispatches({ avgNs: a.mean, stddevNs: a.std, calls: a.n }, { avgNs: b.mean, stddevNs: b.std, calls: b.n })
        .verdict === 'no-change'
    )
      same++;
  }
  assert.ok(same >= 950, `${same} of 1000`);
});

test('evaluator cases pair by spec (any order), a case missing its timings is not judged', () => {
  const a = [
    { spec: 'n: 1', runs: 100, meanNs: 1000, stdNs: 10 },
    { spec: 'n: 2', runs: 100, meanNs: 2000, stdNs: 10 },
  ];
  const b = [
    { spec: 'n: 2', runs: 100, meanNs: 1500, stdNs: 10 },
    { spec: 'n: 1', runs: 100, meanNs: 1000.5, stdNs: 10 },
  ];
  const r = compareCaseTimings(a, b);
  assert.deepEqual(
    r.map((c) => [c.spec, c.change.verdict, c.change.method]),
    [
      ['n: 1', 'no-change', 'welch'],
      ['n: 2', 'faster', 'welch'],
    ],
  );
  assert.equal(
    compareCaseTimings([{ spec: 'x', meanNs: 5 }], [{ spec: 'x', runs: 10, meanNs: 5, stdNs: 1 }])[0]?.change.verdict,
    'not-enough-runs',
  );
});
