/**
 * A file is not a code object we can read (not an ELF, not AMDGPU, truncated, no metadata note, garbled msgpack).
 * The message is one line that names the file and what is wrong with it, fit to print as a CLI error.
 */
import { KernelRunnerError } from '../../core/errors';
export class CodeObjectError extends KernelRunnerError {
  override readonly name = 'CodeObjectError';
  readonly code = 'TRACE_CODE_OBJECT';
  readonly type = 'code-object' as const;
  constructor(
    message: string,
    readonly file: string,
  ) {
    super(message);
  }
}
