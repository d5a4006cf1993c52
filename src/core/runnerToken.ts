// The runner's token on this machine, shared by `kernel-runner serve` (which keeps one in its state folder), the
// CLI's `submit` / `submissions` and the extension (which find it for a loopback URL when none was given), and the
// embedded runners (a fresh one per start). The token is never printed here and never goes into a URL.
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { isLoopbackUrl } from './loopback';
import { KernelRunnerError } from './errors';

/** Per-user state folder of the runner: $XDG_STATE_HOME/kernel-runner, ~/Library/Application Support, %LOCALAPPDATA%. */
export function defaultStateDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'kernel-runner');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'kernel-runner');
  const base =
    env.XDG_STATE_HOME && env.XDG_STATE_HOME.startsWith('/') ? env.XDG_STATE_HOME : join(homedir(), '.local', 'state');
  return resolve(base, 'kernel-runner');
}

/** Where `serve` keeps its token: `<data dir>/token`. */
export function tokenFilePath(stateDir: string = defaultStateDir()): string {
  return join(stateDir, 'token');
}

/** A random token (256 bits, base64url). */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

export class RunnerTokenError extends KernelRunnerError {
  override readonly name = 'RunnerTokenError';
  readonly code = 'RUNNER_TOKEN';
  readonly type = 'runner-token' as const;
}

/** The token in a file (first line, trimmed); undefined when the file does not exist. Other failures throw. */
export function readTokenFile(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new RunnerTokenError(`cannot read the token file ${file}: ${code ?? String(err)}`);
  }
  const token = (text.split(/\r?\n/)[0] ?? '').trim();
  if (!token) throw new RunnerTokenError(`the token file ${file} is empty`);
  return token;
}

/**
 * `serve`'s stored token: the one in `<stateDir>/token`, or a new one written there 0600 (`created: true`, the only
 * time it is shown). A stored file other users could read is made 0600, with a warning.
 */
export function loadOrCreateStoredToken(
  stateDir: string,
  log: (line: string) => void = () => undefined,
): { token: string; file: string; created: boolean } {
  const file = tokenFilePath(stateDir);
  let existing: string | undefined;
  try {
    existing = readTokenFile(file);
  } catch (err) {
    if (!(err instanceof RunnerTokenError) || !/is empty$/.test(err.message)) throw err;
  }
  if (existing) {
    if (process.platform !== 'win32') {
      const mode = statSync(file).mode & 0o777;
      if ((mode & 0o077) !== 0) {
        chmodSync(file, 0o600);
        log(
          `warning: the token file ${file} was readable by other users (mode ${mode.toString(8).padStart(4, '0')}); it is now 0600`,
        );
      }
    }
    return { token: existing, file, created: false };
  }
  const token = generateToken();
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  if (process.platform !== 'win32') chmodSync(file, 0o600);
  return { token, file, created: true };
}

/** Where a runner says which loopback port it listens on while it runs (its pid and port, JSON, 0600). */
export function listeningFilePath(stateDir: string): string {
  return join(stateDir, 'listening.json');
}

/** Whether the runner of `stateDir` is running and listening on the port of `baseUrl`. */
function servesOn(stateDir: string, baseUrl: string): boolean {
  try {
    const { pid, port } = JSON.parse(readFileSync(listeningFilePath(stateDir), 'utf8')) as {
      pid?: unknown;
      port?: unknown;
    };
    const url = new URL(baseUrl);
    const urlPort = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    if (typeof pid !== 'number' || port !== urlPort) return false;
    process.kill(pid, 0);
    return true;
  } catch {
    return false; // no such file, or its runner is gone (EPERM: the pid is another user's process now)
  }
}

/**
 * The token a client of this user sends to a runner on this machine when none was given: the stored token of
 * `serve`'s default state folder (`~/.local/state/kernel-runner/token`), for a loopback URL only. A runner started
 * with another --data-dir keeps its token there: pass that file (--token-file) instead. Undefined when there is none
 * or it cannot be read (the runner then answers 401 with how to send one).
 */
export function findLocalRunnerToken(
  baseUrl: string,
  env: NodeJS.ProcessEnv = process.env,
): { token: string; file: string } | undefined {
  if (!isLoopbackUrl(baseUrl)) return undefined;
  const stateDir = defaultStateDir(env);
  // only to the port that runner listens on, while it runs: not to whatever else listens on loopback
  if (!servesOn(stateDir, baseUrl)) return undefined;
  const file = tokenFilePath(stateDir);
  try {
    const token = readTokenFile(file);
    return token ? { token, file } : undefined;
  } catch {
    return undefined;
  }
}

/** A URL as it may be shown and hashed: without user name or password (a token in the URL never reaches a log). */
export function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return url;
  }
}
