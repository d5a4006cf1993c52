// Runs one submission the way GPU MODE's service does (kernelbot's run_eval.py) and builds its FullResults:
//   problems: `python3 eval.py <mode> <cases>` (lang: cu: sources built with nvcc, then `./eval.out <mode> <cases>`)
//     with POPCORN_FD / POPCORN_SEED (and POPCORN_GPUS plus every device of the slot for `multi_gpu` tasks);
//     lang: py first runs `python3 submission.py` once per run (seed 1, 120 s), so that load_inline builds its
//     extension outside the timed run, reported as a CompileResult when its output shows a torch extension build;
//     test, benchmark, leaderboard (test -> benchmark -> ranked run, plus a copy with the leaderboard's fixed secret
//     seed), profile (each benchmark case on its own under the profiler: profile.0, profile.1, ...); with
//     `ranking_by: last` benchmark and leaderboard runs get only the last benchmark case;
//   the `script` leaderboard: the file itself as a program (.py with python3; .hip/.cpp with hipcc; .cu with nvcc).
import { constants as osConstants } from 'node:os';
import { chown, copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import type {
  ArtifactInfo,
  CompileResult,
  EvalResult,
  FullResult,
  OutputStream,
  ProfileResult,
  RunResult,
  SubmissionMode,
  SystemInfo,
} from '../core/protocol/api';
import type { ClassifiedLine } from '../core/noise';
import { packageProfile } from './artifacts';
import { parsePopcornOutput, quoteCommand, type ExecSpec } from './executor';
import { createLocalExecutor, type ExecResult, type Executor } from './executors';
import type { GpuSlot } from './gpus';
import { killGroup, type Isolation } from './isolation';
import { jobEnvironment } from './jobEnv';
import { diskFullReason, isDiskFullReason, watchDiskBudget } from './diskBudget';
import { limitNotes, type JobLimits } from './jobLimits';
import { scoreFromResultValues } from '../core/scoring';
import { linesFileText, SUBMISSION_SOURCE, type CudaBuild, type Problem } from './problems';
import {
  findOnPath,
  passesInputJson,
  ProfilerError,
  takesMultiplePmc,
  wrapCommand,
  type Profiler,
  type ProfileSelection,
} from './profilers';
import { parseCounters, PC_SAMPLING_UNIT, type ProfileOptions } from '../core/profileOptions';
import { archOfGpuName, counterPasses, CounterSetError, supportedArch } from './counterSets';
import { buildSysinfo, sysinfoCsv, type GpuSysinfo, type ToolOutput } from './gpuSysinfo';
import { lineInfoEnv, pcSamplingMissingNote, type PcSamplingRequest } from './pcSampling';
import { buildReport } from './reports';
import type { OutputBudget } from './outputBudget';
import { DEFAULT_SUMMARY_LIMITS, summarizeBounded, type SummaryLimits } from './boundedSummary';
import type { TraceSummary } from '../core/protocol/traceSummary';
import { VERSION_PROBE_CAP_BYTES, VERSION_PROBE_GRACE_MS, VERSION_PROBE_TIMEOUT_MS } from './limits';

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
  /** How a job's processes are kept together (detectIsolation): a PID namespace where allowed, else process group + job tag. */
  isolation?: Isolation;
  /** Where the processes run (executors/): default the local one. */
  executor?: Executor;
  /** The most a job's work dir may take on disk (--max-job-disk); past it the job is stopped. 0 = no budget. */
  maxJobDiskBytes?: number;
  /** Memory per process and processes of a job (jobLimits.ts); what a failed run's note names. */
  jobLimits?: JobLimits;
  /** Time and memory a finished profile's summary may take (boundedSummary.ts). */
  summaryLimits?: SummaryLimits;
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
  /** The leaderboard's fixed seed of the secret run (kernelbot's `secret_seed`). */
  secretSeed: number;
  /** Profile mode: counters and kernel selection (checked at submission, core/profileOptions.ts). */
  profile?: ProfileOptions;
  system: SystemInfo;
  workDir: string;
  artifactsDir: string;
  artifactUrl(name: string): string;
  signal: AbortSignal;
  settings: RunSettings;
  /** What the job may still store of its output: the profiler's stderr logs take from it too. */
  outputBudget?: OutputBudget;
  /** Live output of the public run. */
  onLine(stream: OutputStream, line: ClassifiedLine): void;
  /** While it returns a promise, the job's output is not read (the event log is behind): see ExecSpec. */
  outputPressure?(): Promise<void> | null;
  /** A run (`test`, `benchmark`, `profile.0` ...) starts. */
  onRun(key: string): void;
  /** A child process group started (its pid = group id), or ended (null): the job record keeps it for crash cleanup. */
  onProcess?(pid: number | null): void;
  /** The run's place in the executor's own queue (Slurm's pending jobs ahead, 1 = next; 0 = it runs). */
  onQueuePosition?(position: number): void;
}

type RunEndState = 'succeeded' | 'failed' | 'timed_out' | 'cancelled';

export interface RunOutcome {
  results: FullResult[];
  reports: string[];
  state: RunEndState;
  artifacts: ArtifactInfo[];
  /** Ranked score in seconds (leaderboard mode), else null. */
  score: number | null;
  /** The secret run's score, computed as the public one is (leaderboard mode), else null. */
  secretScore: number | null;
}

const EXIT_TIMEOUT = 114;
const EXIT_VALIDATE_FAIL = 112;
/** kernelbot's Timeout.COMPILE, the budget of the `python3 submission.py` step. */
const PY_COMPILE_TIMEOUT_SEC = 120;
/** What torch's load_inline prints while it builds an extension (kernelbot looks for it in the step's stdout). */
const TORCH_EXTENSION_MARK = '-DTORCH_EXTENSION_NAME';

interface Flags {
  timedOut: boolean;
  cancelled: boolean;
}

function signalNumber(name: string): number {
  return (osConstants.signals as Record<string, number | undefined>)[name] ?? 0;
}

const signalHints: Record<string, string> = {
  SIGKILL: 'it cannot be caught: another process sent it, or the kernel did (the out-of-memory killer does)',
  SIGSEGV: 'segmentation fault: an invalid memory access',
  SIGBUS: 'bus error: a misaligned or unmapped memory access',
  SIGABRT: 'aborted, e.g. by a failed assertion or abort()',
  SIGFPE: 'arithmetic error, e.g. an integer division by zero',
  SIGILL: 'illegal instruction',
  SIGXFSZ: "a file grew past the job's disk budget (serve --max-job-disk), the largest file a job may write",
};

/** Says that a program died of a signal, and what that signal usually means. */
function signalNote(signal: string): string {
  const hint = signalHints[signal];
  return `[kernel-runner] the program was killed by signal ${signal} (${signalNumber(signal)}; exit code ${128 + signalNumber(signal)})${hint ? `: ${hint}` : ''}`;
}

function childEnv(ctx: RunContext, extra: Record<string, string>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {
    ...jobEnvironment(ctx.settings.env),
    PYTHONUNBUFFERED: '1',
    ...extra,
  };
  // the job user cannot write the runner's home: caches (torch extensions, ~/.cache) go into the job's own folder
  if (ctx.settings.isolation?.sandbox?.user) env.HOME = ctx.workDir;
  if (ctx.slot.devices.length > 0) {
    env.HIP_VISIBLE_DEVICES = ctx.slot.devices.join(',');
    env.CUDA_VISIBLE_DEVICES = ctx.slot.devices.join(',');
  }
  return env;
}

/** Why the job's processes were stopped, as the abort gave it (a cancel, the runner's hard timeout). */
function stopReason(signal: AbortSignal): string {
  return typeof signal.reason === 'string' ? signal.reason : 'cancelled';
}

function toRunResult(
  o: ExecResult,
  opts: {
    timeoutSec: number;
    graceMs: number;
    stopReason: string;
    passed: (exit: number, result: Record<string, string>) => boolean;
    limits?: JobLimits;
  },
): RunResult {
  const result = parsePopcornOutput(o.popcorn);
  let exit = o.exitCode ?? (o.signal ? 128 + signalNumber(o.signal) : -1);
  const notes: string[] = [];
  if (o.spawnError) {
    exit = 127;
    notes.push(`[kernel-runner] could not start: ${o.spawnError}`);
  }
  if (o.timedOut) {
    exit = EXIT_TIMEOUT;
    notes.push(
      `[kernel-runner] timed out after ${opts.timeoutSec} s: sent SIGINT to ${o.stopTarget ?? 'the process group'}, SIGKILL after ${opts.graceMs / 1000} s`,
    );
  }
  if (o.cancelled)
    notes.push(
      `[kernel-runner] ${opts.stopReason}${isDiskFullReason(opts.stopReason) ? '' : `: sent SIGINT to ${o.stopTarget ?? 'the process group'}`}`,
    );
  if (o.failure) notes.push(`[kernel-runner] ${o.failure}`);
  if (o.signal && o.exitCode === null && !o.timedOut && !o.cancelled && !o.spawnError) notes.push(signalNote(o.signal));
  if (exit !== 0 && !o.spawnError && opts.limits) notes.push(...limitNotes(o.stderr, opts.limits));
  if (o.popcornOmitted > 0)
    notes.push(`[kernel-runner] ${o.popcornOmitted} characters written to POPCORN_FD past its cap were left out`);
  if (o.noiseLines > 0) {
    notes.push(
      `[kernel-runner] ${o.noiseLines} profiler log line(s) left out here (shown as noise in live output; full log: stderr.log in the trace archive)`,
    );
  }
  let stderr = o.stderr;
  if (notes.length) stderr += (stderr && !stderr.endsWith('\n') ? '\n' : '') + notes.join('\n') + '\n';
  const ended = o.timedOut || o.cancelled || o.spawnError !== null || Boolean(o.failure);
  const success = !ended && (exit === 0 || exit === EXIT_VALIDATE_FAIL);
  return {
    success,
    passed: !ended && opts.passed(exit, result),
    command: o.command,
    stdout: o.stdout,
    stderr,
    exit_code: exit,
    duration: o.durationSec,
    result,
  };
}

const localExecutor = createLocalExecutor();

/** Folders the runner makes for the job, handed to the job user (a root runner's jobs do not run as root). */
async function grantToJob(ctx: RunContext, ...paths: string[]): Promise<void> {
  const user = ctx.settings.isolation?.sandbox?.user;
  if (!user) return;
  for (const p of paths) await chown(p, user.uid, user.gid);
}

/** Runs a process through the runner's executor, telling the job which local process group is running. */
async function runChild(ctx: RunContext, spec: ExecSpec): Promise<ExecResult> {
  const executor = ctx.settings.executor ?? localExecutor;
  try {
    return await executor.run({
      ...spec,
      workDir: ctx.workDir,
      jobId: ctx.jobId,
      isolation: ctx.settings.isolation,
      ...(ctx.settings.jobLimits ? { limits: ctx.settings.jobLimits } : {}),
      onSpawn: (pid) => ctx.onProcess?.(pid),
      ...(ctx.onQueuePosition ? { onQueuePosition: (position: number) => ctx.onQueuePosition?.(position) } : {}),
    });
  } finally {
    ctx.onProcess?.(null);
  }
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
    /** No other process of the job follows (ExecSpec.lastOfJob). */
    lastOfJob?: boolean;
  },
): Promise<{ evalResult: EvalResult; artifact: ArtifactInfo | null }> {
  if (opts.live) ctx.onRun(opts.key);
  const start = new Date().toISOString();
  let cmd = { command: opts.command, args: opts.args };
  let outDir: string | null = null;
  let stderrLogPath: string | null = null;
  const env = { ...opts.env };
  let timeoutSec = opts.timeoutSec;
  let selectionNote = '';
  if (opts.profile && ctx.settings.profiler) {
    outDir = join(opts.cwd, `${opts.key}.trace`);
    stderrLogPath = join(opts.cwd, `${opts.key}.stderr.log`);
    await mkdir(outDir, { recursive: true });
    await grantToJob(ctx, outDir);
    let selection: ProfileSelection;
    try {
      selection = await profileSelection(ctx, opts.cwd, outDir);
      cmd = wrapCommand(ctx.settings.profiler, outDir, cmd, { rocpd: ctx.settings.rocpd, selection });
    } catch (err) {
      if (!(err instanceof CounterSetError) && !(err instanceof ProfilerError)) throw err;
      return {
        evalResult: refusedRun(
          start,
          opts.compilation ?? null,
          quoteCommand(cmd.command, cmd.args),
          (err as Error).message,
        ),
        artifact: null,
      };
    }
    // rocprofv3 runs the program once per counter pass: each pass gets the run's time
    timeoutSec = opts.timeoutSec * Math.max(1, selection.pmc?.length ?? 0);
    if ((selection.kernelRegex !== undefined || selection.launches !== undefined) && !selection.pmc?.length) {
      selectionNote =
        '[kernel-runner] the kernel regex and launch window select what rocprofv3 collects counters (and thread traces) for; with counters off the kernel trace keeps every kernel\n';
    }
    env.GPU_DUMP_CODE_OBJECT = '1';
    if (selection.pcSampling) Object.assign(env, lineInfoEnv({ ...ctx.settings.env, ...env }));
  }
  const outcome = await runChild(ctx, {
    command: cmd.command,
    args: cmd.args,
    cwd: opts.cwd,
    env: childEnv(ctx, env),
    timeoutMs: timeoutSec * 1000,
    graceMs: ctx.settings.graceMs,
    signal: ctx.signal,
    popcornFd: true,
    capBytes: ctx.settings.capBytes,
    stderrLogPath: stderrLogPath ?? undefined,
    ...(ctx.outputBudget ? { outputBudget: ctx.outputBudget } : {}),
    outputPressure: ctx.outputPressure,
    onLine: opts.live ? (stream, line) => ctx.onLine(stream, line) : undefined,
    ...(opts.lastOfJob ? { lastOfJob: true } : {}),
  });
  if (outcome.timedOut) flags.timedOut = true;
  if (outcome.cancelled) flags.cancelled = true;
  const run = toRunResult(outcome, {
    timeoutSec,
    graceMs: ctx.settings.graceMs,
    stopReason: stopReason(ctx.signal),
    passed: opts.passed,
    limits: ctx.settings.jobLimits,
  });
  run.stderr += selectionNote;
  let profile: ProfileResult | null = null;
  let artifact: ArtifactInfo | null = null;
  if (outDir && !outcome.cancelled) {
    const packed = await finishProfile(ctx, opts.key, opts.cwd, outDir, stderrLogPath);
    artifact = packed.artifact;
    // upstream attaches a ProfileResult only to a run that succeeded; what the profiler wrote for one that did not
    // (a crash, a timeout finalised with SIGINT) stays downloadable as the job's artifact
    if (run.success) {
      profile = packed.profile;
      if (packed.note) run.stderr += `[kernel-runner] ${packed.note}\n`;
    } else {
      run.stderr += `[kernel-runner] the run did not succeed, so it has no ProfileResult (as upstream); what the profiler wrote is at ${packed.artifact.url}\n`;
    }
  }
  return {
    evalResult: { start, end: new Date().toISOString(), compilation: opts.compilation ?? null, run, profile },
    artifact,
  };
}

/** A profile run that was not started: its RunResult says why (exit 2, as a usage error). */
function refusedRun(start: string, compilation: CompileResult | null, command: string, why: string): EvalResult {
  return {
    start,
    end: new Date().toISOString(),
    compilation,
    run: {
      success: false,
      passed: false,
      command,
      stdout: '',
      stderr: `[kernel-runner] ${why}\n`,
      exit_code: 2,
      duration: 0,
      result: {},
    },
    profile: null,
  };
}

/** One tool's output on the job's node: not found on PATH, failed, or its stdout. */
async function queryTool(ctx: RunContext, cwd: string, tool: string, args: string[]): Promise<ToolOutput> {
  const found = findOnPath(tool, ctx.settings.env.PATH);
  if (!found) return { text: null, status: 'not found' };
  const o = await runChild(ctx, {
    command: found,
    args,
    cwd,
    env: childEnv(ctx, {}),
    timeoutMs: 30_000,
    graceMs: 1000,
    capBytes: 8 << 20,
    signal: ctx.signal,
  });
  if (o.spawnError) return { text: null, status: `failed (${o.spawnError})` };
  if (o.timedOut) return { text: null, status: 'failed (timed out after 30 s)' };
  if (o.exitCode !== 0) return { text: null, status: `failed (exit ${o.exitCode ?? o.signal})` };
  return { text: o.stdout, status: 'read' };
}

/** The GPU's clocks and CU counts (rocminfo, amd-smi on the job's node), written as sysinfo.csv beside the counters. */
async function gatherSysinfo(ctx: RunContext, cwd: string, outDir: string): Promise<GpuSysinfo> {
  const rocminfo = await queryTool(ctx, cwd, 'rocminfo', []);
  const amdSmi = await queryTool(ctx, cwd, 'amd-smi', ['static', '--json']);
  // a single-device slot sees its device as the first one (HIP_VISIBLE_DEVICES); rocminfo lists them all
  const info = buildSysinfo(rocminfo, amdSmi, ctx.slot.devices.length === 1 ? (ctx.slot.devices[0] as number) : 0);
  await writeFile(join(outDir, 'sysinfo.csv'), sysinfoCsv(info), { mode: 0o600 });
  return info;
}

/** rocprofv3's counters (split into passes for the GPU's arch) and kernel selection for a profile run. */
async function profileSelection(ctx: RunContext, cwd: string, outDir: string): Promise<ProfileSelection> {
  const p = ctx.profile ?? {};
  const selection: ProfileSelection = {};
  if (p.kernelRegex !== undefined) selection.kernelRegex = p.kernelRegex;
  if (p.launches !== undefined) selection.launches = p.launches;
  const pcs = pcSamplingOf(p);
  if (pcs) selection.pcSampling = pcs;
  const request = parseCounters(p.counters ?? 'off');
  if (request.kind === 'off') return selection;
  const info = await gatherSysinfo(ctx, cwd, outDir);
  const arch = supportedArch(info.gpu_arch) ?? archOfGpuName(ctx.slot.product) ?? archOfGpuName(ctx.slot.gpu);
  selection.pmc = counterPasses(request, arch, ctx.slot.gpu);
  const profiler = ctx.settings.profiler;
  if (profiler && selection.pmc.length > 1 && !(await takesMultiplePmc(profiler, ctx.settings.env, ctx.settings))) {
    // an older rocprofv3 keeps only the last --pmc: the passes go in an input file instead (same pass_<n>/ layout)
    selection.pmcInput = join(cwd, `${basename(outDir)}.passes.json`);
    await writeFile(selection.pmcInput, passesInputJson(selection.pmc), { mode: 0o600 });
    await grantToJob(ctx, selection.pmcInput);
  }
  return selection;
}

function pcSamplingOf(p: ProfileOptions | undefined): PcSamplingRequest | null {
  return p?.pcSampling !== undefined && p.pcSamplingInterval !== undefined
    ? { method: p.pcSampling, interval: p.pcSamplingInterval }
    : null;
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
  let summary: TraceSummary | undefined;
  let cutShort: string | undefined;
  // in a worker thread with a time and a memory limit: what the job wrote cannot stall or bloat the service
  const bounded = await summarizeBounded(outDir, ctx.settings.summaryLimits ?? DEFAULT_SUMMARY_LIMITS);
  if ('summary' in bounded) summary = bounded.summary;
  else if ('cutShort' in bounded) {
    cutShort = `the trace summary was cut short: ${bounded.cutShort}; the archive holds everything the profiler wrote`;
    note = cutShort;
  } else note = `no trace summary: ${bounded.error}`;
  const pcs = pcSamplingOf(ctx.profile);
  if (pcs) {
    if (summary?.hotspots)
      Object.assign(summary.hotspots, { interval: pcs.interval, intervalUnit: PC_SAMPLING_UNIT[pcs.method] });
    else if (summary) note = (note ? note + '; ' : '') + pcSamplingMissingNote(pcs);
  }
  let trace = '';
  if (packed.zipBytes <= ctx.settings.inlineTraceBytes) {
    trace = (await readFile(zipPath)).toString('base64');
  } else {
    note =
      (note ? note + '; ' : '') +
      `trace archive is ${packed.zipBytes} bytes, over the inline limit: download it from download_url`;
  }
  const url = ctx.artifactUrl(name);
  const profile: ProfileResult = {
    profiler: 'rocPROF',
    trace,
    download_url: url,
    ...(summary ? { summary } : {}),
    ...(cutShort ? { summaryCutShort: cutShort } : {}),
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

async function prepareProblemDir(problem: Problem, dir: string, code: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const f of problem.files) {
    const target = join(dir, f.name);
    await mkdir(join(target, '..'), { recursive: true });
    if (f.source === SUBMISSION_SOURCE) await writeFile(target, code);
    else await copyFile(f.source, target);
  }
}

/**
 * The cases a run of `mode` gets, one line each: `ranking_by: last` gives benchmark and leaderboard runs the last
 * benchmark case only (kernelbot's run_single_evaluation); profile runs take one case each and are not cut.
 */
export function casesFor(
  problem: Pick<Problem, 'testLines' | 'benchmarkLines' | 'rankingBy'>,
  mode: 'test' | 'benchmark' | 'leaderboard',
): string[] {
  if (mode === 'test') return problem.testLines;
  return problem.rankingBy === 'last' ? problem.benchmarkLines.slice(-1) : problem.benchmarkLines;
}

/** A ranked score from a run that succeeded and passed, as kernelbot's compute_score, else null. */
function scoreOf(full: FullResult | undefined, rankingBy: Problem['rankingBy']): number | null {
  const ranked = full?.runs.leaderboard?.run;
  return ranked?.success && ranked.passed ? scoreFromResultValues(ranked.result, rankingBy) : null;
}

/**
 * kernelbot's "compile" step of a Python task: the submission runs once on its own (seed 1, 120 s, POPCORN_FD
 * open), which fills load_inline's build cache before the timed run. Its outcome never stops the evaluation; it is
 * reported as a CompileResult (always `success: true`, as upstream) only when its stdout shows a torch extension
 * build, else not at all.
 */
async function pythonCompileStep(
  ctx: RunContext,
  flags: Flags,
  dir: string,
  submissionFile: string,
  live: boolean,
): Promise<CompileResult | null> {
  if (live) ctx.onRun('compile');
  let built = false;
  const o = await runChild(ctx, {
    command: ctx.settings.python,
    args: [submissionFile],
    cwd: dir,
    // with PC sampling, the build load_inline caches here is the one the profiled run loads (torch rebuilds for
    // changed sources or flags, not for a changed environment): it gets the line tables now
    env: childEnv(ctx, {
      POPCORN_SEED: '1',
      ...(ctx.mode === 'profile' && pcSamplingOf(ctx.profile) ? lineInfoEnv(ctx.settings.env) : {}),
    } as Record<string, string>),
    timeoutMs: PY_COMPILE_TIMEOUT_SEC * 1000,
    graceMs: ctx.settings.graceMs,
    signal: ctx.signal,
    popcornFd: true,
    capBytes: ctx.settings.capBytes,
    outputPressure: ctx.outputPressure,
    onLine: (stream, line) => {
      // looked for line by line: the kept stdout is cut to its head and tail, the mark may be in between
      if (stream === 'stdout' && line.text.includes(TORCH_EXTENSION_MARK)) built = true;
      if (live) ctx.onLine(stream, line);
    },
  });
  if (o.cancelled) flags.cancelled = true;
  if (!built) return null;
  const exit = o.timedOut ? EXIT_TIMEOUT : (o.exitCode ?? (o.signal ? 128 + signalNumber(o.signal) : -1));
  return {
    nvcc_found: true,
    nvcc_version: '',
    success: true,
    command: o.command,
    stdout: o.stdout,
    stderr: o.stderr,
    exit_code: exit,
  };
}

async function runProblem(ctx: RunContext, problem: Problem): Promise<RunOutcome> {
  const flags: Flags = { timedOut: false, cancelled: false };
  const artifacts: ArtifactInfo[] = [];
  const stopped = () => flags.cancelled || flags.timedOut;
  const checkPassed = (_exit: number, result: Record<string, string>) => result.check === 'pass';
  const submissionFile = problem.files.find((f) => f.source === SUBMISSION_SOURCE)?.name ?? 'submission.py';

  let compileFailed = false;

  const fullRun = async (secret: boolean): Promise<FullResult> => {
    const dir = join(ctx.workDir, secret ? 'secret' : 'public');
    await prepareProblemDir(problem, dir, ctx.code);
    await grantToJob(ctx, ctx.workDir, dir);
    // the secret copy runs with the leaderboard's fixed secret seed (kernelbot: task.seed = secret_seed)
    const seed = secret ? ctx.secretSeed : problem.seed;
    const env: Record<string, string> = seed !== null ? { POPCORN_SEED: String(seed) } : {};
    // kernelbot sets POPCORN_GPUS to the devices torch sees: here every device of the slot (1 on a runner without any)
    if (problem.multiGpu) env.POPCORN_GPUS = String(Math.max(1, ctx.slot.devices.length));
    const runs: Record<string, EvalResult> = {};
    // lang: py runs `python3 <main>`; lang: cu builds eval.out first, as upstream's run_cuda_script does
    let command = ctx.settings.python;
    let mainArgs = [problem.main];
    let nvccResult: CompileResult | null = null;
    if (problem.cuda) {
      const start = new Date().toISOString();
      nvccResult = await compile(ctx, flags, dir, 'nvcc', nvccArgs(problem.cuda, ctx.slot.gpu), {
        what: `the ${problem.name} task`,
        live: !secret,
      });
      // the task's sources are removed before the submission runs (upstream does so too: nothing to snoop on)
      await Promise.all(problem.files.map((f) => rm(join(dir, f.name), { force: true })));
      if (!nvccResult.success) {
        compileFailed = true;
        const key = ctx.mode === 'profile' ? 'profile.0' : ctx.mode === 'benchmark' ? 'benchmark' : 'test';
        runs[key] = { start, end: new Date().toISOString(), compilation: nvccResult, run: null, profile: null };
        return { success: true, error: '', system: ctx.system, runs };
      }
      command = join(dir, CUDA_PROGRAM);
      mainArgs = [];
    }
    const one = async (
      key: string,
      evalMode: string,
      lines: readonly string[],
      timeoutSec: number,
      profile = false,
    ) => {
      const start = new Date().toISOString();
      const compilation =
        problem.lang === 'py' ? await pythonCompileStep(ctx, flags, dir, submissionFile, !secret) : nvccResult;
      if (flags.cancelled) {
        runs[key] = { start, end: new Date().toISOString(), compilation, run: null, profile: null };
        return false;
      }
      const casesPath = join(dir, `${key}.cases`);
      await writeFile(casesPath, linesFileText(lines));
      const r = await evalRun(ctx, flags, {
        key,
        cwd: dir,
        command,
        args: [...mainArgs, evalMode, casesPath],
        env,
        timeoutSec,
        live: !secret,
        profile,
        compilation,
        passed: checkPassed,
      });
      runs[key] = { ...r.evalResult, start };
      if (r.artifact) artifacts.push(r.artifact);
      return r.evalResult.run?.passed === true;
    };
    const t = problem.timeouts;
    switch (ctx.mode) {
      case 'test':
        await one('test', 'test', casesFor(problem, 'test'), t.test);
        break;
      case 'benchmark':
        await one('benchmark', 'benchmark', casesFor(problem, 'benchmark'), t.benchmark);
        break;
      case 'leaderboard':
        if ((await one('test', 'test', casesFor(problem, 'test'), t.test)) && !stopped()) {
          if ((await one('benchmark', 'benchmark', casesFor(problem, 'benchmark'), t.benchmark)) && !stopped()) {
            await one('leaderboard', 'leaderboard', casesFor(problem, 'leaderboard'), t.ranked);
          }
        }
        break;
      case 'profile':
        for (let i = 0; i < problem.benchmarkLines.length && !stopped(); i++) {
          // `case`: only that benchmark case is run and profiled (checked against the cases at submission)
          if (ctx.profile?.caseIndex !== undefined && ctx.profile.caseIndex !== i) continue;
          await one(`profile.${i}`, 'profile', [problem.benchmarkLines[i] as string], t.benchmark, true);
        }
        break;
    }
    return { success: true, error: '', system: ctx.system, runs };
  };

  const results = [await fullRun(false)];
  if (ctx.mode === 'leaderboard' && !stopped() && !compileFailed) results.push(await fullRun(true));
  return finish(
    ctx,
    results,
    flags,
    artifacts,
    scoreOf(results[0], problem.rankingBy),
    scoreOf(results[1], problem.rankingBy),
  );
}

function finish(
  ctx: RunContext,
  results: FullResult[],
  flags: Flags,
  artifacts: ArtifactInfo[],
  score: number | null,
  secretScore: number | null = null,
): RunOutcome {
  const reports = results.map((r, i) =>
    buildReport({
      leaderboard: ctx.leaderboard,
      mode: ctx.mode,
      gpu: ctx.slot.gpu,
      fileName: ctx.fileName,
      secret: i > 0,
      result: r,
      score: i === 0 ? score : i === 1 ? secretScore : null,
    }),
  );
  return { results, reports, state: endState(results, flags), artifacts, score, secretScore };
}

/** What nvcc builds a `lang: cu` task into. */
const CUDA_PROGRAM = 'eval.out';

/** nvcc flags of GPU MODE's CUDA tasks (kernelbot's CUDA_FLAGS). */
const CUDA_FLAGS = [
  '--std=c++20',
  '-DNDEBUG',
  '-Xcompiler=-Wno-psabi',
  '-Xcompiler=-fno-strict-aliasing',
  '--expt-extended-lambda',
  '--expt-relaxed-constexpr',
  '-forward-unknown-to-host-compiler',
  '-O3',
  '-Xnvlink=--verbose',
  '-Xptxas=--verbose',
  '-Xptxas=--warn-on-spills',
];

/** Compute capability per GPU MODE GPU name; other GPUs build for the local device (`-arch=native`). */
const SM_OF_GPU: Record<string, string> = { T4: '75', L4: '89', L4x4: '89', A100: '80', H100: '90a', B200: '100' };

export function nvccArgs(build: CudaBuild, gpu: string): string[] {
  const sm = SM_OF_GPU[gpu];
  return [
    ...CUDA_FLAGS,
    ...build.flags,
    ...build.includeDirs.map((d) => `-I${d}`),
    ...Object.entries(build.defines).map(([name, value]) => (value === null ? `-D${name}` : `-D${name}=${value}`)),
    ...build.sources,
    sm ? `-gencode=arch=compute_${sm},code=sm_${sm}` : '-arch=native',
    '-o',
    CUDA_PROGRAM,
  ];
}

const COMPILERS: Record<string, { compiler: 'hipcc' | 'nvcc'; what: string }> = {
  '.hip': { compiler: 'hipcc', what: 'HIP' },
  '.cpp': { compiler: 'hipcc', what: 'C++ (HIP)' },
  '.cu': { compiler: 'nvcc', what: 'CUDA' },
};

async function compile(
  ctx: RunContext,
  flags: Flags,
  dir: string,
  compiler: 'hipcc' | 'nvcc',
  args: string[],
  opts: { what: string; live: boolean },
): Promise<CompileResult> {
  const found = findOnPath(compiler, ctx.settings.env.PATH);
  if (!found) {
    return {
      nvcc_found: false,
      nvcc_version: '',
      success: false,
      command: quoteCommand(compiler, args),
      stdout: '',
      stderr:
        `${compiler} was not found on this runner's PATH, so ${opts.what} cannot be built here. ` +
        `Install ${compiler === 'hipcc' ? 'ROCm' : 'the CUDA toolkit'} on the runner, or submit to a GPU runner that has it ` +
        '(`kernel-runner submit --server URL`, or the kernelRunner.server setting in VS Code).\n',
      exit_code: 127,
    };
  }
  const version = await runChild(ctx, {
    command: found,
    args: ['--version'],
    cwd: dir,
    env: childEnv(ctx, {}),
    timeoutMs: VERSION_PROBE_TIMEOUT_MS,
    graceMs: VERSION_PROBE_GRACE_MS,
    capBytes: VERSION_PROBE_CAP_BYTES,
    signal: ctx.signal,
  });
  if (opts.live) ctx.onRun('compile');
  const o = await runChild(ctx, {
    command: found,
    args,
    cwd: dir,
    env: childEnv(ctx, {}),
    timeoutMs: ctx.settings.compileTimeoutSec * 1000,
    graceMs: ctx.settings.graceMs,
    signal: ctx.signal,
    capBytes: ctx.settings.capBytes,
    outputPressure: ctx.outputPressure,
    onLine: opts.live ? (stream, line) => ctx.onLine(stream, line) : undefined,
  });
  if (o.timedOut) flags.timedOut = true;
  if (o.cancelled) flags.cancelled = true;
  const exit = o.timedOut ? EXIT_TIMEOUT : (o.exitCode ?? -1);
  return {
    nvcc_found: true,
    // upstream keeps the whole `nvcc --version` text
    nvcc_version: version.stdout.trim(),
    success: exit === 0 && !o.spawnError,
    command: quoteCommand(compiler, args),
    stdout: o.stdout,
    stderr:
      o.stderr +
      (o.timedOut ? `[kernel-runner] compilation timed out after ${ctx.settings.compileTimeoutSec} s\n` : ''),
    exit_code: exit,
  };
}

async function runScript(ctx: RunContext): Promise<RunOutcome> {
  const flags: Flags = { timedOut: false, cancelled: false };
  const dir = join(ctx.workDir, 'public');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, ctx.fileName), ctx.code);
  await grantToJob(ctx, ctx.workDir, dir);
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
    // PC samples carry file:line only from code built with line info
    const lineInfo = ctx.profile?.pcSampling !== undefined && build.compiler === 'hipcc' ? ['-gline-tables-only'] : [];
    compilation = await compile(ctx, flags, dir, build.compiler, ['-O3', ...lineInfo, '-o', 'program', ctx.fileName], {
      what: ctx.fileName,
      live: true,
    });
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
    lastOfJob: true,
  });
  runs[key] = r.evalResult;
  if (r.artifact) artifacts.push(r.artifact);
  return finish(ctx, [{ success: true, error: '', system: ctx.system, runs }], flags, artifacts, null);
}

/**
 * Runs the submission; with a disk budget, a job whose work dir grows past it is stopped at once (SIGKILL of its
 * running process; what it wrote is not worth more disk) and ends `failed`, its run's stderr saying why.
 */
export async function evaluateJob(ctx: RunContext): Promise<RunOutcome> {
  const run = (c: RunContext) => (c.problem ? runProblem(c, c.problem) : runScript(c));
  const limit = ctx.settings.maxJobDiskBytes ?? 0;
  if (limit <= 0) return run(ctx);
  const full = new AbortController();
  let pid: number | null = null;
  const watch = watchDiskBudget(ctx.workDir, limit, (used) => {
    full.abort(diskFullReason(used, limit));
    // a Slurm run's pid is srun's: its end goes through scancel, as for any abort
    if ((ctx.settings.executor?.kind ?? 'local') === 'local' && pid !== null) killGroup(pid, 'SIGKILL');
  });
  try {
    const outcome = await run({
      ...ctx,
      signal: AbortSignal.any([ctx.signal, full.signal]),
      onProcess: (p) => {
        pid = p;
        ctx.onProcess?.(p);
      },
    });
    return full.signal.aborted && !ctx.signal.aborted && outcome.state === 'cancelled'
      ? { ...outcome, state: 'failed' }
      : outcome;
  } finally {
    watch.stop();
  }
}
