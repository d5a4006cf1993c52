// What a job may see and do in its PID namespace (isolation.ts): the runner's state is not there, and when the
// runner is root the job does not run as root. INIT (PID 1 of the namespace) applies it, as root of the namespace,
// before it starts the program:
//   - `hide`: a small empty tmpfs over each folder (the data dir, the per-user state folder; or the highest
//     ancestor of the data dir the job's user could not enter anyway, such as /root), /dev/null over each file
//     (--token-file): the token, other jobs' code, records and results are not in the job's view at all;
//   - `ro`: the runner's own files (its package: dist/cli.cjs, examples) bound read-only;
//   - the job's own work dir bound back at its path, read-write, and the program started in it (re-entered through
//     the bind: `..` from there leads into the empty tmpfs, not to the job's record);
//   - `user`: with a root runner, the program runs as the job user (setgroups/setgid/setuid: no capabilities);
//     else in a user namespace of its own nested in the job's, where it is uid 0 but holds no capability over the
//     job's mounts, so it cannot unmount what hides the runner's state;
//   - `fsize`: RLIMIT_FSIZE, no single file past the job's disk budget (the watcher in diskBudget.ts counts them all);
//   - limits of the program and all it starts (jobLimits.ts): `mem`, RLIMIT_DATA (the memory a process may allocate),
//     `nproc`, RLIMIT_NPROC (processes and threads: of the job user, all its jobs together; in the program's own user
//     namespace, of the job alone; not enforced for uid 0 of the machine, the kernel exempts it), and its OOM score
//     at the maximum, so that the kernel's OOM killer takes a job's process before the runner.
// The spec is one argument of INIT, a line per entry, built here from the runner's settings.
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, resolve, sep } from 'node:path';
import { DEFAULT_JOB_PROCESS_LIMIT, describeLimits } from './jobLimits';
import { findOnPath } from './profilers';

interface JobUser {
  uid: number;
  gid: number;
  /** Supplementary groups: the user's own, plus render and video where they exist (/dev/kfd, /dev/dri/renderD*). */
  groups: number[];
  /** How it was found, for serve's start line: `kernel-runner-job (uid 990)`. */
  name: string;
}

export interface SandboxSpec {
  /** Where the job work dirs are (the data dir): INIT holds it open to bind a job's folder back after hiding it. */
  data: string;
  hide: string[];
  readOnly: string[];
  user: JobUser | null;
  /** Largest file a job may write (RLIMIT_FSIZE), bytes; 0 = none. */
  fileSizeLimit: number;
  /** RLIMIT_NPROC of the program (its user's processes and threads, see above); 0 = none. */
  processLimit: number;
  /** RLIMIT_DATA of each process of the job, bytes; 0 = none. */
  memoryLimit: number;
  /** Why a root runner's jobs still run as root (the job user could not run the toolchain), or ''. */
  rootReason: string;
  /** The same, as the start-up warning with its fix (rootJobsWarning), or null. */
  rootWarning: string | null;
}

/** A root runner's job user that cannot run a program of the toolchain: jobs then run as root. */
interface BlockedJobUser {
  user: JobUser;
  program: string;
  /** The folder on the way to it that the user may not enter. */
  closed: string;
}

function blockedJobUser(jobUser: string, toolchain: readonly string[]): BlockedJobUser | { user: JobUser } {
  const user = resolveJobUser(jobUser);
  for (const program of toolchain) {
    const closed = blockedOnTheWay(program, user);
    if (closed !== null) return { user, program, closed };
  }
  return { user };
}

/**
 * The one line `serve` and `kernel-runner mcp` print at start when jobs will run as root: who could not run what,
 * and the fix (a job user that can: the toolchain installed where it may enter, outside the closed folder).
 */
function rootJobsWarning(b: BlockedJobUser): string {
  return (
    `warning: jobs run AS ROOT in their namespace: the job user ${b.user.name} cannot run ${b.program} (${b.closed} is closed to it), ` +
    `so anyone who can submit, an agent's MCP submit too, runs code as root on this host. Fix: create the job user ` +
    `(useradd --system --no-create-home --shell /usr/sbin/nologin ${DEFAULT_JOB_USER}) and install python3 and the toolchain outside ${b.closed} ` +
    `(/usr, /opt/rocm, a venv under /opt) first on PATH, then restart`
  );
}

/**
 * For a front-end whose runner starts later (kernel-runner mcp's embedded runner): the warning startRunner's
 * sandbox would carry, found now with its defaults; null when this process is not root or the job user can run
 * python3.
 */
export function rootJobsWarningNow(env: NodeJS.ProcessEnv = process.env): string | null {
  const python = findOnPath('python3', env.PATH);
  if (process.getuid?.() !== 0 || python === null) return null;
  try {
    const found = blockedJobUser('auto', [python]);
    return 'program' in found ? rootJobsWarning(found) : null;
  } catch {
    return null; // an unknown job user: startRunner says so when it starts
  }
}

/** The account a root runner's jobs use unless told otherwise. */
const DEFAULT_JOB_USER = 'kernel-runner-job';

interface PasswdEntry {
  name: string;
  uid: number;
  gid: number;
}

function readLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n');
  } catch {
    return [];
  }
}

function passwdEntry(passwd: readonly string[], nameOrUid: string): PasswdEntry | null {
  for (const line of passwd) {
    const [name, , uid, gid] = line.split(':');
    if (!name || uid === undefined || gid === undefined) continue;
    if (name === nameOrUid || uid === nameOrUid) return { name, uid: Number(uid), gid: Number(gid) };
  }
  return null;
}

/** Supplementary groups of `user` from /etc/group, with render and video (the GPU devices' groups) when they exist. */
function groupsOf(user: string | null, gid: number): number[] {
  const groups = new Set<number>([gid]);
  for (const line of readLines('/etc/group')) {
    const [name, , id, members] = line.split(':');
    if (!name || id === undefined) continue;
    if (name === 'render' || name === 'video' || (user && (members ?? '').split(',').includes(user)))
      groups.add(Number(id));
  }
  return [...groups].filter((g) => Number.isInteger(g) && g >= 0);
}

/**
 * The job user for `choice`: `auto` (the kernel-runner-job account where it exists, else nobody), an account name,
 * or `UID[:GID]`. Throws with a clear message for an unknown name or a uid 0.
 */
function resolveJobUser(choice: string): JobUser {
  const wanted = choice.trim() || 'auto';
  const passwd = readLines('/etc/passwd');
  let entry: PasswdEntry | null;
  let label: string;
  if (wanted === 'auto') {
    entry = passwdEntry(passwd, DEFAULT_JOB_USER) ??
      passwdEntry(passwd, 'nobody') ?? { name: 'nobody', uid: 65534, gid: 65534 };
    label = entry.name;
  } else if (/^\d+(:\d+)?$/.test(wanted)) {
    const [uid, gid] = wanted.split(':').map(Number) as [number, number | undefined];
    const known = passwdEntry(passwd, String(uid));
    entry = { name: known?.name ?? '', uid, gid: gid ?? known?.gid ?? uid };
    label = known?.name ?? `uid ${uid}`;
  } else {
    entry = passwdEntry(passwd, wanted);
    if (!entry)
      throw new Error(
        `job user "${wanted}" is not an account of this machine (/etc/passwd); create it or pass --job-user UID[:GID]`,
      );
    label = entry.name;
  }
  if (entry.uid === 0) throw new Error(`job user "${wanted}" is root: jobs must not run with the runner's rights`);
  return {
    uid: entry.uid,
    gid: entry.gid,
    groups: groupsOf(entry.name || null, entry.gid),
    name: `${label} (uid ${entry.uid})`,
  };
}

/** Whether `user` may search (x) the folder or run the file `path`, by its mode bits. */
function mayExecute(path: string, user: JobUser): boolean {
  try {
    const s = statSync(path);
    if (s.uid === user.uid) return (s.mode & 0o100) !== 0;
    if (user.groups.includes(s.gid)) return (s.mode & 0o010) !== 0;
    return (s.mode & 0o001) !== 0;
  } catch {
    return false;
  }
}

/** The first folder on the way to `file` (after symlinks) that `user` cannot pass, the file itself, or null. */
function blockedOnTheWay(file: string, user: JobUser): string | null {
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return file;
  }
  const parts = real.split(sep).filter(Boolean);
  for (let i = 0; i < parts.length; i++) {
    const dir = sep + parts.slice(0, i).join(sep);
    if (!mayExecute(dir, user)) return dir;
  }
  return mayExecute(real, user) ? null : real;
}

/** The highest ancestor of `dir` the user cannot enter (hiding it hides nothing the job could reach), else `dir`. */
function coverFor(dir: string, user: JobUser | null): string {
  if (!user) return dir;
  const parts = dir.split(sep).filter(Boolean);
  for (let i = 1; i < parts.length; i++) {
    const ancestor = sep + parts.slice(0, i).join(sep);
    if (!mayExecute(ancestor, user)) return ancestor;
  }
  return dir;
}

export interface SandboxOptions {
  dataDir: string;
  /** Folders and files of the runner's that jobs must not see besides the data dir (state folder, token file). */
  privatePaths: string[];
  /** The runner's own files: read-only to jobs. */
  runnerFiles: string[];
  /** `auto`, a name or UID[:GID]; only used when the runner is root. */
  jobUser: string;
  /** The programs a job needs to start (python3, found on PATH): the job user must be able to run them. */
  toolchain: string[];
  fileSizeLimit: number;
  /** Processes and threads (default DEFAULT_JOB_PROCESS_LIMIT); 0 = none. */
  processLimit?: number;
  /** Bytes each process of a job may allocate (RLIMIT_DATA); 0 or absent = none. */
  memoryLimit?: number;
}

export function buildSandbox(opts: SandboxOptions): SandboxSpec {
  const root = process.getuid?.() === 0;
  let user: JobUser | null = null;
  let rootReason = '';
  let rootWarning: string | null = null;
  if (root) {
    const found = blockedJobUser(opts.jobUser, opts.toolchain);
    if ('program' in found) {
      rootReason = `the job user ${found.user.name} cannot run ${found.program} (${found.closed} is closed to it)`;
      rootWarning = rootJobsWarning(found);
    } else user = found.user;
  }
  const data = resolve(opts.dataDir);
  const hide = [coverFor(data, user)];
  for (const p of opts.privatePaths) {
    const abs = resolve(p);
    if (!existsSync(abs) || hide.some((h) => abs === h || abs.startsWith(h + sep))) continue;
    hide.push(abs);
  }
  return {
    data,
    hide,
    readOnly: opts.runnerFiles
      .map((p) => resolve(p))
      .filter((p) => existsSync(p) && !hide.some((h) => p === h || p.startsWith(h + sep))),
    user,
    fileSizeLimit: opts.fileSizeLimit,
    processLimit: opts.processLimit ?? DEFAULT_JOB_PROCESS_LIMIT,
    memoryLimit: opts.memoryLimit ?? 0,
    rootReason,
    rootWarning,
  };
}

/** INIT's argument for the spec (`-` for none). Paths holding a newline cannot be passed: such a runner refuses. */
export function sandboxArgument(spec: SandboxSpec | null): string {
  if (!spec) return '-';
  const paths = [spec.data, ...spec.hide, ...spec.readOnly];
  const bad = paths.find((p) => p.includes('\n') || p.includes('\t') || p.includes('\0') || !isAbsolute(p));
  if (bad !== undefined)
    throw new Error(`cannot isolate jobs: the path ${JSON.stringify(bad)} cannot be passed to a job's namespace`);
  const lines = [`data\t${spec.data}`, ...spec.hide.map((p) => `hide\t${p}`), ...spec.readOnly.map((p) => `ro\t${p}`)];
  if (spec.user) lines.push(`user\t${spec.user.uid}\t${spec.user.gid}\t${spec.user.groups.join(',')}`);
  if (spec.fileSizeLimit > 0) lines.push(`fsize\t${spec.fileSizeLimit}`);
  if (spec.processLimit > 0) lines.push(`nproc\t${spec.processLimit}`);
  if (spec.memoryLimit > 0) lines.push(`mem\t${spec.memoryLimit}`);
  return lines.join('\n');
}

/** One line for serve's start: what a job sees and who it runs as. */
export function describeSandbox(spec: SandboxSpec): string {
  const who = spec.user
    ? `as ${spec.user.name}, groups ${spec.user.groups.join(',')}`
    : process.getuid?.() === 0
      ? `AS ROOT (${spec.rootReason}; in a user namespace of its own it holds no capability, but files owned by root stay writable to it)`
      : 'as this user, in a user namespace of its own (no capability over its mounts)';
  const limits = describeLimits({
    memory: spec.memoryLimit,
    processes: spec.processLimit,
    processesCounted: spec.user ? 'user' : process.getuid?.() === 0 ? 'exempt' : 'job',
  });
  return `jobs see their own work dir, not ${spec.hide.join(', ')}; ${spec.readOnly.length ? `${spec.readOnly.join(', ')} read-only; ` : ''}run ${who}; ${limits}`;
}
