import type { Command } from 'commander';
import { homedir } from 'node:os';
import { CliExit } from '../exit';
import { RunnerStartError, startRunner, type RunningRunner } from '../../runner/index';
import type { ProfilerChoice } from '../../runner/profilers';
import { ProfilerError } from '../../runner/profilers';
import { StoreError } from '../../runner/store';

interface ServeCliOptions {
  host: string;
  port: string;
  problems?: string;
  dataDir?: string;
  token?: string;
  gpuName?: string;
  profiler: string;
  rocpd?: boolean;
  heartbeat?: string;
  killGrace?: string;
  scriptTimeout?: string;
  hardTimeout?: string;
  publicUrl?: string;
}

const PROFILERS: readonly ProfilerChoice[] = ['auto', 'rocprofv3', 'rocprof', 'none'];

function number(value: string | undefined, flag: string, opts: { min: number; max?: number; integer?: boolean }): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < opts.min || (opts.max !== undefined && n > opts.max) || (opts.integer && !Number.isInteger(n))) {
    throw new CliExit(`${flag} takes a ${opts.integer ? 'whole ' : ''}number from ${opts.min}${opts.max !== undefined ? ` to ${opts.max}` : ''}, not "${value}"`, 2);
  }
  return n;
}

const tilde = (p: string) => (p.startsWith(homedir()) ? `~${p.slice(homedir().length)}` : p);

export function startupLines(runner: RunningRunner, tokenRequired: boolean): string {
  const { info } = runner;
  const profiler = info.profiler ? `${info.profiler.kind} (${info.profiler.path})` : 'none (profile mode answers with an error naming what is missing)';
  const gpus = info.runtime === 'CPU' ? `${info.gpus.join(', ')} (no ROCm or CUDA GPU found)` : `${info.gpus.join(', ')} (${info.runtime})`;
  return [
    `kernel-runner serve: listening on ${runner.url}`,
    `  GPUs:      ${gpus}`,
    `  profiler:  ${profiler}`,
    `  isolation: ${info.isolation.description}`,
    `  problems:  ${[...info.problems, 'script'].join(', ')} (from ${tilde(info.problemsDir)})`,
    `  data:      ${tilde(info.dataDir)}`,
    `  auth:      ${tokenRequired ? 'token required (Bearer or X-Popcorn-Cli-Id)' : 'none; loopback only'}`,
    `  stop:      Ctrl-C (running jobs are stopped and reported as interrupted)`,
    '',
  ].join('\n');
}

export function register(program: Command): void {
  program
    .command('serve')
    .description('run the runner service: GPU MODE submission API with live output, resumable streams and trace downloads')
    .option('--host <host>', 'address to listen on (non-loopback needs --token)', '127.0.0.1')
    .option('--port <port>', 'port (0 = any free port)', '8787')
    .option('--problems <dir>', 'problems folder (reference-kernels layout, its competition *.yaml files name the leaderboards); default: the bundled examples/problems')
    .option('--data-dir <dir>', 'where jobs, results and artifacts are kept; default: per-user state folder')
    .option('--token <token>', 'require this token (Authorization: Bearer, or X-Popcorn-Cli-Id) on every route but /health')
    .option('--gpu-name <name>', 'GPU name to serve under (default: detected, e.g. MI300; CPU without a GPU)')
    .option('--profiler <kind>', `profiler for profile mode: ${PROFILERS.join('|')}`, 'auto')
    .option('--rocpd', 'also ask rocprofv3 for its rocpd database (ROCm 7)')
    .option('--heartbeat <seconds>', 'interval of SSE status heartbeats', '15')
    .option('--kill-grace <seconds>', 'between SIGINT and SIGKILL when a job times out or is cancelled', '10')
    .option('--script-timeout <seconds>', "timeout of the 'script' leaderboard's runs", '180')
    .option('--hard-timeout <seconds>', 'the most one job may run, all its runs together (then it is timed_out)', '1800')
    .option('--public-url <url>', "base URL of artifact links (default: the listening address; never the request's Host header)")
    .action(async (opts: ServeCliOptions) => {
      const port = number(opts.port, '--port', { min: 0, max: 65535, integer: true });
      if (!PROFILERS.includes(opts.profiler as ProfilerChoice)) throw new CliExit(`--profiler takes ${PROFILERS.join(', ')}, not "${opts.profiler}"`, 2);
      let runner: RunningRunner;
      try {
        runner = await startRunner({
          host: opts.host,
          port,
          problemsDir: opts.problems,
          dataDir: opts.dataDir,
          token: opts.token,
          gpuName: opts.gpuName,
          profiler: opts.profiler as ProfilerChoice,
          rocpd: opts.rocpd,
          heartbeatMs: (number(opts.heartbeat, '--heartbeat', { min: 0.05 }) ?? 15) * 1000,
          killGraceMs: (number(opts.killGrace, '--kill-grace', { min: 0 }) ?? 10) * 1000,
          scriptTimeoutSec: number(opts.scriptTimeout, '--script-timeout', { min: 0.1 }),
          hardTimeoutSec: number(opts.hardTimeout, '--hard-timeout', { min: 0.1 }),
          publicUrl: opts.publicUrl,
          log: (line) => process.stderr.write(`kernel-runner serve: ${line}\n`),
        });
      } catch (err) {
        if (err instanceof RunnerStartError || err instanceof ProfilerError || err instanceof StoreError) throw new CliExit(err.message, 2);
        throw err;
      }
      process.stdout.write(startupLines(runner, Boolean(opts.token)));
      await new Promise<void>((resolve) => {
        let stopping = false;
        const stop = (signal: NodeJS.Signals) => {
          if (stopping) {
            process.stderr.write(`kernel-runner serve: ${signal} again, exiting now\n`);
            process.exit(130);
          }
          stopping = true;
          process.stderr.write(`kernel-runner serve: ${signal}: stopping jobs and saving state...\n`);
          void runner.close().then(() => {
            process.off('SIGINT', stop);
            process.off('SIGTERM', stop);
            process.stderr.write('kernel-runner serve: stopped\n');
            resolve();
          });
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
