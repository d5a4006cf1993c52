// `kernel-runner setup-agent [DIR]`: what a coding agent needs to use Kernel Runner in a project: an AGENTS.md
// section (how to run, profile and compare a kernel) and the MCP client configuration of VS Code
// (.vscode/mcp.json), Claude Code (.mcp.json), Cursor (.cursor/mcp.json) and Codex (~/.codex/config.toml, printed
// only: it is the user's file). Nothing is written without `write`; files are merged (other servers, comments and
// text kept, a kernel-runner entry of the user's own kept as it is), never replaced, and only inside DIR
// (projectFiles.ts). A --server URL's credentials never reach a file.
import { applyEdits, modify, parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { KernelRunnerError } from '../core/errors';
import path from 'node:path';
import { readProjectFiles, writeProjectFiles, type ProjectFile } from './projectFiles';

export interface AgentSetupOptions {
  /** The command that starts Kernel Runner (default `kernel-runner`). */
  command?: string;
  /** Extra `mcp` arguments, e.g. ['--server', 'gpumode']. Never a token. */
  mcpArgs?: string[];
}

const AGENTS_START = '<!-- kernel-runner:start -->';
const AGENTS_END = '<!-- kernel-runner:end -->';

function agentsSection(o: AgentSetupOptions = {}): string {
  const cmd = o.command ?? 'kernel-runner';
  return [
    AGENTS_START,
    '## GPU kernels: Kernel Runner',
    '',
    'Run, profile and compare kernels with the `kernel-runner` MCP server (tools below) or its CLI.',
    '',
    '- After every edit: `submit` with mode `test` (CLI: `' + cmd + ' submit FILE --mode test`). Fix failures first.',
    '- Where the time goes: `submit` with mode `profile`; read its `digest` (top kernels per benchmark case, launch',
    '  configuration, registers, LDS, occupancy, idle gaps, copies). CLI: `' + cmd + ' summarize TRACE.zip --digest`.',
    "- Is a change real: `compare` two result files (mode `benchmark`: Welch's test on the evaluator's timings) or two",
    '  traces (per-kernel spread). Trust only "faster" / "slower"; "no change detected" and "not enough runs to tell" are not wins.',
    '- Registers and occupancy of a kernel: `isa` on a profile zip or code object.',
    "- The evaluator's timings rank; the profiler's kernel durations explain. Submit mode `leaderboard` only when asked.",
    AGENTS_END,
    '',
  ].join('\n');
}

function server(o: AgentSetupOptions): { command: string; args: string[] } {
  return { command: o.command ?? 'kernel-runner', args: ['mcp', ...(o.mcpArgs ?? [])] };
}

function vscodeConfig(o: AgentSetupOptions = {}): object {
  return { servers: { 'kernel-runner': { type: 'stdio', ...server(o) } } };
}

/** Claude Code's .mcp.json and Cursor's .cursor/mcp.json: the same shape. */
function claudeConfig(o: AgentSetupOptions = {}): object {
  return { mcpServers: { 'kernel-runner': server(o) } };
}

function codexConfig(o: AgentSetupOptions = {}): string {
  const s = server(o);
  return `[mcp_servers.kernel-runner]\ncommand = ${JSON.stringify(s.command)}\nargs = [${s.args.map((a) => JSON.stringify(a)).join(', ')}]\n`;
}

/** Everything, printed: what --write would write, and the Codex lines to add by hand. */
export function renderSetup(dir: string, o: AgentSetupOptions = {}): string {
  return [
    `# AGENTS.md section (${path.join(dir, 'AGENTS.md')})`,
    agentsSection(o),
    `# VS Code (${path.join(dir, '.vscode', 'mcp.json')})`,
    JSON.stringify(vscodeConfig(o), null, 2),
    '',
    `# Claude Code (${path.join(dir, '.mcp.json')}) and Cursor (${path.join(dir, '.cursor', 'mcp.json')})`,
    JSON.stringify(claudeConfig(o), null, 2),
    '',
    '# Codex (~/.codex/config.toml: add by hand, setup-agent does not write your home folder)',
    codexConfig(o),
  ].join('\n');
}

export class AgentSetupError extends KernelRunnerError {
  override readonly name = 'AgentSetupError';
  readonly code = 'CLI_AGENT_SETUP';
}

/**
 * A --server value as it may be written into a file: a URL without user name, password, query or fragment (a token
 * there would end up in a repository), and what was left out, to tell the user.
 */
export function serverForFiles(server: string): { server: string; dropped: string[] } {
  let u: URL;
  try {
    u = new URL(server);
  } catch {
    return { server, dropped: [] };
  }
  const dropped: string[] = [];
  if (u.username || u.password) dropped.push('the user name and password');
  if (u.search) dropped.push('the query');
  if (u.hash) dropped.push('the fragment');
  if (dropped.length === 0) return { server, dropped };
  u.username = '';
  u.password = '';
  u.search = '';
  u.hash = '';
  return { server: u.toString(), dropped };
}

/** AGENTS.md with our section put in (replacing an earlier one between the markers), the rest kept. */
function mergeAgents(existing: string | undefined, section: string): string {
  if (!existing) return section;
  const start = existing.indexOf(AGENTS_START);
  const end = existing.indexOf(AGENTS_END);
  if (start !== -1 && end > start)
    return existing.slice(0, start) + section.trimEnd() + existing.slice(end + AGENTS_END.length);
  return `${existing.trimEnd()}\n\n${section}`;
}

interface JsonTarget {
  key: 'servers' | 'mcpServers';
  ours: Record<string, unknown>;
  /** VS Code reads its mcp.json as JSON with comments and trailing commas; Claude Code and Cursor read JSON. */
  comments: boolean;
}

/**
 * A config with our server under `key`: other servers, settings and comments kept (jsonc-parser edits the text in
 * place), a kernel-runner entry already there kept as it is (`kept`); text it cannot read is refused, untouched.
 */
function mergeJson(file: ProjectFile, t: JsonTarget): { text: string; kept: boolean } {
  const existing = file.text;
  if (existing === undefined || existing.trim() === '')
    return { text: `${JSON.stringify({ [t.key]: { 'kernel-runner': t.ours } }, null, 2)}\n`, kept: false };
  const errors: ParseError[] = [];
  const body: unknown = parse(existing, errors, { disallowComments: !t.comments, allowTrailingComma: t.comments });
  if (errors.length > 0) {
    const e = errors[0] as ParseError;
    const line = existing.slice(0, e.offset).split('\n').length;
    throw new AgentSetupError(
      `${file.abs}: not ${t.comments ? 'JSON with comments' : 'plain JSON'} (${printParseErrorCode(e.error)} on line ${line}); left as it is: add the kernel-runner server by hand (printed above)`,
    );
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new AgentSetupError(`${file.abs}: not a JSON object; left as it is`);
  const servers = (body as Record<string, unknown>)[t.key];
  if (servers !== undefined && (typeof servers !== 'object' || servers === null || Array.isArray(servers)))
    throw new AgentSetupError(`${file.abs}: "${t.key}" is not an object; left as it is`);
  if (servers && 'kernel-runner' in servers) return { text: existing, kept: true };
  const edits = modify(existing, [t.key, 'kernel-runner'], t.ours, {
    formattingOptions: { insertSpaces: true, tabSize: 2, eol: existing.includes('\r\n') ? '\r\n' : '\n' },
  });
  const text = applyEdits(existing, edits);
  return { text: text.endsWith('\n') ? text : `${text}\n`, kept: false };
}

export interface SetupWritten {
  /** Files written (changed). */
  written: string[];
  /** Configs whose own kernel-runner entry was kept as it is. */
  kept: string[];
}

/**
 * Writes AGENTS.md, .vscode/mcp.json, .mcp.json and .cursor/mcp.json in dir, all or none: every file is read and
 * merged, and every target checked, before any is written.
 */
export async function writeSetup(dir: string, o: AgentSetupOptions = {}): Promise<SetupWritten> {
  const [agents, vscode, claude, cursor] = (await readProjectFiles(dir, [
    'AGENTS.md',
    '.vscode/mcp.json',
    '.mcp.json',
    '.cursor/mcp.json',
  ])) as [ProjectFile, ProjectFile, ProjectFile, ProjectFile];
  const configs: Array<[ProjectFile, JsonTarget]> = [
    [vscode, { key: 'servers', ours: { type: 'stdio', ...server(o) }, comments: true }],
    [claude, { key: 'mcpServers', ours: server(o), comments: false }],
    [cursor, { key: 'mcpServers', ours: server(o), comments: false }],
  ];
  const outputs = [{ file: agents, text: mergeAgents(agents.text, agentsSection(o)) }];
  const kept: string[] = [];
  for (const [file, target] of configs) {
    const merged = mergeJson(file, target);
    if (merged.kept) kept.push(file.abs);
    outputs.push({ file, text: merged.text });
  }
  const changed = outputs.filter((x) => x.text !== x.file.text);
  await writeProjectFiles(dir, changed);
  return { written: changed.map((x) => x.file.abs), kept };
}
