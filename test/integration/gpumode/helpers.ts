// Shared by the GPU MODE integration tests: a temp HOME (for ~/.popcorn.yaml) and the built CLI pointed at a
// contract server through POPCORN_API_URL, as a user of popcorn-cli would have it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { runCli, type CliOptions, type CliRun } from '../submit/helpers';

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
        env: { HOME: dir, USERPROFILE: dir, POPCORN_API_URL: apiUrl, KERNEL_RUNNER_POLL_MS: '50', KERNEL_RUNNER_TOKEN: '', ...opts.env },
      }),
  };
}
