// A client for GPU MODE's service with the identity popcorn-cli keeps in ~/.popcorn.yaml.
import { createRunnerClient, type RunnerClient } from '../client/index';
import { defaultPopcornConfigPath, readPopcornConfig } from '../popcornConfig';
import { CLI_REGISTER_HINTS, GpuModeError, type RegisterHints } from './errors';
import { gpuModeBaseUrl } from './target';

export interface GpuModeSession {
  baseUrl: string;
  cliId: string;
  configPath: string;
  client: RunnerClient;
}

export interface OpenGpuModeOptions {
  /** Default gpuModeBaseUrl() (POPCORN_API_URL, else popcorn-cli's default). */
  baseUrl?: string;
  /** Default ~/.popcorn.yaml. */
  configPath?: string;
  /** Use this id instead of the config's. */
  cliId?: string;
  userAgent?: string;
  hints?: RegisterHints;
}

/**
 * Reads the cli_id and makes a client that sends it (and no Kernel Runner extension header: GPU MODE does not
 * know it). Throws GpuModeError `no-identity` when there is no id, with what to run; a malformed config file is a
 * PopcornConfigError.
 */
export async function openGpuMode(options: OpenGpuModeOptions = {}): Promise<GpuModeSession> {
  const baseUrl = options.baseUrl ?? gpuModeBaseUrl();
  const configPath = options.configPath ?? defaultPopcornConfigPath();
  const cliId = options.cliId ?? (await readPopcornConfig(configPath)).cliId;
  if (!cliId) {
    throw new GpuModeError(
      'no-identity',
      `No GPU MODE cli_id in ${configPath}. To register, ${(options.hints ?? CLI_REGISTER_HINTS).register}.`,
    );
  }
  const client = createRunnerClient({ baseUrl, cliId, extensions: false, userAgent: options.userAgent });
  return { baseUrl: client.baseUrl, cliId, configPath, client };
}
