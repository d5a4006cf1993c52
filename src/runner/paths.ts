// Where the runner finds its package (for the bundled example problems) and keeps its state.
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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

export function defaultProblemsDir(): string {
  return join(packageRoot(), 'examples', 'problems');
}

/** Per-user state folder: $XDG_STATE_HOME/kernel-runner, ~/Library/Application Support, %LOCALAPPDATA%. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'kernel-runner');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'kernel-runner');
  const base = env.XDG_STATE_HOME && env.XDG_STATE_HOME.startsWith('/') ? env.XDG_STATE_HOME : join(homedir(), '.local', 'state');
  return resolve(base, 'kernel-runner');
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
    log(`warning: data dir ${dir} was readable by other users (mode ${mode.toString(8).padStart(4, '0')}); it is now 0700`);
  }
}
