// Leaderboards and runner queues as people read them: name, description, deadline ("closed" once past), GPUs;
// "MI300: 3 queued, 1 running, 2 runners available", or only the counts the service knows ("MI300: 3 queued" from
// GPU MODE's GitHub launcher, which counts nothing else). Pure (no Node imports): the webview may use it too.
import type { Leaderboard, RunnerQueue } from '../protocol/api';
import { formatTimeLeft } from '../format/durations';

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
  /**
   * A multi-GPU task (`multi_gpu: true`, one process a rank): the largest `world_size` its tests and its benchmarks
   * name (0 where none does). Absent for a single-GPU task.
   */
  worldSizes?: { tests: number; benchmarks: number };
}

/** The largest `world_size` among these cases (0 when none names one). */
function largestWorldSize(cases: readonly Record<string, unknown>[] | null | undefined): number {
  let most = 0;
  for (const c of cases ?? []) {
    const n = Number(c.world_size);
    if (Number.isSafeInteger(n) && n > most) most = n;
  }
  return most;
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
const formatDuration = formatTimeLeft;

export function formatDeadline(raw: string | null | undefined, now: Date = new Date()): string {
  if (!raw) return 'no deadline';
  const when = parseDeadline(raw);
  if (!when) return `deadline ${raw}`;
  const left = when.getTime() - now.getTime();
  return left <= 0 ? `closed ${utc(when)}` : `closes ${utc(when)} (in ${formatDuration(left)})`;
}

export function describeLeaderboard(lb: Leaderboard, now: Date = new Date()): LeaderboardInfo {
  const task = lb.task ?? {};
  const description = (lb.description ?? task.description ?? '').trim();
  const raw = lb.deadline ?? null;
  const deadline = parseDeadline(raw);
  return {
    name: lb.name,
    summary:
      description
        .split('\n')
        .find((l) => l.trim() !== '')
        ?.trim() ?? '',
    description,
    deadline,
    deadlineRaw: raw,
    closed: deadline !== null && deadline.getTime() <= now.getTime(),
    deadlineText: formatDeadline(raw, now),
    gpus: [...(lb.gpu_types ?? [])],
    lang: task.lang ?? undefined,
    rankingBy: task.ranking_by ?? undefined,
    ...(task.multi_gpu
      ? { worldSizes: { tests: largestWorldSize(task.tests), benchmarks: largestWorldSize(task.benchmarks) } }
      : {}),
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

const count = (n: number | null | undefined): n is number => typeof n === 'number' && Number.isFinite(n);

function queueCountParts(queue: RunnerQueue): string[] {
  const parts: string[] = [];
  if (count(queue.queued_jobs)) parts.push(`${queue.queued_jobs} queued`);
  if (count(queue.running_jobs)) parts.push(`${queue.running_jobs} running`);
  if (count(queue.available_runners)) parts.push(`${plural(queue.available_runners, 'runner')} available`);
  return parts;
}

/**
 * The counts the service knows, e.g. "3 queued, 1 running, 2 runners available", "3 queued" (GPU MODE's GitHub
 * launcher counts only the queued jobs), or '' when it knows none. Unknown counts are left out, never shown as 0
 * or "null".
 */
export function formatQueueCounts(queue: RunnerQueue): string {
  return queueCountParts(queue).join(', ');
}

/**
 * "MI300: 3 queued, 1 running, 2 runners available", "MI300: 3 queued" (only what the service counts),
 * "MI300: available" (no counts at all) or "MI300: unavailable — <error>".
 */
export function formatRunnerQueue(queue: RunnerQueue): string {
  const name = queue.gpu || queue.runner || 'runner queue';
  if (queue.status === 'unavailable') return `${name}: unavailable${queue.error ? ` — ${queue.error}` : ''}`;
  const words = [
    ...(queue.status === 'available' ? [] : [queue.status || 'status unknown']),
    ...queueCountParts(queue),
  ];
  return `${name}: ${words.length ? words.join(', ') : queue.status}${queue.error ? ` — ${queue.error}` : ''}`;
}

/**
 * Whether a new submission will likely wait: unavailable, jobs queued, or no free runner. Counts the service does
 * not know do not make it busy.
 */
export function queueIsBusy(queue: RunnerQueue): boolean {
  return queue.status === 'unavailable' || (queue.queued_jobs ?? 0) > 0 || queue.available_runners === 0;
}
