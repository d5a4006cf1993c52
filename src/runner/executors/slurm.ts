// The Slurm executor: each run of a job is one Slurm job, `srun --job-name=kernel-runner-<runner id>-<job id> ...`
// started by the runner (execa, argv only), which relays the program's stdout and stderr live (classified as the
// local executor's are) and returns when it ends. The program runs under the shim (slurmShim.ts) on the node: it
// writes POPCORN_FD output and the exit status to files in the runner's data dir, which the nodes must share.
//
// Why srun and not sbatch with its output files followed: measured on Slurm 22.05, srun's first output arrives
// ~50 ms after submission where a batch job waits for the batch scheduler (batch_sched_delay, ~3 s); and with
// slurmctld stopped mid-job srun kept relaying every line (the I/O goes from slurmstepd to srun directly) and
// returned the job's exit code, 2 s later than usual; the shim's status file does not depend on either.
//
// Cancel and timeout: `scancel --signal=INT` (every process of the step gets it: rocprofv3 writes its files), then
// after the grace period `scancel` (Slurm's SIGTERM, SIGKILL after KillWait); srun itself is killed should it still
// run a margin later (slurmctld gone). Slurm's own limit (`--time`) is the run's timeout + grace + 60 s. A run that
// Slurm ended (node failure, its time limit, a cancel from outside) fails with Slurm's state and reason.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import type { ClassifiedLine } from '../../core/noise';
import { quoteCommand, signalNameOf } from '../executor';
import { findOnPath } from '../profilers';
import type { ExecRequest, ExecResult, Executor, ExecutorHealth, QueueCounts } from './index';
import { createOutputSink, readPopcornFile } from './output';
import {
  parseSinfo,
  parseSqueueJobs,
  parseSqueueStates,
  settledJob,
  slurmCommand,
  slurmError,
  slurmTimeLimit,
  SQUEUE_JOB_FORMAT,
  ENDED_BY_SLURM,
  type SlurmJobLine,
} from './slurmCli';
import { jobEnvironment } from '../jobEnv';
import { SLURM_SHIM } from './slurmShim';
import { KernelRunnerError } from '../../core/errors';
import { SRUN_KILL_MARGIN_MS } from '../limits';

export interface SlurmSettings {
  partition?: string;
  /** `--gres`, e.g. `gpu:1`. */
  gres?: string;
  account?: string;
  qos?: string;
  /** More srun arguments, after ours (so they win). */
  args?: string[];
  /** Skip the start's check that the nodes see the data dir. */
  skipCheck?: boolean;
  /** How often queue counts and availability are refreshed. Default 5 s. */
  pollMs?: number;
}

export interface SlurmExecutorOptions extends SlurmSettings {
  dataDir: string;
  /** Environment of Slurm's commands (PATH, SLURM_CONF). */
  env: NodeJS.ProcessEnv;
  python: string;
  log(line: string): void;
}

export interface SlurmExecutor extends Executor {
  /** The runner's id in its job names (kept in the data dir, so a restart finds its jobs). */
  readonly runnerId: string;
  /** Slurm job names of this runner start with this. */
  readonly namePrefix: string;
  /** GRES of the partition's nodes, as sinfo gave them at start. */
  readonly gres: string[];
}

export class SlurmStartError extends KernelRunnerError {
  override readonly name = 'SlurmStartError';
  readonly code = 'RUNNER_SLURM_START';
  readonly type = 'slurm-start' as const;
}

/** How often a run looks for the shim's start file (its timeout starts then). */
const START_WATCH_MS = 100;
const SLURM_LINE = /^(srun|slurmstepd(-[\w.-]+)?|salloc): /;

function runnerIdOf(dataDir: string): string {
  const file = join(dataDir, 'slurm', 'runner-id');
  try {
    const id = readFileSync(file, 'utf8').trim();
    if (/^[0-9a-f]{8}$/.test(id)) return id;
  } catch {
    // first start with Slurm
  }
  const id = randomBytes(4).toString('hex');
  mkdirSync(join(dataDir, 'slurm'), { recursive: true, mode: 0o700 });
  writeFileSync(file, id + '\n', { mode: 0o600 });
  return id;
}

interface ShimStatus {
  exit?: number | null;
  signal?: number | null;
  seconds?: number;
  spawn_error?: string;
  errno?: number;
}

async function readJson<T>(path: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch {
    return null;
  }
}

export async function createSlurmExecutor(opts: SlurmExecutorOptions): Promise<SlurmExecutor> {
  const runnerId = runnerIdOf(opts.dataDir);
  const namePrefix = `kernel-runner-${runnerId}-`;
  const runsDir = join(opts.dataDir, 'slurm', 'runs');
  mkdirSync(runsDir, { recursive: true, mode: 0o700 });
  const env = opts.env;
  const partitionArgs = opts.partition ? ['-p', opts.partition] : [];
  let seq = 0;
  /** Job names this start used: never mistaken for a previous start's. */
  const startedHere = new Set<string>();

  let counts: QueueCounts | null = null;
  let gres: string[] = [];
  let health: ExecutorHealth = { kind: 'slurm', available: false, detail: 'not checked yet' };
  const srunPath = () => findOnPath('srun', env.PATH);
  /** Runs of ours that may still wait in Slurm's queue: their place is reported as it changes. */
  const waiting = new Map<string, { report: (position: number) => void; last: number | null }>();
  const reportPositions = (jobs: readonly SlurmJobLine[]) => {
    const pending = jobs.filter((j) => j.state === 'PENDING');
    for (const [name, w] of waiting) {
      const at = pending.findIndex((j) => j.name === name);
      const running = jobs.some((j) => j.name === name && j.state !== 'PENDING');
      const position = at >= 0 ? at + 1 : running ? 0 : null;
      if (position === null || position === w.last) continue;
      w.last = position;
      w.report(position);
      if (position === 0) waiting.delete(name);
    }
  };

  const refresh = async (): Promise<void> => {
    if (!srunPath()) {
      health = {
        kind: 'slurm',
        available: false,
        detail: "Slurm: srun is not installed or not on PATH (install Slurm's client commands on this machine)",
      };
      return;
    }
    const [info, queue] = await Promise.all([
      slurmCommand('sinfo', ['-h', ...partitionArgs, '-o', '%T|%D|%G'], env),
      // Slurm's order: priority, then job id
      slurmCommand('squeue', ['-h', ...partitionArgs, '--sort=-p,i', '-o', SQUEUE_JOB_FORMAT], env),
    ]);
    const failed = !info.ok ? info.error : !queue.ok ? queue.error : '';
    if (failed) {
      health = { kind: 'slurm', available: false, detail: failed };
      counts = null;
      return;
    }
    const nodes = parseSinfo(info.stdout);
    gres = nodes.gres;
    const jobs = parseSqueueJobs(queue.stdout);
    counts = { ...parseSqueueStates(jobs.map((j) => j.state).join('\n')), idle: nodes.idle };
    reportPositions(jobs);
    health = {
      kind: 'slurm',
      available: nodes.nodes > 0,
      detail:
        nodes.nodes > 0
          ? `Slurm partition ${opts.partition ?? '(default)'}: ${nodes.nodes} node(s), ${nodes.idle} idle`
          : `Slurm: partition ${opts.partition ?? '(default)'} has no nodes`,
    };
  };

  let polling: Promise<void> = Promise.resolve();
  const poll = setInterval(() => {
    polling = polling
      .then(refresh)
      .then(() => cancelLeftovers())
      .catch(() => undefined);
  }, opts.pollMs ?? 5000);
  poll.unref();

  /**
   * Slurm's word on how a job of this name ended (the newest one), or null when slurmctld does not answer. srun can
   * return while Slurm has not yet recorded the job's end (COMPLETING, or RUNNING for a moment after a node failure):
   * its final state is waited for, asking less often as time goes, until `deadline` (the run's own timeout) or an
   * abort of the run.
   */
  const endedHow = async (
    name: string,
    deadline: number,
    signal: AbortSignal | undefined,
  ): Promise<{ how: string; state: string } | null> => {
    const job = await settledJob(
      () => slurmCommand('squeue', ['-h', '--states=all', `--name=${name}`, '-o', SQUEUE_JOB_FORMAT], env),
      { deadline, signal },
    );
    if (!job) return null;
    let how = `Slurm job ${job.id}${job.nodes ? ` on ${job.nodes}` : ''} ended ${job.state}`;
    if (job.reason && job.reason !== 'None') how += ` (${job.reason})`;
    if (job.state === 'TIMEOUT' || job.reason === 'TimeLimit')
      how += `: Slurm's time limit of ${job.timeLimit} was reached`;
    if (job.state === 'NODE_FAIL' && job.nodes) {
      const n = await slurmCommand('sinfo', ['-h', '-n', job.nodes, '-o', '%T|%E'], env);
      const [state, reason] = n.stdout.trim().split('\n')[0]?.split('|') ?? [];
      if (n.ok && state && reason && reason !== 'none') how += `: node ${job.nodes} is ${state}, reason: ${reason}`;
    }
    return { how, state: job.state };
  };

  // What a previous start of this runner left in Slurm is cancelled (its jobs are reported interrupted); when
  // slurmctld does not answer at start, as soon as it does.
  let leftoversChecked = false;
  const cancelLeftovers = async (): Promise<void> => {
    if (leftoversChecked || !health.available) return;
    const mine = await slurmCommand('squeue', ['-h', '-o', SQUEUE_JOB_FORMAT], env);
    if (!mine.ok) return;
    leftoversChecked = true;
    const left = parseSqueueJobs(mine.stdout).filter((j) => j.name.startsWith(namePrefix) && !startedHere.has(j.name));
    if (left.length === 0) return;
    const r = await slurmCommand(
      'scancel',
      left.map((j) => String(j.id)),
      env,
    );
    opts.log(
      r.ok
        ? `cancelled ${left.length} Slurm job(s) a previous start of this runner left behind: ${left.map((j) => `${j.id} (${j.name}, ${j.state})`).join(', ')}`
        : `warning: could not cancel the Slurm jobs a previous start left behind (${left.map((j) => j.id).join(', ')}): ${r.error}`,
    );
  };

  const run = async (req: ExecRequest): Promise<ExecResult> => {
    const started = performance.now();
    const name = `${namePrefix}${req.jobId ?? 'check'}`;
    startedHere.add(name);
    const onQueuePosition = req.onQueuePosition;
    if (onQueuePosition) waiting.set(name, { report: onQueuePosition, last: null });
    const dir = join(runsDir, `${req.jobId ?? 'check'}-${++seq}`);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const statusPath = join(dir, 'status.json');
    const startedPath = join(dir, 'started.json');
    const popcornPath = req.popcornFd ? join(dir, 'popcorn') : '-';
    const srunArgs = [
      `--job-name=${name}`,
      ...partitionArgs,
      ...(opts.gres ? [`--gres=${opts.gres}`] : []),
      ...(opts.account ? [`--account=${opts.account}`] : []),
      ...(opts.qos ? [`--qos=${opts.qos}`] : []),
      '--nodes=1',
      '--ntasks=1',
      `--time=${slurmTimeLimit(req.timeoutMs, req.graceMs)}`,
      `--chdir=${req.cwd}`,
      '--input=none',
      '--kill-on-bad-exit=1',
      ...(opts.args ?? []),
      opts.python,
      '-c',
      SLURM_SHIM,
      statusPath,
      popcornPath,
      startedPath,
      '--',
      req.command,
      ...req.args,
    ];
    const slurmLines: string[] = [];
    const sink = createOutputSink(req, (line: ClassifiedLine) => {
      if (SLURM_LINE.test(line.text) && slurmLines.length < 20) slurmLines.push(line.text);
    });
    // srun hands its environment to the job (--export=ALL): the runner's own variables stay here
    const childEnv = { ...jobEnvironment(req.env), ...(req.popcornFd ? { POPCORN_FD: '3' } : {}) };
    const srun = srunPath() ?? 'srun';
    const child = execa(srun, srunArgs, {
      env: childEnv,
      extendEnv: false,
      detached: true,
      buffer: false,
      reject: false,
      stdio: ['ignore', 'pipe', 'pipe'],
      forceKillAfterDelay: false,
      windowsHide: true,
    });
    if (child.pid !== undefined) req.onSpawn?.(child.pid);
    child.stdout?.on('data', (chunk: Buffer) => sink.stdout(chunk));
    child.stderr?.on('data', (chunk: Buffer) => sink.stderr(chunk));

    let timedOut = false;
    let cancelled = false;
    let cancelNote = '';
    const timers: NodeJS.Timeout[] = [];
    let terminating = false;
    const scancel = async (args: string[]) => {
      const r = await slurmCommand('scancel', [...args, `--name=${name}`], env);
      if (!r.ok) cancelNote = r.error;
    };
    const signalSrun = (signal: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // srun already ended
      }
    };
    const terminate = () => {
      if (terminating) return;
      terminating = true;
      if (existsSync(startedPath)) void scancel(['--signal=INT']);
      else {
        // still in Slurm's queue: there is nothing to finalise; srun's SIGINT withdraws a request not yet made
        void scancel([]);
        signalSrun('SIGINT');
      }
      timers.push(
        setTimeout(() => {
          void scancel([]);
          timers.push(setTimeout(() => signalSrun('SIGKILL'), SRUN_KILL_MARGIN_MS));
        }, req.graceMs),
      );
    };
    // the run's timeout counts from its start on a node, as Slurm's --time does: not the time it waited in the queue
    // (the runner's hard timeout bounds the whole job, waiting included)
    const startWatch = setInterval(() => {
      if (!existsSync(startedPath)) return;
      clearInterval(startWatch);
      timers.push(
        setTimeout(() => {
          timedOut = true;
          terminate();
        }, req.timeoutMs),
      );
    }, START_WATCH_MS);
    const onAbort = () => {
      cancelled = true;
      terminate();
    };
    if (req.signal?.aborted) onAbort();
    else req.signal?.addEventListener('abort', onAbort, { once: true });

    const result = await child;
    clearInterval(startWatch);
    waiting.delete(name);
    for (const t of timers) clearTimeout(t);
    req.signal?.removeEventListener('abort', onAbort);
    const out = await sink.end();
    const status = await readJson<ShimStatus>(statusPath);
    const { popcorn, popcornOmitted } = req.popcornFd
      ? await readPopcornFile(popcornPath, req.popcornCapChars)
      : { popcorn: '', popcornOmitted: 0 };
    const ranOnNode = existsSync(startedPath);
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);

    // Slurm's final word on the job is waited for as long as the run's own timeout, from srun's end
    const settleDeadline = () => performance.now() + req.timeoutMs;
    let exitCode: number | null = result.exitCode ?? null;
    let signal: string | null = null;
    let spawnError: string | null = null;
    let failure: string | null = null;
    if (status?.spawn_error !== undefined) {
      exitCode = 127;
      spawnError = status.errno === 2 ? `${req.command}: command not found` : `${req.command}: ${status.spawn_error}`;
    } else if (status) {
      exitCode = status.exit ?? null;
      signal = typeof status.signal === 'number' ? (signalNameOf(status.signal) ?? `SIG${status.signal}`) : null;
      // a program killed by a signal may have been killed by Slurm (a node set down, its time limit, a cancel from
      // outside: SIGTERM to every process of the step): then the run says so, in Slurm's words
      if (signal && !timedOut && !cancelled) {
        const ended = await endedHow(name, settleDeadline(), req.signal);
        if (ended && ENDED_BY_SLURM.has(ended.state)) failure = ended.how;
      }
    } else if (result.failed && result.exitCode === undefined && !result.isTerminated) {
      spawnError = slurmError(srun, srunArgs.slice(0, srunArgs.indexOf(opts.python)), result);
    } else if (!ranOnNode && !timedOut && !cancelled) {
      // srun ended before the program started on a node: Slurm refused or could not take the job
      const said = slurmLines.join(' / ') || `exit ${result.exitCode ?? '?'}`;
      spawnError = `Slurm: \`${quoteCommand('srun', srunArgs.slice(0, srunArgs.indexOf(opts.python)))}\` failed: ${said}`;
    } else if (!timedOut && !cancelled) {
      failure =
        (await endedHow(name, settleDeadline(), req.signal))?.how ??
        `Slurm: the job ended without an exit status and slurmctld did not say why (srun exit ${result.exitCode ?? '?'})`;
      if (slurmLines.length) failure += `; ${slurmLines.join(' / ')}`;
    }
    if ((timedOut || cancelled) && cancelNote) failure = `the job could not be cancelled through Slurm: ${cancelNote}`;
    return {
      command: quoteCommand(req.command, req.args),
      exitCode: signal ? null : exitCode,
      signal,
      timedOut,
      cancelled,
      spawnError,
      stdout: out.stdout,
      stderr: out.stderr,
      noiseLines: out.noiseLines,
      popcorn,
      popcornOmitted,
      durationSec: status?.seconds ?? (performance.now() - started) / 1000,
      failure,
      stopTarget: `Slurm job ${name} (scancel --signal=INT; scancel after the grace period)`,
    };
  };

  await refresh();
  await cancelLeftovers();
  const executor: SlurmExecutor = {
    kind: 'slurm',
    runnerId,
    namePrefix,
    get gres() {
      return gres;
    },
    get description() {
      return `slurm (srun, partition ${opts.partition ?? '(default)'}${opts.gres ? `, --gres=${opts.gres}` : ''}; job names ${namePrefix}<job id>)`;
    },
    run,
    queueCounts: () => counts,
    health: () => health,
    async close() {
      clearInterval(poll);
      await polling;
    },
  };

  if (!opts.skipCheck) {
    if (!health.available) {
      await executor.close();
      throw new SlurmStartError(
        `cannot use Slurm: ${health.detail} (--slurm-skip-check starts anyway; submissions then fail until Slurm answers)`,
      );
    }
    try {
      await checkSharedDataDir(executor, opts);
    } catch (err) {
      await executor.close();
      throw err;
    }
  } else if (!health.available) opts.log(`warning: ${health.detail}; jobs fail until Slurm answers`);
  return executor;
}

/**
 * Runs a tiny job that reads a file the runner just wrote in its data dir: the nodes must see the data dir (the
 * job's folders, POPCORN_FD output, profiler traces live there).
 */
async function checkSharedDataDir(executor: Executor, opts: SlurmExecutorOptions): Promise<void> {
  const nonce = randomBytes(12).toString('hex');
  const file = join(opts.dataDir, 'slurm', `check-${nonce}`);
  await writeFile(file, nonce, { mode: 0o600 });
  try {
    const o = await executor.run({
      command: opts.python,
      args: ['-c', 'import sys; print(open(sys.argv[1]).read())', file],
      cwd: opts.dataDir,
      env: { ...opts.env },
      timeoutMs: 120_000,
      graceMs: 2000,
      capBytes: 4096,
    });
    if (o.exitCode === 0 && o.stdout.trim() === nonce) return;
    const said = (o.spawnError ?? o.failure ?? (o.stderr.trim() || o.stdout.trim())).split('\n').slice(-4).join(' / ');
    const timedOut = o.timedOut ? " (the check job did not finish within 120 s: are the partition's nodes up?)" : '';
    throw new SlurmStartError(
      `Slurm's nodes cannot see the data dir ${opts.dataDir}: a check job that reads a file there failed${timedOut}: ${said}. ` +
        'Put --data-dir on a filesystem every node mounts at the same path (NFS, Lustre, ...), or pass --slurm-skip-check if you know it is shared.',
    );
  } finally {
    await rm(file, { force: true });
  }
}
