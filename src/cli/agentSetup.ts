// `kernel-runner setup-agent [DIR]`: what a coding agent needs to use Kernel Runner in a project: an AGENTS.md
// section (how to run, profile and compare a kernel) and the MCP client configuration of VS Code
// (.vscode/mcp.json), Claude Code (.mcp.json) and Codex (~/.codex/config.toml, printed only: it is the user's file).
// Nothing is written without `write`; files are merged (other servers and text kept), never replaced.
import { KernelRunnerError } from '../core/errors';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

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
    `# Claude Code (${path.join(dir, '.mcp.json')})`,
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

async function readIfThere(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
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

/** A JSON config with our server under `key`, other servers and settings kept; JSON it cannot read is refused, untouched. */
function mergeJson(file: string, existing: string | undefined, key: 'servers' | 'mcpServers', ours: object): string {
  let body: Record<string, unknown> = {};
  if (existing !== undefined && existing.trim() !== '') {
    try {
      body = JSON.parse(existing) as Record<string, unknown>;
    } catch (err) {
      throw new AgentSetupError(
        `${file}: not plain JSON (${(err as Error).message}); left as it is: add the kernel-runner server by hand (printed above)`,
      );
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new AgentSetupError(`${file}: not a JSON object; left as it is`);
  }
  const servers = (typeof body[key] === 'object' && body[key] !== null ? body[key] : {}) as Record<string, unknown>;
  return `${JSON.stringify({ ...body, [key]: { ...servers, ...(ours as Record<string, Record<string, unknown>>)[key] } }, null, 2)}\n`;
}

/** Writes AGENTS.md, .vscode/mcp.json and .mcp.json in dir; returns the files written. Reads all before writing any. */
export async function writeSetup(dir: string, o: AgentSetupOptions = {}): Promise<string[]> {
  const agents = path.join(dir, 'AGENTS.md');
  const vscode = path.join(dir, '.vscode', 'mcp.json');
  const claude = path.join(dir, '.mcp.json');
  const [a, v, c] = await Promise.all([readIfThere(agents), readIfThere(vscode), readIfThere(claude)]);
  const outputs: Array<[string, string]> = [
    [agents, mergeAgents(a, agentsSection(o))],
    [vscode, mergeJson(vscode, v, 'servers', vscodeConfig(o))],
    [claude, mergeJson(claude, c, 'mcpServers', claudeConfig(o))],
  ];
  await mkdir(path.dirname(vscode), { recursive: true });
  for (const [file, text] of outputs) await writeFile(file, text);
  return outputs.map(([file]) => file);
}
