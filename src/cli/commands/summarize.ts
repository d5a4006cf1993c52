import { resolve } from 'node:path';
import type { Command } from 'commander';
import { CliExit } from '../exit';
import { renderTraceTables } from '../render/traceTables';
import { summarizePath, TraceInputError } from '../../trace/index';
import { examplesHelp } from '../helpExamples';

interface SummarizeCliOptions {
  json?: boolean;
  top?: string;
  buckets?: string;
  digest?: boolean;
  maxBytes?: string;
  baseline?: string;
}

export function register(program: Command): void {
  program
    .command('summarize')
    .description(
      'summarise a rocprof output (folder, zip, rocpd .db, or one CSV/JSON): top kernels, GPU busy, copies, API',
    )
    .argument('<path>', 'rocprofv3 output folder or zip, *_results.db, *_kernel_trace.csv, legacy results.json ...')
    .option('--json', 'print the TraceSummary object as JSON')
    .option('--top <n>', 'kernel and API rows to show', '15')
    .option('--buckets <n>', 'timeline buckets per agent', '100')
    .option(
      '--digest',
      'print the profile digest instead: one small JSON document for an agent (docs/digest.schema.json)',
    )
    .option('--max-bytes <n>', "the digest's byte budget (lists are cut to fit)", '16384')
    .option(
      '--baseline <other>',
      'with --digest: another profile to compare with, each change with its interval and verdict',
    )
    .addHelpText(
      'after',
      examplesHelp([
        'kernel-runner summarize kernel-runner-traces/submission-vectoradd_py-MI300-20260101-120000-profile.0.zip',
        'kernel-runner summarize rocprof-out/ --top 5 --json',
        'kernel-runner summarize profile.zip --digest --baseline before.zip',
      ]),
    )
    .action(async (path: string, opts: SummarizeCliOptions) => {
      const top = positiveInt(opts.top, '--top');
      const buckets = positiveInt(opts.buckets, '--buckets');
      if (opts.digest) {
        await printDigest(path, opts, buckets);
        return;
      }
      if (opts.baseline)
        throw new CliExit(
          '--baseline goes with --digest (`kernel-runner compare A B` compares two profiles in full)',
          2,
        );
      let summary;
      try {
        summary = await summarizePath(path, { buckets });
      } catch (err) {
        if (err instanceof TraceInputError) throw new CliExit(err.message, 2);
        throw err;
      }
      if (opts.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
      else
        process.stdout.write(
          renderTraceTables(summary, { top, color: process.stdout.isTTY === true && !process.env.NO_COLOR }),
        );
    });
}

async function printDigest(path: string, opts: SummarizeCliOptions, buckets: number): Promise<void> {
  const maxBytes = positiveInt(opts.maxBytes, '--max-bytes');
  const { digestPath, digestText, DigestBudgetError, MIN_MAX_BYTES } = await import('../../trace/digest/index');
  if (maxBytes < MIN_MAX_BYTES) throw new CliExit(`--max-bytes takes at least ${MIN_MAX_BYTES}, not ${maxBytes}`, 2);
  let digest;
  try {
    digest = await digestPath(path, {
      maxBytes,
      summarize: { buckets },
      ...(opts.baseline ? { baselinePath: opts.baseline } : {}),
      links: [{ rel: 'trace', href: resolve(path) }],
    });
  } catch (err) {
    if (err instanceof TraceInputError || err instanceof DigestBudgetError) throw new CliExit(err.message, 2);
    throw err;
  }
  process.stdout.write(digestText(digest));
}

function positiveInt(value: string | undefined, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliExit(`${flag} takes a whole number >= 1, not "${value}"`, 2);
  return n;
}
