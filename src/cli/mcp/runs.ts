// The MCP server's runs: each submit is kept by a run id (runFolders.ts: time and a random part) with its outcome,
// so that `get_run` can follow one still going or read one that ended, and its result file can be compared later.
import path from 'node:path';
import type { RunFolders } from './runFolders';
import { evaluatorOfResult } from '../evaluator';
import { failureOf, type SubmissionOutcome } from '../../core/submission/index';
import { fenced } from './answers';

export interface RunRecord {
  id: string;
  file: string;
  mode: string;
  state: 'running' | 'done';
  jobId?: number;
  target?: { leaderboard: string; gpu: string };
  /** The last status line and the last lines of the program's output (noise left out). */
  status: string;
  outputTail: string[];
  outcome?: SubmissionOutcome;
  resultFile?: string;
  /** Why the result file was not written (a refused folder). */
  resultFileError?: string;
  done: Promise<void>;
}

const OUTPUT_TAIL_LINES = 40;

export function pushOutput(record: RunRecord, line: string): void {
  record.outputTail.push(line.length > 400 ? `${line.slice(0, 400)}…` : line);
  if (record.outputTail.length > OUTPUT_TAIL_LINES) record.outputTail.shift();
}

/** The result as `kernel-runner submit --json` writes it (what `compare` reads), beside the traces. */
export async function saveResultFile(folders: RunFolders, record: RunRecord): Promise<string | undefined> {
  const o = record.outcome;
  if (!o?.result) return undefined;
  const name = `${path.basename(record.file, path.extname(record.file))}-${record.id}-${record.mode}.result.json`;
  const body = {
    ok: o.passed,
    service: o.connection.service,
    job_id: o.id ?? null,
    result: o.result,
    traces: o.traces.map((t) => ({ run: t.run, path: t.path, digest_path: t.digestPath ?? null })),
  };
  return folders.saveResult(name, `${JSON.stringify(body, null, 2)}\n`);
}

/** What a tool answers about a run: small (the digest, not the trace), with links to the full artifacts. */
export function describeRun(record: RunRecord): Record<string, unknown> {
  const o = record.outcome;
  const base: Record<string, unknown> = {
    run_id: record.id,
    state: record.state,
    file: record.file,
    mode: record.mode,
    job_id: record.jobId ?? null,
    target: record.target ?? null,
  };
  if (!o) return { ...base, status: record.status, output_tail: fenced(record.outputTail) };
  const digest = o.traces.find((t) => t.digest)?.digest ?? null;
  const failure = failureOf(o);
  return {
    ...base,
    outcome: o.kind,
    passed: o.passed,
    message: failure?.reason ?? null,
    failure: failure
      ? {
          kind: failure.kind,
          run: failure.run,
          status: failure.status,
          reason: failure.reason,
          command: failure.command,
          lines: fenced(failure.lines, 'untrusted-output'),
        }
      : null,
    score_seconds: o.score?.seconds ?? null,
    evaluator: o.result ? evaluatorOfResult(o.result) : null,
    output_tail: fenced(o.passed ? record.outputTail.slice(-10) : record.outputTail),
    result_file: record.resultFile ?? null,
    ...(record.resultFileError ? { result_file_error: record.resultFileError } : {}),
    traces: o.traces.map((t) => ({
      run: t.run,
      path: t.path,
      bytes: t.bytes,
      digest_path: t.digestPath ?? null,
      digest_error: t.digestError ?? null,
      summary_error: t.summaryError ?? null,
    })),
    trace_error: o.traceError ?? null,
    digest,
    next: nextSteps(record),
  };
}

function nextSteps(record: RunRecord): string[] {
  const o = record.outcome;
  if (!o) return [];
  if (o.kind !== 'result') return ['fix what the message says and submit again'];
  if (!o.passed)
    return [
      'read failure (why, and the last lines of the compiler or program) and output_tail, fix the kernel, submit mode test again',
    ];
  if (record.mode === 'test')
    return ['submit mode benchmark for timings, or mode profile for a digest of where the time goes'];
  if (record.mode === 'profile')
    return [
      'read digest (top kernels per case, occupancy, idle gaps); after an edit, profile again and call compare with the two trace paths',
    ];
  return ['after an edit, benchmark again and call compare with the two result_file paths (Welch verdict per case)'];
}
