// Reading what an evaluator wrote into a run's `result` map (`test-count`, `test.<i>.spec|status|message|error`,
// `benchmark-count`, `benchmark.<i>.spec|runs|mean|std|err|best|worst`, in nanoseconds) and whether a result
// passed. One reader for the CLI and the editor: a map without `test-count` still lists its tests (cases are then
// found by their keys).
import type { EvalResult, ResultEvent } from '../protocol/api';

export interface TestCase {
  index: number;
  spec: string;
  /** `pass`, `fail`, or what the evaluator wrote (`unknown` when nothing). */
  status: string;
  passed: boolean;
  message?: string;
  error?: string;
}

export interface BenchmarkCase {
  index: number;
  spec: string;
  runs?: number;
  meanNs?: number;
  stdNs?: number;
  errNs?: number;
  bestNs?: number;
  worstNs?: number;
  /** The case failed (`status: fail` or an `error`); the error text when there is one. */
  failed?: boolean;
  error?: string;
}

/** The case indices of `prefix` (`test`, `benchmark`): 0..count-1 when `<prefix>-count` says, else those keys name. */
function caseIndices(map: Readonly<Record<string, string>>, prefix: string): number[] {
  const count = Number(map[`${prefix}-count`]);
  if (map[`${prefix}-count`] !== undefined && Number.isInteger(count) && count >= 0) return [...Array(count).keys()];
  const seen = new Set<number>();
  const re = new RegExp(`^${prefix}\\.(\\d+)\\.`);
  for (const k of Object.keys(map)) {
    const m = re.exec(k);
    if (m) seen.add(Number(m[1]));
  }
  return [...seen].sort((a, b) => a - b);
}

function num(v: string | undefined): number | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

export function testsOf(map: Readonly<Record<string, string>>): TestCase[] {
  return caseIndices(map, 'test').map((i) => {
    const status = map[`test.${i}.status`] ?? 'unknown';
    const t: TestCase = { index: i, spec: map[`test.${i}.spec`] ?? '', status, passed: status === 'pass' };
    const message = map[`test.${i}.message`];
    const error = map[`test.${i}.error`];
    if (message) t.message = message;
    if (error) t.error = error;
    return t;
  });
}

/** Every benchmark case named in the map; profile runs list specs without timings (no `meanNs`). */
export function benchmarksOf(map: Readonly<Record<string, string>>): BenchmarkCase[] {
  return caseIndices(map, 'benchmark').map((i) => {
    const b: BenchmarkCase = { index: i, spec: map[`benchmark.${i}.spec`] ?? '' };
    const fields = [
      ['runs', 'runs'],
      ['meanNs', 'mean'],
      ['stdNs', 'std'],
      ['errNs', 'err'],
      ['bestNs', 'best'],
      ['worstNs', 'worst'],
    ] as const;
    for (const [field, key] of fields) {
      const v = num(map[`benchmark.${i}.${key}`]);
      if (v !== undefined) b[field] = v;
    }
    const error = map[`benchmark.${i}.error`];
    if (map[`benchmark.${i}.status`] === 'fail' || error !== undefined) {
      b.failed = true;
      if (error) b.error = error;
    }
    return b;
  });
}

/** A run passed: it compiled (when there was a compile step), ran, exited fine and its checks passed. */
function runPassed(run: EvalResult): boolean {
  if (run.compilation && !run.compilation.success) return false;
  return run.run !== null && run.run.success && run.run.passed;
}

/** Whether every run of every result passed. */
export function resultPassed(result: ResultEvent): boolean {
  if (result.results.length === 0) return false;
  return result.results.every((r) => r.success && Object.values(r.runs).every(runPassed));
}
