// Upstream's upload checks (kernelbot `to_submit_info` and `prepare_submission`, summarised in
// shared/docs/gpumode-api.md "Server-side checks"), used by our runner to answer as GPU MODE does and by the
// clients as a pre-flight check before anything is sent. Messages are upstream's own words.

import { MAX_SUBMISSION_BYTES } from './limits';
type SubmissionProblemCode = 'empty' | 'too-large' | 'not-utf8' | 'bad-extension' | 'stream-keyword';

export interface SubmissionProblem {
  code: SubmissionProblemCode;
  /** The HTTP status upstream answers with. */
  status: number;
  message: string;
  /** 1-based line (and column) for editor diagnostics, where the problem has a place. */
  line?: number;
  column?: number;
}

export interface SubmissionCheckOptions {
  /** Extensions accepted besides upstream's (our runner's `script` leaderboard adds `.hip`). */
  extraExtensions?: readonly string[];
}

/** `file_name.endswith((".py", ".cu", ".cuh", ".cpp"))`: case-sensitive, as upstream. */
const UPSTREAM_EXTENSIONS: readonly string[] = ['.py', '.cu', '.cuh', '.cpp'];
/** What our runner's `script` leaderboard accepts on top of upstream's extensions. */
export const SCRIPT_EXTRA_EXTENSIONS: readonly string[] = ['.hip'];

const STREAM_MESSAGE =
  'Your code contains work on another stream. This is not allowed and may result in your disqualification. ' +
  'If you think this is a mistake, please contact us.';
/** Editor diagnostics need a place for each hit; a file full of them does not need thousands. */
const MAX_STREAM_HITS = 100;

/**
 * Every problem upstream would reject this upload for, in upstream's order of checking (upstream stops at the
 * first; the first element here is what it would answer). An empty file reports only that.
 */
export function checkSubmission(
  fileName: string,
  bytes: Uint8Array,
  options: SubmissionCheckOptions = {},
): SubmissionProblem[] {
  if (bytes.length === 0) {
    return [{ code: 'empty', status: 400, message: 'Empty file submitted. Please provide a file with code.' }];
  }
  const problems: SubmissionProblem[] = [];
  const tooLarge = sizeProblem(bytes.length);
  if (tooLarge) problems.push(tooLarge);
  const text = decodeStrictUtf8(bytes);
  if (text === undefined) {
    const at = firstInvalidUtf8(bytes);
    problems.push({
      code: 'not-utf8',
      status: 400,
      message: 'Failed to decode submission file content as UTF-8.',
      ...at,
    });
  } else {
    problems.push(...findStreamKeyword(text));
  }
  const allowed = [...UPSTREAM_EXTENSIONS, ...(options.extraExtensions ?? [])];
  if (!allowed.some((ext) => fileName.endsWith(ext))) {
    problems.push({ code: 'bad-extension', status: 400, message: extensionMessage(options.extraExtensions ?? []) });
  }
  return problems;
}

/**
 * Upstream's 413 for a file of `size` bytes, or null when it fits: what the clients answer from a file's size alone,
 * before its bytes are read, and what checkSubmission says once they are.
 */
export function sizeProblem(size: number): SubmissionProblem | null {
  if (size <= MAX_SUBMISSION_BYTES) return null;
  return {
    code: 'too-large',
    status: 413,
    message: `Submission file is too large (limit: 1MB). This file has ${size.toLocaleString('en-US')} bytes; the limit is ${MAX_SUBMISSION_BYTES.toLocaleString('en-US')}.`,
  };
}

/** What a client says when it refuses `file` (named as the user knows it) on its size, before reading or sending it. */
export function sizeRefusal(file: string, size: number): string | null {
  const problem = sizeProblem(size);
  return problem ? `Not sent: ${file}: ${problem.message}` : null;
}

/**
 * Upstream rejects (HTTP 500) any submission whose lower-cased text contains "stream": it is a plain substring
 * test (`"stream" in submission_code.lower()`), not a word match, so `cudaStream_t`, `torch.cuda.Stream` and a
 * comment saying "upstream" are all rejected. We match it the same way so a pre-flight check predicts the
 * server's answer; every line with a hit is reported (up to MAX_STREAM_HITS).
 */
function findStreamKeyword(text: string): SubmissionProblem[] {
  if (!text.toLowerCase().includes('stream')) return [];
  const problems: SubmissionProblem[] = [];
  const lines = text.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length && problems.length < MAX_STREAM_HITS; i++) {
    const at = (lines[i] as string).toLowerCase().indexOf('stream');
    if (at >= 0)
      problems.push({ code: 'stream-keyword', status: 500, message: STREAM_MESSAGE, line: i + 1, column: at + 1 });
  }
  return problems;
}

function extensionMessage(extra: readonly string[]): string {
  const upstream = 'Please provide a Python (.py) or CUDA (.cu / .cuh / .cpp) file';
  return extra.length === 0 ? upstream : `${upstream}, or one of: ${extra.join(' / ')}`;
}

function decodeStrictUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Line and column (1-based, column in bytes) of the first byte that is not valid UTF-8. */
function firstInvalidUtf8(bytes: Uint8Array): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  let i = 0;
  const n = bytes.length;
  const at = () => ({ line, column: i - lineStart + 1 });
  while (i < n) {
    const b = bytes[i] as number;
    if (b < 0x80) {
      if (b === 0x0a) {
        line++;
        lineStart = i + 1;
      }
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f; // no UTF-16 surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f; // nothing above U+10FFFF
    } else return at();
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return at();
    }
    i += need + 1;
  }
  return at();
}
