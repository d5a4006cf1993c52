// Reading GPU MODE results: the ranked score (from the runs, or computed from the timings with the leaderboard's
// `ranking_by`), the service's secret-seed run, decoded profile reports (`+*` base64), job states
// (initial → pending → running → succeeded | failed | timed_out | hacked) in words, stdout/stderr without profiler
// noise, and a background submission's detail as a result that the usual renderers read.
import { createLineClassifier } from '../noise/index';
import {
  parseScore,
  type EvalResult,
  type FullResult,
  type ResultEvent,
  type RunResult,
  type UserSubmissionDetail,
} from '../protocol/api';
import { decodePopcornBase64 } from '../reportEncoding';
import { formatScore } from '../format/durations';

export { scoreFromResultValues } from '../scoring';
import { rankingByOf, scoreFromResultValues, type RankingBy } from '../scoring';
import { errorMessage } from '../errors';

export interface RankedScore {
  /** Seconds (upstream's unit for `score`). */
  seconds: number;
  /** `run`: the service's own `score`; `computed`: from the ranked run's timings with `rankingBy`. */
  source: 'run' | 'computed';
  rankingBy: RankingBy;
  /** "123.457 µs". */
  text: string;
  /**
   * Set when the service does not rank it, saying why ("secret validation failed"): a public ranked run keeps its
   * score when the secret-seed run or the job failed (kernelbot records it, then leaves the submission off the
   * leaderboard).
   */
  notRanked?: string;
}

export { formatScore } from '../format/durations';

function ranked(
  seconds: number,
  source: RankedScore['source'],
  rankingBy?: string | null,
  notRanked?: string,
): RankedScore {
  const score: RankedScore = { seconds, source, rankingBy: rankingByOf(rankingBy), text: formatScore(seconds) };
  if (notRanked !== undefined) score.notRanked = notRanked;
  return score;
}

/** "secret validation failed" of "secret validation failed on MI300; submission will not appear on the leaderboard". */
function shortReason(error: string): string {
  return (
    error
      .split(';')[0]
      ?.replace(/\s+on\s+\S+$/, '')
      .trim() || error
  );
}

/**
 * The ranked score of a streamed result: the first (public) result's passed `leaderboard` run, its timings combined
 * by `rankingBy`. Null for other modes and for a failed ranked run. The secret-seed copy is never the score.
 */
export function rankedScoreOfResult(result: ResultEvent, rankingBy?: string | null): RankedScore | null {
  const run = result.results[0]?.runs.leaderboard?.run;
  if (!run || !run.passed) return null;
  const seconds = scoreFromResultValues(run.result, rankingBy);
  if (seconds === null) return null;
  // kernelbot's _ranked_completion_status: every secret-seed copy must have passed its ranked run and all its runs
  const secrets = result.results.slice(1);
  const secretFailed = secrets.some(
    (r) =>
      !r.success ||
      !r.runs.leaderboard?.run?.passed ||
      Object.values(r.runs).some((ev) => !ev.run?.success || !ev.run.passed),
  );
  return ranked(seconds, 'computed', rankingBy, secretFailed ? 'secret validation failed' : undefined);
}

/**
 * The ranked score of a background submission: the public `leaderboard` run's `score` as the service computed it
 * (a number, or the JSON string GPU MODE sends), else computed from that run's `result` map. Null when there is no
 * passed ranked run, or no score to be had.
 */
export function rankedScoreOfSubmission(
  detail: Pick<UserSubmissionDetail, 'runs'> & { job?: UserSubmissionDetail['job'] },
  rankingBy?: string | null,
): RankedScore | null {
  const run = detail.runs.find((r) => r.mode === 'leaderboard' && !r.secret);
  if (!run || !run.passed) return null;
  const why = notRankedReason(detail, run.runner);
  const score = parseScore(run.score);
  if (score !== null) return ranked(score, 'run', rankingBy, why);
  const values = resultValues(run.result);
  const seconds = values ? scoreFromResultValues(values, rankingBy) : null;
  return seconds === null ? null : ranked(seconds, 'computed', rankingBy, why);
}

/**
 * Why a passed public ranked run does not rank, as kernelbot decides it (leaderboard_db.get_leaderboard_submissions,
 * background_submission_manager._ranked_completion_status): the job ended badly (its error says why), or on the
 * same GPU the secret-seed ranked run is missing or failed, or any secret run failed. Undefined: it ranks.
 */
function notRankedReason(
  detail: Pick<UserSubmissionDetail, 'runs'> & { job?: UserSubmissionDetail['job'] },
  runner: string | null | undefined,
): string | undefined {
  const job = detail.job;
  const status = describeJobStatus(job?.status);
  if (job?.error) return shortReason(job.error);
  if (status.terminal && !status.ok) return `job ${status.label}`;
  const secrets = detail.runs.filter((r) => r.secret && (!runner || !r.runner || r.runner === runner));
  const secretRanked = secrets.some((r) => r.mode === 'leaderboard' && r.passed);
  if (!secretRanked || secrets.some((r) => !r.passed)) return 'secret validation failed';
  return undefined;
}

/** The results of a result event, each marked: index 0 is the public run; later ones are the service's secret-seed copies. */
export function labelResults(
  result: ResultEvent,
): Array<{ index: number; secret: boolean; label: string; result: FullResult }> {
  return result.results.map((full, index) => ({
    index,
    secret: index > 0,
    label: index > 0 ? 'secret run (hidden seed; not shown on the leaderboard)' : 'public run',
    result: full,
  }));
}

export interface DecodedReport {
  /** Run key, e.g. `profile.0`. */
  run: string;
  /** Case index `i` of `benchmark.<i>.report`. */
  index: number;
  spec: string | undefined;
  /** Decoded text; undefined when decoding failed (see error). */
  text: string | undefined;
  error: string | undefined;
}

/** Every `benchmark.<i>.report` of a run's result map, decoded from `+*` base64. */
export function decodeReports(run: string, values: Readonly<Record<string, string>>): DecodedReport[] {
  const reports: DecodedReport[] = [];
  const indices = Object.keys(values)
    .map((k) => /^benchmark\.(\d+)\.report$/.exec(k)?.[1])
    .filter((i): i is string => i !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  for (const index of indices) {
    const encoded = values[`benchmark.${index}.report`] as string;
    const spec = values[`benchmark.${index}.spec`];
    try {
      reports.push({ run, index, spec, text: decodePopcornBase64(encoded), error: undefined });
    } catch (err) {
      reports.push({ run, index, spec, text: undefined, error: errorMessage(err) });
    }
  }
  return reports;
}

/** Decoded reports of every run of every result (profile runs carry them). */
export function decodeResultReports(result: ResultEvent): DecodedReport[] {
  const out: DecodedReport[] = [];
  for (const full of result.results) {
    for (const [key, run] of Object.entries(full.runs)) if (run.run) out.push(...decodeReports(key, run.run.result));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Job states of the background route

export interface JobStatusInfo {
  status: string;
  /** Finished (successfully or not). */
  terminal: boolean;
  /** Finished and fine. */
  ok: boolean;
  /** Short words for a status bar: "queued", "running", "timed out", "flagged as hacked". */
  label: string;
  /** A sentence for a failed or unusual end; '' otherwise. */
  explanation: string;
}

/**
 * A background job's status in words; statuses this client does not know are shown as they are, and no status
 * (null: GPU MODE keeps no job for streaming-route submissions) is "status unknown", never a guess.
 */
export function describeJobStatus(status: string | undefined | null): JobStatusInfo {
  const s = (status ?? '').trim().toLowerCase();
  switch (s) {
    case '':
      return { status: 'unknown', terminal: false, ok: false, label: 'status unknown', explanation: '' };
    case 'initial':
      return { status: s, terminal: false, ok: false, label: 'submitted', explanation: '' };
    case 'pending':
      return { status: s, terminal: false, ok: false, label: 'queued', explanation: '' };
    case 'running':
      return { status: s, terminal: false, ok: false, label: 'running', explanation: '' };
    case 'succeeded':
      return { status: s, terminal: true, ok: true, label: 'succeeded', explanation: '' };
    case 'failed':
      return { status: s, terminal: true, ok: false, label: 'failed', explanation: 'The job failed on the service.' };
    case 'timed_out':
      return {
        status: s,
        terminal: true,
        ok: false,
        label: 'timed out',
        explanation: "The job ran past the leaderboard's time limit and was stopped; its runs are incomplete.",
      };
    case 'hacked':
      return {
        status: s,
        terminal: true,
        ok: false,
        label: 'flagged as hacked',
        explanation: 'The service flagged this submission as an attempt to cheat the evaluation; it is not ranked.',
      };
    default:
      return { status: s, terminal: false, ok: false, label: s.replace(/_/g, ' '), explanation: '' };
  }
}

const NO_RUNS =
  'The service finished the submission without recording any run: its runner failed before producing results, and GPU MODE keeps no details of why. Submit it again; if it keeps failing, run it where the output comes back (test mode on a runner of ours, or profile mode on GPU MODE).';

/**
 * A polled submission's status from what its answer says: the job's status when the service reports one; else
 * `done` (deployments before mid-June 2026 send no job, streaming-route submissions a job of nulls): "done" once
 * finished — fine when it recorded runs — and "status unknown" before.
 */
export function describeSubmissionStatus(detail: Pick<UserSubmissionDetail, 'done' | 'job' | 'runs'>): JobStatusInfo {
  const status = detail.job?.status;
  if (status) {
    const info = describeJobStatus(status);
    // kernelbot records runs only from a FullResult with success: when its runner failed before producing results
    // (GitHub artifacts missing, a Modal failure), a test/benchmark/profile job still ends `succeeded`, with no runs.
    if (info.status === 'succeeded' && detail.done && detail.runs.length === 0) {
      return { ...info, ok: false, label: 'succeeded without results', explanation: NO_RUNS };
    }
    return info;
  }
  if (!detail.done) return describeJobStatus(null);
  const ran = detail.runs.length > 0;
  return { status: 'done', terminal: true, ok: ran, label: 'done', explanation: ran ? '' : NO_RUNS };
}

/** Whether a polled submission is over: `done`, or its job in a terminal status. */
export function submissionFinished(detail: Pick<UserSubmissionDetail, 'done' | 'job'>): boolean {
  return detail.done || describeJobStatus(detail.job?.status).terminal;
}

/** Whether a finished submission counts as passed: job fine (or unknown), runs present, every run passed. */
export function submissionPassed(detail: Pick<UserSubmissionDetail, 'runs' | 'job'>): boolean {
  const job = detail.job;
  if (job && (job.error || (describeJobStatus(job.status).terminal && !describeJobStatus(job.status).ok))) return false;
  return detail.runs.length > 0 && detail.runs.every((r) => r.passed);
}

// ---------------------------------------------------------------------------------------------------------------
// Background submissions as results

/** A run's `result` from GET /user/submissions/{id}: a flat map, or (defensively) an object holding one. */
function resultValues(value: unknown): Record<string, string> | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const inner = (value as { result?: unknown }).result;
  if (inner && typeof inner === 'object' && !Array.isArray(inner)) return resultValues(inner);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === 'string') out[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
  }
  return out;
}

function seconds(start: string | null, end: string | null): number {
  const a = start ? Date.parse(start) : NaN;
  const b = end ? Date.parse(end) : NaN;
  return Number.isFinite(a) && Number.isFinite(b) && b >= a ? (b - a) / 1000 : 0;
}

/**
 * The runs of a background submission as a ResultEvent (public runs first, secret runs as a second result), so
 * one renderer shows both routes. GPU MODE keeps no stdout/stderr for these: they are empty here, and `command`
 * says so.
 */
export function resultFromSubmission(detail: UserSubmissionDetail): ResultEvent {
  const make = (): FullResult => ({
    success: true,
    error: '',
    system: { gpu: '', cpu: '', platform: '', torch: '' },
    runs: {},
  });
  const publicResult = make();
  const secretResult = make();
  for (const r of detail.runs) {
    const values = resultValues(r.result) ?? {};
    // GPU MODE keeps no exit code of a background run: none is made up (a crash or a timeout arrives as
    // `passed: false` with `result: {}`, see runWithoutDetails).
    const run: RunResult = {
      success: r.passed || Object.keys(values).length > 0,
      passed: r.passed,
      command: '',
      stdout: '',
      stderr: '',
      exit_code: null,
      duration: seconds(r.start_time, r.end_time),
      result: values,
    };
    const ev: EvalResult = { start: r.start_time ?? '', end: r.end_time ?? '', compilation: null, run, profile: null };
    const target = r.secret ? secretResult : publicResult;
    target.system.gpu ||= r.runner;
    target.runs[r.mode] = ev;
  }
  const info = describeSubmissionStatus(detail);
  const error = detail.job?.error || (info.terminal && !info.ok ? info.explanation : '');
  publicResult.error = error;
  publicResult.success = !publicResult.error;
  const results = [publicResult];
  if (Object.keys(secretResult.runs).length > 0) results.push(secretResult);
  return { status: 'success', results, reports: [] };
}

/**
 * The runs of a background submission that failed with nothing kept (`passed: false`, `result: {}`: the program
 * crashed, or was stopped at the task's timeout; GPU MODE keeps no exit code, stdout or stderr of them). Their keys
 * (`test`, `leaderboard (secret)`).
 */
export function runsWithoutDetails(detail: Pick<UserSubmissionDetail, 'runs'>): string[] {
  return detail.runs
    .filter((r) => !r.passed && Object.keys(resultValues(r.result) ?? {}).length === 0)
    .map((r) => (r.secret ? `${r.mode} (secret)` : r.mode));
}

/** A run failed with no details: what to say instead of an exit code. */
export const NO_DETAILS_LABEL = 'failed, no details kept by the service';

/**
 * What to do about runs that failed with nothing kept: see the program's output where it comes back. `how` names
 * the two ways on the user's surface (CLI flags, or the editor's commands).
 */
export function noDetailsAdvice(runs: readonly string[], how: { ourRunner: string; profile: string }): string {
  const which = runs.length === 1 ? `The ${runs[0]} run` : `The ${runs.join(', ')} runs`;
  return `${which} failed without results: the program crashed or ran past the task's time limit, and GPU MODE keeps no exit code or output of background runs. To see why, run it in test mode on a runner of ours (${how.ourRunner}) or in profile mode on GPU MODE (${how.profile}): both bring the output back.`;
}

// ---------------------------------------------------------------------------------------------------------------
// Output without profiler noise

/** A text (stdout or stderr) without rocprof/Perfetto/glog lines, and how many were hidden. */
export function filterNoise(text: string): { text: string; hidden: number } {
  if (!text) return { text, hidden: 0 };
  let out = '';
  let hidden = 0;
  const classifier = createLineClassifier({
    onLine(line) {
      if (line.noise) hidden += 1;
      else out += line.raw + (line.eol ?? '\n');
    },
  });
  classifier.feed(text);
  classifier.flush();
  return { text: out, hidden };
}

/** A copy of a result whose runs' stdout/stderr (compile and run) have the profiler's noise removed. */
export function filterResultNoise(result: ResultEvent): { result: ResultEvent; hidden: number } {
  let hidden = 0;
  const clean = (text: string) => {
    const f = filterNoise(text);
    hidden += f.hidden;
    return f.text;
  };
  const results = result.results.map((full) => {
    const runs: Record<string, EvalResult> = {};
    for (const [key, ev] of Object.entries(full.runs)) {
      runs[key] = {
        ...ev,
        compilation: ev.compilation
          ? { ...ev.compilation, stdout: clean(ev.compilation.stdout), stderr: clean(ev.compilation.stderr) }
          : null,
        run: ev.run ? { ...ev.run, stdout: clean(ev.run.stdout), stderr: clean(ev.run.stderr) } : null,
      };
    }
    return { ...full, runs };
  });
  return { result: { ...result, results }, hidden };
}
