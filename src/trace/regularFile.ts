// Reading a file someone else named (an agent's argument, a result file's trace path) without blocking: the path is
// stat'ed, then opened with O_NONBLOCK and fstat'ed, and anything but a regular file is refused before a byte is
// read. A plain open() of a FIFO with no writer waits for ever inside one of libuv's four pool threads, and a few
// such calls stop every other file operation of the process.
import { constants, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { TraceInputError } from './errors';

/**
 * What a path is when it is neither a regular file nor a folder (a FIFO, a socket, a device), else null: reading
 * one would block forever or never end, so inputs of that kind are refused before they are opened.
 */
export function nonRegularKind(st: Stats): string | null {
  if (st.isFile() || st.isDirectory()) return null;
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

function refusal(path: string, st: Stats, expected: string): TraceInputError | null {
  if (st.isFile()) return null;
  const kind = st.isDirectory() ? 'a folder' : nonRegularKind(st);
  return new TraceInputError(
    `${path}: ${kind}, not a regular file: refused${st.isDirectory() ? '' : ', reading it could block forever'} (expected ${expected})`,
    path,
  );
}

/**
 * The path's stats when it is a regular file or a folder, else a TraceInputError naming what it is (a FIFO, a
 * socket, a device) or that it does not exist. stat() itself never blocks on a FIFO.
 */
export async function fileOrFolderStats(path: string, expected: string): Promise<Stats> {
  let st: Stats;
  try {
    st = await stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new TraceInputError(
      code === 'ENOENT' ? `${path}: no such file or directory (expected ${expected})` : `${path}: ${code ?? err}`,
      path,
    );
  }
  const kind = nonRegularKind(st);
  if (kind)
    throw new TraceInputError(
      `${path}: ${kind}, not a file or a folder: refused, reading it could block forever (expected ${expected})`,
      path,
    );
  return st;
}

/**
 * Opens a regular file for reading, with its size as fstat gives it; whatever else is at the path (even if swapped
 * in after the stat) is refused. The caller closes the handle.
 */
export async function openRegularFile(path: string, expected: string): Promise<{ handle: FileHandle; size: number }> {
  const before = await fileOrFolderStats(path, expected);
  const refused = refusal(path, before, expected);
  if (refused) throw refused;
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    throw new TraceInputError(`${path}: cannot open (${(err as NodeJS.ErrnoException).code ?? err})`, path);
  }
  const st = await handle.stat();
  const late = refusal(path, st, expected);
  if (late) {
    await handle.close();
    throw late;
  }
  return { handle, size: st.size };
}

/** A regular file's bytes, at most maxBytes of them (more is refused, not cut). */
export async function readRegularFile(path: string, maxBytes: number, expected: string): Promise<Buffer> {
  const { handle, size } = await openRegularFile(path, expected);
  try {
    if (size > maxBytes)
      throw new TraceInputError(
        `${path}: ${size} bytes, more than the ${maxBytes} read (expected ${expected}): refused`,
        path,
      );
    return await readOpened(handle, size);
  } finally {
    await handle.close();
  }
}

/** The first `size` bytes of an open file (fewer if it shrank since its fstat; never more, should it grow). */
export async function readOpened(handle: FileHandle, size: number): Promise<Buffer> {
  const buf = Buffer.alloc(size);
  let off = 0;
  while (off < size) {
    const { bytesRead } = await handle.read(buf, off, size - off, off);
    if (bytesRead === 0) break;
    off += bytesRead;
  }
  return buf.subarray(0, off);
}
