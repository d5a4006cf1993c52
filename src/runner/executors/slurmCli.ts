// Slurm's client commands (squeue, sinfo, scancel), run with execa as argv (never through a shell), bounded in
// time, with errors that name Slurm and the command; and the parsers of their `-o` outputs.
import { execa } from 'execa';
import { quoteCommand } from '../executor';
import { SLURM_COMMAND_TIMEOUT_MS } from '../limits';

export interface SlurmCall {
  ok: boolean;
  stdout: string;
  /** `Slurm: \`squeue -h ...\` failed: <why>` when not ok. */
  error: string;
}

export async function slurmCommand(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = SLURM_COMMAND_TIMEOUT_MS,
): Promise<SlurmCall> {
  const r = await execa(command, args, {
    env,
    extendEnv: false,
    reject: false,
    timeout: timeoutMs,
    stdin: 'ignore',
    windowsHide: true,
  });
  const stdout = typeof r.stdout === 'string' ? r.stdout : '';
  if (r.exitCode === 0 && !r.failed) return { ok: true, stdout, error: '' };
  return { ok: false, stdout, error: slurmError(command, args, r) };
}

export function slurmError(
  command: string,
  args: string[],
  r: { code?: string; timedOut?: boolean; exitCode?: number; stderr?: unknown; shortMessage?: string },
): string {
  const what = `Slurm: \`${quoteCommand(command, args)}\``;
  if (r.code === 'ENOENT')
    return `${what} failed: ${command} is not installed or not on PATH (install Slurm's client commands on this machine)`;
  if (r.timedOut) return `${what} did not answer within ${SLURM_COMMAND_TIMEOUT_MS / 1000} s (is slurmctld reachable?)`;
  const stderr = typeof r.stderr === 'string' ? r.stderr.trim().split('\n').slice(-3).join(' / ') : '';
  return `${what} failed (exit ${r.exitCode ?? '?'})${stderr ? `: ${stderr}` : r.shortMessage ? `: ${r.shortMessage}` : ''}`;
}

/** `sinfo -h -o %T|%D|%G` lines -> nodes that could take a job now, and the partition's GRES (e.g. `gpu:mi300x:8`). */
export function parseSinfo(text: string): { idle: number; nodes: number; gres: string[] } {
  let idle = 0;
  let nodes = 0;
  const gres = new Set<string>();
  for (const line of text.split('\n')) {
    const [state = '', count = '0', g = ''] = line.trim().split('|');
    if (!state) continue;
    const n = Number(count) || 0;
    nodes += n;
    // `idle`, `idle*` (not responding) is not usable; `mixed` nodes still have room
    if (/^(idle|mix(ed)?)$/.test(state)) idle += n;
    if (g && g !== '(null)') for (const part of g.split(',')) gres.add(part);
  }
  return { idle, nodes, gres: [...gres] };
}

/** `squeue -h -o %T` lines -> pending and running counts. */
export function parseSqueueStates(text: string): { queued: number; running: number } {
  let queued = 0;
  let running = 0;
  for (const line of text.split('\n')) {
    const state = line.trim();
    if (state === 'PENDING' || state === 'CONFIGURING') queued += 1;
    else if (state === 'RUNNING' || state === 'COMPLETING') running += 1;
  }
  return { queued, running };
}

export interface SlurmJobLine {
  id: number;
  name: string;
  state: string;
  reason: string;
  nodes: string;
  timeLimit: string;
}

/** Format for parseSqueueJobs. */
export const SQUEUE_JOB_FORMAT = '%i|%j|%T|%r|%N|%l';

/** `squeue -h -o %i|%j|%T|%r|%N|%l` lines -> jobs. */
export function parseSqueueJobs(text: string): SlurmJobLine[] {
  const jobs: SlurmJobLine[] = [];
  for (const line of text.split('\n')) {
    const [id, name = '', state = '', reason = '', nodes = '', timeLimit = ''] = line.trim().split('|');
    if (!id || !/^\d+$/.test(id)) continue;
    jobs.push({ id: Number(id), name, state, reason, nodes, timeLimit });
  }
  return jobs;
}

/** Job states Slurm passes through on its way to a final one. */
const UNSETTLED_STATES = new Set([
  'COMPLETING',
  'CONFIGURING',
  'RUNNING',
  'PENDING',
  'SUSPENDED',
  'STAGE_OUT',
  'SIGNALING',
  'RESIZING',
  'REQUEUED',
  'REQUEUE_FED',
  'REQUEUE_HOLD',
  'RESV_DEL_HOLD',
  'STOPPED',
]);

/** Final states in which Slurm, not the program, ended the job. */
export const ENDED_BY_SLURM = new Set([
  'NODE_FAIL',
  'TIMEOUT',
  'CANCELLED',
  'PREEMPTED',
  'BOOT_FAIL',
  'DEADLINE',
  'OUT_OF_MEMORY',
]);

function isFinalState(state: string): boolean {
  return state !== '' && !UNSETTLED_STATES.has(state);
}

export interface SettleOptions {
  /** Stop asking at this time (`now()`'s clock) and take the last answer, settled or not. */
  deadline: number;
  /** Stops the wait early (a cancel, the job's hard timeout). */
  signal?: AbortSignal;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** First pause between questions; each is twice the last, up to maxDelayMs. */
  firstDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * The newest job of a name as squeue lists it, asked again (pausing longer each time) until its state is final: srun
 * can return before slurmctld has recorded how the job ended (NODE_FAIL, TIMEOUT: COMPLETING for a while, longer on a
 * busy machine), and a squeue that fails (slurmctld too busy to answer within MessageTimeout) is asked again too. Past
 * the deadline (or on abort): the last job seen, final or not; null when Slurm never answered or does not know the job.
 */
export async function settledJob(ask: () => Promise<SlurmCall>, opts: SettleOptions): Promise<SlurmJobLine | null> {
  const now = opts.now ?? (() => performance.now());
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let pause = opts.firstDelayMs ?? 100;
  let last: SlurmJobLine | null = null;
  for (;;) {
    const q = await ask();
    if (q.ok) {
      const job = parseSqueueJobs(q.stdout).sort((a, b) => b.id - a.id)[0];
      if (!job) return last;
      last = job;
      if (isFinalState(job.state)) return job;
    }
    const left = opts.deadline - now();
    if (left <= 0 || opts.signal?.aborted) return last;
    await sleep(Math.min(pause, left));
    pause = Math.min(pause * 2, opts.maxDelayMs ?? 2000);
  }
}

/** Slurm's `--time` for a run: its timeout and kill grace, plus a margin, as hours:minutes:seconds. */
export function slurmTimeLimit(timeoutMs: number, graceMs: number, marginSec = 60): string {
  const total = Math.ceil((timeoutMs + graceMs) / 1000) + marginSec;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${Math.floor(total / 3600)}:${two(Math.floor(total / 60) % 60)}:${two(total % 60)}`;
}
