// The token `submit` / `submissions` send to our runner: --token, --token-file, $KERNEL_RUNNER_TOKEN, else (for a
// loopback URL) the one `kernel-runner serve` stored in the default state folder (src/core/runnerToken.ts).
import { findLocalRunnerToken, readTokenFile, RunnerTokenError } from '../core/runnerToken';
import { CliExit } from './exit';

export function clientToken(
  opts: { token?: string; tokenFile?: string },
  baseUrl: string | undefined,
): string | undefined {
  if (opts.token) return opts.token;
  if (opts.tokenFile) {
    let token: string | undefined;
    try {
      token = readTokenFile(opts.tokenFile);
    } catch (err) {
      if (err instanceof RunnerTokenError) throw new CliExit(`--token-file: ${err.message}`, 2);
      throw err;
    }
    if (!token) throw new CliExit(`--token-file: ${opts.tokenFile} does not exist`, 2);
    return token;
  }
  const fromEnv = process.env.KERNEL_RUNNER_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  return baseUrl ? findLocalRunnerToken(baseUrl)?.token : undefined;
}

export const TOKEN_FILE_HELP =
  "read the runner's token from this file (e.g. <data dir>/token of a runner started with --data-dir)";
