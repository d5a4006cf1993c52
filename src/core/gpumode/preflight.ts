// Everything the service would reject a file for, found before anything is sent: upstream's upload checks (empty,
// over 1 MB, not UTF-8, extension, the `stream` keyword) and its directive rules (first comment block; unknown,
// repeated or mismatching directives). One module, two readings that the front-ends render:
// - preflightSubmission: GPU MODE's own checks as `file:line:col: message` lines (the submission workflow's
//   refusal when no `check` is given, the CLI) and the directives as the server reads them;
// - preflight: the editor's problems with ranges, severities and whether they block a run (diagnostics.ts shows
//   them, and a run's `check` refuses with describeBlocking), so what the Problems panel shows is exactly what stops
//   a run; it also warns where popcorn-cli and the server read the directives differently, and knows our runner's
//   `script` leaderboard.
import path from 'node:path';
import { parseDirectivesClient, parseDirectivesServer, type Directives } from '../directives';
import { SCRIPT_LEADERBOARD } from '../protocol/api';
import { checkSubmission, SCRIPT_EXTRA_EXTENSIONS, type SubmissionProblem } from '../submissionChecks';

interface PreflightProblem {
  source: 'upload' | 'directive';
  code: string;
  /** 1-based, when the problem has a place. */
  line?: number;
  column?: number;
  message: string;
  /** `file:line:col: message` (or `file: message`). */
  text: string;
}

export interface PreflightResult {
  problems: PreflightProblem[];
  /** The directives as the server reads them (leaderboard, gpus). */
  directives: Directives;
}

/**
 * @param file the file's path as the user knows it (messages use it; the extension check uses its base name)
 * @param options.leaderboard the leaderboard the file goes to, when chosen outside the file (a differing directive is an error)
 */
export function preflightSubmission(
  file: string,
  bytes: Uint8Array,
  options: { leaderboard?: string } = {},
): PreflightResult {
  const problems: PreflightProblem[] = [];
  for (const p of checkSubmission(path.basename(file), bytes)) {
    const where = p.line !== undefined ? `${file}:${p.line}${p.column !== undefined ? `:${p.column}` : ''}` : file;
    problems.push({
      source: 'upload',
      code: p.code,
      line: p.line,
      column: p.column,
      message: p.message,
      text: `${where}: ${p.message}`,
    });
  }
  const source = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  const directives = parseDirectivesServer(source, file, { expectedLeaderboard: options.leaderboard });
  for (const e of directives.errors) {
    problems.push({ source: 'directive', code: e.code, line: e.line, message: e.reason, text: e.message });
  }
  return { problems, directives };
}

export interface FileProblem {
  /** `directive/<code>` or the upload check's code (`stream-keyword`, `too-large`, ...). */
  code: string;
  severity: 'error' | 'warning';
  message: string;
  /** 0-based line and columns; `endColumn` undefined = to the end of the line. */
  line: number;
  startColumn: number;
  endColumn?: number;
  /** A run refuses to send the file while such a problem stands. */
  blocking: boolean;
}

export interface PreflightContext {
  /** The leaderboard the file goes to (directive, remembered choice or the picker), when known. */
  leaderboard?: string;
  /** The target is GPU MODE's public service: upstream's rules, no exceptions. */
  gpumode: boolean;
  /** The file's bytes on disk, when the editor's text is saved (the UTF-8 check needs them). */
  diskBytes?: Uint8Array;
}

const STREAM_WHY =
  'The server rejects any submission whose text contains "stream" in any case, anywhere (comments and names such as cudaStream_t or torch.cuda.Stream too).';

/** Everything to report for a file, in line order. */
export function preflight(fileName: string, text: string, ctx: PreflightContext): FileProblem[] {
  const problems: FileProblem[] = [...directiveProblems(fileName, text, ctx), ...uploadProblems(fileName, text, ctx)];
  return problems.sort((a, b) => a.line - b.line || a.startColumn - b.startColumn);
}

/** Whether the file carries `#!POPCORN` / `//!POPCORN` lines at all. */
export function hasDirectives(text: string): boolean {
  return /^(?:#|\/\/)!POPCORN\b/m.test(text);
}

function directiveProblems(fileName: string, text: string, ctx: PreflightContext): FileProblem[] {
  if (!hasDirectives(text)) return [];
  const out: FileProblem[] = [];
  const server = parseDirectivesServer(text, fileName, ctx.leaderboard ? { expectedLeaderboard: ctx.leaderboard } : {});
  for (const e of server.errors) {
    out.push({
      code: `directive/${e.code}`,
      severity: 'error',
      message: `${e.reason} (the server reads directives from the file's first comment block and rejects this)`,
      line: e.line - 1,
      startColumn: 0,
      blocking: true,
    });
  }
  const client = parseDirectivesClient(text);
  for (const e of client.errors) {
    out.push({
      code: `directive/${e.code}`,
      severity: 'error',
      message: e.reason,
      line: e.line - 1,
      startColumn: 0,
      blocking: true,
    });
  }
  // popcorn-cli reads directives anywhere; the server only in the first comment block: one further down means
  // different things to the two, so say so where it stands.
  const serverLines = new Set([...server.entries.map((x) => x.line), ...server.errors.map((x) => x.line)]);
  for (const entry of client.entries) {
    if (serverLines.has(entry.line)) continue;
    out.push({
      code: 'directive/outside-first-block',
      severity: 'warning',
      message:
        "This directive is outside the first comment block at the top of the file: GPU MODE's server ignores it (popcorn-cli still reads it). Move it up into the first block of comment lines.",
      line: entry.line - 1,
      startColumn: 0,
      blocking: false,
    });
  }
  return out;
}

function uploadProblems(fileName: string, text: string, ctx: PreflightContext): FileProblem[] {
  // Our runner's built-in `script` leaderboard runs any program: HIP sources and the word "stream" are fine there.
  const script = !ctx.gpumode && ctx.leaderboard === SCRIPT_LEADERBOARD;
  const sent = new TextEncoder().encode(text);
  const out: FileProblem[] = [];
  const found = checkSubmission(fileName, sent, script ? { extraExtensions: SCRIPT_EXTRA_EXTENSIONS } : {});
  for (const p of found) {
    if (script && p.code === 'stream-keyword') continue;
    out.push(toFileProblem(p, ctx));
  }
  // What is sent is the editor's text as UTF-8; a file saved in another encoding only matters to tools that send
  // the bytes as they are (popcorn-cli): a warning, not a refusal.
  if (ctx.diskBytes && !out.some((p) => p.code === 'not-utf8')) {
    const bad = checkSubmission(fileName, ctx.diskBytes).find((p) => p.code === 'not-utf8');
    if (bad) {
      out.push({
        code: 'not-utf8',
        severity: 'warning',
        message: `The file on disk is not valid UTF-8, which GPU MODE rejects ("${bad.message}"). Kernel Runner sends the editor's text as UTF-8; popcorn-cli would send the bytes as they are. Save the file with UTF-8 encoding.`,
        line: (bad.line ?? 1) - 1,
        startColumn: Math.max(0, (bad.column ?? 1) - 1),
        blocking: false,
      });
    }
  }
  return out;
}

function toFileProblem(p: SubmissionProblem, ctx: PreflightContext): FileProblem {
  const who = ctx.gpumode ? 'GPU MODE' : 'The runner (upstream rules)';
  const prefix = `${who} rejects this file (HTTP ${p.status}): `;
  const line = (p.line ?? 1) - 1;
  const startColumn = Math.max(0, (p.column ?? 1) - 1);
  switch (p.code) {
    case 'stream-keyword':
      return {
        code: p.code,
        severity: 'error',
        message: `${prefix}${p.message} ${STREAM_WHY}`,
        line,
        startColumn,
        endColumn: startColumn + 'stream'.length,
        blocking: true,
      };
    case 'not-utf8':
      return {
        code: p.code,
        severity: 'error',
        message: prefix + p.message,
        line,
        startColumn,
        endColumn: startColumn + 1,
        blocking: true,
      };
    default:
      return { code: p.code, severity: 'error', message: prefix + p.message, line: 0, startColumn: 0, blocking: true };
  }
}

/** One `file:line: message` line per blocking problem: what the workflow's `check` returns for its refusal. */
export function describeBlocking(problems: FileProblem[], fileName: string): string[] {
  return problems.filter((p) => p.blocking).map((p) => `${fileName}:${p.line + 1}: ${p.message}`);
}
