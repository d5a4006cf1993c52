// The evaluator's side of a result for the digest and `compare`: tests passed and failed, and the per-case
// timings of the leaderboard run (else the benchmark run) — what ranks, kept apart from the profiler's durations.
import type { DigestEvaluator } from '../core/protocol/profileDigest';
import type { ResultEvent } from '../core/protocol/api';
import { benchmarksOf, testsOf } from '../core/submission/resultMaps';

export function evaluatorOfResult(result: ResultEvent): DigestEvaluator {
  const runs = result.results[0]?.runs ?? {};
  const testRun = runs.test?.run;
  const tests = testRun ? testsOf(testRun.result) : [];
  const timed = runs.leaderboard?.run ?? runs.benchmark?.run;
  const benchmarks = timed ? benchmarksOf(timed.result) : [];
  return {
    tests: testRun
      ? {
          passed: tests.filter((t) => t.passed).length,
          failed: tests.filter((t) => !t.passed).length,
          failures: tests
            .filter((t) => !t.passed)
            .map((t) => t.spec)
            .slice(0, 10),
        }
      : null,
    benchmarks: benchmarks.map((b) => ({
      spec: b.spec,
      runs: b.runs ?? null,
      meanNs: b.meanNs ?? null,
      stdNs: b.stdNs ?? null,
      bestNs: b.bestNs ?? null,
      worstNs: b.worstNs ?? null,
    })),
  };
}
