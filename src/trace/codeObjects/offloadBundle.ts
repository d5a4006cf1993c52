// Clang offload bundles: what `hipcc --offload-arch=...` / `clang -x hip --cuda-device-only` write and what a host
// binary's .hip_fatbin section holds. Layout (clang's ClangOffloadBundler docs, "Bundled binary file layout"):
// the 24-byte magic `__CLANG_OFFLOAD_BUNDLE__`, a u64 entry count, then per entry u64 offset, u64 size, u64 id
// length and the id (`hipv4-amdgcn-amd-amdhsa--gfx942`, `host-x86_64-unknown-linux--`), all little-endian.
// Compressed bundles (`CCOB` magic, `--offload-compress`) are recognised and reported, not inflated.
import { ElfFormatError } from './elf';

export const BUNDLE_MAGIC = '__CLANG_OFFLOAD_BUNDLE__';
const COMPRESSED_MAGIC = 'CCOB';
const MAX_ENTRIES = 1024;
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

/** The entries of one bundle that starts at offset 0 of `buf`; `end` is where the bundle's last entry ends. */
export function parseOffloadBundle(buf: Buffer): { entries: BundleEntry[]; end: number } {
  if (!isOffloadBundle(buf)) throw new ElfFormatError('not a clang offload bundle');
  let at = BUNDLE_MAGIC.length;
  const count = readU64(buf, at, 'entry count');
  at += 8;
  if (count > MAX_ENTRIES) throw new ElfFormatError(`offload bundle claims ${count} entries`);
  const entries: BundleEntry[] = [];
  let end = at;
  for (let i = 0; i < count; i++) {
    const offset = readU64(buf, at, `entry ${i} offset`);
    const size = readU64(buf, at + 8, `entry ${i} size`);
    const idLength = readU64(buf, at + 16, `entry ${i} id length`);
    at += 24;
    if (idLength > MAX_ID || at + idLength > buf.length) throw new ElfFormatError(`offload bundle entry ${i}: id of ${idLength} bytes runs past the end`);
    const id = buf.toString('utf8', at, at + idLength);
    at += idLength;
    if (offset + size > buf.length) {
      throw new ElfFormatError(`offload bundle entry ${id}: ${size} bytes at offset ${offset} run past the end of the file (${buf.length} bytes)`);
    }
    entries.push({ id, data: buf.subarray(offset, offset + size) });
    end = Math.max(end, at, offset + size);
  }
  return { entries, end };
}

/** Every bundle in a host binary's .hip_fatbin section: bundles follow each other, each aligned (4096 in practice). */
export function bundlesInFatbin(section: Buffer): BundleEntry[] {
  const entries: BundleEntry[] = [];
  let at = section.indexOf(BUNDLE_MAGIC, 0, 'latin1');
  while (at !== -1) {
    const { entries: found, end } = parseOffloadBundle(section.subarray(at));
    entries.push(...found);
    if (entries.length > MAX_ENTRIES) throw new ElfFormatError(`more than ${MAX_ENTRIES} bundle entries in .hip_fatbin`);
    at = section.indexOf(BUNDLE_MAGIC, at + Math.max(end, BUNDLE_MAGIC.length), 'latin1');
  }
  return entries;
}

function readU64(buf: Buffer, at: number, what: string): number {
  if (at + 8 > buf.length) throw new ElfFormatError(`offload bundle truncated at its ${what}`);
  const v = buf.readBigUInt64LE(at);
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new ElfFormatError(`offload bundle ${what} ${v} is beyond any file`);
  return Number(v);
}
