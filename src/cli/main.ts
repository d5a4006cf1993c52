import { Command, CommanderError } from 'commander';
import { CliExit } from './exit';
import { loadCommands } from './commands/index';
import { guardTerminalOutput } from './terminalOutput';
import { errorMessage } from '../core/errors';

export async function main(argv: string[]): Promise<number> {
  const program = new Command('kernel-runner')
    .description('Run and profile GPU kernels: runner service, submissions, trace summaries, log filtering.')
    .exitOverride()
    .showHelpAfterError();
  exitQuietlyWhenOutputCloses(argv[2]);
  if (argv[2] !== 'filter') {
    guardTerminalOutput(process.stdout);
    guardTerminalOutput(process.stderr);
  }
  try {
    // Only the command being run is loaded (commands/index.ts): a start-up cost of one command, not of all.
    for (const command of await loadCommands(argv.slice(2))) command.register(program);
    await program.parseAsync(argv, { from: 'node' });
    return process.exitCode === undefined ? 0 : Number(process.exitCode);
  } catch (err) {
    if (err instanceof CliExit) {
      if (err.message) process.stderr.write(`kernel-runner: ${err.message}\n`);
      return err.exitCode;
    }
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    process.stderr.write(`kernel-runner: ${errorMessage(err)}\n`);
    return 1;
  }
}

/**
 * The reader of our output went away (`kernel-runner summarize big.csv | head`): stop there, quietly and with the
 * status so far, as a Unix tool does, not with a stack trace. `serve` keeps serving and `filter` ends its own way.
 */
function exitQuietlyWhenOutputCloses(command: string | undefined): void {
  if (command === 'serve' || command === 'filter') return;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(process.exitCode === undefined ? 0 : Number(process.exitCode));
  });
}

const isEntry =
  typeof process.argv[1] === 'string' && /(?:^|[\\/])(cli\.cjs|main\.ts|kernel-runner)$/.test(process.argv[1]);
if (isEntry) {
  main(process.argv).then((code) => {
    process.exitCode = code;
  });
}
