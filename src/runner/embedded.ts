// The embedded runner: the same service as `kernel-runner serve`, on loopback at an ephemeral port, with a fresh
// random token that only the process starting it knows (other local users and processes cannot use it). One
// starter for both front-ends: the extension keeps one per target (src/extension/embeddedRunner.ts), `kernel-runner
// submit` one per command (src/cli/commands/submit.ts).
import { generateToken } from '../core/runnerToken';
import { startRunner, type RunnerOptions, type RunningRunner } from './index';

export interface EmbeddedRunner extends RunningRunner {
  /** The token its clients send. */
  token: string;
}

/** Starts a runner on 127.0.0.1, port 0, with a new token; the rest of its options as given. */
export async function startEmbeddedRunner(
  opts: Omit<RunnerOptions, 'host' | 'port' | 'token'> = {},
): Promise<EmbeddedRunner> {
  const token = generateToken();
  const runner = await startRunner({ ...opts, host: '127.0.0.1', port: 0, token });
  return { ...runner, token };
}
