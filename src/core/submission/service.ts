// Which service a base URL is, decided once for `submit`, `submissions` and the extension: GPU MODE's public
// service (by its URL, or by a /health answer without our additions) or our runner (`kernel-runner serve`, or an
// embedded one). GPU MODE gets popcorn-cli's identity (the cli_id) and no extension header; our runner gets its
// token.
import { createRunnerClient, type RunnerClient } from '../client/index';
import { isGpuModeUrl, serviceKindFromHealth, type ServiceKind } from '../gpumode/target';
import { defaultPopcornConfigPath, readPopcornConfig } from '../popcornConfig';
import type { Health } from '../protocol/api';
import { LOOKUP_TIMEOUT_MS } from '../limits';

export type { ServiceKind };

export interface Connection {
  service: ServiceKind;
  client: RunnerClient;
  baseUrl: string;
  /** "GPU MODE", "embedded runner" or the server's host. */
  label: string;
  /** A runner started by this process (the CLI's or the extension's own). */
  embedded: boolean;
  /** Our runner's /health (version, GPUs, profiler); undefined for GPU MODE and when it was not asked. */
  health?: Health;
  /** GPU MODE: the cli_id sent, if any (a submission without one is refused before anything is sent). */
  hasIdentity: boolean;
  /** Where the cli_id came from, for messages (popcorn-cli's config file). */
  identitySource?: string;
}

export interface ConnectOptions {
  baseUrl: string;
  /** Our runner's token (never sent to GPU MODE). */
  token?: string;
  /** GPU MODE's identity; default the `cli_id` of popcorn-cli's config. */
  cliId?: string;
  /** popcorn-cli's config, read only when the service is GPU MODE and no id was given. Default ~/.popcorn.yaml. */
  popcornConfigPath?: string;
  /** A runner this process started: no detection round trip. */
  embedded?: { health?: Health };
  userAgent?: string;
  signal?: AbortSignal;
}

/** The host (and port) of a URL, for labels. */
function hostLabel(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl;
  }
}

/**
 * Connects to a base URL and says which service it is. GPU MODE's URLs are known by name (no request); any other
 * URL is asked `GET /health` once. Network and HTTP failures of that request are thrown as RunnerClientErrors; a
 * malformed ~/.popcorn.yaml as a PopcornConfigError.
 */
export async function connect(options: ConnectOptions): Promise<Connection> {
  const userAgent = options.userAgent;
  if (options.embedded) {
    const client = createRunnerClient({
      baseUrl: options.baseUrl,
      ...(options.token ? { token: options.token } : {}),
      userAgent,
    });
    return {
      service: 'kernel-runner',
      client,
      baseUrl: client.baseUrl,
      label: 'embedded runner',
      embedded: true,
      health: options.embedded.health,
      hasIdentity: true,
    };
  }
  if (!isGpuModeUrl(options.baseUrl)) {
    const probe = createRunnerClient({
      baseUrl: options.baseUrl,
      ...(options.token ? { token: options.token } : {}),
      userAgent,
    });
    const health = await probe.health({ signal: options.signal, timeoutMs: LOOKUP_TIMEOUT_MS * 2 });
    if (serviceKindFromHealth(health) === 'kernel-runner') {
      return {
        service: 'kernel-runner',
        client: probe,
        baseUrl: probe.baseUrl,
        label: hostLabel(probe.baseUrl),
        embedded: false,
        health,
        hasIdentity: true,
      };
    }
  }
  const configPath = options.popcornConfigPath ?? defaultPopcornConfigPath();
  let cliId = options.cliId;
  let identitySource: string | undefined = cliId ? 'given' : undefined;
  if (!cliId) {
    cliId = (await readPopcornConfig(configPath)).cliId;
    if (cliId) identitySource = configPath;
  }
  const client = createRunnerClient({
    baseUrl: options.baseUrl,
    ...(cliId ? { cliId } : {}),
    extensions: false,
    userAgent,
  });
  return {
    service: 'gpumode',
    client,
    baseUrl: client.baseUrl,
    label: 'GPU MODE',
    embedded: false,
    hasIdentity: cliId !== undefined,
    identitySource: identitySource ?? configPath,
  };
}
