import { Command, CommanderError } from 'commander';
import { CliExit } from './exit';
import { commands } from './commands';

export async function main(argv: string[]): Promise<number> {
  const program = new Command('kernel-runner')
    .description('Run and profile GPU kernels: runner service, submissions, trace summaries, log filtering.')
    .exitOverride()
    .showHelpAfterError();
  for (const register of commands) register(program);
  try {
    await program.parseAsync(argv, { from: 'node' });
    return process.exitCode === undefined ? 0 : Number(process.exitCode);
  } catch (err) {
    if (err instanceof CliExit) {
      if (err.message) process.stderr.write(`kernel-runner: ${err.message}\n`);
      return err.code;
    }
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    process.stderr.write(`kernel-runner: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

const isEntry = typeof process.argv[1] === 'string' && /(?:^|[\\/])(cli\.cjs|main\.ts|kernel-runner)$/.test(process.argv[1]);
if (isEntry) {
  main(process.argv).then((code) => {
    process.exitCode = code;
  });
}
