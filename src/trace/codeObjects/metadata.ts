// The AMDGPU metadata note of a code object (v3 and later): a NT_AMDGPU_METADATA (32) note owned by "AMDGPU"
// whose descriptor is one msgpack map (LLVM AMDGPUUsage, "Code Object V3 Metadata" and later: amdhsa.version,
// amdhsa.target, amdhsa.kernels with .name, .symbol, .vgpr_count, .sgpr_count, .agpr_count,
// .group_segment_fixed_size, .private_segment_fixed_size, .wavefront_size, .max_flat_workgroup_size, ...).
import { decode } from '@msgpack/msgpack';
import { ElfFormatError, type ElfNote } from './elf';
import { METADATA_DECODE_LIMITS } from '../limits';

const NT_AMDGPU_METADATA = 32;

export interface KernelMetadata {
  name: string;
  /** The kernel descriptor symbol (`name.kd`). */
  symbol: string | null;
  vgprCount: number | null;
  sgprCount: number | null;
  /** Only targets with AccVGPRs (gfx908, gfx90a, gfx942, ...) record it. */
  agprCount: number | null;
  /** .group_segment_fixed_size: static LDS per workgroup (dynamic LDS comes on top at launch). */
  ldsBytes: number | null;
  /** .private_segment_fixed_size: scratch per work-item. */
  scratchBytes: number | null;
  wavefrontSize: number | null;
  maxFlatWorkgroupSize: number | null;
  reqdWorkgroupSize: [number, number, number] | null;
  kernargBytes: number | null;
  vgprSpillCount: number | null;
  sgprSpillCount: number | null;
  usesDynamicStack: boolean | null;
  language: string | null;
}

export interface CodeObjectMetadata {
  /** amdhsa.target, e.g. `amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-`; null before code object v4. */
  target: string | null;
  version: [number, number] | null;
  kernels: KernelMetadata[];
}

/** The msgpack descriptor of the metadata note; undefined when the code object has none. */
export function metadataNote(notes: readonly ElfNote[]): Buffer | undefined {
  return notes.find((n) => n.owner === 'AMDGPU' && n.type === NT_AMDGPU_METADATA)?.desc;
}

export function parseMetadata(desc: Buffer): CodeObjectMetadata {
  let doc: unknown;
  try {
    doc = decode(desc, METADATA_DECODE_LIMITS);
  } catch (err) {
    throw new ElfFormatError(`AMDGPU metadata note is not valid msgpack (${(err as Error).message})`);
  }
  if (!isMap(doc)) throw new ElfFormatError('AMDGPU metadata note is not a msgpack map');
  const kernelsNode = own(doc, 'amdhsa.kernels');
  if (!Array.isArray(kernelsNode)) throw new ElfFormatError('AMDGPU metadata has no amdhsa.kernels list');
  const kernels: KernelMetadata[] = [];
  for (const [i, k] of kernelsNode.entries()) {
    if (!isMap(k)) throw new ElfFormatError(`amdhsa.kernels[${i}] is not a map`);
    const name = str(k, '.name');
    if (name === null) throw new ElfFormatError(`amdhsa.kernels[${i}] has no .name`);
    const reqd = own(k, '.reqd_workgroup_size');
    kernels.push({
      name,
      symbol: str(k, '.symbol'),
      vgprCount: int(k, '.vgpr_count'),
      sgprCount: int(k, '.sgpr_count'),
      agprCount: int(k, '.agpr_count'),
      ldsBytes: int(k, '.group_segment_fixed_size'),
      scratchBytes: int(k, '.private_segment_fixed_size'),
      wavefrontSize: int(k, '.wavefront_size'),
      maxFlatWorkgroupSize: int(k, '.max_flat_workgroup_size'),
      reqdWorkgroupSize: triple(reqd),
      kernargBytes: int(k, '.kernarg_segment_size'),
      vgprSpillCount: int(k, '.vgpr_spill_count'),
      sgprSpillCount: int(k, '.sgpr_spill_count'),
      usesDynamicStack: bool(k, '.uses_dynamic_stack'),
      language: str(k, '.language'),
    });
  }
  const version = own(doc, 'amdhsa.version');
  return {
    target: str(doc, 'amdhsa.target'),
    version:
      Array.isArray(version) && version.length >= 2 && isCount(version[0]) && isCount(version[1])
        ? [version[0], version[1]]
        : null,
    kernels,
  };
}

type MsgMap = Record<string, unknown>;

function isMap(v: unknown): v is MsgMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

/** Own properties only: a key such as `__proto__` in the document must not reach an inherited value. */
function own(m: MsgMap, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(m, key) ? m[key] : undefined;
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function triple(v: unknown): [number, number, number] | null {
  if (!Array.isArray(v) || v.length !== 3) return null;
  const [x, y, z] = v as unknown[];
  return isCount(x) && isCount(y) && isCount(z) ? [x, y, z] : null;
}

function int(m: MsgMap, key: string): number | null {
  const v = own(m, key);
  return isCount(v) ? v : null;
}

function str(m: MsgMap, key: string): string | null {
  const v = own(m, key);
  return typeof v === 'string' ? v : null;
}

function bool(m: MsgMap, key: string): boolean | null {
  const v = own(m, key);
  return typeof v === 'boolean' ? v : typeof v === 'number' ? v !== 0 : null;
}
