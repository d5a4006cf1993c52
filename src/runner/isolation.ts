// How a job's processes are kept together, so that when its main process exits, times out or is cancelled, every
// descendant dies and the job's pipes close (detected once per runner, see detectIsolation):
//
//   pid-namespace  (default on Linux where the kernel allows it) `setpriv --pdeathsig KILL unshare [--user
//                  --map-root-user] --pid --fork --kill-child --mount-proc python3 -c INIT -- program ...`: a PID
//                  namespace per job. INIT (PID 1 inside) starts the program, reaps, and exits with the program's
//                  exit code when it ends, at which the kernel kills everything else in the namespace;
//                  `--kill-child` ends the namespace with unshare, and unshare dies with the runner (pdeathsig), so
//                  even a SIGKILLed runner leaves nothing behind. Signals: SIGINT to the process group (unshare
//                  blocks it, INIT ignores it, the program and the profiler get it as before); SIGKILL of the group
//                  after the grace period ends INIT and with it the namespace. Inside, the program sees namespace
//                  pids. Detected by running that very command once (`... python3 -c pass`) at the runner's start.
//                  Every job also carries the job tag below (the host sees it in /proc like any other process's).
//   process-group  (where no PID namespace can be made, or KERNEL_RUNNER_ISOLATION=process-group) the program leads
//                  its own process group, and every process of the job carries
//                  KERNEL_RUNNER_JOB_TAG=<random> in its environment: whatever left the group (setsid, a daemon)
//                  is found by that tag in /proc and gets the group's signals, and SIGKILL when the main process
//                  ends. Pids stay the machine's. Only a process that drops its environment (exec with a clean
//                  one) can escape; the job's pipes are still closed a grace period after its main process ended.
//   none           (no /proc: not Linux) the process group only.
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readSync, readdirSync, realpathSync } from 'node:fs';
import { findOnPath } from './profilers';
import { isolationKey, readIsolationFinding, writeIsolationFinding } from './isolationCache';

export type IsolationKind = 'pid-namespace' | 'process-group' | 'none';

export interface Isolation {
  kind: IsolationKind;
  /** One line for `serve`'s start: what is in effect, and what it means. */
  description: string;
  /** pid-namespace: the command put before the program (unshare ... INIT --). Empty otherwise. */
  prefix: string[];
}

/** The environment variable every process of a job inherits: its random tag. */
export const JOB_TAG_VAR = 'KERNEL_RUNNER_JOB_TAG';

/**
 * PID 1 of a job's namespace: starts the program (signal dispositions back to default, same process group), reaps
 * every process handed to it, and exits with the program's status as soon as the program ends; the kernel then
 * kills whatever else is left in the namespace. PID 1 cannot re-raise a signal that killed the program: it exits
 * with 128+n and writes `signal <n>` to the status pipe it is given as its first argument (the executor's fd 4).
 *
 * Started ahead of its job (`INIT 4 --standby`, standbyNamespace.ts), it waits for the job on its stdin: the
 * fields of standbyLaunchMessage, NUL-separated, up to end of file. It then moves there, puts /dev/null on its
 * stdin and closes fd 3 unless the job has a POPCORN_FD, so that the program starts as a fresh INIT would start
 * it; an end of file without a job (the runner stopped it or went away) ends it quietly.
 */
const INIT = `
import os, signal, sys
def noop(*_):
    pass
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2):
    signal.signal(s, noop)
status_fd = int(sys.argv[1])
os.set_inheritable(status_fd, False)
argv = sys.argv[2:]
env = os.environ
if argv == ["--standby"]:
    data = b""
    while True:
        chunk = os.read(0, 65536)
        if not chunk:
            break
        data += chunk
    if not data:
        os._exit(125)
    fields = data.split(b"\\0")
    count = int(fields[2])
    argv = fields[3:3 + count]
    env = dict(f.split(b"=", 1) for f in fields[3 + count:] if b"=" in f)
    try:
        os.chdir(fields[0])
    except OSError as e:
        sys.stderr.write(f"kernel-runner: cannot enter {os.fsdecode(fields[0])}: {e.strerror}\\n")
        os._exit(127)
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    if fields[1] != b"1":
        try:
            os.close(3)
        except OSError:
            pass
defaults = [s for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGPIPE, signal.SIGXFSZ)]
try:
    main = os.posix_spawn(argv[0], argv, env, setsigdef=defaults)
except OSError as e:
    sys.stderr.write(f"kernel-runner: cannot start {os.fsdecode(argv[0])}: {e.strerror}\\n")
    os._exit(127)
for fd in (0, 1, 2, 3):
    try:
        os.close(fd)
    except OSError:
        pass
while True:
    try:
        pid, status = os.waitpid(-1, 0)
    except ChildProcessError:
        os._exit(1)
    if pid == main:
        code = os.waitstatus_to_exitcode(status)
        if code < 0:
            try:
                os.write(status_fd, f"signal {-code}\\n".encode())
            except OSError:
                pass
        os._exit(code if code >= 0 else 128 - code)
`;

/** A file that starts with `#!` (a script that finds and starts the real program), after symlinks. */
function isScript(file: string): boolean {
  let fd = -1;
  try {
    fd = openSync(realpathSync(file), 'r');
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head.toString('latin1') === '#!';
  } catch {
    return false;
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/**
 * Runs the command; its standard output when it succeeded, else null. A busy machine can take several seconds to
 * start it: a short limit quietly gave a loaded runner the weaker isolation.
 */
function probe(command: string, args: string[]): string | null {
  try {
    return execFileSync(command, args, { stdio: ['ignore', 'pipe', 'ignore'], timeout: 60_000, encoding: 'utf8' });
  } catch {
    return null;
  }
}

const GROUP_DESCRIPTION = 'process group + job tag per job (setsid children and daemons are found by their KERNEL_RUNNER_JOB_TAG and killed with the job)';

/**
 * What this runner uses (env KERNEL_RUNNER_ISOLATION = pid-namespace | process-group; default: a PID namespace where
 * one can be made). Runs the namespace's command once with a no-op program to know it works here, and says plainly
 * what it fell back to when it does not. With `cacheFile`, what the check found is remembered there and used while
 * nothing it depends on changed (isolationCache.ts): for runners that live as long as one command.
 */
export function detectIsolation(env: NodeJS.ProcessEnv, opts: { cacheFile?: string } = {}): Isolation {
  if (process.platform !== 'linux') {
    return {
      kind: 'none',
      prefix: [],
      description: 'NONE available on this system (no /proc): jobs run, but only their process group is stopped; a child that leaves it can outlive its job',
    };
  }
  const choice = env.KERNEL_RUNNER_ISOLATION?.trim() || 'pid-namespace';
  if (choice === 'process-group') {
    return { kind: 'process-group', prefix: [], description: `${GROUP_DESCRIPTION}; chosen by KERNEL_RUNNER_ISOLATION=process-group (no PID namespace)` };
  }
  const unknown = choice === 'pid-namespace' ? '' : ` (KERNEL_RUNNER_ISOLATION=${choice} is not pid-namespace or process-group: ignored)`;
  const unshare = findOnPath('unshare', env.PATH) ?? findOnPath('unshare', '/usr/bin:/bin');
  const python = findOnPath('python3', env.PATH);
  const setpriv = findOnPath('setpriv', env.PATH) ?? findOnPath('setpriv', '/usr/bin:/bin');
  const trueCommand = findOnPath('true', '/usr/bin:/bin') ?? 'true';
  const why = !unshare ? 'no unshare (util-linux) found' : !python ? 'no python3 for the namespace\'s init' : '';
  if (!why && unshare && python) {
    const root = process.getuid?.() === 0;
    const flagSets = root ? [['--pid'], ['--user', '--map-root-user', '--pid']] : [['--user', '--map-root-user', '--pid']];
    const unshareArgs = (flagSet: number) => [...(flagSets[flagSet] as string[]), '--fork', '--kill-child', '--mount-proc'];
    const wrapWith = (flagSet: number) => [...(setpriv ? [setpriv, '--pdeathsig', 'KILL'] : []), unshare, ...unshareArgs(flagSet)];
    const found = (flagSet: number, init: string): Isolation => ({
      kind: 'pid-namespace',
      // INIT needs only os, signal and sys: no site packages, no PYTHON* variables (-I -S: ~half of an
      // interpreter's start); the program it starts gets the job's environment as it is
      prefix: [...wrapWith(flagSet), init, '-I', '-S', '-c', INIT],
      description: `PID namespace per job (unshare ${unshareArgs(flagSet).join(' ')})${unknown}`,
    });
    const key = opts.cacheFile ? isolationKey({ unshare, setpriv, python }) : '';
    const remembered = opts.cacheFile ? readIsolationFinding(opts.cacheFile, key, flagSets.length) : null;
    if (remembered) return found(remembered.flagSet, remembered.init);
    for (let flagSet = 0; flagSet < flagSets.length; flagSet++) {
      const wrap = wrapWith(flagSet);
      let init: string | null;
      if (isScript(python)) {
        // a launcher such as pyenv's python3 shim (~60 ms of shell scripts each time): the namespace runs it once
        // here to say which interpreter it starts, and INIT runs on that one
        const out = probe(wrap[0] as string, [...wrap.slice(1), python, '-c', 'import sys; print(sys.executable)']);
        const real = out?.trim() ?? '';
        init = out === null ? null : real.startsWith('/') && existsSync(real) ? real : python;
      } else {
        // the interpreter itself: whether the namespace can be made is all there is to find out
        init = probe(wrap[0] as string, [...wrap.slice(1), trueCommand]) === null ? null : python;
      }
      if (init === null) continue;
      if (opts.cacheFile) writeIsolationFinding(opts.cacheFile, key, { flagSet, init });
      return found(flagSet, init);
    }
  }
  return {
    kind: 'process-group',
    prefix: [],
    description: `${GROUP_DESCRIPTION}; NO PID namespace: ${why || 'unshare --pid is not permitted here (user namespaces disabled?)'}${unknown}`,
  };
}

interface Stat {
  pgrp: number;
  startTicks: number;
  zombie: boolean;
}

/** Fields of /proc/<pid>/stat the runner needs, or null when the process is gone. */
export function readStat(pid: number | string): Stat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // `pid (comm) state ppid pgrp ...`: comm may hold spaces and parentheses, so split after the last ')'
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const fields = text.slice(close + 2).split(' ');
  // fields[0] is field 3 (state); field n is fields[n - 3]
  const pgrp = Number(fields[2]);
  const startTicks = Number(fields[19]);
  if (!Number.isInteger(pgrp) || !Number.isInteger(startTicks)) return null;
  return { pgrp, startTicks, zombie: fields[0] === 'Z' };
}

/** Live processes (not zombies) whose environment holds the job's tag, with their process groups. */
export function taggedProcesses(tag: string): { pid: number; pgrp: number }[] {
  if (process.platform !== 'linux' || !tag) return [];
  const needle = Buffer.from(`\0${JOB_TAG_VAR}=${tag}\0`);
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: { pid: number; pgrp: number }[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${name}/environ`);
    } catch {
      continue; // gone, or not ours to read
    }
    if (Buffer.concat([Buffer.from([0]), environ, Buffer.from([0])]).indexOf(needle) < 0) continue;
    const st = readStat(name);
    if (st && !st.zombie) found.push({ pid: Number(name), pgrp: st.pgrp });
  }
  return found;
}

/** Sends `signal` to the process group `pid` leads (the process itself on Windows); nothing when it is gone. */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    if (process.platform === 'win32') process.kill(pid, signal);
    else process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone
  }
}

/** Sends `signal` to every tagged process outside `exceptGroup` (that group gets it as a whole); how many. */
export function signalTagged(tag: string, signal: NodeJS.Signals, exceptGroup?: number): number {
  let sent = 0;
  for (const p of taggedProcesses(tag)) {
    if (exceptGroup !== undefined && p.pgrp === exceptGroup) continue;
    try {
      process.kill(p.pid, signal);
      sent += 1;
    } catch {
      // gone meanwhile
    }
  }
  return sent;
}

/** SIGKILLs every tagged process, again while new ones appear (a fork during the sweep); how many were killed. */
export function killTagged(tag: string): number {
  const killed = new Set<number>();
  for (let round = 0; round < 20; round += 1) {
    const left = taggedProcesses(tag);
    if (left.length === 0) break;
    for (const p of left) {
      try {
        process.kill(p.pid, 'SIGKILL');
        killed.add(p.pid);
      } catch {
        // gone meanwhile
      }
    }
  }
  return killed.size;
}
