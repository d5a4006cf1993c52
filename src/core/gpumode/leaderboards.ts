// Leaderboards and runner queues as people read them: name, description, deadline ("closed" once past), GPUs;
// "MI300: 3 queued, 1 running, 2 runners available". Pure (no Node imports): the webview may use it too.
import type { Leaderboard, RunnerQueue } from '../protocol/api';

export interface LeaderboardInfo {
  name: string;
  /** First line of the description, trimmed ('' when none). */
  summary: string;
  description: string;
  /** Parsed deadline; null when the leaderboard has none or it cannot be read. */
  deadline: Date | null;
  /** The deadline as the server sent it. */
  deadlineRaw: string | null;
  /** Deadline passed: the service no longer ranks submissions. */
  closed: boolean;
  /** "closes 2026-12-01 17:00 UTC (in 3 days)", "closed 2026-01-01 00:00 UTC", "no deadline". */
  deadlineText: string;
  gpus: string[];
  lang: string | undefined;
  rankingBy: string | undefined;
}

/** Upstream deadlines are ISO-like (`2026-05-01T00:00:00+00:00`, sometimes with a space, sometimes without zone: UTC). */
export function parseDeadline(raw: string | null | undefined): Date | null {
  if (!raw) return null;
  let text = raw.trim().replace(' ', 'T');
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) text += 'T00:00:00Z';
  else if (/^\d{4}-\d{2}-\d{2}T[\d:.]+$/.test(text)) text += 'Z';
  const when = new Date(text);
  return Number.isNaN(when.getTime()) ? null : when;
}

function utc(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** "3 days", "5 h", "12 min". */
export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  const min = Math.round(abs / 60_000);
  if (min < 60) return `${Math.max(1, min)} min`;
  const h = Math.round(abs / 3_600_000);
  if (h < 48) return `${h} h`;
  return `${Math.round(abs / 86_400_000)} days`;
}

export function formatDeadline(raw: string | null | undefined, now: Date = new Date()): string {
  if (!raw) return 'no deadline';
  const when = parseDeadline(raw);
  if (!when) return `deadline ${raw}`;
  const left = when.getTime() - now.getTime();
  return left <= 0 ? `closed ${utc(when)}` : `closes ${utc(when)} (in ${formatDuration(left)})`;
}

export function describeLeaderboard(lb: Leaderboard, now: Date = new Date()): LeaderboardInfo {
  const description = (lb.description ?? lb.task.description ?? '').trim();
  const deadline = parseDeadline(lb.deadline);
  return {
    name: lb.name,
    summary: description.split('\n').find((l) => l.trim() !== '')?.trim() ?? '',
    description,
    deadline,
    deadlineRaw: lb.deadline,
    closed: deadline !== null && deadline.getTime() <= now.getTime(),
    deadlineText: formatDeadline(lb.deadline, now),
    gpus: [...lb.gpu_types],
    lang: lb.task.lang,
    rankingBy: lb.task.ranking_by,
  };
}

/** Open leaderboards first (soonest deadline first, none last), then closed ones (most recent first); ties by name. */
export function describeLeaderboards(list: readonly Leaderboard[], now: Date = new Date()): LeaderboardInfo[] {
  const far = Number.MAX_SAFE_INTEGER;
  return list
    .map((lb) => describeLeaderboard(lb, now))
    .sort((a, b) => {
      if (a.closed !== b.closed) return a.closed ? 1 : -1;
      const ta = a.deadline?.getTime() ?? far;
      const tb = b.deadline?.getTime() ?? far;
      return (a.closed ? tb - ta : ta - tb) || a.name.localeCompare(b.name);
    });
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "MI300: 3 queued, 1 running, 2 runners available" or "MI300: unavailable — <error>". */
export function formatRunnerQueue(queue: RunnerQueue): string {
  if (queue.status === 'unavailable') return `${queue.gpu}: unavailable${queue.error ? ` — ${queue.error}` : ''}`;
  return `${queue.gpu}: ${queue.queued_jobs} queued, ${queue.running_jobs} running, ${plural(queue.available_runners, 'runner')} available`;
}

/** Whether a new submission will likely wait: unavailable, or more queued+running jobs than free runners. */
export function queueIsBusy(queue: RunnerQueue): boolean {
  return queue.status === 'unavailable' || queue.queued_jobs > 0 || queue.available_runners === 0;
}
