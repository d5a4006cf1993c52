// `kernel-runner setup-agent [DIR]`: prints (and with --write writes) an AGENTS.md section and the MCP client
// configuration for VS Code, Claude Code and Codex (src/cli/agentSetup.ts).
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { AgentSetupError, renderSetup, writeSetup } from '../agentSetup';
import { CliExit } from '../exit';
import { examplesHelp } from '../helpExamples';

interface SetupAgentCliOptions {
  write?: boolean;
  command?: string;
  server?: string;
}

export function register(program: Command): void {
  program
    .command('setup-agent')
    .description(
      'print an AGENTS.md section and the MCP client configs (VS Code .vscode/mcp.json, Claude Code .mcp.json, Codex) for coding agents; --write writes them into DIR',
    )
    .argument('[dir]', 'the project folder', '.')
    .option('--write', 'write AGENTS.md, .vscode/mcp.json and .mcp.json in DIR (merged: other servers and text kept)')
    .option('--command <cmd>', 'the command that starts Kernel Runner', 'kernel-runner')
    .option('--server <url>', 'have the MCP server submit to this runner (or `gpumode`) instead of an embedded one')
    .addHelpText(
      'after',
      examplesHelp([
        'kernel-runner setup-agent                          # print them',
        'kernel-runner setup-agent . --write --server gpumode',
      ]),
    )
    .action(async (dir: string, opts: SetupAgentCliOptions) => {
      const abs = path.resolve(dir);
      const isDir = await stat(abs).then(
        (s) => s.isDirectory(),
        () => false,
      );
      if (!isDir) throw new CliExit(`${dir}: not a folder`, 2);
      const o = {
        ...(opts.command ? { command: opts.command } : {}),
        ...(opts.server ? { mcpArgs: ['--server', opts.server] } : {}),
      };
      process.stdout.write(renderSetup(abs, o));
      if (!opts.write) {
        process.stdout.write(
          '\nNothing written: run again with --write to write the AGENTS.md section, .vscode/mcp.json and .mcp.json.\n',
        );
        return;
      }
      try {
        const files = await writeSetup(abs, o);
        process.stdout.write(`\nWrote ${files.map((f) => path.relative(process.cwd(), f) || f).join(', ')}.\n`);
      } catch (err) {
        if (err instanceof AgentSetupError) throw new CliExit(err.message, 2);
        throw err;
      }
    });
}
