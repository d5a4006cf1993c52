// "My submissions" as rows for tables, tree views and QuickPicks. Pure (no Node imports).
import type { SubmissionRun, UserSubmissionDetail, UserSubmissionSummary } from '../protocol/api';
import { describeJobStatus, formatScore } from './results';

export interface SubmissionRow {
  id: number;
  leaderboard: string;
  file: string;
  /** As the server sent it (ISO). */
  time: string;
  /** GPUs of the runs ('-' when none yet). */
  gpu: string;
  /** "done" / "pending". */
  status: string;
  /** Best (lowest) score of the runs, formatted; '-' when none. */
  score: string;
  scoreSeconds: number | null;
}

export function submissionRow(s: UserSubmissionSummary): SubmissionRow {
  const gpus = [...new Set(s.runs.map((r) => r.gpu_type))];
  const scores = s.runs.map((r) => r.score).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
  const best = scores.length ? Math.min(...scores) : null;
  return {
    id: s.id,
    leaderboard: s.leaderboard_name,
    file: s.file_name,
    time: s.submission_time,
    gpu: gpus.length ? gpus.join(', ') : '-',
    status: s.done ? 'done' : 'pending',
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

export function runRow(r: SubmissionRun): RunRow {
  const score = typeof r.score === 'number' ? formatScore(r.score) : '-';
  const text = `${r.mode} on ${r.runner}: ${r.passed ? 'passed' : 'failed'}${score !== '-' ? ` · ${score}` : ''}${r.secret ? ' [secret]' : ''}`;
  return { mode: r.mode, secret: r.secret, runner: r.runner, passed: r.passed, score, start: r.start_time, end: r.end_time, text };
}

/** A submission's headline: "#42 amd-fp8-mm · submission.py · done (succeeded)". */
export function submissionHeadline(d: UserSubmissionDetail): string {
  const job = d.job ? describeJobStatus(d.job.status).label : undefined;
  return `#${d.id} ${d.leaderboard_name} · ${d.file_name} · ${d.done ? 'done' : 'pending'}${job ? ` (${job})` : ''}`;
}
