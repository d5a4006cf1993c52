// What the MCP server sends for a tool call: the answer as compact JSON text (exactly the bytes a budget counts)
// and the same object as structuredContent; a budget that cannot be met is a tool error, never a success. Text an
// agent must read as data (program output, compiler errors) travels fenced.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { KernelRunnerError } from '../../core/errors';

/** The answer's JSON text as sent: compact, no indentation. */
export function answerJson(body: unknown): string {
  return JSON.stringify(body);
}

/**
 * Lines a program or compiler wrote, as one markdown fence an agent reads as data: the fence is longer than any
 * run of backticks inside, so nothing in the lines can close it. Empty for no lines.
 */
export function fenced(lines: readonly string[], label = 'untrusted-output'): string {
  if (lines.length === 0) return '';
  const text = lines.join('\n');
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${label}\n${text}\n${fence}`;
}

export class BudgetExceededError extends KernelRunnerError {
  override readonly name = 'BudgetExceededError';
  readonly code = 'CLI_MCP_TOOL';
}

/** Throws when the text sent would be over the budget asked for. */
export function checkBudget(text: string, maxBytes: number | undefined, what: string): void {
  if (maxBytes === undefined) return;
  const sent = Buffer.byteLength(text);
  if (sent > maxBytes)
    throw new BudgetExceededError(
      `${what} does not fit in max_bytes ${maxBytes}: its smallest form is ${sent} bytes; ask again with max_bytes >= ${sent}`,
    );
}

/** Replaces each secret (4 characters or more) in a text. */
export function redactText(text: string, secrets: readonly string[]): string {
  return secrets.reduce((t, s) => (s.length >= 4 ? t.split(s).join('[redacted]') : t), text);
}

/** A successful JSON answer: its compact text (redacted) and the same object as structuredContent. */
export function jsonResult(
  body: Record<string, unknown>,
  secrets: readonly string[],
  opts: { isError?: boolean; maxBytes?: number; what?: string; links?: CallToolResult['content'] } = {},
): CallToolResult {
  const text = redactText(answerJson(body), secrets);
  checkBudget(text, opts.maxBytes, opts.what ?? 'the answer');
  return {
    content: [{ type: 'text', text }, ...(opts.links ?? [])],
    // parsed back from the redacted text: what is structured is what was sent
    structuredContent: JSON.parse(text) as Record<string, unknown>,
    ...(opts.isError ? { isError: true } : {}),
  };
}

/** A tool error in words (redacted). */
export function errorResult(message: string, secrets: readonly string[]): CallToolResult {
  return { content: [{ type: 'text', text: redactText(message, secrets) }], isError: true };
}
