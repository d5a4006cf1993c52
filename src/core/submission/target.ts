// Which leaderboard and GPU a submission goes to when the front-end does not ask the user: flags first, then the
// file's `#!POPCORN` directives, then the service's own list. Against our runner the built-in `script`
// leaderboard and the first GPU are fine defaults; GPU MODE counts every submission against a rate limit, so
// there a missing leaderboard or an ambiguous GPU is asked for rather than guessed.
import type { ProfileOptions } from '../profileOptions';
import { parseDirectivesClient } from '../directives';
import { describeLeaderboard, type LeaderboardInfo } from '../gpumode/leaderboards';
import { preflightSubmission } from '../gpumode/preflight';
import { SCRIPT_LEADERBOARD, type SubmissionMode } from '../protocol/api';
import { isRunnerClientError } from '../client/errors';
import { action, submissionError } from './explain';
import { multiGpuRefusal, type MultiGpuWhere } from './multiGpu';
import type { Connection } from './service';

export interface SubmissionRequest {
  /** The file as the user names it (messages use it; its base name is sent). */
  filePath: string;
  content: Uint8Array;
  mode: SubmissionMode;
  /** Chosen outside the file (a flag); wins over directives. */
  leaderboard?: string;
  gpu?: string;
  /** Profile mode on our runner: counters and kernel selection (core/profileOptions.ts), checked by the caller. */
  profile?: ProfileOptions;
}

export interface ChosenTarget {
  leaderboard: string;
  gpu: string;
  /** The leaderboard as the service describes it, when it was looked up. */
  info?: LeaderboardInfo;
  /** Chosen in a picker just now (the editor offers to write it into the file). */
  picked?: boolean;
}

export interface ChooseContext {
  connection: Connection;
  request: SubmissionRequest;
  /** The file's text. */
  source: string;
  /** GET /leaderboards, asked once per submission. */
  leaderboards(): Promise<LeaderboardInfo[]>;
  signal?: AbortSignal;
  /** A line for the user (which GPU was taken of several). */
  note(text: string): void;
}

export type Chooser = (ctx: ChooseContext) => Promise<ChosenTarget | undefined>;

function openList(infos: LeaderboardInfo[]): string {
  return infos
    .filter((i) => !i.closed)
    .map((i) => `  ${i.name} (${i.gpus.join(', ')}; ${i.deadlineText})`)
    .join('\n');
}

/** The leaderboard by name (case-insensitive as a fallback), or undefined. */
export function findLeaderboard(infos: LeaderboardInfo[], name: string): LeaderboardInfo | undefined {
  return infos.find((i) => i.name === name) ?? infos.find((i) => i.name.toLowerCase() === name.toLowerCase());
}

/** Flags, then directives, then the service's list (see the file's header for the difference between services). */
export const chooseFromFile: Chooser = async (ctx) => {
  const { request, connection } = ctx;
  if (connection.service === 'gpumode') {
    // The server's own reading of the directives (first comment block); their errors are the check's to report.
    const directives = preflightSubmission(request.filePath, request.content, {
      leaderboard: request.leaderboard,
    }).directives;
    const infos = await ctx.leaderboards();
    const name = request.leaderboard ?? directives.leaderboard;
    if (!name)
      throw submissionError(
        'usage',
        `Which leaderboard? Pass --leaderboard NAME or put "#!POPCORN leaderboard NAME" at the top of the file. Open leaderboards:\n${openList(infos)}`,
      );
    const info = findLeaderboard(infos, name);
    if (!info)
      throw submissionError('usage', `GPU MODE has no leaderboard "${name}". Open leaderboards:\n${openList(infos)}`);
    const gpu = request.gpu ?? directives.gpus[0];
    const runsOn = info.gpus.length ? `runs on ${info.gpus.join(', ')}` : 'does not list its GPUs';
    if (!gpu) {
      if (info.gpus.length === 1) return { leaderboard: info.name, gpu: info.gpus[0] as string, info };
      throw submissionError(
        'usage',
        `Which GPU? ${info.name} ${runsOn}: pass --gpu or put "#!POPCORN gpu NAME" at the top of the file.`,
      );
    }
    // A leaderboard that lists no GPUs (an answer without gpu_types) cannot be checked here: the service checks.
    if (info.gpus.length && !info.gpus.includes(gpu))
      throw submissionError(
        'no-gpu',
        `${info.name} does not run on "${gpu}" (GPU names are case-sensitive); it runs on ${info.gpus.join(', ')}.`,
      );
    return { leaderboard: info.name, gpu, info };
  }

  const directives = parseDirectivesClient(ctx.source);
  if (directives.errors.length && !request.gpu)
    throw submissionError('usage', directives.errors.map((e) => e.message).join('; '));
  const leaderboard = request.leaderboard ?? directives.leaderboard ?? SCRIPT_LEADERBOARD;
  let gpu = request.gpu ?? directives.gpus[0];
  if (!gpu) {
    // The built-in script leaderboard takes every GPU of the runner; other leaderboards list theirs.
    const known = connection.health?.gpus;
    const gpus =
      known && known.length && leaderboard === SCRIPT_LEADERBOARD
        ? known
        : await connection.client.listGpus(leaderboard, { signal: ctx.signal }).catch((err: unknown) => {
            if (isRunnerClientError(err) && err.type === 'http' && err.status === 404) {
              throw submissionError(
                'usage',
                `${connection.label} has no leaderboard "${leaderboard}" (${err.detail ?? err.message}).`,
                [action('select-target')],
              );
            }
            throw err;
          });
    if (gpus.length === 0)
      throw submissionError('no-gpu', `Leaderboard "${leaderboard}" lists no GPUs on ${connection.baseUrl}.`);
    gpu = gpus[0] as string;
    if (gpus.length > 1) ctx.note(`using GPU ${gpu} (of ${gpus.join(', ')}; --gpu chooses)`);
  }
  return { leaderboard, gpu };
};

/** The leaderboard list as infos, asked at most once (a failure is asked again next time). */
export function leaderboardCache(connection: Connection, signal?: AbortSignal): () => Promise<LeaderboardInfo[]> {
  let pending: Promise<LeaderboardInfo[]> | undefined;
  return () => {
    pending ??= connection.client.listLeaderboards({ signal }).then(
      (boards) => boards.map((b) => describeLeaderboard(b)),
      (err: unknown) => {
        pending = undefined;
        throw err;
      },
    );
    return pending;
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Profiling GPU: "Profile on MI300" where the GPUs are

/** AMD Instinct GPUs by the names services use (MI300, MI300X, MI300x8, MI250, MI355X). */
function isAmdInstinct(gpu: string): boolean {
  return /^MI\d{3}/i.test(gpu);
}

export type ProfileGpuChoice =
  | { kind: 'exact'; gpu: string }
  /** The requested one is not offered, another AMD Instinct GPU is: offer it (the first, newest naming first). */
  | { kind: 'alternative'; gpu: string; others: string[] }
  | { kind: 'none' };

/**
 * The GPU a profile runs on: the requested one (exact, else a name that starts with it: MI300 → MI300X), else an
 * AMD Instinct GPU the leaderboard offers (rocprofv3 needs one): the user is offered it, never switched silently.
 */
export function chooseProfileGpu(requested: string, offered: readonly string[]): ProfileGpuChoice {
  const exact =
    offered.find((g) => g === requested) ?? offered.find((g) => g.toUpperCase() === requested.toUpperCase());
  if (exact) return { kind: 'exact', gpu: exact };
  const prefixed = offered.find((g) => g.toUpperCase().startsWith(requested.toUpperCase()) && !/x\d+$/i.test(g));
  if (prefixed) return { kind: 'exact', gpu: prefixed };
  const amd = offered.filter(isAmdInstinct);
  if (amd.length) return { kind: 'alternative', gpu: amd[0] as string, others: amd.slice(1) };
  return { kind: 'none' };
}

/**
 * The error for a leaderboard without the requested profiling GPU, with the one-click alternative when there is one.
 * A multi-GPU leaderboard (`multiGpu`: its description and where it runs) on GPUs with too few devices and no AMD
 * alternative is told where it runs (multiGpu.ts) rather than pointed at any MI300 runner.
 */
export function profileGpuMissing(
  requested: string,
  leaderboard: string,
  offered: readonly string[],
  targetLabel: string,
  multiGpu?: { info: Pick<LeaderboardInfo, 'name' | 'worldSizes'>; where: MultiGpuWhere },
) {
  const choice = chooseProfileGpu(requested, offered);
  const tooFew =
    choice.kind === 'none' && multiGpu && offered[0]
      ? multiGpuRefusal(multiGpu.info, offered[0], 'profile', multiGpu.where)
      : null;
  if (tooFew) return tooFew;
  const list = offered.join(', ') || 'none';
  if (choice.kind === 'alternative') {
    return submissionError(
      'no-gpu',
      `Leaderboard "${leaderboard}" on ${targetLabel} has no ${requested} GPU; it offers ${list}. rocprofv3 runs on any AMD Instinct GPU: profile on ${choice.gpu} instead?`,
      [action('profile-on-gpu', choice.gpu), ...choice.others.map((g) => action('profile-on-gpu', g))],
    );
  }
  return submissionError(
    'no-gpu',
    `Leaderboard "${leaderboard}" on ${targetLabel} has no ${requested} GPU (it offers: ${list}), and no other AMD Instinct GPU to profile on. Point kernelRunner.server at a runner on an ${requested} machine, or choose a leaderboard that runs on AMD GPUs.`,
    [action('select-target')],
  );
}
