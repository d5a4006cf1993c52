// From a submission's outcome (core's workflow) or a runner's terminal event to the results panel's view model and
// the output channel's summary lines.
// Pure (no vscode): unit-tested in test/unit/extension-free/.
import type {
  ErrorEvent,
  EvalResult,
  FullResult,
  ResultEvent,
  RunResult,
  UserSubmissionDetail,
} from '../core/protocol/api';
import { createLineClassifier } from '../core/noise';
import {
  decodeReports,
  describeSubmissionStatus,
  filterNoise,
  rankedScoreOfResult,
  rankedScoreOfSubmission,
  resultFromSubmission,
  type RankedScore,
} from '../core/gpumode/results';
import { traceSummarySchema, type TraceSummary } from '../core/protocol/traceSummary';
import { NSIGHT_COMPUTE_OPENS_WITH, profilerKind } from '../core/gpumode/traces';
import { formatMeanErr, formatNs, formatPercent, formatSeconds } from '../core/format/index';
import type { SubmissionOutcome } from '../core/submission/events';
import { benchmarksOf, testsOf } from '../core/submission/resultMaps';
import type {
  BenchmarkCaseView,
  OutputView,
  ProfileView,
  RankedScoreView,
  ResultView,
  RunSectionView,
  TestCaseView,
} from '../webview/protocol';

/** What the evaluator's exit codes mean (reference-kernels eval.py). */
const EXIT_MEANINGS: Record<number, string> = {
  110: 'GPU API failure',
  111: 'pipe failure',
  112: 'validation failed',
  113: 'bad test spec',
  114: 'timeout',
};

/** What the extension knows about a run before its result arrives: the panel's header fields. */
export type RunContext = Pick<
  ResultView,
  'title' | 'fileName' | 'leaderboard' | 'gpu' | 'mode' | 'target' | 'startedAt' | 'elapsedS' | 'hiddenNoiseLines'
>;

export type Terminal =
  | { kind: 'result'; result: ResultEvent }
  | { kind: 'error'; error: ErrorEvent }
  | { kind: 'cancelled'; detail: string }
  | { kind: 'failed'; detail: string };

interface ProfileExtras {
  /** Local zip for a profile (GPU MODE inline traces), by run key. */
  localPath?: string;
  traceBytes?: number;
  note?: string;
}

export interface BuildOptions {
  /** Traces larger than this open as a download only. */
  perfettoMaxBytes: number;
  profileExtras?: (key: string) => ProfileExtras | undefined;
  /** A summary computed by the extension (e.g. from an inline GPU MODE trace), by run key. */
  summaries?: (key: string) => TraceSummary | undefined;
  /** The leaderboard's `ranking_by` (last | mean | geom), for a ranked score computed from timings. */
  rankingBy?: string;
}

const tail = (s: string, lines: number) => s.split('\n').slice(-lines).join('\n').trimEnd();

/** The tests of a `result` map (core's reader; TestCase is the view's shape). */
function testViews(map: Record<string, string>): TestCaseView[] {
  return testsOf(map);
}

/** The benchmark cases that were timed (a mean): profile runs name their cases without timings. */
function benchmarkViews(map: Record<string, string>): BenchmarkCaseView[] {
  return benchmarksOf(map)
    .filter((b) => b.meanNs !== undefined)
    .map(({ failed: _failed, error: _error, ...view }) => view);
}

function runSection(key: string, ev: EvalResult): RunSectionView | undefined {
  const run: RunResult | null = ev.run;
  const compile = ev.compilation;
  if (!run && !compile) return undefined;
  const map = run?.result ?? {};
  const exitCode = run?.exit_code ?? compile?.exit_code ?? -1;
  const section: RunSectionView = {
    key,
    success: run?.success ?? false,
    passed: run?.passed ?? false,
    exitCode,
    durationS: run?.duration ?? 0,
    command: run?.command ?? compile?.command ?? '',
    tests: testViews(map),
    benchmarks: benchmarkViews(map),
  };
  if (EXIT_MEANINGS[exitCode]) section.exitMeaning = EXIT_MEANINGS[exitCode];
  if (map.check) section.check = map.check;
  if (compile)
    section.compile = {
      success: compile.success,
      command: compile.command,
      exitCode: compile.exit_code ?? -1,
      stderrTail: tail(compile.stderr, 30),
    };
  if (run && !run.passed && run.stderr.trim()) section.stderrTail = tail(run.stderr, 30);
  return section;
}

/** Profile reports (`benchmark.<i>.report`, base64 with the `+*` alphabet) decoded to text. */
function reportsOf(key: string, ev: EvalResult): string[] {
  return decodeReports(key, ev.run?.result ?? {}).map((r) =>
    r.text === undefined
      ? `${key} benchmark.${r.index}.report: (report not decodable)`
      : `${key} benchmark.${r.index}.report:\n${r.text}`,
  );
}

function profileOf(key: string, ev: EvalResult, opts: BuildOptions): ProfileView | undefined {
  const p = ev.profile;
  if (!p) return undefined;
  const extras = opts.profileExtras?.(key);
  if (profilerKind(p) === 'nsight-compute') {
    // ncu's report: nothing here reads it (no summary, no Perfetto); Nsight Compute opens it.
    const view: ProfileView = {
      key,
      perfetto: 'none',
      nsightCompute: true,
      note: `This is ${NSIGHT_COMPUTE_OPENS_WITH}.`,
    };
    if (p.download_url) view.downloadUrl = p.download_url;
    if (extras?.localPath) view.localPath = extras.localPath;
    if (extras?.traceBytes !== undefined) view.traceBytes = extras.traceBytes;
    return view;
  }
  const parsed = p.summary === undefined ? undefined : traceSummarySchema.safeParse(p.summary);
  const summary = parsed?.success ? parsed.data : opts.summaries?.(key);
  const inlineBytes = p.trace ? Math.floor((p.trace.length * 3) / 4) : undefined;
  const traceBytes = extras?.traceBytes ?? inlineBytes;
  const view: ProfileView = {
    key,
    perfetto:
      traceBytes !== undefined && traceBytes > opts.perfettoMaxBytes
        ? 'too-large'
        : p.download_url || extras?.localPath || p.trace
          ? 'available'
          : 'none',
  };
  if (summary) view.summary = summary;
  if (p.download_url) view.downloadUrl = p.download_url;
  if (extras?.localPath) view.localPath = extras.localPath;
  if (traceBytes !== undefined) view.traceBytes = traceBytes;
  const notes = [
    parsed && !parsed.success ? 'The runner sent a trace summary this version cannot read.' : undefined,
    extras?.note,
  ].filter(Boolean);
  if (notes.length) view.note = notes.join(' ');
  return view;
}

function systemOf(r: FullResult): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.system)) {
    if (v === null || v === undefined || v === '') continue;
    out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return out;
}

export function buildResultView(ctx: RunContext, terminal: Terminal, opts: BuildOptions): ResultView {
  const view: ResultView = { ...ctx, outcome: 'success', runs: [], profiles: [], reports: [] };
  switch (terminal.kind) {
    case 'error':
      view.outcome = 'error';
      view.error = terminal.error.detail + (terminal.error.raw_error ? `\n${terminal.error.raw_error}` : '');
      return view;
    case 'cancelled':
      view.outcome = 'cancelled';
      view.error = terminal.detail;
      return view;
    case 'failed':
      view.outcome = 'error';
      view.error = terminal.detail;
      return view;
    case 'result':
      break;
  }
  const results = terminal.result.results;
  let ok = results.length > 0;
  const errors: string[] = [];
  const outputs: OutputView[] = [];
  results.forEach((r, index) => {
    // Index 0 is the public run; later results are the service's secret-seed copies (leaderboard mode).
    const secret = index > 0;
    if (!r.success) ok = false;
    if (r.error) errors.push(secret ? `secret run: ${r.error}` : r.error);
    if (!view.system && Object.values(r.system).some((v) => v !== '' && v !== null && v !== undefined))
      view.system = systemOf(r);
    for (const [key, ev] of Object.entries(r.runs)) {
      const section = runSection(key, ev);
      if (section) {
        if (secret) section.secret = true;
        view.runs.push(section);
        if (!section.passed) ok = false;
      }
      const profile = profileOf(key, ev, opts);
      if (profile) view.profiles.push(profile);
      view.reports.push(...reportsOf(key, ev));
      for (const stream of ['stdout', 'stderr'] as const) {
        const text = ev.run?.[stream] ?? '';
        if (!text.trim()) continue;
        const filtered = filterNoise(text);
        outputs.push({
          key,
          stream,
          ...(secret ? { secret } : {}),
          text: filtered.text.replace(/\n$/, ''),
          hiddenNoiseLines: filtered.hidden,
        });
      }
    }
  });
  const markdown = terminal.result.reports.filter((r) => r.trim());
  if (markdown.length) view.markdownReports = markdown;
  if (outputs.length) view.outputs = outputs;
  const ranked = rankedScoreOfResult(terminal.result, opts.rankingBy);
  if (ranked) view.rankedScore = rankedView(ranked);
  if (errors.length) view.error = errors.join('\n');
  view.outcome = ok ? 'success' : 'failure';
  return view;
}

function rankedView(r: RankedScore): RankedScoreView {
  return {
    seconds: r.seconds,
    text: r.text,
    source: r.source,
    rankingBy: r.rankingBy,
    ...(r.notRanked !== undefined ? { notRanked: r.notRanked } : {}),
  };
}

/**
 * A background submission's final detail (GET /user/submissions/{id}) as a result view: its runs (secret ones
 * marked, each with the service's score), the ranked score, the job's status in words. Such submissions carry
 * no program output.
 */
export function buildSubmissionView(ctx: RunContext, detail: UserSubmissionDetail, opts: BuildOptions): ResultView {
  const view = buildResultView(ctx, { kind: 'result', result: resultFromSubmission(detail) }, opts);
  view.submissionId = detail.id;
  const status = describeSubmissionStatus(detail);
  view.jobStatus = { status: status.status, label: status.label, explanation: status.explanation };
  for (const section of view.runs) {
    section.noProcessInfo = true;
    const run = detail.runs.find((r) => r.mode === section.key && r.secret === (section.secret === true));
    if (run && typeof run.score === 'number') section.scoreS = run.score;
  }
  const ranked = rankedScoreOfSubmission(detail, opts.rankingBy);
  if (ranked) view.rankedScore = rankedView(ranked);
  else delete view.rankedScore;
  if (status.terminal && !status.ok) view.outcome = 'failure';
  if (detail.job?.error && view.error === undefined) view.error = detail.job.error;
  if (!view.runs.length && !view.error && status.terminal && !status.ok) view.error = status.explanation;
  view.notes = [
    ...(view.notes ?? []),
    'Background submissions keep no program output (stdout/stderr): only the results the evaluator wrote.',
  ];
  return view;
}

/** The result as lines for the output channel (grammar: ✔ ✘ ◷ and ▸). */
export function resultLines(view: ResultView): string[] {
  const lines: string[] = [];
  if (view.jobStatus?.explanation) lines.push(`✘ job ${view.jobStatus.label}: ${view.jobStatus.explanation}`);
  if (view.error) for (const l of view.error.split('\n')) lines.push(`✘ ${l}`);
  const computed =
    view.rankedScore?.source === 'computed'
      ? ` (computed from the timings, ranking: ${view.rankedScore.rankingBy})`
      : '';
  if (view.rankedScore?.notRanked !== undefined)
    lines.push(`▸ score ${view.rankedScore.text}${computed}, not ranked: ${view.rankedScore.notRanked}`);
  else if (view.rankedScore) lines.push(`▸ ranked score: ${view.rankedScore.text}${computed}`);
  for (const run of view.runs) {
    const passed = run.tests.filter((t) => t.passed).length;
    const tests = run.tests.length ? `, tests ${passed}/${run.tests.length} passed` : '';
    const meaning = run.exitMeaning ? ` (${run.exitMeaning})` : '';
    const exit = run.noProcessInfo ? '' : ` · exit ${run.exitCode}${meaning}`;
    const score = run.scoreS !== undefined ? ` · score ${formatSeconds(run.scoreS)}` : '';
    lines.push(
      `▸ ${run.key}${run.secret ? ' (secret run)' : ''}: ${run.passed ? 'passed' : 'failed'}${tests}${exit}${score} · ${formatSeconds(run.durationS)}`,
    );
    if (run.compile && !run.compile.success)
      lines.push(`  ✘ compilation failed (exit ${run.compile.exitCode}): ${run.compile.command}`);
    for (const t of run.tests) {
      const why = [t.message, t.error].filter(Boolean).join(' — ');
      lines.push(`  ${t.passed ? '✔' : '✘'} test ${t.index}  ${t.spec}  ${t.status}${why ? `: ${why}` : ''}`);
    }
    for (const b of run.benchmarks) {
      const extra = [
        b.bestNs !== undefined ? `best ${formatNs(b.bestNs)}` : '',
        b.worstNs !== undefined ? `worst ${formatNs(b.worstNs)}` : '',
        b.runs !== undefined ? `${b.runs} runs` : '',
      ]
        .filter(Boolean)
        .join('  ');
      lines.push(`  ◷ benchmark ${b.index}  ${b.spec}  mean ${formatMeanErr(b.meanNs, b.errNs)}  ${extra}`.trimEnd());
    }
  }
  for (const p of view.profiles) {
    const s = p.summary;
    if (s) {
      // a multi-GPU profile: each GPU by the rank that ran on it
      const rankOf = new Map<string, number>();
      for (const r of s.ranks?.processes ?? [])
        if (r.rank !== null) for (const id of r.agentIds) rankOf.set(id, r.rank);
      const busy = s.agents
        .filter((a) => a.type !== 'CPU' && (a.kernelCalls > 0 || a.busyNs > 0))
        .map((a) => {
          const rank = rankOf.get(a.id);
          return `${rank === undefined ? a.id : `rank ${rank} (${a.id})`} ${formatPercent(a.busyPercent)} busy`;
        });
      lines.push(
        `▸ ${p.key}: ${s.kernelTotals.calls} dispatches of ${s.kernelTotals.distinct} kernels, ${formatNs(s.kernelTotals.totalNs)} kernel time${busy.length ? ` · ${busy.join(', ')}` : ''}`,
      );
      if (s.ranks) lines.push(`  ⚖ load imbalance: ${s.ranks.imbalanceLine}`);
      for (const k of s.kernels.slice(0, 5))
        lines.push(
          `  ◷ ${k.shortName}  ${k.calls} calls  total ${formatNs(k.totalNs)}  avg ${formatNs(k.avgNs)}  ${formatPercent(k.percent)}`,
        );
    } else if (p.nsightCompute) {
      lines.push(`▸ ${p.key}: ${p.note ?? 'an Nsight Compute report'}`);
    } else {
      lines.push(`▸ ${p.key}: profile without a trace summary${p.note ? ` (${p.note})` : ''}`);
    }
    if (p.downloadUrl) lines.push(`▸ full trace: ${p.downloadUrl}`);
    if (p.localPath) lines.push(`▸ full trace saved: ${p.localPath}`);
  }
  return lines;
}

export function outcomeSummary(view: ResultView): string {
  const what = `${view.fileName} · ${view.mode} · ${formatSeconds(view.elapsedS)}`;
  switch (view.outcome) {
    case 'success':
      return `passed: ${what}`;
    case 'failure':
      return `failed: ${what}`;
    case 'cancelled':
      return `cancelled: ${what}`;
    case 'error':
      return `error: ${what}`;
    case 'trace':
      return `trace: ${view.fileName}`;
  }
}

/**
 * The program's output carried inside a result (GPU MODE sends no live output): a heading per run and stream,
 * then each line classified by the noise filter.
 */
export function resultOutputLines(result: ResultEvent): { text: string; noise: boolean; heading?: boolean }[] {
  const out: { text: string; noise: boolean; heading?: boolean }[] = [];
  for (const r of result.results) {
    for (const [key, ev] of Object.entries(r.runs)) {
      for (const [stream, text] of [
        ['stdout', ev.run?.stdout ?? ''],
        ['stderr', ev.run?.stderr ?? ''],
      ] as const) {
        if (!text) continue;
        out.push({ text: `${key} ${stream}:`, noise: false, heading: true });
        const classifier = createLineClassifier({ onLine: (l) => out.push({ text: l.text, noise: l.noise }) });
        classifier.feed(text);
        classifier.flush();
      }
    }
  }
  return out;
}

/** The header of a run's view that the outcome does not know: how the editor names the run. */
export interface OutcomeHead {
  title: string;
  fileName: string;
  hiddenNoiseLines: number;
  /** Epoch ms the run started, when earlier than the outcome's (a submission resumed after a reload). */
  startedAt?: number;
}

/**
 * The results panel's view of a workflow outcome: the streamed result (each saved trace as the profile's local
 * zip and summary), a background submission's detail, the runner's error, or the failure / cancellation in words.
 */
export function viewOfOutcome(
  outcome: SubmissionOutcome,
  head: OutcomeHead,
  opts: Pick<BuildOptions, 'perfettoMaxBytes'>,
): ResultView {
  const startedAt = head.startedAt ?? outcome.startedAt;
  const ctx: RunContext = {
    title: head.title,
    fileName: head.fileName,
    leaderboard: outcome.target?.leaderboard ?? '',
    gpu: outcome.target?.gpu ?? '',
    mode: outcome.mode,
    target: outcome.connection.label,
    startedAt: new Date(startedAt).toISOString(),
    elapsedS: (outcome.startedAt + outcome.elapsedMs - startedAt) / 1000,
    hiddenNoiseLines: head.hiddenNoiseLines,
  };
  const extras = new Map<string, ProfileExtras>();
  const summaries = new Map<string, TraceSummary>();
  for (const t of outcome.traces) {
    const extra: ProfileExtras = { localPath: t.path, traceBytes: t.bytes };
    if (t.summary) summaries.set(t.run, t.summary);
    else if (t.summaryError) extra.note = `No summary: ${t.summaryError}`;
    extras.set(t.run, extra);
  }
  const build: BuildOptions = {
    perfettoMaxBytes: opts.perfettoMaxBytes,
    profileExtras: (k) => extras.get(k),
    summaries: (k) => summaries.get(k),
    ...(outcome.rankingBy ? { rankingBy: outcome.rankingBy } : {}),
  };
  let view: ResultView;
  switch (outcome.kind) {
    case 'result':
      view = outcome.submission
        ? buildSubmissionView(ctx, outcome.submission, build)
        : buildResultView(ctx, { kind: 'result', result: outcome.result as ResultEvent }, build);
      // The workflow's score is the one every front-end shows.
      if (outcome.score) view.rankedScore = rankedView(outcome.score);
      if (outcome.traceError)
        view.notes = [...(view.notes ?? []), `Could not save the profile traces: ${outcome.traceError}`];
      if (outcome.advice?.length) view.notes = [...(view.notes ?? []), ...outcome.advice];
      break;
    case 'error':
      view = buildResultView(ctx, { kind: 'error', error: outcome.error as ErrorEvent }, build);
      break;
    case 'failed':
      view = buildResultView(ctx, { kind: 'failed', detail: outcome.explanation?.message ?? 'failed' }, build);
      break;
    case 'cancelled':
      view = buildResultView(ctx, { kind: 'cancelled', detail: outcome.explanation?.message || 'Cancelled.' }, build);
      break;
  }
  if (outcome.route === 'background' && outcome.id !== undefined) view.submissionId = outcome.id;
  return view;
}

/**
 * What a panel shows once its run is kept: each profile points at its kept trace (`kept`, the run store's view), and
 * what the panel added since it opened (a Kernels (ISA) section) stays.
 */
export function withKeptTraces(current: ResultView, kept: ResultView): ResultView {
  const keptPaths = new Map(kept.profiles.flatMap((p) => (p.localPath ? [[p.key, p.localPath] as const] : [])));
  return {
    ...current,
    profiles: current.profiles.map((p) => {
      const localPath = keptPaths.get(p.key);
      return localPath ? { ...p, localPath } : p;
    }),
  };
}
