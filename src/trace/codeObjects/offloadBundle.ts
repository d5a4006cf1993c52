// Clang offload bundles: what `hipcc --offload-arch=...` / `clang -x hip --cuda-device-only` write and what a host
// binary's .hip_fatbin section holds. Layout (clang's ClangOffloadBundler docs, "Bundled binary file layout"):
// the 24-byte magic `__CLANG_OFFLOAD_BUNDLE__`, a u64 entry count, then per entry u64 offset, u64 size, u64 id
// length and the id (`hipv4-amdgcn-amd-amdhsa--gfx942`, `host-x86_64-unknown-linux--`), all little-endian.
// Compressed bundles (`--offload-compress`, the `CCOB` magic) hold one such bundle, zlib- or zstd-compressed, after
// a header (clang's CompressedOffloadBundle, as clang-offload-bundler-19 writes it): `CCOB`, u16 version, u16
// method (0 zlib, 1 zstd), then version 1: u32 size; 2: u32 total file size, u32 size; 3: u64 total file size,
// u64 size; and a u64 hash, the low half of the MD5 of the bundle (checked: a wrong one is a damaged file).
import { createHash } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import { decompress as zstdDecompress } from 'fzstd';
import { ElfFormatError } from './elf';
import { errorMessage } from '../../core/errors';
import { MAX_BUNDLE_ENTRIES } from '../limits';

const BUNDLE_MAGIC = '__CLANG_OFFLOAD_BUNDLE__';
const COMPRESSED_MAGIC = 'CCOB';
const MAX_ID = 4096;

export interface BundleEntry {
  /** The bundle entry id, e.g. `hipv4-amdgcn-amd-amdhsa--gfx942`. */
  id: string;
  data: Buffer;
}

export function isOffloadBundle(buf: Buffer): boolean {
  return buf.length >= BUNDLE_MAGIC.length && buf.toString('latin1', 0, BUNDLE_MAGIC.length) === BUNDLE_MAGIC;
}

export function isCompressedBundle(buf: Buffer): boolean {
  return buf.length >= 4 && buf.toString('latin1', 0, 4) === COMPRESSED_MAGIC;
}

/** Where each header version keeps its fields (offsets), and whether its sizes are u64. */
const COMPRESSED_LAYOUTS: Record<
  number,
  { total: number | null; size: number; hash: number; data: number; wide: boolean }
> = {
  1: { total: null, size: 8, hash: 12, data: 20, wide: false },
  2: { total: 8, size: 12, hash: 16, data: 24, wide: false },
  3: { total: 8, size: 16, hash: 24, data: 32, wide: true },
};

/** The bundle inside a compressed one (at offset 0 of `buf`), at most `maxBytes` of it; `end` is where it ended. */
function inflateCompressedBundle(buf: Buffer, maxBytes: number): { bundle: Buffer; end: number } {
  if (buf.length < 8) throw new ElfFormatError('compressed offload bundle truncated in its header');
  const version = buf.readUInt16LE(4);
  const method = buf.readUInt16LE(6);
  const at = COMPRESSED_LAYOUTS[version];
  if (!at) throw new ElfFormatError(`compressed offload bundle version ${version}: not one this reader knows (1 to 3)`);
  if (buf.length < at.data)
    throw new ElfFormatError(`compressed offload bundle (version ${version}) truncated in its header`);
  const field = (offset: number, what: string) => (at.wide ? readU64(buf, offset, what) : buf.readUInt32LE(offset));
  const end = at.total === null ? buf.length : field(at.total, 'total size');
  if (end > buf.length || end < at.data)
    throw new ElfFormatError(`compressed offload bundle says it is ${end} bytes; the file has ${buf.length}`);
  const size = field(at.size, 'size');
  if (size > maxBytes)
    throw new ElfFormatError(`compressed offload bundle inflates to ${size} bytes, more than the ${maxBytes} read`);
  const data = buf.subarray(at.data, end);
  let bundle: Buffer;
  try {
    if (method === 0) bundle = inflateSync(data, { maxOutputLength: Math.max(size, 1) });
    else if (method === 1) {
      const out = zstdDecompress(data, new Uint8Array(size));
      bundle = Buffer.from(out.buffer, out.byteOffset, out.byteLength);
    } else
      throw new ElfFormatError(`compressed offload bundle with compression method ${method} (known: 0 zlib, 1 zstd)`);
  } catch (err) {
    if (err instanceof ElfFormatError) throw err;
    throw new ElfFormatError(
      `compressed offload bundle (${method === 0 ? 'zlib' : 'zstd'}) does not inflate: ${errorMessage(err)}`,
    );
  }
  if (bundle.length !== size)
    throw new ElfFormatError(
      `compressed offload bundle inflated to ${bundle.length} bytes, not the ${size} its header says`,
    );
  const hash = buf.readBigUInt64LE(at.hash);
  if (createHash('md5').update(bundle).digest().readBigUInt64LE(0) !== hash) {
    throw new ElfFormatError('compressed offload bundle does not match its hash: the file is damaged');
  }
  return { bundle, end };
}

/** The entries of one bundle that starts at offset 0 of `buf`; `end` is where the bundle's last entry ends. */
export function parseOffloadBundle(buf: Buffer): { entries: BundleEntry[]; end: number } {
  if (!isOffloadBundle(buf)) throw new ElfFormatError('not a clang offload bundle');
  let at = BUNDLE_MAGIC.length;
  const count = readU64(buf, at, 'entry count');
  at += 8;
  if (count > MAX_BUNDLE_ENTRIES) throw new ElfFormatError(`offload bundle claims ${count} entries`);
  const entries: BundleEntry[] = [];
  let end = at;
  for (let i = 0; i < count; i++) {
    const offset = readU64(buf, at, `entry ${i} offset`);
    const size = readU64(buf, at + 8, `entry ${i} size`);
    const idLength = readU64(buf, at + 16, `entry ${i} id length`);
    at += 24;
    if (idLength > MAX_ID || at + idLength > buf.length)
      throw new ElfFormatError(`offload bundle entry ${i}: id of ${idLength} bytes runs past the end`);
    const id = buf.toString('utf8', at, at + idLength);
    at += idLength;
    if (offset + size > buf.length) {
      throw new ElfFormatError(
        `offload bundle entry ${id}: ${size} bytes at offset ${offset} run past the end of the file (${buf.length} bytes)`,
      );
    }
    entries.push({ id, data: buf.subarray(offset, offset + size) });
    end = Math.max(end, at, offset + size);
  }
  return { entries, end };
}

/**
 * The entries of the bundle, plain or compressed, at offset 0 of `buf`; `end` is where it ends in `buf`, `inflated`
 * what a compressed one inflated to (at most `maxInflated`).
 */
export function bundleEntries(
  buf: Buffer,
  maxInflated: number,
): { entries: BundleEntry[]; end: number; inflated: number } {
  if (!isCompressedBundle(buf)) return { ...parseOffloadBundle(buf), inflated: 0 };
  const { bundle, end } = inflateCompressedBundle(buf, maxInflated);
  return { entries: parseOffloadBundle(bundle).entries, end, inflated: bundle.length };
}

/**
 * Every bundle in a host binary's .hip_fatbin section: bundles (plain or compressed) follow each other, each aligned
 * (4096 in practice). `maxInflated` bounds what compressed ones inflate to, together.
 */
export function bundlesInFatbin(section: Buffer, maxInflated: number): BundleEntry[] {
  const entries: BundleEntry[] = [];
  let budget = maxInflated;
  // where a magic occurs next, searched again only once passed (a fatbin of hundreds of bundles of one kind must
  // not be scanned to its end for the other kind once per bundle)
  const cursor = (magic: string) => {
    let found = -2;
    return (from: number) => (found === -1 || found >= from ? found : (found = section.indexOf(magic, from, 'latin1')));
  };
  const nextPlain = cursor(BUNDLE_MAGIC);
  const nextCompressed = cursor(COMPRESSED_MAGIC);
  const next = (from: number) => {
    const plain = nextPlain(from);
    const compressed = nextCompressed(from);
    return plain === -1 ? compressed : compressed === -1 ? plain : Math.min(plain, compressed);
  };
  for (let at = next(0); at !== -1;) {
    const bundle = bundleEntries(section.subarray(at), budget);
    budget -= bundle.inflated;
    entries.push(...bundle.entries);
    if (entries.length > MAX_BUNDLE_ENTRIES)
      throw new ElfFormatError(`more than ${MAX_BUNDLE_ENTRIES} bundle entries in .hip_fatbin`);
    at = next(at + Math.max(bundle.end, COMPRESSED_MAGIC.length));
  }
  return entries;
}

function readU64(buf: Buffer, at: number, what: string): number {
  if (at + 8 > buf.length) throw new ElfFormatError(`offload bundle truncated at its ${what}`);
  const v = buf.readBigUInt64LE(at);
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new ElfFormatError(`offload bundle ${what} ${v} is beyond any file`);
  return Number(v);
}
