// A job's PID namespace, made before the job needs it. Making one (setpriv, unshare, and INIT's Python start) is
// ~10 ms before the program can start; a runner keeps one namespace waiting, its INIT blocked on its stdin (see
// INIT in isolation.ts), and the next process of a job is started in it as soon as it is asked for. The waiting
// namespace is the same command a fresh one would be, so it dies the same ways: with the runner (pdeathsig), at
// close(), or at the end of file on its stdin when the runner goes away without killing it.
//
// A namespace that was taken is replaced a moment later (REFILL_MS), not at once: a runner that ran its one job
// (`kernel-runner submit`) stops before then instead of paying for a namespace nobody uses.
import { execa, type ResultPromise } from 'execa';
import { killGroup, type Isolation } from './isolation';

const REFILL_MS = 100;

/** The stdio of every job process in a namespace: stdin (the job, then /dev/null), stdout, stderr, POPCORN_FD, status. */
const STDIO = ['pipe', 'pipe', 'pipe', 'pipe', 'pipe'] as const;

type StandbyProcess = ResultPromise<{ stdio: typeof STDIO; buffer: false; reject: false }>;

export interface StandbyNamespace {
  /**
   * A waiting namespace for a process of a job (the caller sends it standbyLaunchMessage), or undefined. `refill`
   * false: no other is made for later (the runner's last process: a one-submission runner about to stop).
   */
  take(refill?: boolean): StandbyProcess | undefined;
  close(): void;
}

/**
 * The job for a waiting INIT: where it runs, whether it keeps fd 3, the job's work dir (bound back into a sandbox),
 * its argv and environment; null if it cannot be sent.
 */
export function standbyLaunchMessage(
  cwd: string,
  keepFd3: boolean,
  argv: readonly string[],
  env: Record<string, string | undefined>,
  workDir = cwd,
): Buffer | null {
  const vars = Object.entries(env).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${v}`]));
  const fields = [cwd, keepFd3 ? '1' : '0', workDir, String(argv.length), ...argv, ...vars];
  // a NUL cannot be passed to a program; a fresh start reports it the usual way
  if (fields.some((f) => f.includes('\0'))) return null;
  return Buffer.from(fields.join('\0'));
}

export function createStandbyNamespace(isolation: Isolation, statusFd: number): StandbyNamespace {
  const [command, ...rest] = isolation.prefix;
  let waiting: StandbyProcess | undefined;
  let refill: NodeJS.Timeout | undefined;
  let closed = !command || isolation.kind !== 'pid-namespace';

  const start = () => {
    refill = undefined;
    if (closed || waiting) return;
    const child: StandbyProcess = execa(command as string, [...rest, String(statusFd), '--standby'], {
      cwd: '/',
      env: {},
      extendEnv: false,
      detached: true,
      buffer: false,
      reject: false,
      stdio: STDIO,
      windowsHide: true,
      forceKillAfterDelay: false,
    });
    child.stdin.on('error', () => undefined);
    // one that ends while waiting (killed from outside, a namespace that can no longer be made) is not replaced
    // until the next job asks: a fresh start then says what is wrong
    void child.then(() => {
      if (waiting === child) waiting = undefined;
    });
    waiting = child;
  };
  start();

  return {
    take(again = true) {
      const child = waiting;
      waiting = undefined;
      if (again && !closed && !refill) {
        refill = setTimeout(start, REFILL_MS);
        refill.unref();
      }
      return child && child.exitCode === null && child.pid !== undefined ? child : undefined;
    },
    close() {
      closed = true;
      if (refill) clearTimeout(refill);
      const child = waiting;
      waiting = undefined;
      killGroup(child?.pid, 'SIGKILL');
    },
  };
}
