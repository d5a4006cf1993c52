// Runs one child process for a job: its own process group, live output split into classified lines,
// an optional POPCORN_FD result pipe, a timeout and cancellation that send SIGINT to the whole group, wait a grace
// period (rocprofv3 writes its files on SIGINT) and then SIGKILL the group, so nothing is left behind.
import { createWriteStream, type WriteStream } from 'node:fs';
import { execa } from 'execa';
import type { OutputStream } from '../core/protocol/api';
import { createLineClassifier } from '../core/noise';
import type { ClassifiedLine } from '../core/noise/types';
import { createHeadTail } from './headTail';

export interface ExecSpec {
  command: string;
  args: string[];
  cwd: string;
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
  /** Size kept of stdout and of stderr for the result (head + tail). */
  capBytes: number;
  /** Where to copy stderr byte for byte (unfiltered). */
  stderrLogPath?: string;
  /** The child started: its pid, which is also its process group id (not on Windows). */
  onSpawn?: (pid: number) => void;
  /** Most POPCORN_FD output kept, in characters (whole lines); the rest is counted, not kept. Default 32 Mi. */
  popcornCapChars?: number;
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

const MAX_LINE_BYTES = 64 * 1024;
const POPCORN_CAP_CHARS = 32 * 1024 * 1024;

export function quoteCommand(command: string, args: readonly string[]): string {
  return [command, ...args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    if (process.platform === 'win32') process.kill(pid, signal);
    else process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone
  }
}

export async function runProcess(spec: ExecSpec): Promise<ExecOutcome> {
  const started = performance.now();
  const stdoutKeep = createHeadTail(spec.capBytes);
  const stderrKeep = createHeadTail(spec.capBytes);
  let noiseLines = 0;
  let popcorn = '';
  let popcornOmitted = 0;
  const popcornCap = spec.popcornCapChars ?? POPCORN_CAP_CHARS;
  let timedOut = false;
  let cancelled = false;
  let stderrLog: WriteStream | undefined;
  if (spec.stderrLogPath) stderrLog = createWriteStream(spec.stderrLogPath);

  const env = { ...spec.env, ...(spec.popcornFd ? { POPCORN_FD: '3' } : {}) };
  const child = execa(spec.command, spec.args, {
    cwd: spec.cwd,
    env,
    extendEnv: false,
    detached: process.platform !== 'win32',
    buffer: false,
    reject: false,
    stdio: ['ignore', 'pipe', 'pipe', spec.popcornFd ? 'pipe' : 'ignore'],
    windowsHide: true,
    forceKillAfterDelay: false,
  });
  const pid = child.pid;
  if (pid !== undefined) spec.onSpawn?.(pid);

  const lineEnd = (line: ClassifiedLine) => (line.eol === '' ? '' : '\n');
  const stdoutLines = createLineClassifier({
    maxLineBytes: MAX_LINE_BYTES,
    onLine(line) {
      stdoutKeep.push(line.text + lineEnd(line));
      spec.onLine?.('stdout', line);
    },
  });
  const stderrLines = createLineClassifier({
    maxLineBytes: MAX_LINE_BYTES,
    onLine(line) {
      if (line.noise) noiseLines += 1;
      else stderrKeep.push(line.text + lineEnd(line));
      spec.onLine?.('stderr', line);
    },
  });
  child.stdout?.on('data', (chunk: Buffer) => stdoutLines.feed(chunk));
  child.stderr?.on('data', (chunk: Buffer) => {
    stderrLog?.write(chunk);
    stderrLines.feed(chunk);
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

  let graceTimer: NodeJS.Timeout | undefined;
  let terminating = false;
  const terminate = () => {
    if (terminating) return;
    terminating = true;
    killGroup(pid, 'SIGINT');
    graceTimer = setTimeout(() => killGroup(pid, 'SIGKILL'), spec.graceMs);
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
  // Whatever the main process leaves behind in its group (a background grandchild holding our pipes) goes with it.
  child.on('exit', () => {
    clearTimeout(timeoutTimer);
    if (graceTimer) clearTimeout(graceTimer);
    killGroup(pid, 'SIGKILL');
  });

  const result = await child;
  clearTimeout(timeoutTimer);
  if (graceTimer) clearTimeout(graceTimer);
  spec.signal?.removeEventListener('abort', onAbort);
  stdoutLines.flush();
  stderrLines.flush();
  if (stderrLog) {
    const log = stderrLog;
    await new Promise<void>((resolve) => log.end(resolve));
  }

  let spawnError: string | null = null;
  if (result.failed && result.exitCode === undefined && result.signal === undefined && !result.isTerminated) {
    spawnError = result.code === 'ENOENT' ? `${spec.command}: command not found` : result.shortMessage || String(result.message);
  }
  return {
    command: quoteCommand(spec.command, spec.args),
    exitCode: result.exitCode ?? null,
    signal: result.signal ?? null,
    timedOut,
    cancelled,
    spawnError,
    stdout: stdoutKeep.text(),
    stderr: stderrKeep.text(),
    noiseLines,
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
