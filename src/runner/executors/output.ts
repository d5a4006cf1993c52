// What an executor keeps of a run's output, as runProcess keeps it: live lines classified by the noise filter,
// head + tail of stdout and of the program's stderr, noise lines counted, stderr copied byte for byte to its log
// while the job's output budget lasts (then a note ends the log, and the run's kept stderr says so too);
// and the POPCORN_FD output read back from a file, up to its cap (whole lines).
import { createWriteStream, type WriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createLineClassifier, type ClassifiedLine } from '../../core/noise';
import type { ExecSpec } from '../executor';
import { createHeadTail } from '../headTail';
import { outputCutNote } from '../outputBudget';
import { OUTPUT_LINE_MAX_BYTES, POPCORN_CAP_CHARS } from '../limits';

export interface OutputSink {
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
  end(): Promise<{ stdout: string; stderr: string; noiseLines: number }>;
}

export function createOutputSink(spec: ExecSpec, onStderrLine?: (line: ClassifiedLine) => void): OutputSink {
  const stdoutKeep = createHeadTail(spec.capBytes);
  const stderrKeep = createHeadTail(spec.capBytes);
  let noiseLines = 0;
  const stderrLog: WriteStream | undefined = spec.stderrLogPath ? createWriteStream(spec.stderrLogPath) : undefined;
  const lineEnd = (line: ClassifiedLine) => (line.eol === '' ? '' : '\n');
  const stdoutLines = createLineClassifier({
    maxLineBytes: OUTPUT_LINE_MAX_BYTES,
    onLine(line) {
      stdoutKeep.push(line.text + lineEnd(line));
      spec.onLine?.('stdout', line);
    },
  });
  const stderrLines = createLineClassifier({
    maxLineBytes: OUTPUT_LINE_MAX_BYTES,
    onLine(line) {
      if (line.noise) noiseLines += 1;
      else stderrKeep.push(line.text + lineEnd(line));
      onStderrLine?.(line);
      spec.onLine?.('stderr', line);
    },
  });
  const budget = spec.outputBudget;
  const budgetWasExhausted = budget?.exhausted ?? false;
  let stderrLogCut = false;
  return {
    stdout: (chunk) => stdoutLines.feed(chunk),
    stderr(chunk) {
      if (stderrLog && !stderrLogCut) {
        if (!budget || budget.take(chunk.length)) stderrLog.write(chunk);
        else {
          stderrLogCut = true;
          stderrLog.write(`\n${outputCutNote(budget.limit)}\n`);
        }
      }
      stderrLines.feed(chunk);
    },
    async end() {
      stdoutLines.flush();
      stderrLines.flush();
      if (stderrLog) await new Promise<void>((resolve) => stderrLog.end(resolve));
      // the run that used up the job's budget says so in its result
      const cut = budget && budget.exhausted && !budgetWasExhausted ? `${outputCutNote(budget.limit)}\n` : '';
      return { stdout: stdoutKeep.text(), stderr: stderrKeep.text() + cut, noiseLines };
    },
  };
}

/** A POPCORN_FD file's text up to the cap (whole lines), and how many characters past it were left out. */
export async function readPopcornFile(
  path: string,
  capChars = POPCORN_CAP_CHARS,
): Promise<{ popcorn: string; popcornOmitted: number }> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return { popcorn: '', popcornOmitted: 0 };
  }
  try {
    const size = (await handle.stat()).size;
    // a character is 1 to 4 bytes: reading 4 x the cap is always enough to fill it
    const want = Math.min(size, capChars * 4);
    const buf = Buffer.alloc(want);
    const { bytesRead } = await handle.read(buf, 0, want, 0);
    const text = buf.subarray(0, bytesRead).toString('utf8');
    if (text.length <= capChars && bytesRead === size) return { popcorn: text, popcornOmitted: 0 };
    const room = text.slice(0, capChars);
    const kept = room.slice(0, room.lastIndexOf('\n') + 1);
    return { popcorn: kept, popcornOmitted: text.length - kept.length + (size - bytesRead) };
  } finally {
    await handle.close();
  }
}
