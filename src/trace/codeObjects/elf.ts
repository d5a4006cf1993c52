// The little of ELF64 (little-endian) that code objects need: the header, section headers and their names, and
// the notes (from SHT_NOTE sections, or PT_NOTE segments when there are no section headers). Every read is
// bounds-checked against the buffer and every count and size is checked before it is used, so a truncated or
// hostile file ends in an ElfFormatError, never in a RangeError, a huge allocation or a long loop.
// Layouts: the System V gABI, "ELF-64 Object File Format"; AMDGPU specifics: LLVM's AMDGPUUsage ("ELF Code Object").
import { KernelRunnerError } from '../../core/errors';

export class ElfFormatError extends KernelRunnerError {
  override readonly name = 'ElfFormatError';
  readonly code = 'TRACE_ELF_FORMAT';
}

export const EM_AMDGPU = 224;
const SHT_NOTE = 7;
const PT_NOTE = 4;
const SHDR_SIZE = 64;
const PHDR_SIZE = 56;
/** Far more than any code object has; a header claiming more is garbage. */
const MAX_SECTIONS = 65535;
const MAX_NOTES = 4096;

interface ElfSection {
  name: string;
  type: number;
  offset: number;
  size: number;
  align: number;
}

export interface ElfNote {
  owner: string;
  type: number;
  desc: Buffer;
}

export interface ElfFile {
  machine: number;
  /** e_ident[EI_OSABI]: 64 is ELFOSABI_AMDGPU_HSA. */
  osAbi: number;
  abiVersion: number;
  flags: number;
  sections: ElfSection[];
  /** The bytes of a section, checked to lie inside the file. */
  sectionData(section: ElfSection): Buffer;
  notes(): ElfNote[];
}

export function isElf(buf: Buffer): boolean {
  return buf.length >= 4 && buf[0] === 0x7f && buf[1] === 0x45 && buf[2] === 0x4c && buf[3] === 0x46;
}

export function parseElf(buf: Buffer): ElfFile {
  if (!isElf(buf)) throw new ElfFormatError('not an ELF file (no \\x7fELF magic)');
  if (buf.length < 64) throw new ElfFormatError(`truncated ELF header (${buf.length} bytes, 64 needed)`);
  if (buf[4] !== 2) throw new ElfFormatError(`not a 64-bit ELF (EI_CLASS ${buf[4]})`);
  if (buf[5] !== 1) throw new ElfFormatError(`not a little-endian ELF (EI_DATA ${buf[5]})`);
  const osAbi = buf[7] ?? 0;
  const abiVersion = buf[8] ?? 0;
  const machine = buf.readUInt16LE(18);
  const phoff = u64(buf, 32, 'e_phoff');
  const shoff = u64(buf, 40, 'e_shoff');
  const flags = buf.readUInt32LE(48);
  const phentsize = buf.readUInt16LE(54);
  const phnum = buf.readUInt16LE(56);
  const shentsize = buf.readUInt16LE(58);
  let shnum = buf.readUInt16LE(60);
  let shstrndx = buf.readUInt16LE(62);

  const sections: ElfSection[] = [];
  const rawSections: Array<Omit<ElfSection, 'name'> & { nameOffset: number }> = [];
  if (shoff !== 0) {
    if (shentsize !== SHDR_SIZE) throw new ElfFormatError(`section header size ${shentsize}, expected ${SHDR_SIZE}`);
    // e_shnum 0 with sections present means "the count is in section 0's sh_size" (gABI extended numbering)
    if (shnum === 0) {
      need(buf, shoff, SHDR_SIZE, 'section header 0');
      const big = u64(buf, shoff + 32, 'sh_size of section 0');
      if (big > MAX_SECTIONS) throw new ElfFormatError(`${big} sections claimed`);
      shnum = big;
    }
    if (shstrndx === 0xffff) {
      need(buf, shoff, SHDR_SIZE, 'section header 0');
      shstrndx = buf.readUInt32LE(shoff + 40);
    }
    need(buf, shoff, shnum * SHDR_SIZE, `${shnum} section headers`);
    for (let i = 0; i < shnum; i++) {
      const at = shoff + i * SHDR_SIZE;
      rawSections.push({
        nameOffset: buf.readUInt32LE(at),
        type: buf.readUInt32LE(at + 4),
        offset: u64(buf, at + 24, 'sh_offset'),
        size: u64(buf, at + 32, 'sh_size'),
        align: u64(buf, at + 48, 'sh_addralign'),
      });
    }
    const strtab = rawSections[shstrndx];
    const names =
      strtab && strtab.type !== 8 /* SHT_NOBITS */
        ? slice(buf, strtab.offset, strtab.size, 'section name table')
        : undefined;
    for (const raw of rawSections) {
      const { nameOffset, ...rest } = raw;
      sections.push({ ...rest, name: names ? cString(names, nameOffset) : '' });
    }
  }

  const sectionData = (section: ElfSection): Buffer => {
    if (section.type === 8) return Buffer.alloc(0);
    return slice(buf, section.offset, section.size, `section ${section.name || '(unnamed)'}`);
  };

  const notes = (): ElfNote[] => {
    const out: ElfNote[] = [];
    const noteSections = sections.filter((s) => s.type === SHT_NOTE);
    if (noteSections.length > 0) {
      for (const s of noteSections) readNotes(sectionData(s), s.align === 8 ? 8 : 4, out);
      return out;
    }
    if (phoff === 0 || phnum === 0) return out;
    if (phentsize !== PHDR_SIZE) throw new ElfFormatError(`program header size ${phentsize}, expected ${PHDR_SIZE}`);
    need(buf, phoff, phnum * PHDR_SIZE, `${phnum} program headers`);
    for (let i = 0; i < phnum; i++) {
      const at = phoff + i * PHDR_SIZE;
      if (buf.readUInt32LE(at) !== PT_NOTE) continue;
      const offset = u64(buf, at + 8, 'p_offset');
      const size = u64(buf, at + 32, 'p_filesz');
      const align = u64(buf, at + 48, 'p_align');
      readNotes(slice(buf, offset, size, 'note segment'), align === 8 ? 8 : 4, out);
    }
    return out;
  };

  return { machine, osAbi, abiVersion, flags, sections, sectionData, notes };
}

/** Note entries: namesz, descsz, type (u32 each), then the name and the descriptor, each padded to `align`. */
function readNotes(data: Buffer, align: number, out: ElfNote[]): void {
  let at = 0;
  while (at + 12 <= data.length) {
    if (out.length >= MAX_NOTES) throw new ElfFormatError(`more than ${MAX_NOTES} notes`);
    const namesz = data.readUInt32LE(at);
    const descsz = data.readUInt32LE(at + 4);
    const type = data.readUInt32LE(at + 8);
    const nameAt = at + 12;
    const descAt = nameAt + pad(namesz, align);
    const end = descAt + pad(descsz, align);
    if (descAt + descsz > data.length || nameAt + namesz > data.length) {
      throw new ElfFormatError(
        `note at offset ${at} runs past its section (name ${namesz} bytes, descriptor ${descsz} bytes)`,
      );
    }
    out.push({
      owner: cString(data.subarray(nameAt, nameAt + namesz), 0),
      type,
      desc: data.subarray(descAt, descAt + descsz),
    });
    at = end;
  }
}

function pad(n: number, align: number): number {
  return Math.ceil(n / align) * align;
}

function u64(buf: Buffer, at: number, what: string): number {
  const v = buf.readBigUInt64LE(at);
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new ElfFormatError(`${what} ${v} is beyond any file`);
  return Number(v);
}

function need(buf: Buffer, offset: number, size: number, what: string): void {
  if (offset < 0 || size < 0 || offset + size > buf.length) {
    throw new ElfFormatError(
      `${what} at offset ${offset} (${size} bytes) runs past the end of the file (${buf.length} bytes)`,
    );
  }
}

function slice(buf: Buffer, offset: number, size: number, what: string): Buffer {
  need(buf, offset, size, what);
  return buf.subarray(offset, offset + size);
}

function cString(buf: Buffer, at: number): string {
  if (at >= buf.length) return '';
  const end = buf.indexOf(0, at);
  return buf.toString('utf8', at, end === -1 ? buf.length : end);
}
