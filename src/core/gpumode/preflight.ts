// Everything GPU MODE would reject a file for, found before anything is sent: upstream's upload checks (empty,
// over 1 MB, not UTF-8, extension, the `stream` keyword) and its directive rules (first comment block; unknown,
// repeated or mismatching directives). Each problem has a place where it can: for `file:line:col` messages and
// editor diagnostics.
import path from 'node:path';
import { parseDirectivesServer, type Directives } from '../directives';
import { checkSubmission } from '../submissionChecks';

export interface PreflightProblem {
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
export function preflightSubmission(file: string, bytes: Uint8Array, options: { leaderboard?: string } = {}): PreflightResult {
  const problems: PreflightProblem[] = [];
  for (const p of checkSubmission(path.basename(file), bytes)) {
    const where = p.line !== undefined ? `${file}:${p.line}${p.column !== undefined ? `:${p.column}` : ''}` : file;
    problems.push({ source: 'upload', code: p.code, line: p.line, column: p.column, message: p.message, text: `${where}: ${p.message}` });
  }
  const source = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  const directives = parseDirectivesServer(source, file, { expectedLeaderboard: options.leaderboard });
  for (const e of directives.errors) {
    problems.push({ source: 'directive', code: e.code, line: e.line, message: e.reason, text: e.message });
  }
  return { problems, directives };
}
