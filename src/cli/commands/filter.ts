import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import type { Command } from 'commander';
import { createLineClassifier } from '../../core/noise/index';
import { examplesHelp } from '../helpExamples';

export interface FilterOptions {
  /** Also write noise lines, each marked with NOISE_PREFIX. */
  showNoise?: boolean;
  /** Dim the noise lines (default: when the output is a terminal and NO_COLOR is unset). */
  color?: boolean;
  /** Write the program's lines as received, ANSI codes kept (default: ANSI-free text). */
  keepAnsi?: boolean;
}

export interface FilterCounts {
  programLines: number;
  noiseLines: number;
  /** The reader of our output went away (EPIPE): we stopped early, which is not an error. */
  outputClosed: boolean;
}

/** Marks noise lines under --show-noise: readable when piped, and dimmed (SGR 2) on a terminal. */
export const NOISE_PREFIX = '[noise] ';
const DIM = '\x1b[2m';
const UNDIM = '\x1b[22m';

export function register(program: Command): void {
  program
    .command('filter')
    .description("read a log on stdin and write the program's own lines to stdout, without rocprof's noise")
    .option('--show-noise', `also write the noise lines, each prefixed with "${NOISE_PREFIX}" (dimmed on a terminal)`)
    .option('--keep-ansi', "keep ANSI colour codes in the program's lines")
    .addHelpText(
      'after',
      examplesHelp([
        'rocprofv3 --kernel-trace -- ./app 2>&1 | kernel-runner filter',
        'rocprofv3 --kernel-trace -- ./app 2>&1 | kernel-runner filter --show-noise   # noise prefixed, not hidden',
      ]),
    )
    .action(async (opts: { showNoise?: boolean; keepAnsi?: boolean }) => {
      const counts = await runFilter(process.stdin, process.stdout, {
        showNoise: opts.showNoise === true,
        keepAnsi: opts.keepAnsi === true,
        color: process.stdout.isTTY === true && !process.env.NO_COLOR,
      });
      if (!opts.showNoise && counts.noiseLines > 0 && process.stderr.isTTY && !counts.outputClosed) {
        const n = counts.noiseLines;
        process.stderr.write(
          `kernel-runner: ${n} profiler noise line${n === 1 ? '' : 's'} hidden (--show-noise shows them)\n`,
        );
      }
    });
}

/**
 * Streams `input` through the noise classifier to `output`, line by line as chunks arrive (a pipe that stays
 * open gets its lines at once), respecting backpressure. A closed output (EPIPE, as with `| head`) ends the
 * run quietly.
 */
export async function runFilter(input: Readable, output: Writable, options: FilterOptions = {}): Promise<FilterCounts> {
  const counts: FilterCounts = { programLines: 0, noiseLines: 0, outputClosed: false };
  let out: string[] = [];
  let atLineStart = true; // false while the pieces of one over-long line are being written

  const classifier = createLineClassifier({
    onLine(line) {
      const startsLine = atLineStart;
      atLineStart = line.eol !== '';
      if (!line.noise) {
        if (startsLine) counts.programLines++;
        out.push(options.keepAnsi ? line.raw : line.text, line.eol ?? '\n');
        return;
      }
      if (startsLine) counts.noiseLines++;
      if (!options.showNoise) return;
      const body = (startsLine ? NOISE_PREFIX : '') + line.text;
      out.push(options.color ? DIM + body + UNDIM : body, line.eol ?? '\n');
    },
  });

  let outputError: NodeJS.ErrnoException | undefined;
  const onError = (err: NodeJS.ErrnoException) => {
    outputError ??= err;
  };
  output.on('error', onError);
  try {
    const send = async () => {
      if (out.length === 0) return;
      const text = out.join('');
      out = [];
      if (!output.write(text)) await once(output, 'drain');
    };
    try {
      for await (const chunk of input as AsyncIterable<Uint8Array | string>) {
        if (outputError) break;
        classifier.feed(chunk);
        await send();
      }
      if (!outputError) {
        classifier.flush();
        await send();
      }
    } catch (err) {
      if (!isBrokenPipe(err)) throw err;
      outputError ??= err as NodeJS.ErrnoException;
    }
    if (outputError) {
      if (!isBrokenPipe(outputError)) throw outputError;
      counts.outputClosed = true;
      input.destroy();
    }
    return counts;
  } finally {
    output.off('error', onError);
    // Later EPIPEs of the same stream (from writes still queued) must not crash the process either.
    if (counts.outputClosed) output.on('error', () => {});
  }
}

function isBrokenPipe(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ERR_STREAM_WRITE_AFTER_END';
}
