// A runner in a process of its own (for the restart test, which SIGKILLs it): startRunner with the JSON options in
// KR_RUNNER_OPTIONS, prints its URL on stdout, runs until killed.
import { startRunner, type RunnerOptions } from '../../../src/runner/index';

const opts = JSON.parse(process.env.KR_RUNNER_OPTIONS ?? '{}') as RunnerOptions;
startRunner({ ...opts, port: 0, env: process.env, log: (line) => process.stderr.write(`${line}\n`) })
  .then((runner) => process.stdout.write(`${runner.url}\n`))
  .catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  });
