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
//                  With a sandbox (sandbox.ts, the runner's always), INIT first hides the runner's state from the job
//                  (the data dir, the state folder, --token-file), binds the runner's files read-only and the job's own
//                  work dir back, and starts the program as the job user (a root runner) or in a user namespace of
//                  its own: the job cannot see or touch the runner.
//   process-group  (where no PID namespace can be made, or KERNEL_RUNNER_ISOLATION=process-group; NOTHING of the
//                  runner's files is hidden then, only its variables: serve says so) the program leads
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
import { describeSandbox, sandboxArgument, type SandboxSpec } from './sandbox';

export type IsolationKind = 'pid-namespace' | 'process-group' | 'none';

export interface Isolation {
  kind: IsolationKind;
  /** One line for `serve`'s start: what is in effect, and what it means. */
  description: string;
  /** pid-namespace: the command put before the program (unshare ... INIT SPEC). Empty otherwise. */
  prefix: string[];
  /** pid-namespace: what INIT hides from the job and who the program runs as (sandbox.ts); null: nothing hidden. */
  sandbox: SandboxSpec | null;
}

/** The fresh (not made ahead) namespace's INIT finds the job's work dir here; the program does not get it. */
export const WORK_DIR_VAR = 'KERNEL_RUNNER_WORK_DIR';

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
spec = sys.argv[1]
status_fd = int(sys.argv[2])
os.set_inheritable(status_fd, False)
argv = sys.argv[3:]
env = os.environ
box = None
def refuse(what):
    sys.stderr.write(f"kernel-runner: cannot isolate the job: {what}\\n")
    os._exit(126)
if spec != "-":
    # _ctypes, not ctypes: the package's import is ~3/4 of the sandbox's own cost; only mount() and unshare() are called
    import _ctypes, resource
    class c_int(_ctypes._SimpleCData):
        _type_ = "i"
    class c_ulong(_ctypes._SimpleCData):
        _type_ = "L"
    class cfunc(_ctypes.CFuncPtr):
        _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
        _restype_ = c_int
    libc = _ctypes.dlopen(None)
    sys_mount = cfunc(_ctypes.dlsym(libc, "mount"))
    sys_unshare = cfunc(_ctypes.dlsym(libc, "unshare"))
    def mount(src, dst, fstype, flags, data=None):
        if sys_mount(src, os.fsencode(dst), fstype, c_ulong(flags), data) != 0:
            refuse(f"mount {dst}: {os.strerror(_ctypes.get_errno())}")
    box = {"hide": [], "ro": [], "user": None}
    for line in spec.split("\\n"):
        key, *values = line.split("\\t")
        if key in ("hide", "ro"):
            box[key].append(values[0])
        else:
            box[key] = values
    data_fd = os.open(box["data"][0], os.O_PATH | os.O_DIRECTORY)
    for path in box["ro"]:
        mount(os.fsencode(path), path, None, 4096 | 16384)
        # the remount keeps the flags a user namespace may not drop (nosuid, nodev, noexec, atime)
        kept = os.statvfs(path).f_flag & (2 | 4 | 8 | 1024 | 2048 | 4096)
        mount(None, path, None, 32 | 4096 | 1 | kept)
    for path in box["hide"]:
        if os.path.isdir(path):
            mount(b"tmpfs", path, b"tmpfs", 2 | 4, b"size=1m,nr_inodes=4096,mode=0755")
        elif os.path.exists(path):
            mount(b"/dev/null", path, None, 4096)
    if "fsize" in box:
        resource.setrlimit(resource.RLIMIT_FSIZE, (int(box["fsize"][0]),) * 2)
    def expose(work, cwd):
        rel = os.path.relpath(work, box["data"][0])
        if rel == ".." or rel.startswith("../") or os.path.isabs(rel):
            refuse(f"{work} is not in the data dir")
        try:
            src = os.open(rel, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=data_fd)
        except OSError as e:
            refuse(f"cannot open {work}: {e.strerror}")
        os.makedirs(work, 0o755, exist_ok=True)
        mount(f"/proc/self/fd/{src}".encode(), work, None, 4096 | 16384)
        os.close(src)
        os.close(data_fd)
        try:
            os.chdir(cwd)
        except OSError as e:
            sys.stderr.write(f"kernel-runner: cannot enter {os.fsdecode(cwd)}: {e.strerror}\\n")
            os._exit(127)
    def limit():
        # the kernel's OOM killer takes a job's process before the runner
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
        if "mem" in box:
            resource.setrlimit(resource.RLIMIT_DATA, (int(box["mem"][0]),) * 2)
        if "nproc" in box:
            resource.setrlimit(resource.RLIMIT_NPROC, (int(box["nproc"][0]),) * 2)
    def drop():
        user = box["user"]
        if user:
            limit()
            os.setgroups([int(g) for g in user[2].split(",") if g])
            os.setgid(int(user[1]))
            os.setuid(int(user[0]))
            return
        if sys_unshare(0x10000000) != 0:
            refuse(f"no user namespace for the program: {os.strerror(_ctypes.get_errno())}")
        for name, text in (("setgroups", "deny"), ("uid_map", "0 0 1"), ("gid_map", "0 0 1")):
            with open(f"/proc/self/{name}", "w") as f:
                f.write(text)
        # after the new user namespace: RLIMIT_NPROC then counts the processes of this job's namespace, not every
        # process of the runner's user (a limit set before would also cap the user's processes outside)
        limit()
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
    count = int(fields[3])
    argv = fields[4:4 + count]
    env = dict(f.split(b"=", 1) for f in fields[4 + count:] if b"=" in f)
    if box:
        expose(os.fsdecode(fields[2]), fields[0])
    else:
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
elif box:
    work = os.environ.get("KERNEL_RUNNER_WORK_DIR") or os.getcwd()
    cwd = os.getcwd()
    env = {k: v for k, v in os.environ.items() if k != "KERNEL_RUNNER_WORK_DIR"}
    expose(work, cwd)
defaults = [s for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGPIPE, signal.SIGXFSZ)]
if box:
    main = os.fork()
    if main == 0:
        try:
            drop()
            for s in defaults:
                signal.signal(s, signal.SIG_DFL)
            os.execve(argv[0], argv, env)
        except OSError as e:
            sys.stderr.write(f"kernel-runner: cannot start {os.fsdecode(argv[0])}: {e.strerror}\\n")
        os._exit(127)
else:
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

/** What the process-group fallback leaves open, said where it is in effect. */
const GROUP_EXPOSES =
  ". NOT PROTECTED without a namespace: a job runs as this runner's user and can read and write what it can (the data dir with the token and other jobs, the runner's files); only the runner's own variables are kept from its environment";
const GROUP_DESCRIPTION =
  'process group + job tag per job (setsid children and daemons are found by their KERNEL_RUNNER_JOB_TAG and killed with the job)';

/**
 * What this runner uses (env KERNEL_RUNNER_ISOLATION = pid-namespace | process-group; default: a PID namespace where
 * one can be made). Runs the namespace's command once with a no-op program to know it works here, and says plainly
 * what it fell back to when it does not. With `cacheFile`, what the check found is remembered there and used while
 * nothing it depends on changed (isolationCache.ts): for runners that live as long as one command.
 */
export function detectIsolation(
  env: NodeJS.ProcessEnv,
  opts: { cacheFile?: string; sandbox?: SandboxSpec } = {},
): Isolation {
  if (process.platform !== 'linux') {
    return {
      kind: 'none',
      prefix: [],
      sandbox: null,
      description:
        'NONE available on this system (no /proc): jobs run, but only their process group is stopped; a child that leaves it can outlive its job',
    };
  }
  const choice = env.KERNEL_RUNNER_ISOLATION?.trim() || 'pid-namespace';
  if (choice === 'process-group') {
    return {
      kind: 'process-group',
      prefix: [],
      sandbox: null,
      description: `${GROUP_DESCRIPTION}; chosen by KERNEL_RUNNER_ISOLATION=process-group (no PID namespace)${GROUP_EXPOSES}`,
    };
  }
  const unknown =
    choice === 'pid-namespace'
      ? ''
      : ` (KERNEL_RUNNER_ISOLATION=${choice} is not pid-namespace or process-group: ignored)`;
  const unshare = findOnPath('unshare', env.PATH) ?? findOnPath('unshare', '/usr/bin:/bin');
  const python = findOnPath('python3', env.PATH);
  const setpriv = findOnPath('setpriv', env.PATH) ?? findOnPath('setpriv', '/usr/bin:/bin');
  const trueCommand = findOnPath('true', '/usr/bin:/bin') ?? 'true';
  const why = !unshare ? 'no unshare (util-linux) found' : !python ? "no python3 for the namespace's init" : '';
  if (!why && unshare && python) {
    const root = process.getuid?.() === 0;
    const flagSets = root
      ? [['--pid'], ['--user', '--map-root-user', '--pid']]
      : [['--user', '--map-root-user', '--pid']];
    const unshareArgs = (flagSet: number) => [
      ...(flagSets[flagSet] as string[]),
      '--fork',
      '--kill-child',
      '--mount-proc',
    ];
    const wrapWith = (flagSet: number) => [
      ...(setpriv ? [setpriv, '--pdeathsig', 'KILL'] : []),
      unshare,
      ...unshareArgs(flagSet),
    ];
    const sandbox = opts.sandbox ?? null;
    const found = (flagSet: number, init: string): Isolation => ({
      kind: 'pid-namespace',
      // INIT needs only os, signal and sys (and _ctypes, resource to apply a sandbox): no site packages, no PYTHON*
      // variables (-I -S: ~half of an interpreter's start); the program it starts gets the job's environment as it is
      prefix: [...wrapWith(flagSet), init, '-I', '-S', '-c', INIT, sandboxArgument(sandbox)],
      sandbox,
      description: `PID namespace per job (unshare ${unshareArgs(flagSet).join(' ')})${sandbox ? `; ${describeSandbox(sandbox)}` : ''}${unknown}`,
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
    sandbox: null,
    description: `${GROUP_DESCRIPTION}; NO PID namespace: ${why || 'unshare --pid is not permitted here (user namespaces disabled?)'}${unknown}${GROUP_EXPOSES}`,
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
