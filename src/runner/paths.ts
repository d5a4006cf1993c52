// Where the runner finds its package (for the bundled example problems) and keeps its state.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultStateDir } from '../core/runnerToken';

/** The folder holding our package.json, found upward from this module (source tree or dist bundle). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`kernel-runner: no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/** Our package's version (package.json), as `/health` and `kernel-runner --version` report it; 0.0.0 when unreadable. */
export function packageVersion(): string {
  try {
    return (
      (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: string }).version ?? '0.0.0'
    );
  } catch {
    return '0.0.0';
  }
}

export function defaultProblemsDir(): string {
  return join(packageRoot(), 'examples', 'problems');
}

/** Per-user state folder (shared with the clients' token lookup, src/core/runnerToken.ts). */
export function defaultDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  return defaultStateDir(env, platform);
}

/**
 * Creates `dir` (and missing parents) 0700, or makes an existing one 0700 when other users could read or enter it,
 * with a warning line: the runner keeps submitted code, results and traces there.
 */
export function preparePrivateDir(dir: string, log: (line: string) => void): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return;
  const mode = statSync(dir).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    chmodSync(dir, 0o700);
    log(
      `warning: data dir ${dir} was readable by other users (mode ${mode.toString(8).padStart(4, '0')}); it is now 0700`,
    );
  }
}
