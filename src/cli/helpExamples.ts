// Every command's --help ends with a few examples: what to type for the common cases (docs/cli.md has more, run
// from a clone). test/integration/cli-help.test.ts holds each example to the command's real options.

/** The text that ends a command's --help (`addHelpText('after', ...)`): example command lines, each with an optional `# comment`. */
export function examplesHelp(examples: readonly string[]): string {
  return `\nExamples:\n${examples.map((e) => `  ${e}`).join('\n')}`;
}
