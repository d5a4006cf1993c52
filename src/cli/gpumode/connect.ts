// Which server a `register` / `submissions` / GPU MODE `submit` talks to, and with which identity. GPU MODE's
// service (by URL: POPCORN_API_URL, popcorn-cli's default, or `--server gpumode`) gets the cli_id from
// ~/.popcorn.yaml; our runner gets --token / $KERNEL_RUNNER_TOKEN, or nothing.
import { createRunnerClient, RunnerClientError, type RunnerClient } from '../../core/client/index';
import { explainGpuModeError, GpuModeError } from '../../core/gpumode/errors';
import { openGpuMode } from '../../core/gpumode/session';
import { gpuModeBaseUrl, isGpuModeUrl } from '../../core/gpumode/target';
import { PopcornConfigError } from '../../core/popcornConfig';
import { CliExit } from '../exit';

export interface ServerOptions {
  server?: string;
  token?: string;
}

export interface Connection {
  client: RunnerClient;
  baseUrl: string;
  gpumode: boolean;
}

/** `--server` as given, `gpumode` for GPU MODE's URL, default GPU MODE's URL. */
export function serverUrl(server: string | undefined): string {
  return !server || server === 'gpumode' ? gpuModeBaseUrl() : server;
}

export async function connect(opts: ServerOptions, userAgent = 'kernel-runner-cli'): Promise<Connection> {
  const baseUrl = serverUrl(opts.server);
  const token = opts.token ?? (process.env.KERNEL_RUNNER_TOKEN || undefined);
  try {
    if (isGpuModeUrl(baseUrl)) {
      const session = await openGpuMode({ baseUrl, cliId: opts.token, userAgent });
      return { client: session.client, baseUrl: session.baseUrl, gpumode: true };
    }
    const client = createRunnerClient({ baseUrl, token, userAgent });
    return { client, baseUrl: client.baseUrl, gpumode: false };
  } catch (err) {
    return exitFor(err);
  }
}

/**
 * Ends the command with a one-line message that says what to do (401: register again); exit 2 for bad input/config.
 * `gpumode: false` (our own runner) keeps the client's message: GPU MODE's wording and hints would mislead there.
 */
export function exitFor(err: unknown, gpumode = true): never {
  const explained = gpumode ? explainGpuModeError(err) : err;
  if (explained instanceof GpuModeError) {
    const code = explained.type === 'cancelled' ? 130 : explained.type === 'no-identity' ? 2 : 1;
    throw new CliExit(explained.message, code);
  }
  if (explained instanceof PopcornConfigError) throw new CliExit(explained.message, 2);
  if (explained instanceof RunnerClientError) throw new CliExit(explained.message, 1);
  throw explained;
}
