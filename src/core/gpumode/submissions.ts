// "My submissions" as rows for tables, tree views and QuickPicks. Pure (no Node imports). What GPU MODE leaves
// out or sends as null shows as unknown ('-', '?', "status unknown"), never as a made-up value.
import {
  parseScore,
  type SubmissionDetailRun,
  type UserSubmissionDetail,
  type UserSubmissionSummary,
} from '../protocol/api';
import { describeJobStatus, formatScore } from './results';

export interface SubmissionRow {
  id: number;
  leaderboard: string;
  file: string;
  /** As the server sent it (ISO). */
  time: string;
  /** GPUs of the runs ('-' when none yet). */
  gpu: string;
  /** "done" / "pending" ("-" when the service did not say). */
  status: string;
  /** Best (lowest) score of the runs, formatted; '-' when none. */
  score: string;
  scoreSeconds: number | null;
}

export function submissionRow(s: UserSubmissionSummary): SubmissionRow {
  const runs = s.runs ?? [];
  const gpus = [...new Set(runs.map((r) => r.gpu_type).filter((g) => !!g))];
  const scores = runs.map((r) => parseScore(r.score)).filter((x): x is number => x !== null);
  const best = scores.length ? Math.min(...scores) : null;
  return {
    id: s.id,
    leaderboard: s.leaderboard_name || '?',
    file: s.file_name || '?',
    time: s.submission_time,
    gpu: gpus.length ? gpus.join(', ') : '-',
    status: s.done === true ? 'done' : s.done === false ? 'pending' : '-',
    score: best === null ? '-' : formatScore(best),
    scoreSeconds: best,
  };
}

export interface RunRow {
  mode: string;
  secret: boolean;
  runner: string;
  passed: boolean;
  score: string;
  start: string | null;
  end: string | null;
  /** "leaderboard on MI300: passed · 123.456 µs [secret]". */
  text: string;
}

export function runRow(r: SubmissionDetailRun): RunRow {
  const seconds = parseScore(r.score);
  const score = seconds === null ? '-' : formatScore(seconds);
  const runner = r.runner || '?';
  const text = `${r.mode} on ${runner}: ${r.passed ? 'passed' : 'failed'}${score !== '-' ? ` · ${score}` : ''}${r.secret ? ' [secret]' : ''}`;
  return {
    mode: r.mode,
    secret: r.secret,
    runner,
    passed: r.passed,
    score,
    start: r.start_time ?? null,
    end: r.end_time ?? null,
    text,
  };
}

/**
 * A submission's headline: "#42 amd-fp8-mm · submission.py · done (succeeded)"; "(status unknown)" when the
 * service keeps a job without a status (streaming-route submissions), nothing when it sends no job at all.
 */
export function submissionHeadline(d: UserSubmissionDetail): string {
  const job = d.job ? describeJobStatus(d.job.status).label : undefined;
  return `#${d.id} ${d.leaderboard_name || '?'} · ${d.file_name || '?'} · ${d.done ? 'done' : 'pending'}${job ? ` (${job})` : ''}`;
}
