// `kernel-runner submit` against GPU MODE's public service, as popcorn-cli does it and better: pre-flight checks
// before anything is sent, the runner queue before submitting, test/benchmark/leaderboard through the background
// route with polling (long SSE connections get dropped), profile through the streaming route; then the ranked
// score, the secret run marked, job states in words, the markdown reports, output without profiler noise, and
// each profile zip saved under its own name and summarised.
import path from 'node:path';
import type { RunnerClient, StreamOutcome } from '../../core/client/index';
import { describeLeaderboard, formatRunnerQueue, type LeaderboardInfo } from '../../core/gpumode/leaderboards';
import { pollSubmission } from '../../core/gpumode/poll';
import { preflightSubmission } from '../../core/gpumode/preflight';
import {
  describeJobStatus,
  filterResultNoise,
  rankedScoreOfResult,
  rankedScoreOfSubmission,
  resultFromSubmission,
  submissionPassed,
} from '../../core/gpumode/results';
import { openGpuMode } from '../../core/gpumode/session';
import { saveProfileTraces, type SavedTrace } from '../../core/gpumode/traces';
import { isSubmissionMode, type ResultEvent, type SubmissionMode } from '../../core/protocol/api';
import { CliExit } from '../exit';
import { exitFor } from '../gpumode/connect';
import { renderErrorEvent, renderResult, resultPassed } from '../render/submissionResult';
import type { SubmitCliOptions, SubmitIo } from '../commands/submit';

const DEFAULT_OUT = 'kernel-runner-traces';

interface Resolved {
  leaderboard: string;
  gpu: string;
  mode: SubmissionMode;
  info: LeaderboardInfo | undefined;
}

function elapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

/** Leaderboard and GPU from flags, else the file's directives (server rules), checked against /leaderboards. */
async function resolve(client: RunnerClient, opts: SubmitCliOptions, directives: { leaderboard?: string; gpus: string[] }, signal: AbortSignal): Promise<Resolved> {
  if (!isSubmissionMode(opts.mode)) throw new CliExit(`--mode takes test, benchmark, leaderboard or profile, not "${opts.mode}"`, 2);
  const boards = await client.listLeaderboards({ signal }).catch(exitFor);
  const infos = boards.map((b) => describeLeaderboard(b));
  const leaderboard = opts.leaderboard ?? directives.leaderboard;
  const openList = () =>
    infos
      .filter((i) => !i.closed)
      .map((i) => `  ${i.name} (${i.gpus.join(', ')}; ${i.deadlineText})`)
      .join('\n');
  if (!leaderboard) {
    throw new CliExit(`which leaderboard? Pass --leaderboard NAME or put "#!POPCORN leaderboard NAME" at the top of the file. Open leaderboards:\n${openList()}`, 2);
  }
  const info = infos.find((i) => i.name === leaderboard) ?? infos.find((i) => i.name.toLowerCase() === leaderboard.toLowerCase());
  if (!info) throw new CliExit(`GPU MODE has no leaderboard "${leaderboard}". Open leaderboards:\n${openList()}`, 2);
  const gpu = opts.gpu ?? directives.gpus[0];
  if (!gpu) {
    if (info.gpus.length === 1) return { leaderboard: info.name, gpu: info.gpus[0] as string, mode: opts.mode, info };
    throw new CliExit(`which GPU? ${info.name} runs on ${info.gpus.join(', ')}: pass --gpu or put "#!POPCORN gpu NAME" at the top of the file`, 2);
  }
  if (!info.gpus.includes(gpu)) throw new CliExit(`${info.name} does not run on "${gpu}" (GPU names are case-sensitive); it runs on ${info.gpus.join(', ')}`, 2);
  return { leaderboard: info.name, gpu, mode: opts.mode, info };
}

export async function runGpuModeSubmit(file: string, bytes: Buffer, opts: SubmitCliOptions & { server: string }, io: SubmitIo, signal: AbortSignal): Promise<number> {
  const err = (line: string) => io.stderr.write(`kernel-runner: ${line}\n`);
  // 1. Nothing leaves the machine before the file passes upstream's own checks.
  const pre = preflightSubmission(file, bytes, { leaderboard: opts.leaderboard });
  if (pre.problems.length) {
    throw new CliExit(`GPU MODE would reject this file:\n${pre.problems.map((p) => `  ${p.text}`).join('\n')}`, 2);
  }
  const session = await openGpuMode({ baseUrl: opts.server, cliId: opts.token, userAgent: 'kernel-runner-cli' }).catch(exitFor);
  const { client } = session;
  const target = await resolve(client, opts, pre.directives, signal);
  if (target.info?.closed && target.mode === 'leaderboard') err(`note: ${target.leaderboard} ${target.info.deadlineText}; the service may no longer rank it`);

  // 2. The queue, before anything is sent.
  try {
    err(`queue ${formatRunnerQueue(await client.runnerQueue(target.gpu, { signal }))}`);
  } catch (e) {
    if (signal.aborted) throw new CliExit('cancelled', 130);
    err(`could not read the runner queue (${e instanceof Error ? e.message : String(e)})`);
  }
  const request = { leaderboard: target.leaderboard, gpu: target.gpu, mode: target.mode, file: { name: path.basename(file), content: bytes } };
  return target.mode === 'profile' ? streamProfile(client, request, target, file, opts, io, signal) : background(client, request, target, opts, io, signal);
}

async function background(
  client: RunnerClient,
  request: Parameters<RunnerClient['submitBackground']>[0],
  target: Resolved,
  opts: SubmitCliOptions,
  io: SubmitIo,
  signal: AbortSignal,
): Promise<number> {
  const err = (line: string) => io.stderr.write(`kernel-runner: ${line}\n`);
  const accepted = await client.submitBackground(request, { signal }).catch(exitFor);
  const id = accepted.details.id;
  err(`submission ${id} accepted (${target.leaderboard} · ${target.gpu} · ${target.mode}); polling for the result`);
  const detail = await pollSubmission(client, id, {
    signal,
    intervalMs: pollInterval(),
    onUpdate(u) {
      if (u.changed) err(`[${elapsed(u.elapsedMs)}] ${u.status.label}`);
    },
    onRetry(r) {
      err(`poll failed (${r.error.message}); retrying in ${Math.ceil(r.delayMs / 1000)} s (${r.failures})`);
    },
  }).catch((e: unknown) => {
    if (signal.aborted) throw new CliExit(`stopped waiting; submission ${id} goes on at GPU MODE (\`kernel-runner submissions show ${id}\`)`, 130);
    return exitFor(e);
  });

  const status = describeJobStatus(detail.job?.status ?? (detail.done ? 'succeeded' : undefined));
  const result = resultFromSubmission(detail);
  const score = rankedScoreOfSubmission(detail, target.info?.rankingBy);
  const passed = submissionPassed(detail);
  if (opts.json) {
    io.stdout.write(`${JSON.stringify({ ok: passed, submission_id: id, status: status.status, score: score?.seconds ?? null, submission: detail }, null, 2)}\n`);
    return passed ? 0 : 1;
  }
  const out: string[] = [];
  out.push(`Submission ${id}: ${status.label}${status.explanation ? ` — ${status.explanation}` : ''}`);
  out.push(renderResult(result, { color: io.color, liveOutputShown: true }).trimEnd());
  if (score) out.push(`Ranked score: ${score.text} (${score.source === 'run' ? "the service's score" : `${score.rankingBy} of the benchmark means`}; the secret run is not ranked)`);
  io.stdout.write(`\n${out.join('\n')}\n`);
  return passed ? 0 : 1;
}

/** Poll interval: popcorn-cli's 5 s; KERNEL_RUNNER_POLL_MS shortens it (tests, impatient people). */
function pollInterval(): number {
  const v = Number(process.env.KERNEL_RUNNER_POLL_MS);
  return Number.isFinite(v) && v >= 50 ? v : 5000;
}

async function streamProfile(
  client: RunnerClient,
  request: Parameters<RunnerClient['submit']>[0],
  target: Resolved,
  file: string,
  opts: SubmitCliOptions,
  io: SubmitIo,
  signal: AbortSignal,
): Promise<number> {
  const err = (line: string) => io.stderr.write(`kernel-runner: ${line}\n`);
  let outcome: StreamOutcome;
  try {
    outcome = await client.submit(request, {
      signal,
      // GPU MODE sends a status heartbeat about every 15 s and nothing else until the result.
      idleTimeoutMs: 120_000,
      onEvent(event) {
        if (event.event === 'status') err(`[${elapsed(event.data.elapsed_time * 1000)}] ${event.data.status}`);
      },
    });
  } catch (e) {
    if (signal.aborted) throw new CliExit('cancelled (GPU MODE has no cancel: the run may finish there)', 130);
    return exitFor(e);
  }
  if (outcome.kind === 'error') {
    if (opts.json) io.stdout.write(`${JSON.stringify({ ok: false, error: outcome.error, traces: [] }, null, 2)}\n`);
    else io.stderr.write(renderErrorEvent(outcome.error, { color: io.color }));
    return 1;
  }
  const filtered = opts.showNoise ? { result: outcome.result, hidden: 0 } : filterResultNoise(outcome.result);
  let saved: SavedTrace[] = [];
  let saveError: string | undefined;
  try {
    saved = await saveProfileTraces(outcome.result, {
      outDir: path.resolve(io.cwd, opts.out ?? DEFAULT_OUT),
      fileName: file,
      leaderboard: target.leaderboard,
      gpu: target.gpu,
      client,
      signal,
    });
  } catch (e) {
    saveError = e instanceof Error ? e.message : String(e);
  }
  const passed = resultPassed(outcome.result);
  if (opts.json) {
    const traces = saved.map((t) => ({ run: t.run, path: t.path, bytes: t.bytes, summary: t.summary ?? null, summary_error: t.summaryError ?? null }));
    io.stdout.write(`${JSON.stringify({ ok: passed && !saveError, result: outcome.result, traces, hidden_noise_lines: filtered.hidden }, null, 2)}\n`);
    return passed && !saveError ? 0 : 1;
  }
  const shown = withSummaries(filtered.result, saved);
  const paths = new Map(saved.map((t) => [t.run, relativeTo(io.cwd, t.path)]));
  const out = [renderResult(shown, { color: io.color, savedTraces: paths }).trimEnd()];
  for (const t of saved) if (t.summaryError) out.push(`  ${t.run}: the trace could not be summarised: ${t.summaryError}`);
  const score = rankedScoreOfResult(outcome.result, target.info?.rankingBy);
  if (score) out.push(`Ranked score: ${score.text}`);
  if (outcome.result.reports.length) out.push('', 'Reports:', ...outcome.result.reports.map((r) => r.trimEnd()));
  io.stdout.write(`\n${out.join('\n')}\n`);
  if (filtered.hidden > 0) err(`${filtered.hidden} profiler log line${filtered.hidden === 1 ? '' : 's'} hidden (--show-noise shows them)`);
  if (saveError) err(`could not save the trace: ${saveError}`);
  return passed && !saveError ? 0 : 1;
}

/** The result with each saved trace's summary put where the renderer looks (`profile.summary`). */
function withSummaries(result: ResultEvent, saved: SavedTrace[]): ResultEvent {
  const byRun = new Map(saved.filter((t) => t.summary).map((t) => [t.run, t.summary]));
  return {
    ...result,
    results: result.results.map((full, i) => ({
      ...full,
      runs: Object.fromEntries(
        Object.entries(full.runs).map(([key, ev]) => {
          const summary = byRun.get(i > 0 ? `${key}-secret` : key);
          return [key, ev.profile && summary && !ev.profile.summary ? { ...ev, profile: { ...ev.profile, summary } } : ev];
        }),
      ),
    })),
  };
}

function relativeTo(cwd: string, file: string): string {
  const rel = path.relative(cwd, file);
  return rel.startsWith('..') ? file : rel;
}
