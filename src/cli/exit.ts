import { KernelRunnerError } from '../core/errors';

/** Thrown by commands to end the CLI with a one-line message and a chosen exit code (2 = bad input). */
export class CliExit extends KernelRunnerError {
  override readonly name = 'CliExit';
  readonly code = 'CLI_EXIT';
  readonly type = 'cli-exit' as const;
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}
