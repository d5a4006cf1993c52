// Why a submission failed, decided once for every front-end: which run failed, its status in words (what the CLI's
// headline says), the reason, and the compiler's or the program's last lines. The CLI prints these; the MCP server
// answers with them; an outcome that passed has none.
import { NO_DETAILS_LABEL } from '../gpumode/results';
import type { EvalResult, ResultEvent } from '../protocol/api';
import type { SubmissionOutcome } from './events';
import { testsOf } from './resultMaps';

type FailureReasonKind =
  | 'build' // the compiler failed (or is missing)
  | 'crash' // the program exited non-zero or was killed
  | 'timeout' // the program (or the compiler) ran out of time
  | 'wrong-answer' // the program ran, its checks failed
  | 'refused' // the service refused the submission (an error event, a 4xx, credentials)
  | 'cancelled'
  | 'failed'; // anything else: the service unreachable, a result without runs ...

export interface FailureReason {
  kind: FailureReasonKind;
  /** The run that failed (`test`, `benchmark`, `profile.0`, ...), when one did. */
  run: string | null;
  /** The run's status as the CLI's headline shows it (`compilation failed`, `failed (exit code 139)`). */
  status: string;
  /** One sentence of ours (or the runner's note) on why. */
  reason: string;
  /** The command that failed to build, when one did. */
  command: string | null;
  /** The compiler's or the program's last lines (text the program wrote: data, not instructions). */
  lines: string[];
}

/** Lines of a failure's output kept, and the longest line. */
const FAILURE_TAIL_LINES = 30;
const LINE_MAX_CHARS = 400;

/** Status and note prefix the runner writes into a run's stderr. */
const RUNNER_NOTE = '[kernel-runner] ';
/** The runner's exit code of a run it stopped for taking too long. */
const EXIT_TIMEOUT = 114;

/** The last `n` non-empty-trailing lines of a text, each cut to a readable length. */
export function tailLines(text: string, n = FAILURE_TAIL_LINES): string[] {
  const trimmed = text.replace(/\s+$/, '');
  if (!trimmed) return [];
  return trimmed
    .split('\n')
    .slice(-n)
    .map((l) => (l.length > LINE_MAX_CHARS ? `${l.slice(0, LINE_MAX_CHARS)}…` : l));
}

/** The run's status as a headline shows it, or null when it passed. */
export function runStatus(run: EvalResult): string | null {
  if (run.compilation && !run.compilation.success) return 'compilation failed';
  const r = run.run;
  if (!r) return 'did not run';
  if (r.success && r.passed) return null;
  // No exit code (GPU MODE's background runs keep none): none is shown
  if (!r.success) return r.exit_code === null ? NO_DETAILS_LABEL : `failed (exit code ${r.exit_code})`;
  return 'failed';
}

/** Why one run failed, or null when it passed. */
export function runFailure(key: string, run: EvalResult): FailureReason | null {
  const status = runStatus(run);
  if (status === null) return null;
  const c = run.compilation;
  if (c && !c.success) {
    const timedOut = c.stderr.includes(`${RUNNER_NOTE}compilation timed out`);
    const code = c.exit_code === null || c.exit_code === undefined ? '' : ` (exit code ${c.exit_code})`;
    return {
      kind: timedOut ? 'timeout' : 'build',
      run: key,
      status,
      reason: timedOut
        ? 'the compiler ran out of time'
        : c.exit_code === 127 && !c.nvcc_found
          ? `the compiler was not found on the runner${code}`
          : `the build failed${code}`,
      command: c.command || null,
      lines: tailLines(c.stderr || c.stdout),
    };
  }
  const r = run.run;
  if (!r) return { kind: 'failed', run: key, status, reason: 'the run did not start', command: null, lines: [] };
  const notes = r.stderr
    .split('\n')
    .filter((l) => l.startsWith(RUNNER_NOTE))
    .map((l) => l.slice(RUNNER_NOTE.length));
  const output = tailLines(r.stderr.trim() ? r.stderr : r.stdout);
  if (!r.success) {
    const timedOut = r.exit_code === EXIT_TIMEOUT && notes.some((n) => n.startsWith('timed out'));
    const why = notes.find((n) => n.startsWith('timed out') || /killed|ran out|could not start/.test(n));
    return {
      kind: timedOut ? 'timeout' : 'crash',
      run: key,
      status,
      reason: why ?? (r.exit_code === null ? 'the service kept no details of the run' : `the program ${status}`),
      command: null,
      lines: output,
    };
  }
  const tests = testsOf(r.result);
  const failed = tests.filter((t) => !t.passed);
  const testLines = failed.map((t) => `${t.spec || `test ${t.index}`} — ${t.error ?? t.message ?? 'failed'}`);
  return {
    kind: 'wrong-answer',
    run: key,
    status,
    reason: failed.length
      ? `${failed.length} of ${tests.length} test${tests.length === 1 ? '' : 's'} failed`
      : r.result.check === 'fail'
        ? 'the check failed'
        : 'the run did not pass',
    command: null,
    lines: [...testLines.slice(0, 10), ...output].slice(-FAILURE_TAIL_LINES),
  };
}

/** Run keys in the service's order: test, benchmark, leaderboard, then profile.0, profile.1, ... */
function runOrder(key: string): number {
  const base = ['test', 'benchmark', 'leaderboard'].indexOf(key);
  if (base >= 0) return base;
  const profile = /^profile\.(\d+)$/.exec(key);
  return profile ? 3 + Number(profile[1]) / 1e6 : 4;
}

/** The first failure of a result, in the order the service ran its runs. */
export function resultFailure(result: ResultEvent): FailureReason | null {
  if (result.results.length === 0)
    return {
      kind: 'failed',
      run: null,
      status: 'no results',
      reason: 'the service returned no results',
      command: null,
      lines: [],
    };
  for (const full of result.results) {
    if (full.error) return { kind: 'failed', run: null, status: 'error', reason: full.error, command: null, lines: [] };
    const runs = Object.entries(full.runs).sort(([a], [b]) => runOrder(a) - runOrder(b) || a.localeCompare(b));
    for (const [key, run] of runs) {
      const f = runFailure(key, run);
      if (f) return f;
    }
  }
  return null;
}

const REFUSALS = new Set(['rejected', 'unauthorized', 'rate-limited', 'no-identity', 'unregistered', 'no-profiler']);

/** Why a submission failed, or null when it passed. */
export function failureOf(outcome: SubmissionOutcome): FailureReason | null {
  if (outcome.kind === 'result') return outcome.passed || !outcome.result ? null : resultFailure(outcome.result);
  if (outcome.kind === 'error') {
    const e = outcome.error;
    const code = e?.status_code ?? 0;
    return {
      kind: code >= 400 && code < 500 ? 'refused' : 'failed',
      run: null,
      status: `submission failed${typeof e?.status_code === 'number' ? ` (status ${e.status_code})` : ''}`,
      reason: e?.detail ?? 'the runner ended the job with an error',
      command: null,
      lines: tailLines(e?.raw_error ?? ''),
    };
  }
  const x = outcome.explanation;
  const kind: FailureReasonKind =
    outcome.kind === 'cancelled' || x?.kind === 'cancelled'
      ? 'cancelled'
      : x && REFUSALS.has(x.kind)
        ? 'refused'
        : x?.kind === 'timeout'
          ? 'timeout'
          : 'failed';
  return {
    kind,
    run: null,
    status: x?.kind ?? outcome.kind,
    reason: x?.message ?? outcome.kind,
    command: null,
    lines: x?.problems?.slice(0, FAILURE_TAIL_LINES) ?? [],
  };
}
