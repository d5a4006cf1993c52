// What the extension's embedded runner is started with (EmbeddedRunner.start), without vscode: the tests start a
// runner the same way and attack it from a job (test/integration/runner/jobCannotTouchRunner.test.ts). It is the
// service of `kernel-runner serve` with the same isolation (isolation.ts, sandbox.ts): a job sees its own work
// dir, not the extension's storage, the user's state folder or the extension's files.
import { delimiter } from 'node:path';
import type { RunnerOptions } from '../runner/index';
import type { ProfilerChoice } from '../runner/profilers';

export interface EmbeddedRunnerSettings {
  problemsDir: string;
  /** The extension's storage folder for it (<storage>/embedded-runner). */
  dataDir: string;
  gpuName?: string;
  profiler: ProfilerChoice;
  /** kernelRunner.embedded.path: folders put first on PATH. */
  extraPath: readonly string[];
  /** The extension host's environment. */
  env: NodeJS.ProcessEnv;
}

/** The options startEmbeddedRunner (src/runner/embedded.ts) adds loopback, port 0 and a fresh token to. */
export function embeddedRunnerOptions(s: EmbeddedRunnerSettings): Omit<RunnerOptions, 'host' | 'port' | 'token'> {
  const env = s.extraPath.length
    ? { ...s.env, PATH: [...s.extraPath, s.env.PATH ?? ''].filter(Boolean).join(delimiter) }
    : s.env;
  return {
    problemsDir: s.problemsDir,
    dataDir: s.dataDir,
    ...(s.gpuName ? { gpuName: s.gpuName } : {}),
    profiler: s.profiler,
    env,
  };
}
