// What `compare` (and the MCP server's `compare` tool) is given: two profiles (folders, zips, rocpd .db, CSVs), or
// two results saved by `kernel-runner submit --json` (their evaluator's per-case timings, and their profile traces
// when they have them). The evaluator's timings are judged with Welch's test on each case's mean, std and runs.
import { stat } from 'node:fs/promises';
import { resultEventSchema, type ResultEvent } from '../core/protocol/api';
import { evaluatorOfResult } from './evaluator';
import { compareCaseTimings, type CaseTiming, type CaseTimingChange } from '../trace/significance';
import { fileOrFolderStats, readRegularFile } from '../trace/regularFile';

/** Result files are some KB (a few MB with many runs); a larger .json is not one. */
const MAX_RESULT_BYTES = 64 * 1024 * 1024;

export interface ResultInput {
  kind: 'result';
  path: string;
  result: ResultEvent;
  /** Benchmark cases of its leaderboard run, else its benchmark run. */
  cases: CaseTiming[];
  /** Saved profile traces listed in it that still exist. */
  traces: string[];
}

/**
 * A `submit --json` output, or null when the file is something else (then it is read as a profile). A FIFO, socket
 * or device is refused (TraceInputError) before it is opened.
 */
export async function readResultInput(path: string): Promise<ResultInput | null> {
  if (!/\.json$/i.test(path)) return null;
  const what = 'a result file or a profile';
  if (!(await fileOrFolderStats(path, what)).isFile()) return null;
  let body: unknown;
  try {
    body = JSON.parse((await readRegularFile(path, MAX_RESULT_BYTES, what)).toString('utf8'));
  } catch {
    return null;
  }
  const maybe = (body as { result?: unknown } | null)?.result;
  const parsed = resultEventSchema.safeParse(maybe);
  if (!parsed.success) return null;
  const traces: string[] = [];
  for (const t of (body as { traces?: Array<{ path?: unknown }> }).traces ?? []) {
    if (
      typeof t.path === 'string' &&
      (await stat(t.path).then(
        (s) => s.isFile(),
        () => false,
      ))
    )
      traces.push(t.path);
  }
  return { kind: 'result', path, result: parsed.data, cases: evaluatorOfResult(parsed.data).benchmarks, traces };
}

export function compareResultTimings(a: ResultInput, b: ResultInput): CaseTimingChange[] {
  return compareCaseTimings(a.cases, b.cases);
}
