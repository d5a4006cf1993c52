// `kernel-runner setup-agent [DIR]`: prints (and with --write writes) an AGENTS.md section and the MCP client
// configuration for VS Code, Claude Code, Cursor and Codex (src/cli/agentSetup.ts).
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { AgentSetupError, renderSetup, serverForFiles, writeSetup } from '../agentSetup';
import { ProjectFileError } from '../projectFiles';
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
      'print an AGENTS.md section and the MCP client configs (VS Code .vscode/mcp.json, Claude Code .mcp.json, Cursor .cursor/mcp.json, Codex) for coding agents; --write writes them into DIR',
    )
    .argument('[dir]', 'the project folder', '.')
    .option(
      '--write',
      'write AGENTS.md, .vscode/mcp.json, .mcp.json and .cursor/mcp.json in DIR (merged: other servers, comments, text and your own kernel-runner entry kept; all or nothing; links refused)',
    )
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
      const server = opts.server ? serverForFiles(opts.server) : undefined;
      if (server && server.dropped.length > 0)
        process.stderr.write(
          `setup-agent: ${server.dropped.join(', ')} of the --server URL left out: credentials are never written into files (give the agent's MCP server KERNEL_RUNNER_TOKEN in its environment, or --token-file)\n`,
        );
      const o = {
        ...(opts.command ? { command: opts.command } : {}),
        ...(server ? { mcpArgs: ['--server', server.server] } : {}),
      };
      process.stdout.write(renderSetup(abs, o));
      if (!opts.write) {
        process.stdout.write(
          '\nNothing written: run again with --write to write the AGENTS.md section, .vscode/mcp.json, .mcp.json and .cursor/mcp.json.\n',
        );
        return;
      }
      try {
        const { written, kept } = await writeSetup(abs, o);
        const names = (files: string[]) => files.map((f) => path.relative(process.cwd(), f) || f).join(', ');
        process.stdout.write(written.length > 0 ? `\nWrote ${names(written)}.\n` : '\nEverything was up to date.\n');
        if (kept.length > 0)
          process.stdout.write(`Kept your own kernel-runner entry in ${names(kept)} (remove it to have it written).\n`);
      } catch (err) {
        if (err instanceof AgentSetupError || err instanceof ProjectFileError) throw new CliExit(err.message, 2);
        throw err;
      }
    });
}
