import type { Command } from 'commander';
import { CliExit } from '../exit';
import { compareResultTimings, readResultInput, type ResultInput } from '../compareInputs';
import { renderComparison, renderTimingChanges } from '../render/compareTables';
import { compareSummaries, summarizePath, TraceInputError } from '../../trace/index';
import { examplesHelp } from '../helpExamples';

interface CompareCliOptions {
  json?: boolean;
  top?: string;
}

export function register(program: Command): void {
  program
    .command('compare')
    .description(
      'compare two rocprof outputs (folders, zips, rocpd .db, CSVs) per kernel and rocTX range, or two `submit --json` results per benchmark case; each change with its 99% interval and a verdict',
    )
    .argument('<a>', 'the baseline: a profile, or a result saved by `kernel-runner submit --json`')
    .argument('<b>', 'the profile (or result) to compare with it')
    .option('--json', 'print the comparison as JSON')
    .option('--top <n>', 'kernel rows to show, overall and per range, and GPU-to-GPU copy pairs', '15')
    .addHelpText(
      'after',
      examplesHelp([
        'kernel-runner compare before.zip after.zip            # two profiles: per kernel and rocTX range',
        'kernel-runner compare before.json after.json --json   # two `submit --json` results, per benchmark case',
      ]),
    )
    .action(async (a: string, b: string, opts: CompareCliOptions) => {
      const top = Number(opts.top);
      if (!Number.isInteger(top) || top < 1) throw new CliExit(`--top takes a whole number >= 1, not "${opts.top}"`, 2);
      const [ra, rb] = await Promise.all([readResultInput(a), readResultInput(b)]);
      if (ra || rb) {
        if (!ra || !rb)
          throw new CliExit(
            `${ra ? b : a} is not a result saved by \`kernel-runner submit --json\`: compare two results, or two profiles`,
            2,
          );
        await compareResults(ra, rb, opts, top);
        return;
      }
      let summaries;
      try {
        summaries = await Promise.all([summarizePath(a), summarizePath(b)]);
      } catch (err) {
        if (err instanceof TraceInputError) throw new CliExit(err.message, 2);
        throw err;
      }
      const comparison = compareSummaries(summaries[0], summaries[1], { a, b });
      if (opts.json) process.stdout.write(`${JSON.stringify(comparison, null, 2)}\n`);
      else
        process.stdout.write(
          renderComparison(comparison, { top, color: process.stdout.isTTY === true && !process.env.NO_COLOR }),
        );
    });
}

/** Two results: the evaluator's per-case timings (Welch), then their first profile traces when both have one. */
async function compareResults(a: ResultInput, b: ResultInput, opts: CompareCliOptions, top: number): Promise<void> {
  const cases = compareResultTimings(a, b);
  let traces = null;
  if (a.traces[0] && b.traces[0]) {
    try {
      const [sa, sb] = await Promise.all([summarizePath(a.traces[0]), summarizePath(b.traces[0])]);
      traces = compareSummaries(sa, sb, { a: a.traces[0], b: b.traces[0] });
    } catch (err) {
      if (!(err instanceof TraceInputError)) throw err;
    }
  }
  const color = process.stdout.isTTY === true && !process.env.NO_COLOR;
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ a: a.path, b: b.path, cases, traces }, null, 2)}\n`);
    return;
  }
  process.stdout.write(renderTimingChanges(cases, { a: a.path, b: b.path, color }));
  if (traces) process.stdout.write(`\n${renderComparison(traces, { top, color })}`);
}
