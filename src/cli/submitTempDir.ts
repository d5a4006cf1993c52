// The embedded runner's data dir of one `kernel-runner submit`: `<tmp>/kernel-runner-submit-<pid>-XXXXXX`. It goes
// when the command ends, however it ends: normally, on any signal a process can catch (SIGINT, SIGTERM, SIGHUP,
// SIGQUIT: the signal is raised again once the folder is gone, so the exit status says what happened) and at
// process exit. What kill -9 or a crash of the machine leaves is swept by the next `submit`: folders of this user
// whose process is gone. A folder of another user, or of a live process, is never touched.
import { lstatSync, readdirSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const SUBMIT_DIR_PREFIX = 'kernel-runner-submit-';
const OWNED = new RegExp(`^${SUBMIT_DIR_PREFIX}(\\d+)-[A-Za-z0-9]+$`);

/** The signals after which the folder is removed (SIGINT is the command's own: it cancels the job first). */
export const CLEANUP_SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGHUP', 'SIGQUIT'];

function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    // EPERM: alive, another user's
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Folders of earlier `submit`s of this user whose process is gone (kill -9, a crash). */
function staleSubmitDirs(dir = tmpdir()): string[] {
  const uid = process.getuid?.();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const stale: string[] = [];
  for (const name of names) {
    const m = OWNED.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || !processGone(pid)) continue;
    const full = path.join(dir, name);
    try {
      const st = lstatSync(full);
      if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) continue;
    } catch {
      continue;
    }
    stale.push(full);
  }
  return stale;
}

export interface SubmitTempDir {
  path: string;
  /** Stale folders being removed (awaited by remove()). */
  remove(): Promise<void>;
}

export async function makeSubmitTempDir(): Promise<SubmitTempDir> {
  const sweeping = Promise.all(
    staleSubmitDirs().map((d) => rm(d, { recursive: true, force: true }).catch(() => undefined)),
  );
  const dir = await mkdtemp(path.join(tmpdir(), `${SUBMIT_DIR_PREFIX}${process.pid}-`));
  // the last resort: process.exit() (a second Ctrl-C), an uncaught error
  const atExit = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', atExit);
  return {
    path: dir,
    async remove() {
      process.off('exit', atExit);
      await rm(dir, { recursive: true, force: true });
      await sweeping;
    },
  };
}
