// The PID namespace check of detectIsolation, remembered per user for the runners that live as long as one
// command (`kernel-runner submit`'s embedded runner, the extension's): with a launcher such as pyenv's python3 shim
// the check starts it once (~80 ms of shell scripts), which a one-file submission would pay every time.
//
// What is remembered is only what the check found (which unshare flags work, which interpreter INIT runs on); the
// command itself is always rebuilt from the code. The answer is used only while everything it depends on is as it
// was: the user, the kernel, the capabilities and user-namespace settings, the unshare, setpriv and python3 found
// on PATH (path, size, modification time) and the interpreter found behind a launcher, and for a day at most.
// Anything else (a missing, foreign, writable-by-others or malformed file) means checking again.
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { release } from 'node:os';
import path from 'node:path';
import { ISOLATION_CHECK_MAX_AGE_MS } from './limits';

const VERSION = 1;

/** What the check found: the index of the unshare flag set that worked, and the interpreter INIT runs on. */
export interface IsolationFinding {
  flagSet: number;
  init: string;
}

interface CacheFile {
  version: number;
  key: string;
  checkedAt: number;
  flagSet: number;
  init: string;
  initStamp: string;
}

/** Path, size and modification time of a file (after symlinks), or `-` when it cannot be read. */
function stamp(file: string): string {
  try {
    const s = statSync(file);
    return `${file}:${s.size}:${Math.trunc(s.mtimeMs)}`;
  } catch {
    return `${file}:-`;
  }
}

function readOr(file: string, fallback: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return fallback;
  }
}

/** What the namespace check's answer depends on, as one string. */
export function isolationKey(tools: { unshare: string; setpriv: string | null; python: string }): string {
  const caps = /^CapEff:\s*(\S+)/m.exec(readOr('/proc/self/status', ''))?.[1] ?? '-';
  return [
    `uid=${process.getuid?.() ?? -1}`,
    `kernel=${release()}`,
    `caps=${caps}`,
    ...[
      '/proc/sys/kernel/unprivileged_userns_clone',
      '/proc/sys/user/max_user_namespaces',
      '/proc/sys/kernel/apparmor_restrict_unprivileged_userns',
    ].map((f) => `${path.basename(f)}=${readOr(f, '-')}`),
    stamp(tools.unshare),
    tools.setpriv ? stamp(tools.setpriv) : 'setpriv:-',
    stamp(tools.python),
  ].join('\n');
}

/** The remembered finding for `key`, or null when there is none that can be trusted. */
export function readIsolationFinding(
  file: string,
  key: string,
  flagSets: number,
  now = Date.now(),
): IsolationFinding | null {
  let text: string;
  let fd = -1;
  try {
    // ours alone: a regular file (not a link) owned by this user, which no one else can write
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    const s = fstatSync(fd);
    if (!s.isFile() || (process.getuid && s.uid !== process.getuid()) || (s.mode & 0o022) !== 0 || s.size > 64 * 1024)
      return null;
    text = readFileSync(fd, 'utf8');
  } catch {
    return null;
  } finally {
    if (fd >= 0) closeSync(fd);
  }
  let data: Partial<CacheFile>;
  try {
    data = JSON.parse(text) as Partial<CacheFile>;
  } catch {
    return null;
  }
  if (data.version !== VERSION || data.key !== key) return null;
  if (
    typeof data.checkedAt !== 'number' ||
    now - data.checkedAt > ISOLATION_CHECK_MAX_AGE_MS ||
    data.checkedAt > now + 60_000
  )
    return null;
  if (!Number.isInteger(data.flagSet) || (data.flagSet as number) < 0 || (data.flagSet as number) >= flagSets)
    return null;
  if (typeof data.init !== 'string' || !path.isAbsolute(data.init) || data.init.includes('\0')) return null;
  // the interpreter behind a launcher: still the same file
  const initStamp = stamp(data.init);
  if (data.initStamp !== initStamp || initStamp.endsWith(':-')) return null;
  return { flagSet: data.flagSet as number, init: data.init };
}

/** Remembers a finding (0600, replaced atomically); a folder that cannot be written only costs the next check. */
export function writeIsolationFinding(file: string, key: string, finding: IsolationFinding, now = Date.now()): void {
  const body: CacheFile = {
    version: VERSION,
    key,
    checkedAt: now,
    flagSet: finding.flagSet,
    init: finding.init,
    initStamp: stamp(finding.init),
  };
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(tmp, `${JSON.stringify(body)}\n`, { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // read-only home, full disk: nothing is lost but the time of the next check
  }
}
