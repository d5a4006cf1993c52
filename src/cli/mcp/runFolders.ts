// Where the MCP server writes (./kernel-runner-traces unless --out): submissions/<run>/ for code given as text,
// traces/<run>/ for a profile's archives, results/ for result files. The folder sits in a repository anyone could
// have written, so nothing is written through a link: the root and its three folders must be real folders, each
// run's folder is created fresh (mkdir never follows a link at its last component, and EEXIST is a refusal, not a
// reuse), and files are created with O_EXCL|O_NOFOLLOW. Run ids carry the time and a random part, so sessions
// sharing the folder never pick the same names and a result_file kept from one session never points at another's run.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath } from 'node:fs/promises';
import path from 'node:path';
import { KernelRunnerError } from '../../core/errors';

export class RunFolderError extends KernelRunnerError {
  override readonly name = 'RunFolderError';
  readonly code = 'CLI_MCP_TOOL';
}

/** `r20261204-141302-3fa9c1`: sorts by time (UTC, to the second); the random part keeps sessions apart. */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `r${stamp}-${randomBytes(3).toString('hex')}`;
}

const errCode = (err: unknown): string | undefined => (err as NodeJS.ErrnoException).code;

/** A folder that exists as a real folder (created when missing, never through a link), else a RunFolderError. */
async function realFolder(dir: string, createParents: boolean): Promise<void> {
  try {
    const st = await lstat(dir);
    if (st.isSymbolicLink())
      throw new RunFolderError(`${dir} is a link: refused (Kernel Runner writes only into real folders it created)`);
    if (!st.isDirectory()) throw new RunFolderError(`${dir} is not a folder: refused`);
    return;
  } catch (err) {
    if (errCode(err) !== 'ENOENT') throw err;
  }
  try {
    await mkdir(dir, { recursive: createParents });
  } catch (err) {
    // Another session sharing the folder created it between our lstat and mkdir: check what is there now.
    if (errCode(err) !== 'EEXIST') throw err;
  }
  return realFolder(dir, false);
}

/** Creates a file that did not exist, never through a link at its name. */
async function createFile(file: string, content: string | Uint8Array): Promise<void> {
  let fh;
  try {
    fh = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  } catch (err) {
    if (errCode(err) === 'EEXIST' || errCode(err) === 'ELOOP')
      throw new RunFolderError(`${file} already exists: refused (a run's files are created, never overwritten)`);
    throw err;
  }
  try {
    await fh.writeFile(content);
  } finally {
    await fh.close();
  }
}

export class RunFolders {
  constructor(readonly root: string) {}

  /** The root and one of its three folders, checked real; the root is created with its parents when missing. */
  private async area(name: 'submissions' | 'results' | 'traces'): Promise<string> {
    await realFolder(this.root, true);
    const dir = path.join(this.root, name);
    await realFolder(dir, false);
    return dir;
  }

  /** Before a run is submitted: the root and submissions/, results/ and traces/ are real folders (created when missing). */
  async check(): Promise<void> {
    for (const name of ['submissions', 'results', 'traces'] as const) await this.area(name);
  }

  /** A run's own folder under an area, created now (an existing one, link or not, is refused) and checked to resolve where it should. */
  private async freshRunFolder(area: 'submissions' | 'traces', runId: string): Promise<string> {
    const parent = await this.area(area);
    const dir = path.join(parent, runId);
    try {
      await mkdir(dir, { mode: 0o755 });
    } catch (err) {
      if (errCode(err) === 'EEXIST') throw new RunFolderError(`${dir} already exists: refused (a run's folder is new)`);
      throw err;
    }
    const expected = path.join(await realpath(this.root), area, runId);
    if ((await realpath(dir)) !== expected)
      throw new RunFolderError(
        `${dir} resolves outside ${this.root}: refused (a folder on the way was swapped for a link)`,
      );
    return dir;
  }

  /** Code given as text, saved as submissions/<run>/<name> (name is a base name: no folders, no `..`). */
  async saveSubmission(runId: string, fileName: string, content: string): Promise<string> {
    const name = path.basename(fileName);
    if (name === '' || name === '.' || name === '..') throw new RunFolderError(`file_name "${fileName}" names no file`);
    const file = path.join(await this.freshRunFolder('submissions', runId), name);
    await createFile(file, content);
    return file;
  }

  /** traces/<run>/, created fresh: a run's trace archives and digests go there. */
  tracesFolder(runId: string): Promise<string> {
    return this.freshRunFolder('traces', runId);
  }

  /** results/<name>, created (the name carries the run id, so it is new). */
  async saveResult(name: string, text: string): Promise<string> {
    const file = path.join(await this.area('results'), path.basename(name));
    await createFile(file, text);
    return file;
  }
}
