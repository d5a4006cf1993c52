import type { Command } from 'commander';
import { CliExit } from '../exit';
import { renderComparison } from '../render/compareTables';
import { compareSummaries, summarizePath, TraceInputError } from '../../trace/index';

interface CompareCliOptions {
  json?: boolean;
  top?: string;
}

export function register(program: Command): void {
  program
    .command('compare')
    .description('compare two rocprof outputs (folders, zips, rocpd .db, CSVs): per kernel and per rocTX range, A against B')
    .argument('<a>', 'the baseline profile')
    .argument('<b>', 'the profile to compare with it')
    .option('--json', 'print the comparison as JSON')
    .option('--top <n>', 'kernel rows to show, overall and per range', '15')
    .action(async (a: string, b: string, opts: CompareCliOptions) => {
      const top = Number(opts.top);
      if (!Number.isInteger(top) || top < 1) throw new CliExit(`--top takes a whole number >= 1, not "${opts.top}"`, 2);
      let summaries;
      try {
        summaries = await Promise.all([summarizePath(a), summarizePath(b)]);
      } catch (err) {
        if (err instanceof TraceInputError) throw new CliExit(err.message, 2);
        throw err;
      }
      const comparison = compareSummaries(summaries[0], summaries[1], { a, b });
      if (opts.json) process.stdout.write(`${JSON.stringify(comparison, null, 2)}\n`);
      else process.stdout.write(renderComparison(comparison, { top, color: process.stdout.isTTY === true && !process.env.NO_COLOR }));
    });
}
