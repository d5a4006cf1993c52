// A job's memory and processes (serve --max-job-memory, --max-job-processes), as the kernel enforces them on the
// program and everything it starts:
//   - memory: RLIMIT_DATA of each process, what it may allocate (heap and private mappings: malloc, numpy, torch's
//     host buffers). Not RLIMIT_AS: ROCm and CUDA reserve far more address space than they use (PROT_NONE ranges,
//     which RLIMIT_DATA does not count), and a job under an address-space limit could not start its GPU runtime.
//     Per process: a job of several processes may hold several times the limit; tmpfs (/dev/shm) is not counted.
//   - processes: RLIMIT_NPROC, processes and threads together, counted per user by the kernel: the job user's (all
//     its jobs together), or in the job's own user namespace the job's alone. uid 0 of the machine is exempt (a root
//     runner whose jobs run as root: no bound).
//   - the OOM killer: a job's processes have the highest OOM score, so the kernel ends them, not the runner, when the
//     machine runs out of memory.
// In a PID namespace INIT applies them (isolation.ts, sandbox.ts). In the process-group fallback the program is
// started through util-linux `prlimit` (memory; processes counted over every process of the runner's user, so the
// limit is added to what the user already runs) and its OOM score is raised from here; a root runner's processes
// are not bounded there.
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { formatBytes } from '../core/format';
import { findOnPath } from './profilers';

export interface JobLimits {
  /** Bytes each process may allocate (RLIMIT_DATA); 0 = none. */
  memory: number;
  /** Processes and threads (RLIMIT_NPROC); 0 = none. */
  processes: number;
}

/** Processes and threads of a job (RLIMIT_NPROC). A fork bomb stops there; a build with many threads does not. */
export const DEFAULT_JOB_PROCESS_LIMIT = 4096;

/** Memory each process of a job may allocate by default: 3/4 of the machine's, the rest kept for the runner. */
export function defaultJobMemoryLimit(total = totalmem()): number {
  return Math.floor((total * 3) / 4 / (1024 * 1024)) * 1024 * 1024;
}

/** The least --max-job-memory: an interpreter must still start. */
export const MIN_JOB_MEMORY = 64 * 1024 * 1024;

export interface LimitDescription {
  memory: number;
  processes: number;
  /** Whose processes RLIMIT_NPROC counts: the job user's, the job's (own user namespace), none (uid 0 is exempt). */
  processesCounted: 'user' | 'job' | 'exempt';
}

/** For serve's start line: `memory 12.0 GiB per process, 4096 processes of the job user`. */
export function describeLimits(d: LimitDescription): string {
  const memory = d.memory > 0 ? `memory ${formatBytes(d.memory)} per process` : 'memory NOT bounded';
  const processes =
    d.processes <= 0
      ? 'processes NOT bounded'
      : d.processesCounted === 'exempt'
        ? 'processes NOT bounded (the job runs as uid 0, which RLIMIT_NPROC exempts)'
        : `${d.processes} processes and threads ${d.processesCounted === 'user' ? 'of the job user, its jobs together' : 'per job'}`;
  return `${memory}, ${processes}`;
}

/** The process-group fallback's limits, for serve's start line: what prlimit bounds there and what it cannot. */
export function describeGroupLimits(limits: JobLimits, uid = process.getuid?.() ?? -1): string {
  if (process.platform !== 'linux' || !findOnPath('prlimit', '/usr/bin:/bin:/usr/sbin:/sbin'))
    return 'memory and processes NOT bounded (no util-linux prlimit)';
  const memory = limits.memory > 0 ? `memory ${formatBytes(limits.memory)} per process` : 'memory NOT bounded';
  const processes =
    limits.processes <= 0
      ? 'processes NOT bounded'
      : uid === 0
        ? 'processes NOT bounded (a root runner: RLIMIT_NPROC exempts uid 0)'
        : `${limits.processes} processes and threads beyond what this user runs at the job's start (RLIMIT_NPROC counts the user's)`;
  return `${memory}, ${processes}`;
}

/** Tasks (processes and threads) of user `uid` now, as RLIMIT_NPROC counts them; 0 when /proc cannot be read. */
function tasksOfUser(uid: number): number {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return 0;
  }
  let tasks = 0;
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (statSync(`/proc/${name}`).uid !== uid) continue;
      const threads = /^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1];
      tasks += Number(threads ?? 1);
    } catch {
      // gone meanwhile
    }
  }
  return tasks;
}

/**
 * The process-group fallback's `prlimit` arguments before the program (`--data=N:N --nproc=M:M --`), or [] when
 * there is nothing it can bound. RLIMIT_NPROC counts every process of the runner's user there: the job may start
 * `processes` more than the user runs now. A root runner's are not counted by the kernel.
 */
export function prlimitArgs(limits: JobLimits, uid = process.getuid?.() ?? -1): string[] {
  const args: string[] = [];
  if (limits.memory > 0) args.push(`--data=${limits.memory}:${limits.memory}`);
  if (limits.processes > 0 && uid > 0) {
    const n = tasksOfUser(uid) + limits.processes;
    args.push(`--nproc=${n}:${n}`);
  }
  return args.length ? [...args, '--'] : [];
}

/** The process-group fallback: a job's process is the first the OOM killer takes (its children inherit it). */
export function raiseOomScore(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/oom_score_adj`, '1000');
  } catch {
    // gone already, or not Linux
  }
}

const MEMORY_SIGNS =
  /MemoryError|std::bad_alloc|Cannot allocate memory|out of memory|[Oo]ut of host memory|hipErrorOutOfMemory/;
const PROCESS_SIGNS = /Resource temporarily unavailable|can't start new thread|fork: retry|EAGAIN/;

/**
 * What a failed run's stderr suggests about the job's limits, as a note for its result (empty when nothing does):
 * the kernel refuses the allocation or the fork; what the program makes of it is its own, so this reads its words.
 */
export function limitNotes(stderr: string, limits: JobLimits): string[] {
  const notes: string[] = [];
  if (limits.memory > 0 && MEMORY_SIGNS.test(stderr)) {
    notes.push(
      `[kernel-runner] the program ran out of memory: a job's process may allocate ${formatBytes(limits.memory)} (serve --max-job-memory)`,
    );
  }
  if (limits.processes > 0 && PROCESS_SIGNS.test(stderr)) {
    notes.push(
      `[kernel-runner] the program could not start a process or thread: a job may run ${limits.processes} (serve --max-job-processes)`,
    );
  }
  return notes;
}
