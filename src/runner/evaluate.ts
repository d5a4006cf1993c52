// Runs one submission the way GPU MODE's service does and builds its FullResults:
//   problems: `python3 eval.py <mode> <cases>` with POPCORN_FD / POPCORN_SEED; test, benchmark,
//     leaderboard (test -> benchmark -> ranked run, plus a secret-seed copy), profile (each benchmark case on its
//     own under the profiler: profile.0, profile.1, ...);
//   the `script` leaderboard: the file itself as a program (.py with python3; .hip/.cpp with hipcc; .cu with nvcc).
import { randomInt } from 'node:crypto';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { ArtifactInfo, CompileResult, EvalResult, FullResult, OutputStream, ProfileResult, RunResult, SubmissionMode, SystemInfo } from '../core/protocol/api';
import type { ClassifiedLine } from '../core/noise';
import { summarizePath } from '../trace';
import { packageProfile } from './artifacts';
import { parsePopcornOutput, quoteCommand, runProcess, type ExecOutcome } from './executor';
import type { GpuSlot } from './gpus';
import { casesFileText, SUBMISSION_SOURCE, type CaseSpec, type Problem, type RankingBy } from './problems';
import { findOnPath, wrapCommand, type Profiler } from './profilers';
import { buildReport } from './reports';

export interface RunSettings {
  python: string;
  graceMs: number;
  capBytes: number;
  inlineTraceBytes: number;
  zipLevel: number;
  scriptTimeoutSec: number;
  compileTimeoutSec: number;
  profiler: Profiler | null;
  rocpd: boolean;
  /** Base environment of every child process. */
  env: NodeJS.ProcessEnv;
}

export interface RunContext {
  jobId: number;
  leaderboard: string;
  mode: SubmissionMode;
  /** null = the built-in script leaderboard. */
  problem: Problem | null;
  fileName: string;
  code: string;
  slot: GpuSlot;
  system: SystemInfo;
  workDir: string;
  artifactsDir: string;
  artifactUrl(name: string): string;
  signal: AbortSignal;
  settings: RunSettings;
  /** Live output of the public run. */
  onLine(stream: OutputStream, line: ClassifiedLine): void;
  /** A run (`test`, `benchmark`, `profile.0` ...) starts. */
  onRun(key: string): void;
}

export type RunEndState = 'succeeded' | 'failed' | 'timed_out' | 'cancelled';

export interface RunOutcome {
  results: FullResult[];
  reports: string[];
  state: RunEndState;
  artifacts: ArtifactInfo[];
  /** Ranked score in seconds (leaderboard mode), else null. */
  score: number | null;
}

const EXIT_TIMEOUT = 114;
const EXIT_VALIDATE_FAIL = 112;

interface Flags {
  timedOut: boolean;
  cancelled: boolean;
}

const signalNumbers: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGTERM: 15 };

function childEnv(ctx: RunContext, extra: Record<string, string>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...ctx.settings.env, PYTHONUNBUFFERED: '1', ...extra };
  if (ctx.slot.device !== null) {
    env.HIP_VISIBLE_DEVICES = String(ctx.slot.device);
    env.CUDA_VISIBLE_DEVICES = String(ctx.slot.device);
  }
  return env;
}

function toRunResult(o: ExecOutcome, opts: { timeoutSec: number; graceMs: number; passed: (exit: number, result: Record<string, string>) => boolean }): RunResult {
  const result = parsePopcornOutput(o.popcorn);
  let exit = o.exitCode ?? (o.signal ? 128 + (signalNumbers[o.signal] ?? 0) : -1);
  const notes: string[] = [];
  if (o.spawnError) {
    exit = 127;
    notes.push(`[kernel-runner] could not start: ${o.spawnError}`);
  }
  if (o.timedOut) {
    exit = EXIT_TIMEOUT;
    notes.push(`[kernel-runner] timed out after ${opts.timeoutSec} s: sent SIGINT to the process group, SIGKILL after ${opts.graceMs / 1000} s`);
  }
  if (o.cancelled) notes.push('[kernel-runner] cancelled: sent SIGINT to the process group');
  if (o.noiseLines > 0) {
    notes.push(`[kernel-runner] ${o.noiseLines} profiler log line(s) left out here (shown as noise in live output; full log: stderr.log in the trace archive)`);
  }
  let stderr = o.stderr;
  if (notes.length) stderr += (stderr && !stderr.endsWith('\n') ? '\n' : '') + notes.join('\n') + '\n';
  const success = !o.timedOut && !o.cancelled && !o.spawnError && (exit === 0 || exit === EXIT_VALIDATE_FAIL);
  return {
    success,
    passed: !o.timedOut && !o.cancelled && !o.spawnError && opts.passed(exit, result),
    command: o.command,
    stdout: o.stdout,
    stderr,
    exit_code: exit,
    duration: o.durationSec,
    result,
  };
}

/** One run of a program (optionally under the profiler) -> EvalResult. */
async function evalRun(
  ctx: RunContext,
  flags: Flags,
  opts: {
    key: string;
    cwd: string;
    command: string;
    args: string[];
    env: Record<string, string>;
    timeoutSec: number;
    live: boolean;
    profile: boolean;
    compilation?: CompileResult | null;
    passed: (exit: number, result: Record<string, string>) => boolean;
  },
): Promise<{ evalResult: EvalResult; artifact: ArtifactInfo | null }> {
  if (opts.live) ctx.onRun(opts.key);
  const start = new Date().toISOString();
  let cmd = { command: opts.command, args: opts.args };
  let outDir: string | null = null;
  let stderrLogPath: string | null = null;
  const env = { ...opts.env };
  if (opts.profile && ctx.settings.profiler) {
    outDir = join(opts.cwd, `${opts.key}.trace`);
    stderrLogPath = join(opts.cwd, `${opts.key}.stderr.log`);
    await mkdir(outDir, { recursive: true });
    cmd = wrapCommand(ctx.settings.profiler, outDir, cmd, { rocpd: ctx.settings.rocpd });
    env.GPU_DUMP_CODE_OBJECT = '1';
  }
  const outcome = await runProcess({
    command: cmd.command,
    args: cmd.args,
    cwd: opts.cwd,
    env: childEnv(ctx, env),
    timeoutMs: opts.timeoutSec * 1000,
    graceMs: ctx.settings.graceMs,
    signal: ctx.signal,
    popcornFd: true,
    capBytes: ctx.settings.capBytes,
    stderrLogPath: stderrLogPath ?? undefined,
    onLine: opts.live ? (stream, line) => ctx.onLine(stream, line) : undefined,
  });
  if (outcome.timedOut) flags.timedOut = true;
  if (outcome.cancelled) flags.cancelled = true;
  const run = toRunResult(outcome, { timeoutSec: opts.timeoutSec, graceMs: ctx.settings.graceMs, passed: opts.passed });
  let profile: ProfileResult | null = null;
  let artifact: ArtifactInfo | null = null;
  if (outDir && !outcome.cancelled) {
    const packed = await finishProfile(ctx, opts.key, opts.cwd, outDir, stderrLogPath);
    profile = packed.profile;
    artifact = packed.artifact;
    if (packed.note) run.stderr += `[kernel-runner] ${packed.note}\n`;
  }
  return {
    evalResult: { start, end: new Date().toISOString(), compilation: opts.compilation ?? null, run, profile },
    artifact,
  };
}

async function finishProfile(
  ctx: RunContext,
  key: string,
  runDir: string,
  outDir: string,
  stderrLogPath: string | null,
): Promise<{ profile: ProfileResult; artifact: ArtifactInfo; note: string | null }> {
  const name = `job-${ctx.jobId}-${key}.zip`;
  const zipPath = join(ctx.artifactsDir, name);
  const packed = await packageProfile({ outDir, runDir, stderrLogPath, zipPath, level: ctx.settings.zipLevel });
  let note: string | null = null;
  let summary;
  try {
    summary = await summarizePath(outDir);
  } catch (err) {
    note = `no trace summary: ${err instanceof Error ? err.message : String(err)}`;
  }
  let trace = '';
  if (packed.zipBytes <= ctx.settings.inlineTraceBytes) {
    trace = (await readFile(zipPath)).toString('base64');
  } else {
    note = (note ? note + '; ' : '') + `trace archive is ${packed.zipBytes} bytes, over the inline limit: download it from download_url`;
  }
  const url = ctx.artifactUrl(name);
  const profile: ProfileResult = {
    profiler: 'rocPROF',
    trace,
    download_url: url,
    ...(summary ? { summary } : {}),
    artifact: name,
  };
  return { profile, artifact: { name, size: packed.zipBytes, url }, note };
}

function endState(results: FullResult[], flags: Flags): RunEndState {
  if (flags.cancelled) return 'cancelled';
  if (flags.timedOut) return 'timed_out';
  for (const r of results) {
    for (const ev of Object.values(r.runs)) {
      if (ev.compilation && !ev.compilation.success) return 'failed';
      if (!ev.run || !ev.run.passed) return 'failed';
    }
  }
  return 'succeeded';
}

/** Seconds, from the ranked run's benchmark means (nanoseconds), as `ranking_by` says. */
export function computeScore(result: Record<string, string>, rankingBy: RankingBy): number | null {
  const count = Number(result['benchmark-count']);
  if (!Number.isInteger(count) || count <= 0) return null;
  const means: number[] = [];
  for (let i = 0; i < count; i++) {
    const m = Number(result[`benchmark.${i}.mean`]);
    if (!Number.isFinite(m) || m <= 0) return null;
    means.push(m / 1e9);
  }
  if (rankingBy === 'last') return means[means.length - 1] ?? null;
  if (rankingBy === 'mean') return means.reduce((a, b) => a + b, 0) / means.length;
  return Math.exp(means.reduce((a, b) => a + Math.log(b), 0) / means.length);
}

async function prepareProblemDir(problem: Problem, dir: string, code: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const f of problem.files) {
    const target = join(dir, f.name);
    await mkdir(join(target, '..'), { recursive: true });
    if (f.source === SUBMISSION_SOURCE) await writeFile(target, code);
    else await copyFile(f.source, target);
  }
}

async function runProblem(ctx: RunContext, problem: Problem): Promise<RunOutcome> {
  const flags: Flags = { timedOut: false, cancelled: false };
  const artifacts: ArtifactInfo[] = [];
  const stopped = () => flags.cancelled || flags.timedOut;
  const checkPassed = (_exit: number, result: Record<string, string>) => result.check === 'pass';

  const fullRun = async (secret: boolean): Promise<FullResult> => {
    const dir = join(ctx.workDir, secret ? 'secret' : 'public');
    await prepareProblemDir(problem, dir, ctx.code);
    const seed = secret ? randomInt(1, 2 ** 31 - 1) : problem.seed;
    const env: Record<string, string> = seed !== null ? { POPCORN_SEED: String(seed) } : {};
    const runs: Record<string, EvalResult> = {};
    const one = async (key: string, evalMode: string, cases: CaseSpec[], timeoutSec: number, profile = false) => {
      const casesPath = join(dir, `${key}.cases`);
      await writeFile(casesPath, casesFileText(cases));
      const r = await evalRun(ctx, flags, {
        key,
        cwd: dir,
        command: ctx.settings.python,
        args: [problem.main, evalMode, casesPath],
        env,
        timeoutSec,
        live: !secret,
        profile,
        passed: checkPassed,
      });
      runs[key] = r.evalResult;
      if (r.artifact) artifacts.push(r.artifact);
      return r.evalResult.run?.passed === true;
    };
    const t = problem.timeouts;
    switch (ctx.mode) {
      case 'test':
        await one('test', 'test', problem.tests, t.test);
        break;
      case 'benchmark':
        await one('benchmark', 'benchmark', problem.benchmarks, t.benchmark);
        break;
      case 'leaderboard':
        if ((await one('test', 'test', problem.tests, t.test)) && !stopped()) {
          if ((await one('benchmark', 'benchmark', problem.benchmarks, t.benchmark)) && !stopped()) {
            await one('leaderboard', 'leaderboard', problem.benchmarks, t.ranked);
          }
        }
        break;
      case 'profile':
        for (let i = 0; i < problem.benchmarks.length && !stopped(); i++) {
          await one(`profile.${i}`, 'profile', [problem.benchmarks[i] as CaseSpec], t.benchmark, true);
        }
        break;
    }
    return { success: true, error: '', system: ctx.system, runs };
  };

  const results = [await fullRun(false)];
  if (ctx.mode === 'leaderboard' && !stopped()) results.push(await fullRun(true));
  const ranked = results[0]?.runs.leaderboard?.run;
  const score = ranked?.passed ? computeScore(ranked.result, problem.rankingBy) : null;
  return finish(ctx, results, flags, artifacts, score);
}

function finish(ctx: RunContext, results: FullResult[], flags: Flags, artifacts: ArtifactInfo[], score: number | null): RunOutcome {
  const reports = results.map((r, i) =>
    buildReport({ leaderboard: ctx.leaderboard, mode: ctx.mode, gpu: ctx.slot.gpu, fileName: ctx.fileName, secret: i > 0, result: r, score: i === 0 ? score : null }),
  );
  return { results, reports, state: endState(results, flags), artifacts, score };
}

const COMPILERS: Record<string, { compiler: 'hipcc' | 'nvcc'; what: string }> = {
  '.hip': { compiler: 'hipcc', what: 'HIP' },
  '.cpp': { compiler: 'hipcc', what: 'C++ (HIP)' },
  '.cu': { compiler: 'nvcc', what: 'CUDA' },
};

async function compile(ctx: RunContext, flags: Flags, dir: string, file: string, compiler: 'hipcc' | 'nvcc'): Promise<CompileResult> {
  const args = ['-O3', '-o', 'program', file];
  const found = findOnPath(compiler, ctx.settings.env.PATH);
  if (!found) {
    return {
      nvcc_found: false,
      nvcc_version: '',
      success: false,
      command: quoteCommand(compiler, args),
      stdout: '',
      stderr:
        `${compiler} was not found on this runner's PATH, so ${file} cannot be built here. ` +
        `Install ${compiler === 'hipcc' ? 'ROCm' : 'the CUDA toolkit'} on the runner, or submit to a GPU runner that has it ` +
        '(`kernel-runner submit --server URL`, or the kernelRunner.server setting in VS Code).\n',
      exit_code: 127,
    };
  }
  const version = await runProcess({
    command: found, args: ['--version'], cwd: dir, env: childEnv(ctx, {}), timeoutMs: 30_000, graceMs: 1000,
    capBytes: 4096, signal: ctx.signal,
  });
  ctx.onRun('compile');
  const o = await runProcess({
    command: found,
    args,
    cwd: dir,
    env: childEnv(ctx, {}),
    timeoutMs: ctx.settings.compileTimeoutSec * 1000,
    graceMs: ctx.settings.graceMs,
    signal: ctx.signal,
    capBytes: ctx.settings.capBytes,
    onLine: (stream, line) => ctx.onLine(stream, line),
  });
  if (o.timedOut) flags.timedOut = true;
  if (o.cancelled) flags.cancelled = true;
  const exit = o.timedOut ? EXIT_TIMEOUT : (o.exitCode ?? -1);
  return {
    nvcc_found: true,
    nvcc_version: version.stdout.trim().split('\n').filter(Boolean).pop() ?? '',
    success: exit === 0 && !o.spawnError,
    command: quoteCommand(compiler, args),
    stdout: o.stdout,
    stderr: o.stderr + (o.timedOut ? `[kernel-runner] compilation timed out after ${ctx.settings.compileTimeoutSec} s\n` : ''),
    exit_code: exit,
  };
}

async function runScript(ctx: RunContext): Promise<RunOutcome> {
  const flags: Flags = { timedOut: false, cancelled: false };
  const dir = join(ctx.workDir, 'public');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, ctx.fileName), ctx.code);
  const key = ctx.mode === 'profile' ? 'profile.0' : ctx.mode;
  const ext = extname(ctx.fileName).toLowerCase();
  const runs: Record<string, EvalResult> = {};
  const artifacts: ArtifactInfo[] = [];
  const passed = (exit: number, result: Record<string, string>) => exit === 0 && result.check !== 'fail';

  let command: string;
  let args: string[];
  let compilation: CompileResult | null = null;
  const build = COMPILERS[ext];
  if (build) {
    const start = new Date().toISOString();
    compilation = await compile(ctx, flags, dir, ctx.fileName, build.compiler);
    if (!compilation.success) {
      runs[key] = { start, end: new Date().toISOString(), compilation, run: null, profile: null };
      const result: FullResult = { success: true, error: '', system: ctx.system, runs };
      return finish(ctx, [result], flags, artifacts, null);
    }
    command = join(dir, 'program');
    args = [];
  } else {
    command = ctx.settings.python;
    args = [ctx.fileName];
  }
  const r = await evalRun(ctx, flags, {
    key,
    cwd: dir,
    command,
    args,
    env: {},
    timeoutSec: ctx.settings.scriptTimeoutSec,
    live: true,
    profile: ctx.mode === 'profile',
    compilation,
    passed,
  });
  runs[key] = r.evalResult;
  if (r.artifact) artifacts.push(r.artifact);
  return finish(ctx, [{ success: true, error: '', system: ctx.system, runs }], flags, artifacts, null);
}

export function runSubmission(ctx: RunContext): Promise<RunOutcome> {
  return ctx.problem ? runProblem(ctx, ctx.problem) : runScript(ctx);
}
