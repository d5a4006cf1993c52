// The CLI's commands by name, each loaded only when asked for: `kernel-runner submit` evaluates the submit command
// and what it imports, not the runner behind `serve`, the trace readers (sql.js) behind `summarize`, the code object reader behind `isa`, the noise
// filter or the GPU MODE account commands. Each module exports `register(program)`, which declares the command
// (arguments, options, help) and its action. In the CLI bundle (scripts/build.mjs, CommonJS) esbuild keeps an
// `import()` lazy: the module is in the bundle but its body, and its imports', run when the import() does.
import type { Command } from 'commander';

export interface CommandModule {
  register(program: Command): void;
}

/** Add one line per command; help lists them in this order. */
const commands: ReadonlyArray<{ name: string; load: () => Promise<CommandModule> }> = [
  { name: 'filter', load: () => import('./filter') },
  { name: 'summarize', load: () => import('./summarize') },
  { name: 'compare', load: () => import('./compare') },
  { name: 'hotspots', load: () => import('./hotspots') },
  { name: 'isa', load: () => import('./isa') },
  { name: 'serve', load: () => import('./serve') },
  { name: 'submit', load: () => import('./submit') },
  { name: 'register', load: () => import('./register') },
  { name: 'submissions', load: () => import('./submissions') },
  { name: 'mcp', load: () => import('./mcp') },
  { name: 'setup-agent', load: () => import('./setupAgent') },
];

/** Whether `name` (the first argument) is one of the commands. */
export function isCommandName(name: string | undefined): boolean {
  return commands.some((c) => c.name === name);
}

/**
 * The command modules to register for these arguments (process.argv minus node and the script): just the named
 * command when the arguments start with one; every command otherwise (help, no or unknown command, options
 * first), so that help, errors and suggestions read as they always did.
 */
export async function loadCommands(args: readonly string[]): Promise<CommandModule[]> {
  const named = commands.find((c) => c.name === args[0]);
  return Promise.all((named ? [named] : commands).map((c) => c.load()));
}
