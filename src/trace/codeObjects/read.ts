// Code objects from a file, a folder or a profile zip: each AMDGPU ELF (kernelbot's `_code_object<N>.o`, a
// `.hsaco`, a `--cuda-device-only --no-gpu-bundle-output` output), each device entry of a clang offload bundle
// and of a host binary's .hip_fatbin section, read to their kernels' metadata plus an occupancy estimate.
import { open, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { listFolder, listSingleFile, listZip, type FileSource, type SourceSet } from '../sources';
import { nonRegularKind } from '../regularFile';
import { CodeObjectError } from './errors';
import { EM_AMDGPU, ElfFormatError, isElf, parseElf } from './elf';
import { metadataNote, parseMetadata, type KernelMetadata } from './metadata';
import { estimateOccupancy, limitsFor, processorOf, type OccupancyEstimate } from './occupancy';
import { bundleEntries, bundlesInFatbin, isCompressedBundle, isOffloadBundle } from './offloadBundle';
import { MAX_CODE_OBJECT_BYTES, MAX_CODE_OBJECTS_TOTAL_BYTES } from '../limits';

export interface CodeObjectKernel extends KernelMetadata {
  /** null when the target's limits are not recorded (see occupancyNote) or a count is missing. */
  occupancy: OccupancyEstimate | null;
}

export interface CodeObjectInfo {
  /** The path as given for a single file; relative to the folder or zip otherwise. */
  file: string;
  /** The offload bundle entry id, for code objects that came out of a bundle. */
  bundleEntry: string | null;
  /** amdhsa.target (`amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-`), else the processor from the ELF flags. */
  target: string | null;
  /** `gfx942`: what `llvm-objdump --mcpu` takes. */
  processor: string | null;
  /** Code object version (4, 5, 6) from the ELF header's EI_ABIVERSION (2, 3, 4 under ELFOSABI_AMDGPU_HSA). */
  codeObjectVersion: number | null;
  /** amdhsa.version of the metadata note ([1, 1] in code object v4, [1, 2] in v5 and v6): not the code object's. */
  metadataVersion: [number, number] | null;
  kernels: CodeObjectKernel[];
  /** Why there is no occupancy estimate, when there is none. */
  occupancyNote: string | null;
}

export interface CodeObjectReport {
  codeObjects: CodeObjectInfo[];
  /** Files of a folder or zip that looked like code objects but could not be read, with why. */
  skipped: Array<{ file: string; reason: string }>;
}

/** A code object with its bytes, for disassembly. */
export interface LoadedCodeObject {
  info: CodeObjectInfo;
  bytes: Buffer;
}

export interface ReadOptions {
  /** Workgroup size the LDS limit assumes; default: the kernel's reqd_workgroup_size, else its max flat size. */
  workgroupSize?: number;
}

/** In folders and zips, the files looked at (a single file given by path is always read). */
const CODE_OBJECT_NAME = /(^|\/)_code_object[^/]*$|\.(o|co|hsaco|code|bundle|hipfb|fatbin)$/i;

/** Processors by EF_AMDGPU_MACH (e_flags & 0xff), for code objects without amdhsa.target (v3). */
const MACH: Record<number, string> = { 0x30: 'gfx908', 0x3f: 'gfx90a', 0x40: 'gfx940', 0x4b: 'gfx941', 0x4c: 'gfx942' };

export async function readCodeObjectsPath(path: string, options: ReadOptions = {}): Promise<CodeObjectReport> {
  const { objects, skipped } = await loadCodeObjectsPath(path, options);
  return { codeObjects: objects.map((o) => o.info), skipped };
}

export async function loadCodeObjectsPath(
  path: string,
  options: ReadOptions = {},
): Promise<{ objects: LoadedCodeObject[]; skipped: CodeObjectReport['skipped'] }> {
  const abs = resolve(path);
  let st;
  try {
    st = await stat(abs);
  } catch {
    throw new CodeObjectError(
      `${path}: no such file or directory (expected a code object, a folder or a profile zip)`,
      path,
    );
  }
  const kind = nonRegularKind(st);
  if (kind)
    throw new CodeObjectError(
      `${path}: ${kind}, not a file or a folder: refused, reading it could block forever (expected a code object, a folder or a profile zip)`,
      path,
    );
  if (st.isFile() && !(await looksLikeZip(abs))) {
    if (st.size > MAX_CODE_OBJECT_BYTES)
      throw new CodeObjectError(`${path}: ${st.size} bytes, more than the ${MAX_CODE_OBJECT_BYTES} read`, path);
    const set = await listSingleFile(abs, st.size);
    const bytes = await set.files[0]!.readAll();
    return { objects: readCodeObjectBuffer(bytes, path, options), skipped: [] };
  }
  let set: SourceSet;
  try {
    set = st.isDirectory() ? await listFolder(abs) : await listZip(abs);
  } catch (err) {
    throw new CodeObjectError(
      `${path}: unreadable ${st.isDirectory() ? 'folder' : 'zip'} (${(err as Error).message})`,
      path,
    );
  }
  try {
    return await readSources(
      set.files.filter((f) => CODE_OBJECT_NAME.test(f.path)),
      options,
    );
  } finally {
    await set.close();
  }
}

async function readSources(
  files: FileSource[],
  options: ReadOptions,
): Promise<{ objects: LoadedCodeObject[]; skipped: CodeObjectReport['skipped'] }> {
  const objects: LoadedCodeObject[] = [];
  const skipped: CodeObjectReport['skipped'] = [];
  let total = 0;
  for (const f of files) {
    if (f.size > MAX_CODE_OBJECT_BYTES) {
      skipped.push({ file: f.path, reason: `${f.size} bytes, more than the ${MAX_CODE_OBJECT_BYTES} read` });
      continue;
    }
    if (total + f.size > MAX_CODE_OBJECTS_TOTAL_BYTES) {
      skipped.push({ file: f.path, reason: `past the ${MAX_CODE_OBJECTS_TOTAL_BYTES} bytes read in all` });
      continue;
    }
    total += f.size;
    try {
      objects.push(...readCodeObjectBuffer(await f.readAll(), f.path, options));
    } catch (err) {
      if (!(err instanceof CodeObjectError)) throw err;
      skipped.push({
        file: f.path,
        reason: err.message.startsWith(`${f.path}: `) ? err.message.slice(f.path.length + 2) : err.message,
      });
    }
  }
  return { objects, skipped };
}

/** Every code object in one file's bytes: an AMDGPU ELF, an offload bundle, or a host ELF with .hip_fatbin. */
export function readCodeObjectBuffer(buf: Buffer, file: string, options: ReadOptions = {}): LoadedCodeObject[] {
  try {
    if (isOffloadBundle(buf) || isCompressedBundle(buf))
      return fromBundleEntries(bundleEntries(buf, MAX_CODE_OBJECT_BYTES).entries, file, options);
    if (!isElf(buf)) throw new ElfFormatError('neither an ELF code object nor a clang offload bundle');
    const elf = parseElf(buf);
    if (elf.machine !== EM_AMDGPU) {
      const fatbin = elf.sections.find((s) => s.name === '.hip_fatbin');
      if (!fatbin)
        throw new ElfFormatError(
          `an ELF for machine ${elf.machine}, not AMDGPU (${EM_AMDGPU}), with no .hip_fatbin section`,
        );
      return fromBundleEntries(bundlesInFatbin(elf.sectionData(fatbin), MAX_CODE_OBJECT_BYTES), file, options);
    }
    return [{ info: fromAmdgpuElf(buf, file, null, options), bytes: buf }];
  } catch (err) {
    if (err instanceof ElfFormatError) throw new CodeObjectError(`${file}: ${err.message}`, file);
    throw err;
  }
}

function fromBundleEntries(
  entries: Array<{ id: string; data: Buffer }>,
  file: string,
  options: ReadOptions,
): LoadedCodeObject[] {
  const out: LoadedCodeObject[] = [];
  for (const entry of entries) {
    if (!entry.id.includes('amdgcn-') || entry.data.length === 0) continue;
    out.push({ info: fromAmdgpuElf(entry.data, file, entry.id, options), bytes: entry.data });
  }
  if (out.length === 0) throw new ElfFormatError('an offload bundle with no AMDGPU code object in it');
  return out;
}

function fromAmdgpuElf(buf: Buffer, file: string, bundleEntry: string | null, options: ReadOptions): CodeObjectInfo {
  const where = bundleEntry ? `bundle entry ${bundleEntry}: ` : '';
  let elf;
  try {
    elf = parseElf(buf);
  } catch (err) {
    if (err instanceof ElfFormatError) throw new ElfFormatError(`${where}${err.message}`);
    throw err;
  }
  if (elf.machine !== EM_AMDGPU)
    throw new ElfFormatError(`${where}an ELF for machine ${elf.machine}, not AMDGPU (${EM_AMDGPU})`);
  const desc = metadataNote(elf.notes());
  if (!desc)
    throw new ElfFormatError(
      `${where}no AMDGPU metadata note (NT_AMDGPU_METADATA): a code object older than v3, or stripped of its notes`,
    );
  const meta = parseMetadata(desc);
  const target = meta.target ?? MACH[elf.flags & 0xff] ?? null;
  const processor = target ? processorOf(target) : null;
  const limits = target ? limitsFor(target) : undefined;
  const kernels = meta.kernels.map((k): CodeObjectKernel => ({
    ...k,
    occupancy: limits ? occupancyOf(k, limits, options) : null,
  }));
  return {
    file,
    bundleEntry,
    target,
    processor,
    codeObjectVersion: codeObjectVersionOf(elf.osAbi, elf.abiVersion),
    metadataVersion: meta.version,
    kernels,
    occupancyNote: limits
      ? null
      : `no occupancy limits recorded for ${processor ?? 'an unknown target'} (known: gfx908, gfx90a, gfx940-gfx942, gfx950)`,
  };
}

/** ELFOSABI_AMDGPU_HSA (64) numbers its ABI versions from code object v2: EI_ABIVERSION 0 is v2, ... 4 is v6. */
function codeObjectVersionOf(osAbi: number, abiVersion: number): number | null {
  return osAbi === 64 ? abiVersion + 2 : null;
}

function occupancyOf(
  k: KernelMetadata,
  limits: NonNullable<ReturnType<typeof limitsFor>>,
  options: ReadOptions,
): OccupancyEstimate | null {
  if (k.vgprCount === null || k.sgprCount === null) return null;
  const reqd = k.reqdWorkgroupSize ? k.reqdWorkgroupSize[0] * k.reqdWorkgroupSize[1] * k.reqdWorkgroupSize[2] : 0;
  const [workgroupSize, workgroupSizeFrom] = options.workgroupSize
    ? [options.workgroupSize, 'given' as const]
    : reqd > 0
      ? [reqd, 'reqd_workgroup_size' as const]
      : [k.maxFlatWorkgroupSize ?? 1024, 'max_flat_workgroup_size' as const];
  return estimateOccupancy(limits, {
    vgprCount: k.vgprCount,
    sgprCount: k.sgprCount,
    ldsBytes: k.ldsBytes ?? 0,
    workgroupSize,
    workgroupSizeFrom,
  });
}

async function looksLikeZip(path: string): Promise<boolean> {
  if (/\.zip$/i.test(path)) return true;
  const fh = await open(path, 'r');
  try {
    const b = Buffer.alloc(4);
    await fh.read(b, 0, 4, 0);
    return b[0] === 0x50 && b[1] === 0x4b && b[2] === 3 && b[3] === 4;
  } finally {
    await fh.close();
  }
}
