// Runs one child process for a job: its own process group, live output split into classified lines,
// an optional POPCORN_FD result pipe, a timeout and cancellation that send SIGINT to the whole group, wait a grace
// period (rocprofv3 writes its files on SIGINT) and then SIGKILL the group, so nothing is left behind.
// Whatever left the group (setsid, a daemon) is found by the job's tag or lives in the job's PID namespace
// (isolation.ts): it gets the same signals and dies when the main process ends, and the job's pipes are closed
// a grace period after that at the latest, so no child can keep a job running.
import { randomBytes } from 'node:crypto';
import { constants as osConstants } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { execa } from 'execa';
import type { OutputStream } from '../core/protocol/api';
import type { ClassifiedLine } from '../core/noise/types';
import { JOB_TAG_VAR, killGroup, killTagged, signalTagged, WORK_DIR_VAR, type Isolation } from './isolation';
import { jobEnvironment } from './jobEnv';
import { prlimitArgs, raiseOomScore, type JobLimits } from './jobLimits';
import { registerTag } from './orphans';
import { createOutputSink } from './executors/output';
import type { OutputBudget } from './outputBudget';
import { findOnPath } from './profilers';
import { standbyLaunchMessage, type StandbyNamespace } from './standbyNamespace';
import { POPCORN_CAP_CHARS } from './limits';

export interface ExecSpec {
  command: string;
  args: string[];
  cwd: string;
  /** The job's work dir, which holds cwd: what a sandboxed job sees of the data dir (isolation.ts). Default: cwd. */
  workDir?: string;
  /** The complete environment of the child (the runner's own is not added). */
  env: Record<string, string | undefined>;
  timeoutMs: number;
  /** Between SIGINT and SIGKILL, on timeout or cancel. */
  graceMs: number;
  signal?: AbortSignal;
  /** Open a pipe as file descriptor 3 and set POPCORN_FD=3. */
  popcornFd?: boolean;
  /** Every line of output as it arrives, classified by the noise filter. */
  onLine?: (stream: OutputStream, line: ClassifiedLine) => void;
  /**
   * Backpressure: asked after each chunk of output; while the promise it returns is pending, the job's stdout and
   * stderr are not read (the pipes fill and the program waits), so a slow log or disk holds no growing buffer.
   */
  outputPressure?: () => Promise<void> | null;
  /** Size kept of stdout and of stderr for the result (head + tail). */
  capBytes: number;
  /** Where to copy stderr byte for byte (unfiltered). */
  stderrLogPath?: string;
  /** What the job may still store of its output; the stderr log takes from it, and a run that used it up says so. */
  outputBudget?: OutputBudget;
  /** The child started: its pid, which is also its process group id (not on Windows). */
  onSpawn?: (pid: number) => void;
  /** Most POPCORN_FD output kept, in characters (whole lines); the rest is counted, not kept. Default 32 Mi. */
  popcornCapChars?: number;
  /** How the job's processes are kept together (detectIsolation); default: its process group and tag. */
  isolation?: Isolation;
  /** Namespaces of `isolation` made ahead of time (the local executor's). */
  standby?: StandbyNamespace;
  /** Memory and processes of the job: a PID namespace's INIT applies them; the process-group fallback here. */
  limits?: JobLimits;
  /** No other process of the job follows this one (a plain script's run). */
  lastOfJob?: boolean;
}

export interface ExecOutcome {
  /** As the user would type it. */
  command: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  /** The process could not be started (e.g. command not found). */
  spawnError: string | null;
  stdout: string;
  /** The program's stderr lines; profiler noise is counted in `noiseLines` and kept in the stderr log only. */
  stderr: string;
  noiseLines: number;
  /** What was written to POPCORN_FD, up to the cap. */
  popcorn: string;
  /** Characters of POPCORN_FD output past the cap, left out of `popcorn`. */
  popcornOmitted: number;
  durationSec: number;
}

/** Where a PID namespace's init reports the signal that killed the program (isolation.ts). */
export const STATUS_FD = 4;

export function quoteCommand(command: string, args: readonly string[]): string {
  return [command, ...args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/**
 * The program, behind the isolation's prefix (a PID namespace) when it has one and the program can be found; a
 * program that cannot be found is started as it is, so that the error is the usual "command not found".
 */
function launchCommand(
  spec: ExecSpec,
  pathValue: string | undefined,
): { command: string; args: string[]; statusFd?: boolean; program?: string } {
  const prefix = spec.isolation?.prefix ?? [];
  const grouped = prefix.length === 0 && spec.limits !== undefined && process.platform === 'linux';
  if (prefix.length === 0 && !grouped) return { command: spec.command, args: spec.args };
  const program = spec.command.includes('/') ? resolve(spec.cwd, spec.command) : findOnPath(spec.command, pathValue);
  if (!program || !isAbsolute(program)) return { command: spec.command, args: spec.args };
  if (grouped) {
    // the process-group fallback: util-linux prlimit sets the limits and becomes the program (same pid)
    const limits = prlimit === undefined ? [] : prlimitArgs(spec.limits as JobLimits);
    return prlimit && limits.length
      ? { command: prlimit, args: [...limits, program, ...spec.args] }
      : { command: spec.command, args: spec.args };
  }
  const [command, ...rest] = prefix as [string, ...string[]];
  return { command, args: [...rest, String(STATUS_FD), program, ...spec.args], statusFd: true, program };
}

const prlimit =
  process.platform === 'linux' ? (findOnPath('prlimit', '/usr/bin:/bin:/usr/sbin:/sbin') ?? undefined) : undefined;

/** A namespace made ahead of time (standbyNamespace.ts) with the job's launch sent to it, or undefined. */
function fromStandby(
  spec: ExecSpec,
  launch: ReturnType<typeof launchCommand>,
  env: Record<string, string | undefined>,
) {
  if (!launch.statusFd || !launch.program || !spec.standby) return undefined;
  const message = standbyLaunchMessage(
    spec.cwd,
    Boolean(spec.popcornFd),
    [launch.program, ...spec.args],
    env,
    spec.workDir ?? spec.cwd,
  );
  if (!message) return undefined;
  const child = spec.standby.take();
  child?.stdin.end(message);
  return child;
}

/** `SIGSEGV` for 11: the name of a signal number (as this machine numbers them), undefined for an unknown one. */
export function signalNameOf(n: number): string | undefined {
  return Object.entries(osConstants.signals).find(([, v]) => v === n)?.[0];
}

export async function runProcess(spec: ExecSpec): Promise<ExecOutcome> {
  const started = performance.now();
  let popcorn = '';
  let popcornOmitted = 0;
  const popcornCap = spec.popcornCapChars ?? POPCORN_CAP_CHARS;
  let timedOut = false;
  let cancelled = false;
  const output = createOutputSink(spec);

  // The tag finds what left the process group. Inside a PID namespace nothing can leave it: the kernel ends the
  // whole namespace with the job, so no /proc sweep is needed there.
  const tracked = process.platform === 'linux' && (spec.isolation?.kind ?? 'process-group') === 'process-group';
  const tag = tracked ? randomBytes(16).toString('hex') : '';
  // the runner's own variables (its token above all) never reach a job, whoever built the spec
  const env: Record<string, string | undefined> = {
    ...jobEnvironment(spec.env),
    ...(spec.popcornFd ? { POPCORN_FD: '3' } : {}),
    ...(tag ? { [JOB_TAG_VAR]: tag } : {}),
  };
  const launch = launchCommand(spec, env.PATH);
  // a fresh sandboxed namespace's INIT learns the work dir from its environment and takes it out of the program's
  const sandboxed = launch.statusFd && spec.isolation?.sandbox ? { [WORK_DIR_VAR]: spec.workDir ?? spec.cwd } : {};
  const child =
    fromStandby(spec, launch, env) ??
    execa(launch.command, launch.args, {
      cwd: spec.cwd,
      env: { ...env, ...sandboxed },
      extendEnv: false,
      detached: process.platform !== 'win32',
      buffer: false,
      reject: false,
      stdio: [
        'ignore',
        'pipe',
        'pipe',
        spec.popcornFd ? 'pipe' : 'ignore',
        ...(launch.statusFd ? ['pipe' as const] : []),
      ],
      windowsHide: true,
      forceKillAfterDelay: false,
    });
  const pid = child.pid;
  if (pid !== undefined) {
    if (tag && spec.limits) raiseOomScore(pid);
    registerTag(pid, tag);
    spec.onSpawn?.(pid);
  }

  // once the program exited, what is left in its pipes is read at once (the pipes are closed after the grace period)
  let held = false;
  let exited = false;
  const release = () => {
    if (!held) return;
    held = false;
    child.stdout?.resume();
    child.stderr?.resume();
  };
  const holdIfBehind = () => {
    const behind = held || exited ? null : spec.outputPressure?.();
    if (!behind) return;
    held = true;
    child.stdout?.pause();
    child.stderr?.pause();
    void behind.then(release);
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    output.stdout(chunk);
    holdIfBehind();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output.stderr(chunk);
    holdIfBehind();
  });
  const fd3 = child.stdio[3];
  if (fd3 && 'on' in fd3) {
    fd3.setEncoding?.('utf8');
    fd3.on('data', (chunk: string | Buffer) => {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      // a submission flooding the pipe must not grow the runner's memory without end (past ~512 MB: a crash)
      if (popcornOmitted > 0) popcornOmitted += text.length;
      else if (popcorn.length + text.length <= popcornCap) popcorn += text;
      else {
        const room = (popcorn + text).slice(0, popcornCap);
        const kept = room.slice(0, room.lastIndexOf('\n') + 1);
        popcornOmitted = popcorn.length + text.length - kept.length;
        popcorn = kept;
      }
    });
  }

  let initStatus = '';
  const statusPipe = launch.statusFd
    ? ((child.stdio as readonly unknown[])[STATUS_FD] as Readable | null | undefined)
    : undefined;
  if (statusPipe) statusPipe.on('data', (chunk: Buffer | string) => (initStatus += String(chunk).slice(0, 100)));

  let graceTimer: NodeJS.Timeout | undefined;
  let terminating = false;
  const terminate = () => {
    if (terminating) return;
    terminating = true;
    killGroup(pid, 'SIGINT');
    if (tag && pid !== undefined) signalTagged(tag, 'SIGINT', pid);
    graceTimer = setTimeout(() => {
      killGroup(pid, 'SIGKILL');
      if (tag) killTagged(tag);
    }, spec.graceMs);
  };
  const timeoutTimer = setTimeout(() => {
    timedOut = true;
    terminate();
  }, spec.timeoutMs);
  const onAbort = () => {
    cancelled = true;
    terminate();
  };
  if (spec.signal?.aborted) onAbort();
  else spec.signal?.addEventListener('abort', onAbort, { once: true });
  // Whatever the main process leaves behind in its group or under its tag (a background grandchild holding our
  // pipes, a daemon) goes with it; a process that escaped both cannot hold the job's pipes past the grace period.
  let pipeTimer: NodeJS.Timeout | undefined;
  child.on('exit', () => {
    exited = true;
    release();
    clearTimeout(timeoutTimer);
    if (graceTimer) clearTimeout(graceTimer);
    killGroup(pid, 'SIGKILL');
    if (tag) killTagged(tag);
    pipeTimer = setTimeout(
      () => {
        for (const stream of [child.stdout, child.stderr, child.stdio[3], statusPipe]) {
          if (stream && 'destroy' in stream && !stream.destroyed) stream.destroy();
        }
      },
      Math.max(spec.graceMs, 100),
    );
  });

  const result = await child;
  clearTimeout(timeoutTimer);
  if (graceTimer) clearTimeout(graceTimer);
  if (pipeTimer) clearTimeout(pipeTimer);
  if (pid !== undefined) registerTag(pid, null);
  spec.signal?.removeEventListener('abort', onAbort);
  const kept = await output.end();

  let spawnError: string | null = null;
  if (result.failed && result.exitCode === undefined && result.signal === undefined && !result.isTerminated) {
    spawnError =
      result.code === 'ENOENT' ? `${spec.command}: command not found` : result.shortMessage || String(result.message);
  }
  // the program inside a PID namespace was killed by a signal: its init could only exit with 128+n
  const initSignal = /^signal (\d+)$/m.exec(initStatus);
  const signalName = initSignal ? signalNameOf(Number(initSignal[1])) : undefined;
  return {
    command: quoteCommand(spec.command, spec.args),
    exitCode: signalName ? null : (result.exitCode ?? null),
    signal: signalName ?? result.signal ?? null,
    timedOut,
    cancelled,
    spawnError,
    stdout: kept.stdout,
    stderr: kept.stderr,
    noiseLines: kept.noiseLines,
    popcorn,
    popcornOmitted,
    durationSec: (performance.now() - started) / 1000,
  };
}

/** Parses `key: value` lines (POPCORN_FD protocol) into a flat map; the value keeps inner colons. */
export function parsePopcornOutput(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const at = line.indexOf(':');
    if (at <= 0) continue;
    out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}
