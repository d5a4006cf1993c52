// Which profiler wraps profile-mode runs, and how: kernelbot's rocprofv3 flag set, or legacy rocprof (v1).
import { accessSync, constants, statSync } from 'node:fs';
import { execa } from 'execa';
import { delimiter, join } from 'node:path';
import { pcSamplingArgs, type PcSamplingRequest } from './pcSampling';
import { KernelRunnerError } from '../core/errors';

export type ProfilerChoice = 'auto' | 'rocprofv3' | 'rocprof' | 'none';
type ProfilerKind = 'rocprofv3' | 'rocprof';

export interface Profiler {
  kind: ProfilerKind;
  /** Absolute path of the executable. */
  path: string;
}

export class ProfilerError extends KernelRunnerError {
  override readonly name = 'ProfilerError';
  readonly code = 'RUNNER_PROFILER';
  readonly type = 'profiler' as const;
}

export function findOnPath(name: string, pathValue: string | undefined): string | null {
  for (const dir of (pathValue ?? '').split(delimiter)) {
    if (!dir) continue;
    const full = join(dir, name);
    try {
      accessSync(full, constants.X_OK);
      if (statSync(full).isFile()) return full;
    } catch {
      // not here
    }
  }
  return null;
}

/** `auto` prefers rocprofv3, then legacy rocprof; a forced choice that is missing is an error. */
export function detectProfiler(choice: ProfilerChoice, pathValue: string | undefined): Profiler | null {
  if (choice === 'none') return null;
  const kinds: ProfilerKind[] = choice === 'auto' ? ['rocprofv3', 'rocprof'] : [choice];
  for (const kind of kinds) {
    const path = findOnPath(kind, pathValue);
    if (path) return { kind, path };
  }
  if (choice !== 'auto')
    throw new ProfilerError(
      `--profiler ${choice}: ${choice} was not found on PATH (install ROCm, or use --profiler auto|none)`,
    );
  return null;
}

/** The rocprofv3 switches GPU MODE's service uses for profile runs (kernelbot). */
const ROCPROFV3_TRACE_FLAGS = [
  '--log-level',
  'fatal',
  '--hip-trace',
  '--kernel-trace',
  '--rccl-trace',
  '--marker-trace',
  '--memory-copy-trace',
  '--scratch-memory-trace',
] as const;

export interface ProfileSelection {
  /** `--pmc` groups, one pass each (rocprofv3 runs the program once per group: outputs in pass_1/, pass_2/, ...). */
  pmc?: string[][];
  /**
   * The same groups as an input file (`-i passes.json`, one job per group: also pass_1/, pass_2/, ...), for a
   * rocprofv3 whose `--pmc` takes one group only (before ROCm/rocm-systems PR #3364, 2026: a second `--pmc`
   * replaced the first). Used instead of `--pmc` when set.
   */
  pmcInput?: string;
  /** `--kernel-include-regex`, checked (core/profileOptions.ts). */
  kernelRegex?: string;
  /** `--kernel-iteration-range`, checked and normalised (`[10-20]`). */
  launches?: string;
  /** PC sampling's switches (src/runner/pcSampling.ts), checked (core/profileOptions.ts). */
  pcSampling?: PcSamplingRequest;
}

/** rocprofv3's switches for counters and kernel selection; values are joined with `=` so none can read as an option. */
function selectionFlags(sel: ProfileSelection): string[] {
  return [
    ...(sel.pmcInput !== undefined ? ['-i', sel.pmcInput] : (sel.pmc ?? []).flatMap((group) => ['--pmc', ...group])),
    ...(sel.kernelRegex !== undefined ? [`--kernel-include-regex=${sel.kernelRegex}`] : []),
    ...(sel.launches !== undefined ? [`--kernel-iteration-range=${sel.launches}`] : []),
    ...(sel.pcSampling ? pcSamplingArgs(sel.pcSampling) : []),
  ];
}

/** The `-i` input file of passes: rocprofv3's JSON jobs, one `pmc` list each (using-rocprofv3.rst, "Input file"). */
export function passesInputJson(pmc: readonly string[][]): string {
  return `${JSON.stringify({ jobs: pmc.map((group) => ({ pmc: group })) }, null, 2)}\n`;
}

/**
 * Whether this rocprofv3 takes several `--pmc` groups (one pass each): its help says so from PR #3364 on
 * ('For multi-pass: --pmc "GROUP1_C1 GROUP1_C2" --pmc ...'). Asked once per runner (settings object).
 */
const multiPassAnswers = new WeakMap<object, Promise<boolean>>();
export function takesMultiplePmc(profiler: Profiler, env: NodeJS.ProcessEnv, cacheKey: object): Promise<boolean> {
  let answer = multiPassAnswers.get(cacheKey);
  if (!answer) {
    answer = execa(profiler.path, ['--help'], { env, reject: false, timeout: 30_000, stdin: 'ignore', all: true })
      .then((r) => /For multi-pass: --pmc/.test(String(r.all ?? '')))
      .catch(() => false);
    multiPassAnswers.set(cacheKey, answer);
  }
  return answer;
}

export function wrapCommand(
  profiler: Profiler,
  outDir: string,
  app: { command: string; args: string[] },
  opts: { rocpd?: boolean; selection?: ProfileSelection } = {},
): { command: string; args: string[] } {
  if (profiler.kind === 'rocprofv3') {
    const formats = ['pftrace', 'csv', ...(opts.rocpd ? ['rocpd'] : [])];
    return {
      command: profiler.path,
      args: [
        ...ROCPROFV3_TRACE_FLAGS,
        ...selectionFlags(opts.selection ?? {}),
        '--output-format',
        ...formats,
        '-d',
        outDir,
        '-o',
        '%pid%',
        '--',
        app.command,
        ...app.args,
      ],
    };
  }
  if (opts.selection && selectionFlags(opts.selection).length > 0) {
    throw new ProfilerError(
      'counters, kernel selection and PC sampling need rocprofv3; this runner profiles with legacy rocprof (v1)',
    );
  }
  // legacy v1: no `--`; --hip-trace records GPU activity there, --stats writes results.stats.csv
  return {
    command: profiler.path,
    args: ['--hip-trace', '--stats', '-d', outDir, '-o', join(outDir, 'results.csv'), app.command, ...app.args],
  };
}

export function noProfilerDetail(gpus: readonly string[]): string {
  return (
    `Profile mode needs rocprofv3 (ROCm) on the runner, and this runner has no profiler (GPUs: ${gpus.join(', ') || 'none'}). ` +
    'Submit to an MI300 runner instead: `kernel-runner submit --server URL ...`, or set `kernelRunner.server` in VS Code ' +
    '(a self-hosted `kernel-runner serve` on an MI300 box with ROCm installed).'
  );
}
