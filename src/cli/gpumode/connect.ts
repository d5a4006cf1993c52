// Which server a `register` / `submissions` talks to, and with which identity, decided by the submission
// workflow's one detection (src/core/submission/service.ts): GPU MODE's service (by URL, or a server whose /health
// has none of our additions) gets the cli_id from ~/.popcorn.yaml (or --token); our runner gets --token /
// $KERNEL_RUNNER_TOKEN.
import type { RunnerClient } from '../../core/client/index';
import { exitCodeFor } from '../../core/errors';
import { CLI_REGISTER_HINTS } from '../../core/gpumode/errors';
import { gpuModeBaseUrl } from '../../core/gpumode/target';
import { connect as connectService, explain } from '../../core/submission/index';
import { CliExit } from '../exit';
import { clientToken } from '../runnerToken';

export interface ServerOptions {
  server?: string;
  token?: string;
  tokenFile?: string;
}

export interface ServerConnection {
  client: RunnerClient;
  baseUrl: string;
  gpumode: boolean;
}

/** `--server` as given, `gpumode` for GPU MODE's URL, default GPU MODE's URL. */
export function serverUrl(server: string | undefined): string {
  return !server || server === 'gpumode' ? gpuModeBaseUrl() : server;
}

export async function connectServer(opts: ServerOptions, userAgent = 'kernel-runner-cli'): Promise<ServerConnection> {
  const baseUrl = serverUrl(opts.server);
  const token = clientToken(opts, baseUrl);
  try {
    const c = await connectService({
      baseUrl,
      ...(token ? { token } : {}),
      ...(opts.token ? { cliId: opts.token } : {}),
      userAgent,
    });
    if (c.service === 'gpumode' && !c.hasIdentity) {
      throw new CliExit(
        `No GPU MODE cli_id in ${c.identitySource ?? '~/.popcorn.yaml'}. To register, ${CLI_REGISTER_HINTS.register}.`,
        2,
      );
    }
    return { client: c.client, baseUrl: c.baseUrl, gpumode: c.service === 'gpumode' };
  } catch (err) {
    if (err instanceof CliExit) throw err;
    const e = explain(err, { surface: 'cli', baseUrl });
    throw new CliExit(e.message, exitCodeFor(e));
  }
}

/**
 * Ends the command with a one-line message that says what to do (401: register again); exit 2 for bad input/config.
 * `gpumode: false` (our own runner) keeps the client's message: GPU MODE's wording and hints would mislead there.
 */
export function exitFor(err: unknown, gpumode = true): never {
  if (err instanceof CliExit) throw err;
  const e = explain(err, { surface: 'cli', service: gpumode ? 'gpumode' : 'kernel-runner' });
  throw new CliExit(e.message, exitCodeFor(e));
}
