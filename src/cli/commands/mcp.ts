// `kernel-runner mcp`: a Model Context Protocol server over stdio for coding agents (src/cli/mcp/server.ts).
import type { Command } from 'commander';
import { TOKEN_FILE_HELP } from '../runnerToken';
import { examplesHelp } from '../helpExamples';

interface McpCliOptions {
  server?: string;
  token?: string;
  tokenFile?: string;
  out?: string;
}

export function register(program: Command): void {
  program
    .command('mcp')
    .description(
      'serve the Model Context Protocol over stdio for coding agents: submit, get_run, profile_digest, compare, isa, list_leaderboards (an embedded runner when --server is not given)',
    )
    .option(
      '--server <url>',
      "runner base URL, or `gpumode` for GPU MODE (with ~/.popcorn.yaml's cli_id); default: an embedded runner started on the first submit",
    )
    .option('--token <token>', "the runner's token; for GPU MODE, a cli_id instead of ~/.popcorn.yaml's")
    .option('--token-file <path>', TOKEN_FILE_HELP)
    .option('--out <dir>', 'where traces, digests and result files are saved (default: ./kernel-runner-traces)')
    .addHelpText(
      'after',
      examplesHelp([
        'kernel-runner mcp                                  # submissions go to an embedded runner',
        'kernel-runner mcp --server http://mi300-box:8787 --token-file ~/.mi300-token',
      ]),
    )
    .action(async (opts: McpCliOptions) => {
      const { runMcpServer } = await import('../mcp/server');
      await runMcpServer(opts);
    });
}
