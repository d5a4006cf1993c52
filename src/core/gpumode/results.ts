// Reading GPU MODE results: the ranked score (from the runs, or computed from the timings with the leaderboard's
// `ranking_by`), the service's secret-seed run, decoded profile reports (`+*` base64), job states
// (initial → pending → running → succeeded | failed | timed_out | hacked) in words, stdout/stderr without profiler
// noise, and a background submission's detail as a result that the usual renderers read.
import { createLineClassifier } from '../noise/index';
import { parseScore, type EvalResult, type FullResult, type ResultEvent, type RunResult, type UserSubmissionDetail } from '../protocol/api';
import { decodePopcornBase64 } from '../reportEncoding';
import { formatScore } from '../format/durations';

export { DEFAULT_RANKING_BY, rankingByOf, scoreFromResultValues, type RankingBy } from '../scoring';
import { rankingByOf, scoreFromResultValues, type RankingBy } from '../scoring';

export interface RankedScore {
  /** Seconds (upstream's unit for `score`). */
  seconds: number;
  /** `run`: the service's own `score`; `computed`: from the ranked run's timings with `rankingBy`. */
  source: 'run' | 'computed';
  rankingBy: RankingBy;
  /** "123.457 µs". */
  text: string;
}

export { formatScore } from '../format/durations';

function ranked(seconds: number, source: RankedScore['source'], rankingBy?: string | null): RankedScore {
  return { seconds, source, rankingBy: rankingByOf(rankingBy), text: formatScore(seconds) };
}

/**
 * The ranked score of a streamed result: the first (public) result's passed `leaderboard` run, its timings combined
 * by `rankingBy`. Null for other modes and for a failed ranked run. The secret-seed copy is never the score.
 */
export function rankedScoreOfResult(result: ResultEvent, rankingBy?: string | null): RankedScore | null {
  const run = result.results[0]?.runs.leaderboard?.run;
  if (!run || !run.passed) return null;
  const seconds = scoreFromResultValues(run.result, rankingBy);
  return seconds === null ? null : ranked(seconds, 'computed', rankingBy);
}

/**
 * The ranked score of a background submission: the public `leaderboard` run's `score` as the service computed it
 * (a number, or the JSON string GPU MODE sends), else computed from that run's `result` map. Null when there is no
 * passed ranked run, or no score to be had.
 */
export function rankedScoreOfSubmission(detail: Pick<UserSubmissionDetail, 'runs'>, rankingBy?: string | null): RankedScore | null {
  const run = detail.runs.find((r) => r.mode === 'leaderboard' && !r.secret);
  if (!run || !run.passed) return null;
  const score = parseScore(run.score);
  if (score !== null) return ranked(score, 'run', rankingBy);
  const values = resultValues(run.result);
  const seconds = values ? scoreFromResultValues(values, rankingBy) : null;
  return seconds === null ? null : ranked(seconds, 'computed', rankingBy);
}

/** The results of a result event, each marked: index 0 is the public run; later ones are the service's secret-seed copies. */
export function labelResults(result: ResultEvent): Array<{ index: number; secret: boolean; label: string; result: FullResult }> {
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
      reports.push({ run, index, spec, text: undefined, error: err instanceof Error ? err.message : String(err) });
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

export const gpuModeJobStatuses = ['initial', 'pending', 'running', 'succeeded', 'failed', 'timed_out', 'hacked'] as const;
export type GpuModeJobStatus = (typeof gpuModeJobStatuses)[number];

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

/**
 * A polled submission's status from what its answer says: the job's status when the service reports one; else
 * `done` (deployments before mid-June 2026 send no job, streaming-route submissions a job of nulls): "done" once
 * finished — fine when it recorded runs — and "status unknown" before.
 */
export function describeSubmissionStatus(detail: Pick<UserSubmissionDetail, 'done' | 'job' | 'runs'>): JobStatusInfo {
  const status = detail.job?.status;
  if (status) return describeJobStatus(status);
  if (!detail.done) return describeJobStatus(null);
  const ran = detail.runs.length > 0;
  return { status: 'done', terminal: true, ok: ran, label: 'done', explanation: ran ? '' : 'The service finished the submission without recording any run.' };
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
export function resultValues(value: unknown): Record<string, string> | undefined {
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
    const run: RunResult = {
      success: r.passed || Object.keys(values).length > 0,
      passed: r.passed,
      command: '',
      stdout: '',
      stderr: '',
      exit_code: r.passed ? 0 : 1,
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
        compilation: ev.compilation ? { ...ev.compilation, stdout: clean(ev.compilation.stdout), stderr: clean(ev.compilation.stderr) } : null,
        run: ev.run ? { ...ev.run, stdout: clean(ev.run.stdout), stderr: clean(ev.run.stderr) } : null,
      };
    }
    return { ...full, runs };
  });
  return { result: { ...result, results }, hidden };
}
