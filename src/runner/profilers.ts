// Which profiler wraps profile-mode runs, and how: kernelbot's rocprofv3 flag set, or legacy rocprof (v1).
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
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
  if (choice !== 'auto') throw new ProfilerError(`--profiler ${choice}: ${choice} was not found on PATH (install ROCm, or use --profiler auto|none)`);
  return null;
}

/** The rocprofv3 switches GPU MODE's service uses for profile runs (kernelbot). */
const ROCPROFV3_TRACE_FLAGS = [
  '--log-level', 'fatal',
  '--hip-trace', '--kernel-trace', '--rccl-trace', '--marker-trace', '--memory-copy-trace', '--scratch-memory-trace',
] as const;

export function wrapCommand(
  profiler: Profiler,
  outDir: string,
  app: { command: string; args: string[] },
  opts: { rocpd?: boolean } = {},
): { command: string; args: string[] } {
  if (profiler.kind === 'rocprofv3') {
    const formats = ['pftrace', 'csv', ...(opts.rocpd ? ['rocpd'] : [])];
    return {
      command: profiler.path,
      args: [...ROCPROFV3_TRACE_FLAGS, '--output-format', ...formats, '-d', outDir, '-o', '%pid%', '--', app.command, ...app.args],
    };
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
