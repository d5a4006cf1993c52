// Shared by the GPU MODE integration tests: a temp HOME (for ~/.popcorn.yaml) and the built CLI pointed at a
// contract server through POPCORN_API_URL, as a user of popcorn-cli would have it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { runCli, type CliOptions, type CliRun } from '../submit/helpers';
import { startContractServer, type ContractServerOptions } from '../../contract/gpumodeServer';

export { ensureBuilt, runCli, startServe, repoRoot } from '../submit/helpers';

export interface Home {
  dir: string;
  config: string;
  /** Runs the CLI with this HOME, POPCORN_API_URL and quick polling. */
  cli(args: string[], opts?: CliOptions): Promise<CliRun>;
}

export function tempHome(t: TestContext, apiUrl: string, cliId?: string): Home {
  const dir = mkdtempSync(path.join(tmpdir(), 'kr-gpumode-home-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const config = path.join(dir, '.popcorn.yaml');
  if (cliId) writeFileSync(config, `cli_id: ${cliId}\n`);
  return {
    dir,
    config,
    cli: (args, opts = {}) =>
      runCli(args, {
        cwd: dir,
        ...opts,
        env: {
          HOME: dir,
          USERPROFILE: dir,
          POPCORN_API_URL: apiUrl,
          KERNEL_RUNNER_POLL_MS: '50',
          KERNEL_RUNNER_TOKEN: '',
          ...opts.env,
        },
      }),
  };
}

/** A contract server (quick heartbeats), a HOME registered as alice, and `file(name, text)` writing into it. */
export async function contractSetup(t: TestContext, options: ContractServerOptions = {}) {
  const server = await startContractServer({ heartbeatMs: 30, ...options });
  t.after(() => server.close());
  const home = tempHome(t, server.url, server.registeredId('alice'));
  const file = (name: string, text: string) => {
    writeFileSync(path.join(home.dir, name), text);
    return name;
  };
  return { server, home, file };
}
