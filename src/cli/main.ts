import { Command, CommanderError } from 'commander';
import { CliExit } from './exit';
import { isCommandName, loadCommands } from './commands/index';
import { examplesHelp } from './helpExamples';
import { guardTerminalOutput } from './terminalOutput';
import { errorMessage } from '../core/errors';

/**
 * The commander program for these arguments (process.argv minus node and the script): every command when none is
 * named (help, --version, an unknown one), else just the named one (commands/index.ts: a start-up cost of one
 * command, not of all). Tests read the commands and their options from it.
 */
export async function createProgram(args: readonly string[]): Promise<Command> {
  const program = new Command('kernel-runner')
    .description('Run and profile GPU kernels: runner service, submissions, trace summaries, log filtering.')
    .exitOverride()
    .showHelpAfterError()
    .addHelpText(
      'after',
      examplesHelp([
        'kernel-runner submit submission.py --mode benchmark       # on an embedded runner, with live output',
        'kernel-runner serve --host 0.0.0.0                         # a runner for others; prints its token once',
        'kernel-runner summarize kernel-runner-traces/              # what a profile spent its time on',
      ]),
    );
  // package.json is read only where no command is named, not on every command's start
  if (!isCommandName(args[0]))
    program.version((await import('../runner/paths')).packageVersion(), '-V, --version', 'print the version');
  for (const command of await loadCommands(args)) command.register(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  exitQuietlyWhenOutputCloses(argv[2]);
  if (argv[2] !== 'filter') {
    guardTerminalOutput(process.stdout);
    guardTerminalOutput(process.stderr);
  }
  try {
    const program = await createProgram(argv.slice(2));
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
