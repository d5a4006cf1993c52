/**
 * A file is not a code object we can read (not an ELF, not AMDGPU, truncated, no metadata note, garbled msgpack).
 * The message is one line that names the file and what is wrong with it, fit to print as a CLI error.
 */
export class CodeObjectError extends Error {
  readonly type = 'code-object' as const;
  constructor(
    message: string,
    readonly file: string,
  ) {
    super(message);
    this.name = 'CodeObjectError';
  }
}
