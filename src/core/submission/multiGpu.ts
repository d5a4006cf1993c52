// A multi-GPU problem (task.yml `multi_gpu: true`: every case names its `world_size`, one process a rank, each rank
// on a device of its own) sent to a GPU of our runner with fewer devices than a case needs: every such case would
// fail inside the evaluator ("world_size 8 needs 8 devices; the job has 1"). Our runner serves n devices of one kind
// together as `<GPU>x<n>` (MI300x8) and gives a job of a GPU named without a count one device, so the GPU's name says
// how many a job gets. The workflow refuses before sending, saying where such a problem runs on the surface the user
// is on (a `serve` flag on the command line, a setting in the editor).
import type { LeaderboardInfo } from '../gpumode/leaderboards';
import type { SubmissionMode } from '../protocol/api';
import { action, submissionError, type Surface, type SubmissionError } from './explain';

/** How many devices a job of this GPU gets on our runner: `MI300x8` → 8, any other name → 1. */
export function devicesOfGpu(gpu: string): number {
  const m = /x(\d+)$/.exec(gpu);
  return m ? Number(m[1]) : 1;
}

/** The most ranks a case of this mode needs (0: not a multi-GPU task). Leaderboard mode runs the tests too. */
export function ranksNeeded(info: Pick<LeaderboardInfo, 'worldSizes'>, mode: SubmissionMode): number {
  const w = info.worldSizes;
  if (!w) return 0;
  if (mode === 'test') return w.tests;
  if (mode === 'leaderboard') return Math.max(w.tests, w.benchmarks);
  return w.benchmarks;
}

export interface MultiGpuWhere {
  surface: Surface;
  /** The embedded runner (else a `kernel-runner serve` at `baseUrl`). */
  embedded: boolean;
  baseUrl?: string;
  /** The file as the user named it (the command line to run it names it too). */
  file?: string;
}

/** The kind of GPU a slot of `n` would be named after: the chosen one's, an AMD Instinct MI300 for a CPU. */
function slotName(gpu: string, n: number): string {
  const kind = gpu.replace(/x\d+$/, '');
  return `${/^cpu$/i.test(kind) ? 'MI300' : kind}x${n}`;
}

/** A file name as a shell word: as it is when it is plain, else single-quoted. */
function shellWord(s: string): string {
  return /^[\w./@%+=:,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The refusal of a multi-GPU leaderboard's submission on a GPU with too few devices for its cases, or null when the
 * GPU has enough (or the task is not a multi-GPU one).
 */
export function multiGpuRefusal(
  info: Pick<LeaderboardInfo, 'name' | 'worldSizes'>,
  gpu: string,
  mode: SubmissionMode,
  where: MultiGpuWhere,
): SubmissionError | null {
  const needed = ranksNeeded(info, mode);
  const has = devicesOfGpu(gpu);
  if (needed <= has) return null;
  const slot = slotName(gpu, needed);
  const runner = where.embedded ? 'the embedded runner' : `the runner at ${where.baseUrl ?? '(unknown)'}`;
  const cases = mode === 'test' ? 'test cases' : mode === 'leaderboard' ? 'cases' : 'benchmark cases';
  const what =
    `Not sent: ${info.name} is a multi-GPU problem: its ${cases} need ${needed} GPUs (world_size up to ${needed}, ` +
    `one process a rank), and ${gpu} on ${runner} gives a job ${has === 1 ? 'one device' : `${has} devices`}.`;
  const serveHint =
    `\`kernel-runner serve\` on a machine with ${needed} GPUs of one kind offers them together as ${slot}; on any ` +
    `other machine \`kernel-runner serve --gpu-name ${slot}\` names a slot of ${needed} (the ranks share what it has)`;
  let how: string;
  if (where.surface === 'editor') {
    how = where.embedded
      ? `Run it on ${slot}: set kernelRunner.embedded.gpuName to ${slot} (the embedded runner then serves a slot of ${needed}; ` +
        `without ${needed} GPUs the ranks share this machine), or point kernelRunner.server at a runner that has ${slot}: ${serveHint}.`
      : `Run it on ${slot}: ${serveHint}, then select that runner (kernelRunner.server).`;
  } else {
    how = where.embedded
      ? `Run it on ${slot}: ${serveHint}; then \`kernel-runner submit ${shellWord(where.file ?? 'FILE')} --server http://127.0.0.1:8787 --gpu ${slot} --mode ${mode}\`.`
      : `Run it on ${slot}: ${serveHint}; then pass --gpu ${slot}.`;
  }
  return submissionError('no-gpu', `${what} ${how}`, where.surface === 'editor' ? [action('select-target')] : []);
}
