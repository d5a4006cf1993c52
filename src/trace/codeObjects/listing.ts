// The instructions of an llvm-objdump listing run with `--line-numbers` (`-l`): each instruction's byte offset in
// the code object (objdump's `// 000000001900: C0060080 ...` comment: a code object is loaded at 0, so the address
// is the offset rocprofiler-sdk reports as `code_object_offset`) and the source line of the DWARF line table that
// objdump prints above it (`; /path/kernel.hip:6`). Code built without line info gets no `; file:line` lines: every
// instruction then has file and line null.

export interface ListedInstruction {
  /** 0-based line of the listing text the instruction is on. */
  row: number;
  offset: number;
  /** The instruction as objdump decodes it, spaces collapsed: `s_waitcnt vmcnt(0)`. */
  text: string;
  file: string | null;
  /** null for line 0 (compiler-generated code) and without line info. */
  line: number | null;
}

const FUNCTION_START = /^[0-9a-f]+ <.*>:$/;
const SOURCE_LINE = /^; (.+):(\d+)$/;
const INSTRUCTION = /^\s+(\S.*?)\s*\/\/ ([0-9A-Fa-f]+):/;

/** Every instruction of the listing with its offset and source line, in listing order. */
export function parseListing(listing: string): ListedInstruction[] {
  const out: ListedInstruction[] = [];
  let file: string | null = null;
  let line: number | null = null;
  listing.split('\n').forEach((text, row) => {
    if (FUNCTION_START.test(text)) {
      file = null;
      line = null;
      return;
    }
    const src = SOURCE_LINE.exec(text);
    if (src) {
      file = src[1]!;
      line = Number(src[2]) || null;
      return;
    }
    const inst = INSTRUCTION.exec(text);
    if (inst) out.push({ row, offset: parseInt(inst[2]!, 16), text: normaliseInstruction(inst[1]!), file, line });
  });
  return out;
}

/** One spelling for comparing objdump's text with a sample's `Instruction`. */
function normaliseInstruction(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}
