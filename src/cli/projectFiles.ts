// Files setup-agent writes into a project folder that anyone could have written (a cloned repository): only inside
// it. A link is refused wherever it is (AGENTS.md, a config, .vscode itself; dangling or not), a folder must resolve
// inside the project, files are read with O_NOFOLLOW|O_NONBLOCK and written aside then renamed over, and every
// check is made before anything is written: when one target is refused, none is written.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath, rename, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { KernelRunnerError } from '../core/errors';

export class ProjectFileError extends KernelRunnerError {
  override readonly name = 'ProjectFileError';
  readonly code = 'CLI_AGENT_SETUP';
}

/** A config or AGENTS.md is some KB; past this it is not one. */
const MAX_READ_BYTES = 1024 * 1024;

const errCode = (err: unknown): string | undefined => (err as NodeJS.ErrnoException).code;

export interface ProjectFile {
  /** Relative to the project, with `/`: AGENTS.md, .vscode/mcp.json. */
  rel: string;
  abs: string;
  /** Its text now; undefined when it does not exist. */
  text: string | undefined;
  /** Its permission bits, kept when it is rewritten. */
  mode: number;
}

const refuse = (abs: string, why: string) =>
  new ProjectFileError(
    `${abs}: ${why}: refused (setup-agent writes only inside the project folder, never through a link); nothing was written`,
  );

/** Whether the folder of a file exists (then it is a real folder inside root), or is to be created. */
async function folderState(rootReal: string, dir: string): Promise<'exists' | 'missing'> {
  let st;
  try {
    st = await lstat(dir);
  } catch (err) {
    if (errCode(err) === 'ENOENT') return 'missing';
    throw err;
  }
  if (st.isSymbolicLink()) throw refuse(dir, 'a link');
  if (!st.isDirectory()) throw refuse(dir, 'not a folder');
  const real = await realpath(dir);
  if (real !== rootReal && !real.startsWith(rootReal + path.sep)) throw refuse(dir, `resolves to ${real}, outside`);
  return 'exists';
}

/** A file's text, never through a link (a dangling one included) and never from a FIFO or device. */
async function readInside(abs: string): Promise<{ text: string | undefined; mode: number }> {
  let st;
  try {
    st = await lstat(abs);
  } catch (err) {
    if (errCode(err) === 'ENOENT') return { text: undefined, mode: 0o644 };
    throw err;
  }
  if (st.isSymbolicLink()) throw refuse(abs, 'a link');
  if (!st.isFile()) throw refuse(abs, 'not a regular file');
  const fh = await open(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const now = await fh.stat();
    if (!now.isFile()) throw refuse(abs, 'not a regular file');
    if (now.size > MAX_READ_BYTES) throw refuse(abs, `${now.size} bytes, more than a config`);
    return { text: await fh.readFile('utf8'), mode: now.mode & 0o777 };
  } finally {
    await fh.close();
  }
}

/** Reads every file (rel paths under root), checking each one's folders: throws before anything is written. */
export async function readProjectFiles(root: string, rels: string[]): Promise<ProjectFile[]> {
  const rootReal = await realpath(root);
  const out: ProjectFile[] = [];
  for (const rel of rels) {
    const abs = path.join(root, ...rel.split('/'));
    const folder = path.dirname(abs);
    const there = folder === root || (await folderState(rootReal, folder)) === 'exists';
    out.push({ rel, abs, ...(there ? await readInside(abs) : { text: undefined, mode: 0o644 }) });
  }
  return out;
}

/**
 * Writes each file's new text: missing folders are created (one level, never through a link), each text goes to a
 * new file beside its target (O_EXCL|O_NOFOLLOW) and all are renamed over their targets only once all are written.
 * On a failure before the renames, what was created is removed again.
 */
export async function writeProjectFiles(
  root: string,
  files: Array<{ file: ProjectFile; text: string }>,
): Promise<void> {
  const made: string[] = [];
  const asides: Array<{ aside: string; target: string }> = [];
  try {
    for (const { file, text } of files) {
      const folder = path.dirname(file.abs);
      if (folder !== root && !made.includes(folder)) {
        try {
          await mkdir(folder);
          made.push(folder);
        } catch (err) {
          if (errCode(err) !== 'EEXIST') throw err;
        }
        await folderState(await realpath(root), folder);
      }
      const aside = path.join(folder, `.${path.basename(file.abs)}.kernel-runner-${randomBytes(4).toString('hex')}`);
      const fh = await open(
        aside,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        file.mode,
      );
      asides.push({ aside, target: file.abs });
      try {
        await fh.writeFile(text);
      } finally {
        await fh.close();
      }
    }
  } catch (err) {
    for (const { aside } of asides) await unlink(aside).catch(() => undefined);
    for (const folder of made.reverse()) await rmdir(folder).catch(() => undefined);
    throw err;
  }
  // rename() replaces whatever is at the target itself, a link included: it never writes through one
  for (const { aside, target } of asides) await rename(aside, target);
}
