// Whether a `kernel-runner ...` command line written in our docs or help is one the CLI accepts: real commands and
// subcommands, real options (a value where the option takes one), and as many arguments as the command takes.
// Checked against the commander program itself (src/cli/main.ts:createProgram), not against a copy of its help.
import type { Command } from 'commander';
import { createProgram } from '../../src/cli/main';

let program: Promise<Command> | undefined;

/** The CLI's program with every command registered (built once). */
export function cliProgram(): Promise<Command> {
  program ??= createProgram([]);
  return program;
}

/** Options whose value is something the command creates (an output folder), not a file that must exist. */
const OUTPUT_OPTIONS = new Set(['--out', '--data-dir']);

export interface Invocation {
  /** The command path, e.g. `submissions show`; empty for the program itself. */
  command: string;
  /** What is wrong with the line; empty when the CLI accepts it. */
  problems: string[];
  /** Arguments and option values that name inputs (files the line reads, or anything else: the caller decides). */
  inputs: string[];
  /** Option values that name what the command creates (`--out DIR`). */
  outputs: string[];
}

/** Checks the words after `kernel-runner` (already split as a shell would, quotes removed). */
export function checkInvocation(root: Command, words: readonly string[]): Invocation {
  const problems: string[] = [];
  const inputs: string[] = [];
  const outputs: string[] = [];
  let cmd = root;
  let i = 0;
  const path: string[] = [];
  for (; i < words.length; i++) {
    const sub = cmd.commands.find((c) => c.name() === words[i] || c.aliases().includes(words[i] as string));
    if (!sub) break;
    cmd = sub;
    path.push(sub.name());
  }
  const positionals: string[] = [];
  for (; i < words.length; i++) {
    const word = words[i] as string;
    if (!word.startsWith('-') || word === '-') {
      positionals.push(word);
      continue;
    }
    const [flag, inline] = word.includes('=')
      ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]
      : [word, undefined];
    const option = cmd.options.find((o) => o.long === flag || o.short === flag);
    if (!option) {
      if (flag !== '-h' && flag !== '--help')
        problems.push(`${['kernel-runner', ...path].join(' ')}: no option ${flag}`);
      continue;
    }
    if (!option.required && !option.optional) {
      if (inline !== undefined) problems.push(`${flag} takes no value`);
      continue;
    }
    const value = inline ?? words[++i];
    if (value === undefined || (inline === undefined && option.required && value.startsWith('-'))) {
      problems.push(`${flag} needs a value`);
      continue;
    }
    (OUTPUT_OPTIONS.has(flag) ? outputs : inputs).push(value);
  }
  const args = cmd.registeredArguments;
  if (cmd === root || (cmd.commands.length > 0 && args.length === 0)) {
    if (positionals.length > 0) problems.push(`${['kernel-runner', ...path].join(' ')}: no command ${positionals[0]}`);
  } else {
    const required = args.filter((a) => a.required).length;
    const variadic = args.some((a) => a.variadic);
    if (positionals.length < required)
      problems.push(`${path.join(' ')}: ${required} argument(s) needed, ${positionals.length} given`);
    if (!variadic && positionals.length > args.length)
      problems.push(`${path.join(' ')}: at most ${args.length} argument(s), ${positionals.length} given`);
  }
  inputs.push(...positionals);
  return { command: path.join(' '), problems, inputs, outputs };
}
