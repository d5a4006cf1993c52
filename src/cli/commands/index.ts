import type { Command } from 'commander';
import { register as filter } from './filter';
import { register as summarize } from './summarize';
import { register as serve } from './serve';
import { register as submit } from './submit';
import { register as registerCmd } from './register';
import { register as submissions } from './submissions';

/** Each command module exports `register(program)`; add one line here per command. */
export const commands: Array<(program: Command) => void> = [
  filter,
  summarize,
  serve,
  submit,
  registerCmd,
  submissions,
];
