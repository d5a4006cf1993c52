// Where the MCP server's submissions go: the same rules as `kernel-runner submit` (an embedded runner started on
// first use by default, `--server URL` for a runner of ours, `--server gpumode` for GPU MODE with the user's
// cli_id), one connection for the server's lifetime.
import { KernelRunnerError } from '../../core/errors';
import path from 'node:path';
import { defaultStateDir, withoutCredentials } from '../../core/runnerToken';
import { gpuModeBaseUrl } from '../../core/gpumode/target';
import { readPopcornConfig } from '../../core/popcornConfig';
import { connect, explain, type Connection } from '../../core/submission/index';
import { clientToken } from '../runnerToken';
import { makeSubmitTempDir, type SubmitTempDir } from '../submitTempDir';
import type { RunningRunner } from '../../runner/index';

export interface TargetOptions {
  server?: string;
  token?: string;
  tokenFile?: string;
}

export class TargetError extends KernelRunnerError {
  override readonly name = 'TargetError';
  readonly code = 'CLI_MCP_TARGET';
}

export interface Target {
  /** The connection, made on first use; a failure is a TargetError with the workflow's explanation. */
  connection(signal?: AbortSignal): Promise<Connection>;
  /** Secrets that must never appear in a tool's output. */
  secrets(): string[];
  /** Where the server's runs go, in words (no token). */
  label(): string;
  close(): Promise<void>;
}

export function createTarget(opts: TargetOptions): Target {
  const baseUrl = opts.server === 'gpumode' ? gpuModeBaseUrl() : opts.server;
  const token = baseUrl ? clientToken(opts, baseUrl) : undefined;
  let embedded: { runner: RunningRunner; temp: SubmitTempDir } | undefined;
  let pending: Promise<Connection> | undefined;
  const secrets = new Set<string>([token, opts.token].filter((s): s is string => Boolean(s)));
  const open = async (signal?: AbortSignal): Promise<Connection> => {
    try {
      if (!baseUrl) {
        const { startEmbeddedRunner } = await import('../../runner/embedded');
        const temp = await makeSubmitTempDir();
        const runner = await startEmbeddedRunner({
          dataDir: temp.path,
          heartbeatMs: 5000,
          isolationCacheFile: path.join(defaultStateDir(), 'isolation.json'),
        }).catch(async (err: unknown) => {
          await temp.remove();
          throw err;
        });
        embedded = { runner, temp };
        secrets.add(runner.token);
        const { info } = runner;
        return await connect({
          baseUrl: runner.url,
          embedded: {
            health: { status: 'ok', version: 'embedded', gpus: info.gpus, profiler: info.profiler?.kind ?? null },
          },
          token: runner.token,
          userAgent: 'kernel-runner-mcp',
        });
      }
      const connection = await connect({
        baseUrl,
        ...(token ? { token } : {}),
        ...(opts.token ? { cliId: opts.token } : {}),
        userAgent: 'kernel-runner-mcp',
        ...(signal ? { signal } : {}),
      });
      if (connection.service === 'gpumode' && !opts.token) {
        // the user's cli_id from popcorn-cli's config is a secret too
        const cliId = await readPopcornConfig().then(
          (c) => c.cliId,
          () => undefined,
        );
        if (cliId) secrets.add(cliId);
      }
      return connection;
    } catch (err) {
      throw new TargetError(
        explain(err, { surface: 'cli', baseUrl, service: baseUrl ? undefined : 'kernel-runner' }).message,
      );
    }
  };
  return {
    connection(signal) {
      pending ??= open(signal).catch((err: unknown) => {
        pending = undefined; // a later call may find the server up
        throw err;
      });
      return pending;
    },
    secrets: () => [...secrets],
    label: () =>
      baseUrl
        ? opts.server === 'gpumode'
          ? 'GPU MODE'
          : withoutCredentials(baseUrl)
        : 'an embedded runner on this machine',
    async close() {
      if (embedded) {
        await embedded.runner.close();
        await embedded.temp.remove();
        embedded = undefined;
      }
    },
  };
}
