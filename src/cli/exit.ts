/** Thrown by commands to end the CLI with a one-line message and a chosen exit code (2 = bad input). */
export class CliExit extends Error {
  readonly type = 'cli-exit' as const;
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}
