// The source line of a sample from its Instruction_Comment: rocprofv3 writes `file:line` when the code object has
// line info, nothing when it has none, and `Unrecognized code object id, physical virtual address of PC:<n>` when
// the PC is in code it could not map (blit kernels, self-modifying code).

const UNRECOGNISED_PREFIX = 'Unrecognized code object id';

export interface SourceLine {
  file: string;
  line: number;
}

const FILE_LINE = /^(.+?):(\d{1,9})(?::\d{1,9})?$/;

/** `file:line` (or `file:line:column`) -> its parts; null for anything else. */
export function parseSourceLine(comment: string): SourceLine | null {
  const m = FILE_LINE.exec(comment);
  if (!m) return null;
  const line = Number(m[2]);
  return line > 0 ? { file: m[1] as string, line } : null;
}

export function isUnrecognisedCode(comment: string): boolean {
  return comment.startsWith(UNRECOGNISED_PREFIX);
}
