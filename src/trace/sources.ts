// Where input files come from: a folder (walked), a single file, or the entries of a zip (read in place with
// yauzl, never extracted). Each is a FileSource that can be streamed or read whole.
import { createReadStream } from 'node:fs';
import { open as openFile, readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { KernelRunnerError } from '../core/errors';
import { STREAM_CHUNK_BYTES, DEFAULT_ZIP_LIMITS } from './limits';

export interface FileSource {
  /** Path relative to the summarised root, with `/` separators (the entry name for zips). */
  path: string;
  size: number;
  /** Absolute path of a file on disk (not a zip entry): worker threads can read parts of it themselves. */
  diskPath?: string;
  open(): Promise<Readable>;
  readAll(): Promise<Buffer>;
}

export interface SourceSet {
  files: FileSource[];
  /** Files passed over while listing (temporary folders, directories), with reasons. */
  skipped: Array<{ path: string; reason: string }>;
  close(): Promise<void>;
}

const MAX_FILES = 20000;
const MAX_DEPTH = 8;

function fileSource(absPath: string, relPath: string, size: number): FileSource {
  return {
    path: relPath,
    size,
    diskPath: absPath,
    open: async () => createReadStream(absPath, { highWaterMark: STREAM_CHUNK_BYTES }),
    readAll: () => readFile(absPath),
  };
}

export async function listFolder(root: string): Promise<SourceSet> {
  const files: FileSource[] = [];
  const skipped: SourceSet['skipped'] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const abs = join(dir, entry.name);
      const rel = relative(root, abs).split(sep).join('/');
      if (entry.isDirectory()) {
        if (entry.name === '.rocprofv3') {
          skipped.push({ path: `${rel}/`, reason: "rocprofv3's temporary folder" });
        } else if (depth >= MAX_DEPTH) {
          skipped.push({ path: `${rel}/`, reason: `deeper than ${MAX_DEPTH} folders` });
        } else {
          await walk(abs, depth + 1);
        }
      } else if (entry.isFile()) {
        if (files.length >= MAX_FILES) {
          skipped.push({ path: rel, reason: `more than ${MAX_FILES} files: the rest were not looked at` });
          return;
        }
        const st = await stat(abs);
        files.push(fileSource(abs, rel, st.size));
      }
    }
  };
  await walk(root, 0);
  return { files, skipped, close: async () => {} };
}

/** Whether a file on disk starts as a zip archive does. */
export async function isZip(path: string): Promise<boolean> {
  const fh = await openFile(path, 'r');
  try {
    const buf = Buffer.alloc(4);
    await fh.read(buf, 0, 4, 0);
    return buf[0] === 0x50 && buf[1] === 0x4b && (buf[2] === 3 || buf[2] === 5) && (buf[3] === 4 || buf[3] === 6);
  } finally {
    await fh.close();
  }
}

export async function listSingleFile(absPath: string, size: number): Promise<SourceSet> {
  return { files: [fileSource(absPath, basename(absPath), size)], skipped: [], close: async () => {} };
}

/**
 * What a zip may unpack to. Sizes come from the zip's directory before anything is inflated; yauzl then stops any
 * entry that inflates past its stated size, so a small zip cannot make us hold or write more than this.
 */
export interface ZipLimits {
  /** All entries together, uncompressed. */
  maxTotalBytes: number;
  /** Uncompressed / compressed size of one entry; checked for entries over `ratioFloorBytes`. */
  maxRatio: number;
  ratioFloorBytes: number;
}

export class ZipLimitError extends KernelRunnerError {
  override readonly name = 'ZipLimitError';
  readonly code = 'TRACE_ZIP_LIMIT';
  readonly type = 'zip-limit' as const;
}

const sizeText = (n: number): string =>
  n >= 1024 ** 3
    ? `${(n / 1024 ** 3).toFixed(2)} GiB`
    : n >= 1024 ** 2
      ? `${(n / 1024 ** 2).toFixed(1)} MiB`
      : `${n} bytes`;

/** The fewest bytes an entry takes in the archive: its local header (30 bytes before the name) and its data. */
const LOCAL_HEADER_BYTES = 30;

/**
 * The first two entries whose bytes in the archive overlap, or null. In a real zip every entry has bytes of its
 * own; entries that share them (140 names for one 111 MiB member, or the "overlapping" zip bombs) would make one
 * member count, and unpack, many times over while each entry's size and ratio look honest.
 */
function overlappingEntries(entries: readonly yauzl.Entry[]): [string, string] | null {
  const byOffset = [...entries].sort((a, b) => a.relativeOffsetOfLocalHeader - b.relativeOffsetOfLocalHeader);
  for (let i = 1; i < byOffset.length; i++) {
    const prev = byOffset[i - 1] as yauzl.Entry;
    const next = byOffset[i] as yauzl.Entry;
    if (next.relativeOffsetOfLocalHeader < prev.relativeOffsetOfLocalHeader + LOCAL_HEADER_BYTES + prev.compressedSize)
      return [prev.fileName, next.fileName];
  }
  return null;
}

/** Refuses a zip whose entries share their bytes (overlappingEntries). */
function checkZipEntriesApart(entries: readonly yauzl.Entry[]): void {
  const overlap = overlappingEntries(entries);
  if (overlap) {
    throw new ZipLimitError(
      `refused: entries ${overlap[0]} and ${overlap[1]} share their bytes in the archive (a zip writes each entry once): not a profile, possibly a zip bomb`,
    );
  }
}

export async function listZip(zipPath: string, limits: Partial<ZipLimits> = {}): Promise<SourceSet> {
  const lim = { ...DEFAULT_ZIP_LIMITS, ...limits };
  const zip = await yauzl.openPromise(zipPath, { lazyEntries: true, autoClose: false });
  const files: FileSource[] = [];
  const skipped: SourceSet['skipped'] = [];
  const all: yauzl.Entry[] = [];
  let total = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      all.push(entry);
      const name = entry.fileName;
      if (name.endsWith('/')) continue;
      const ratio = entry.uncompressedSize / Math.max(1, entry.compressedSize);
      if (entry.uncompressedSize > lim.ratioFloorBytes && ratio > lim.maxRatio) {
        throw new ZipLimitError(
          `refused: entry ${name} would unpack ${entry.compressedSize} bytes to ${entry.uncompressedSize} (${Math.round(ratio)}:1, over the ${lim.maxRatio}:1 that rocprof output reaches): not a profile, possibly a zip bomb`,
        );
      }
      total += entry.uncompressedSize;
      if (total > lim.maxTotalBytes) {
        throw new ZipLimitError(
          `refused: the entries unpack to more than ${sizeText(lim.maxTotalBytes)} (${sizeText(total)} with entry ${name}); unpack it yourself and summarise the folder`,
        );
      }
      if (name.split('/').includes('.rocprofv3')) {
        skipped.push({ path: name, reason: "rocprofv3's temporary folder" });
        continue;
      }
      if (files.length >= MAX_FILES) {
        skipped.push({ path: name, reason: `more than ${MAX_FILES} files: the rest were not looked at` });
        continue;
      }
      const open = (): Promise<Readable> => zip.openReadStreamPromise(entry);
      files.push({
        path: name,
        size: entry.uncompressedSize,
        open,
        readAll: async () => {
          const chunks: Buffer[] = [];
          for await (const chunk of await open()) chunks.push(chunk as Buffer);
          return Buffer.concat(chunks);
        },
      });
    }
    checkZipEntriesApart(all);
  } catch (err) {
    zip.close();
    throw err;
  }
  return {
    files,
    skipped,
    close: async () => {
      zip.close();
    },
  };
}
