// The file a submission sends (`kernel-runner submit FILE`, the MCP `submit` tool's `file`): opened without
// blocking and refused unless it is a regular file (trace/regularFile.ts), then refused on its size alone when it is
// over the service's limit, with the pre-flight check's own words, before a byte of it is read: a 200 MB file is
// answered at once instead of after reading, scanning and uploading it to hear the same 413.
import path from 'node:path';
import { KernelRunnerError } from '../core/errors';
import { sizeRefusal } from '../core/submissionChecks';
import { TraceInputError } from '../trace/errors';
import { openRegularFile, readOpened } from '../trace/regularFile';

/** Why the file is not sent: its message is the whole answer, the same on every front-end. */
export class SubmissionFileError extends KernelRunnerError {
  override readonly name = 'SubmissionFileError';
  constructor(
    message: string,
    /** `rejected`: the service would refuse it (too large); `usage`: it cannot be read as a file. */
    readonly code: 'SUBMISSION_REJECTED' | 'SUBMISSION_USAGE',
  ) {
    super(message);
  }
}

/** The file's bytes. `file` is named in messages as given; a relative one is taken from `cwd`. */
export async function readSubmissionFile(file: string, cwd = process.cwd()): Promise<Buffer> {
  const absolute = path.resolve(cwd, file);
  let opened: Awaited<ReturnType<typeof openRegularFile>>;
  try {
    opened = await openRegularFile(absolute, 'a kernel file');
  } catch (err) {
    if (!(err instanceof TraceInputError)) throw err;
    // the helper names the absolute path; the user knows the file by what they typed
    const reason = err.message.startsWith(`${absolute}: `) ? err.message.slice(absolute.length + 2) : err.message;
    throw new SubmissionFileError(`cannot read ${file}: ${reason}`, 'SUBMISSION_USAGE');
  }
  const { handle, size } = opened;
  try {
    const refused = sizeRefusal(file, size);
    if (refused) throw new SubmissionFileError(refused, 'SUBMISSION_REJECTED');
    return await readOpened(handle, size);
  } finally {
    await handle.close();
  }
}
