import type { Command } from 'commander';
import { CliExit } from '../exit';
import { renderTraceTables } from '../render/traceTables';
import { summarizePath, TraceInputError } from '../../trace/index';

interface SummarizeCliOptions {
  json?: boolean;
  top?: string;
  buckets?: string;
}

export function register(program: Command): void {
  program
    .command('summarize')
    .description('summarise a rocprof output (folder, zip, rocpd .db, or one CSV/JSON): top kernels, GPU busy, copies, API')
    .argument('<path>', 'rocprofv3 output folder or zip, *_results.db, *_kernel_trace.csv, legacy results.json ...')
    .option('--json', 'print the TraceSummary object as JSON')
    .option('--top <n>', 'kernel and API rows to show', '15')
    .option('--buckets <n>', 'timeline buckets per agent', '100')
    .action(async (path: string, opts: SummarizeCliOptions) => {
      const top = positiveInt(opts.top, '--top');
      const buckets = positiveInt(opts.buckets, '--buckets');
      let summary;
      try {
        summary = await summarizePath(path, { buckets });
      } catch (err) {
        if (err instanceof TraceInputError) throw new CliExit(err.message, 2);
        throw err;
      }
      if (opts.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
      else process.stdout.write(renderTraceTables(summary, { top, color: process.stdout.isTTY === true && !process.env.NO_COLOR }));
    });
}

function positiveInt(value: string | undefined, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliExit(`${flag} takes a whole number >= 1, not "${value}"`, 2);
  return n;
}
