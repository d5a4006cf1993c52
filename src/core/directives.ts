// `#!POPCORN leaderboard <name>` / `#!POPCORN gpu <GPU>` directives (`//!POPCORN` in C++ files), read with the
// server's rules (kernelbot: first comment block only, strict) or popcorn-cli's (every comment line, lenient),
// and written back for the editor's leaderboard/GPU picker. Rules: shared/docs/gpumode-api.md "Directives".
//
// Lines are split at LF, CRLF or a lone CR, as editors number them (Python's splitlines() also breaks at a few
// rare separators such as \f and U+2028; a first comment block holding those is not worth matching).

type DirectiveErrorCode =
  'missing-argument' | 'unknown-directive' | 'repeated-directive' | 'leaderboard-mismatch' | 'multiple-gpus';

interface DirectiveError {
  code: DirectiveErrorCode;
  /** 1-based line of the offending directive (editor ranges: line - 1). */
  line: number;
  /** The reason in upstream's words, e.g. "Found multiple values for !POPCORN directive gpus". */
  reason: string;
  /** `file:line: reason`, for logs and HTTP error details. */
  message: string;
}

interface DirectiveEntry {
  /** 1-based line. */
  line: number;
  /** Lower-cased keyword; `gpu` is reported as `gpus` (both spellings mean the same). */
  keyword: string;
  values: string[];
}

export interface Directives {
  leaderboard?: string;
  gpus: string[];
  errors: DirectiveError[];
  /** Every directive line that was read, in order (for editor decorations). */
  entries: DirectiveEntry[];
}

const MARKERS = new Set(['#!POPCORN', '//!POPCORN']);

function splitLines(source: string): string[] {
  return source.split(/\r\n|\r|\n/);
}

const isCommentLine = (line: string) => line.startsWith('#') || line.startsWith('//');
const words = (line: string) => line.split(/\s+/).filter((w) => w !== '');
const normaliseKeyword = (k: string) => (k.toLowerCase() === 'gpu' ? 'gpus' : k.toLowerCase());

/**
 * The server's rules (kernelbot `_get_popcorn_directives` + `handle_popcorn_directives`): only the first block of
 * lines starting with `#` or `//` (a blank or code line ends it; a leading BOM means there is no block); the
 * marker is case-sensitive, the keyword is not; `gpu`/`gpus` take a list; an unknown or repeated directive or a
 * missing argument is an error, and so is a leaderboard directive differing from `expectedLeaderboard` (the URL's).
 * Upstream stops at the first error; all of them are reported here.
 */
export function parseDirectivesServer(
  source: string,
  fileName: string,
  options: { expectedLeaderboard?: string } = {},
): Directives {
  const result: Directives = { gpus: [], errors: [], entries: [] };
  const error = (code: DirectiveErrorCode, line: number, reason: string) =>
    result.errors.push({ code, line, reason, message: `${fileName}:${line}: ${reason}` });
  const seen = new Map<string, number>();
  let leaderboardLine = 0;
  const lines = splitLines(source);
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] as string;
    if (!isCommentLine(text)) break;
    const args = words(text);
    if (!MARKERS.has(args[0] ?? '')) continue;
    const line = i + 1;
    if (args.length < 3) {
      error('missing-argument', line, `!POPCORN directive missing argument: ${text}`);
      continue;
    }
    const keyword = normaliseKeyword(args[1] as string);
    result.entries.push({ line, keyword, values: args.slice(2) });
    if (keyword !== 'gpus' && keyword !== 'leaderboard') {
      error('unknown-directive', line, `Invalid !POPCORN directive: ${keyword}`);
      continue;
    }
    if (seen.has(keyword)) {
      error(
        'repeated-directive',
        line,
        `Found multiple values for !POPCORN directive ${keyword} (first on line ${seen.get(keyword)})`,
      );
      continue;
    }
    seen.set(keyword, line);
    if (keyword === 'gpus') {
      result.gpus = args.slice(2);
    } else {
      result.leaderboard = args[2];
      leaderboardLine = line;
    }
  }
  const expected = options.expectedLeaderboard;
  if (expected !== undefined && result.leaderboard !== undefined && result.leaderboard !== expected) {
    error(
      'leaderboard-mismatch',
      leaderboardLine,
      `Leaderboard name \`${expected}\` specified in the command doesn't match the one in the submission script header \`${result.leaderboard}\`.`,
    );
  }
  return result;
}

/**
 * popcorn-cli's rules: every line starting with `#` or `//`, anywhere in the file; marker case-sensitive,
 * keyword not; the last directive of a kind wins; a leaderboard directive without a name is ignored; more than
 * one GPU is an error (reported on the line that listed them; `gpus` keeps them all).
 */
export function parseDirectivesClient(source: string): Directives {
  const result: Directives = { gpus: [], errors: [], entries: [] };
  let gpusLine = 0;
  const lines = splitLines(source);
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] as string;
    if (!isCommentLine(text)) continue;
    const args = words(text);
    if (args.length < 2 || !MARKERS.has(args[0] as string)) continue;
    const keyword = normaliseKeyword(args[1] as string);
    const line = i + 1;
    result.entries.push({ line, keyword, values: args.slice(2) });
    if (keyword === 'gpus') {
      result.gpus = args.slice(2);
      gpusLine = line;
    } else if (keyword === 'leaderboard' && args.length > 2) {
      result.leaderboard = args[2];
    }
  }
  if (result.gpus.length > 1) {
    const reason = `Only one GPU can be used per submission; the directive lists ${result.gpus.length}: ${result.gpus.join(', ')}`;
    result.errors.push({ code: 'multiple-gpus', line: gpusLine, reason, message: `line ${gpusLine}: ${reason}` });
  }
  return result;
}

const CPP_EXTENSIONS = /\.(?:cu|cuh|cpp|cc|cxx|c|h|hh|hpp|hip)$/i;

/** `//!POPCORN` for C/C++/CUDA/HIP sources (a `#!` line would not compile there), `#!POPCORN` otherwise. */
export function directiveMarker(fileName: string): '#!POPCORN' | '//!POPCORN' {
  return CPP_EXTENSIONS.test(fileName) ? '//!POPCORN' : '#!POPCORN';
}

/**
 * Sets the leaderboard and/or GPU directives of a source so that both the server and popcorn-cli read exactly
 * these values: the first such directive in the first comment block is rewritten in place, every other one
 * (repeats, or ones further down that popcorn-cli would read) is removed, and a missing one is inserted at the
 * top of the file, after a shebang and a Python coding line. Line endings and everything else stay as they were.
 */
export function upsertDirectives(
  source: string,
  fileName: string,
  values: { leaderboard?: string; gpu?: string },
): string {
  const marker = directiveMarker(fileName);
  const eol = /\r\n|\r|\n/.exec(source)?.[0] ?? '\n';
  const wanted: Array<{ keyword: string; line: string }> = [];
  if (values.leaderboard !== undefined) {
    wanted.push({
      keyword: 'leaderboard',
      line: `${marker} leaderboard ${checkValue('leaderboard', values.leaderboard)}`,
    });
  }
  if (values.gpu !== undefined)
    wanted.push({ keyword: 'gpus', line: `${marker} gpu ${checkValue('gpu', values.gpu)}` });
  if (wanted.length === 0) return source;

  const lines: Array<string | null> = source === '' ? [] : splitLines(source);
  let blockEnd = 0;
  while (blockEnd < lines.length && isCommentLine(lines[blockEnd] as string)) blockEnd++;
  const keywordAt = (text: string): string | undefined => {
    if (!isCommentLine(text)) return undefined;
    const args = words(text);
    return args.length >= 2 && MARKERS.has(args[0] as string) ? normaliseKeyword(args[1] as string) : undefined;
  };

  const missing: string[] = [];
  for (const { keyword, line: replacement } of wanted) {
    let placed = false;
    for (let i = 0; i < lines.length; i++) {
      const text = lines[i];
      if (text === null || text === undefined || keywordAt(text) !== keyword) continue;
      if (!placed && i < blockEnd) {
        lines[i] = replacement;
        placed = true;
      } else {
        lines[i] = null; // removed below
      }
    }
    if (!placed) missing.push(replacement);
  }
  // Keep directives together: after the last one left in the first block, else at the top.
  let insertAt = 0;
  for (let i = 0; i < blockEnd; i++) {
    const text = lines[i];
    if (text !== null && text !== undefined && keywordAt(text) !== undefined) insertAt = i + 1;
  }
  if (insertAt === 0) {
    while (insertAt < Math.min(2, lines.length) && isPreamble(lines[insertAt] ?? '', insertAt)) insertAt++;
  }
  // Slice at the original index first, then drop the removed lines, so the insertion point does not move.
  const kept = lines.slice(0, insertAt).filter((l): l is string => l !== null);
  const rest = lines.slice(insertAt).filter((l): l is string => l !== null);
  const text = [...kept, ...missing, ...rest].join(eol);
  // Appended at the very end (empty file, or a last line without terminator): end the new line properly.
  return rest.length === 0 && missing.length > 0 ? text + eol : text;
}

/** A shebang, or a Python coding declaration (PEP 263: line 1 or 2), must stay where it is. */
function isPreamble(line: string, index: number): boolean {
  if (index === 0 && line.startsWith('#!') && !line.startsWith('#!POPCORN')) return true;
  return /^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+/.test(line);
}

function checkValue(what: string, value: string): string {
  if (value === '' || /\s/.test(value))
    throw new RangeError(`A ${what} name must be one word, got ${JSON.stringify(value)}`);
  return value;
}
