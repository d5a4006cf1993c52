// Readable text for a submission's outcome: tests passed/failed with their messages, benchmark timings with
// units, profile reports and trace tables. Pure: the submit command prints what this returns.
import type { ErrorEvent, EvalResult, FullResult, ResultEvent, RunResult } from '../../core/protocol/api';
import { decodeReports } from '../../core/gpumode/results';
import { NSIGHT_COMPUTE_OPENS_WITH, profilerKind } from '../../core/gpumode/traces';
import type { TraceSummary } from '../../core/protocol/traceSummary';
import { runFailure, runStatus } from '../../core/submission/failure';
import { benchmarksOf, testsOf } from '../../core/submission/resultMaps';
import { formatNs, renderTraceTables } from './traceTables';

export interface RenderResultOptions {
  color?: boolean;
  /** Live output was shown already: do not repeat the runs' stdout/stderr. */
  liveOutputShown?: boolean;
  /** Kernel rows in trace tables. */
  top?: number;
  /** Saved trace files by run key (`profile.0` -> path), printed under their run. */
  savedTraces?: ReadonlyMap<string, string>;
  /** Longest decoded profile report printed, in lines. */
  maxReportLines?: number;
}

interface Style {
  bold(s: string): string;
  green(s: string): string;
  red(s: string): string;
  dim(s: string): string;
}

function style(color: boolean): Style {
  const wrap = (code: string) => (s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
  return { bold: wrap('1'), green: wrap('32'), red: wrap('31'), dim: wrap('2') };
}

/** Sorts run keys as the service runs them: test, benchmark, leaderboard, then profile.0, profile.1, ... */
function runOrder(key: string): [number, number] {
  const base = ['test', 'benchmark', 'leaderboard'].indexOf(key);
  if (base >= 0) return [base, 0];
  const profile = /^profile\.(\d+)$/.exec(key);
  if (profile) return [3, Number(profile[1])];
  return [4, 0];
}

function sortedRuns(result: FullResult): Array<[string, EvalResult]> {
  return Object.entries(result.runs).sort(([a], [b]) => {
    const [x1, x2] = runOrder(a);
    const [y1, y2] = runOrder(b);
    return x1 - y1 || x2 - y2 || a.localeCompare(b);
  });
}

function indent(text: string, prefix = '    '): string {
  return text
    .replace(/\s+$/, '')
    .split('\n')
    .map((l) => `${prefix}${l}`)
    .join('\n');
}

function tail(text: string, lines: number): string {
  const all = text.replace(/\s+$/, '').split('\n');
  return all.length <= lines
    ? all.join('\n')
    : [`… ${all.length - lines} earlier lines`, ...all.slice(-lines)].join('\n');
}

function renderTests(values: Record<string, string>, s: Style): string[] {
  return testsOf(values).map((t) => {
    const spec = t.spec || `test ${t.index}`;
    if (t.passed) return `  ${s.green('✓')} ${spec}${t.message ? s.dim(` — ${t.message}`) : ''}`;
    return `  ${s.red('✗')} ${spec} — ${t.error ?? t.message ?? 'failed'}`;
  });
}

function renderBenchmarks(values: Record<string, string>, s: Style): string[] {
  const lines: string[] = [];
  for (const b of benchmarksOf(values)) {
    const spec = b.spec || `benchmark ${b.index}`;
    if (b.failed) {
      lines.push(`  ${s.red('✗')} ${spec} — ${b.error ?? 'failed'}`);
      continue;
    }
    if (b.meanNs === undefined) continue; // profile runs list specs without timings
    const parts = [`mean ${s.bold(formatNs(b.meanNs))}`];
    if (b.errNs !== undefined) parts[0] += ` ± ${formatNs(b.errNs)}`;
    if (b.bestNs !== undefined && b.worstNs !== undefined)
      parts.push(`best ${formatNs(b.bestNs)}, worst ${formatNs(b.worstNs)}`);
    if (b.runs !== undefined) parts.push(`${b.runs} runs`);
    lines.push(`  ${spec}: ${parts.join(' · ')}`);
  }
  return lines;
}

function renderReports(run: string, values: Record<string, string>, maxLines: number): string[] {
  const lines: string[] = [];
  for (const report of decodeReports(run, values)) {
    if (report.text === undefined) {
      lines.push(`  report ${report.index}: cannot decode (${report.error})`);
      continue;
    }
    const all = report.text.replace(/\s+$/, '').split('\n');
    const shown = all.length > maxLines ? [...all.slice(0, maxLines), `… ${all.length - maxLines} more lines`] : all;
    lines.push(`  report (${report.spec ?? `case ${report.index}`}):`, indent(shown.join('\n')));
  }
  return lines;
}

function runHeadline(key: string, run: EvalResult, s: Style): string {
  const status = runStatus(run);
  const compiled = !run.compilation || run.compilation.success;
  const seconds = run.run && compiled ? ` · ${run.run.duration.toFixed(2)} s` : '';
  return `${s.bold(key)}: ${status === null ? s.green('passed') : s.red(status)}${seconds}`;
}

function renderRun(key: string, run: EvalResult, opts: RenderResultOptions, s: Style): string[] {
  const lines = [runHeadline(key, run, s)];
  const failure = runFailure(key, run);
  if (failure?.command !== null && failure?.command !== undefined)
    lines.push(indent([failure.command, ...failure.lines].join('\n')));
  const r: RunResult | null = run.run;
  if (r) {
    const values = r.result;
    lines.push(...renderTests(values, s));
    lines.push(...renderBenchmarks(values, s));
    if (run.profile || key.startsWith('profile')) lines.push(...renderReports(key, values, opts.maxReportLines ?? 60));
    if (!opts.liveOutputShown) {
      if (r.stdout.trim()) lines.push('  stdout:', indent(tail(r.stdout, 40)));
      if (r.stderr.trim()) lines.push('  stderr:', indent(tail(r.stderr, 40)));
    } else {
      // The runner's own notes (killed by a signal, output cut) are added to stderr after the live stream ended.
      const notes = r.stderr.split('\n').filter((l) => l.startsWith('[kernel-runner] '));
      if (notes.length) lines.push(...notes.map((n) => `  ${n.slice('[kernel-runner] '.length)}`));
      else if (!r.success && !Object.keys(values).length && r.stderr.trim())
        lines.push(s.dim(`  (its output is above)`));
    }
  }
  if (run.profile) {
    if (run.profile.summary)
      lines.push(indent(renderTraceTables(run.profile.summary, { top: opts.top ?? 10, color: opts.color }), '  '));
    const saved = opts.savedTraces?.get(key);
    const where = saved ?? run.profile.download_url;
    if (where && profilerKind(run.profile) === 'nsight-compute')
      lines.push(`  Nsight Compute report: ${where}`, `    ${NSIGHT_COMPUTE_OPENS_WITH}`);
    else if (where) lines.push(`  trace: ${where}`);
  }
  return lines;
}

export function renderResult(result: ResultEvent, opts: RenderResultOptions = {}): string {
  const s = style(opts.color ?? false);
  const out: string[] = [];
  result.results.forEach((full, i) => {
    if (result.results.length > 1)
      out.push(
        s.dim(
          `── result ${i + 1} of ${result.results.length}${i > 0 ? " (the service's second, secret-seed run)" : ''}`,
        ),
      );
    if (full.error) out.push(s.red(`error: ${full.error}`));
    for (const [key, run] of sortedRuns(full)) out.push(...renderRun(key, run, opts, s));
  });
  if (result.results.length === 0) out.push(s.red('the service returned no results'));
  return `${out.join('\n')}\n`;
}

export function renderErrorEvent(error: ErrorEvent, opts: { color?: boolean } = {}): string {
  const s = style(opts.color ?? false);
  const code = typeof error.status_code === 'number' ? ` (status ${error.status_code})` : '';
  const raw = error.raw_error ? `\n${indent(tail(error.raw_error, 30), '  ')}` : '';
  return `${s.red(`submission failed${code}:`)} ${error.detail}${raw}\n`;
}

/** The result with each saved trace's summary put where the renderer looks (`profile.summary`), when it has none. */
export function withSummaries(
  result: ResultEvent,
  saved: ReadonlyArray<{ run: string; summary?: TraceSummary }>,
): ResultEvent {
  const byRun = new Map(saved.filter((t) => t.summary).map((t) => [t.run, t.summary]));
  if (byRun.size === 0) return result;
  return {
    ...result,
    results: result.results.map((full, i) => ({
      ...full,
      runs: Object.fromEntries(
        Object.entries(full.runs).map(([key, ev]) => {
          const summary = byRun.get(i > 0 ? `${key}-secret` : key);
          return [
            key,
            ev.profile && summary && !ev.profile.summary ? { ...ev, profile: { ...ev.profile, summary } } : ev,
          ];
        }),
      ),
    })),
  };
}
