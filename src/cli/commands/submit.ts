// `kernel-runner submit FILE`: send a file to a runner (ours, an embedded one, or GPU MODE's service) through the
// shared submission workflow (src/core/submission), print its live output with the profiler's noise hidden, then a
// readable result; save profile archives; exit non-zero when the submission failed. Everything decided here is
// how it looks; what happens is the workflow's.
import type { Command } from 'commander';
import { constants as osConstants } from 'node:os';
import path from 'node:path';
import { CliExit } from '../exit';
import { readSubmissionFile, SubmissionFileError } from '../submissionFile';
import { CLEANUP_SIGNALS, makeSubmitTempDir, type SubmitTempDir } from '../submitTempDir';
import { clientToken, TOKEN_FILE_HELP } from '../runnerToken';
import { defaultStateDir, withoutCredentials } from '../../core/runnerToken';
import { formatElapsed } from '../../core/format/index';
import { filterResultNoise } from '../../core/gpumode/results';
import { gpuModeBaseUrl } from '../../core/gpumode/target';
import { isSubmissionMode } from '../../core/protocol/api';
import {
  checkProfileOptions,
  hasProfileOptions,
  ProfileOptionError,
  type ProfileOptions,
} from '../../core/profileOptions';
import {
  connect,
  explain,
  failureOf,
  pollIntervalFromEnv,
  runSubmission,
  type Connection,
  type Explanation,
  type Route,
  type SubmissionOutcome,
} from '../../core/submission/index';
import { renderErrorEvent, renderResult, withSummaries } from '../render/submissionResult';
import type { RunningRunner } from '../../runner/index';
import { exitCodeFor } from '../../core/errors';
import { examplesHelp } from '../helpExamples';

export interface SubmitCliOptions {
  server?: string;
  token?: string;
  tokenFile?: string;
  leaderboard?: string;
  gpu?: string;
  mode: string;
  json?: boolean;
  out?: string;
  showNoise?: boolean;
  /** Profile mode: off | roofline | speed-of-light | a comma-separated list of counter names. */
  counters?: string;
  kernelRegex?: string;
  case?: string;
  launches?: string;
  /** Profile mode: off | host_trap | stochastic, and its interval (us for host_trap, cycles for stochastic). */
  pcSampling?: string;
  pcSamplingInterval?: string;
}

const PROFILE_FLAGS = {
  counters: '--counters',
  kernelRegex: '--kernel-regex',
  caseIndex: '--case',
  launches: '--launches',
  pcSampling: '--pc-sampling',
  pcSamplingInterval: '--pc-sampling-interval',
} as const;

/** The profile flags, checked as the runner checks them (exit 2 for a bad one; never sent unchecked). */
export function profileOptionsOfFlags(opts: SubmitCliOptions, mode: string): ProfileOptions | undefined {
  const raw = {
    counters: opts.counters,
    kernelRegex: opts.kernelRegex,
    caseIndex: opts.case,
    launches: opts.launches,
    pcSampling: opts.pcSampling,
    pcSamplingInterval: opts.pcSamplingInterval,
  };
  let options: ProfileOptions;
  try {
    options = checkProfileOptions(raw);
  } catch (err) {
    if (!(err instanceof ProfileOptionError)) throw err;
    throw new CliExit(`${PROFILE_FLAGS[err.field]}: ${err.message}`, 2);
  }
  const given = (Object.keys(PROFILE_FLAGS) as Array<keyof typeof PROFILE_FLAGS>)
    .filter((k) => raw[k] !== undefined)
    .map((k) => PROFILE_FLAGS[k]);
  if (given.length && mode !== 'profile') throw new CliExit(`${given.join(', ')}: only with --mode profile`, 2);
  if (given.length && opts.server === 'gpumode') {
    throw new CliExit(
      `${given.join(', ')} is for our runners (kernel-runner serve, the embedded one); GPU MODE's service profiles without it`,
      2,
    );
  }
  return hasProfileOptions(options) ? options : undefined;
}

/** Where the command writes; tests pass their own sinks. */
export interface SubmitIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  color: boolean;
  cwd: string;
}

const DEFAULT_OUT = 'kernel-runner-traces';

/** Buffers live lines and writes them in batches, keeping the order across stdout and stderr. */
function createLineSink(io: SubmitIo, jsonMode: boolean) {
  let toStderr = false;
  let buffer = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (buffer) (toStderr || jsonMode ? io.stderr : io.stdout).write(buffer);
    buffer = '';
  };
  return {
    line(err: boolean, text: string) {
      if (err !== toStderr || buffer.length > 1 << 20) {
        flush();
        toStderr = err;
      }
      buffer += `${text}\n`;
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}

function relativeTo(cwd: string, file: string): string {
  const rel = path.relative(cwd, file);
  return rel.startsWith('..') ? file : rel;
}

/**
 * The embedded runner, with a fresh token only this process knows (other local users cannot use it). It lives as
 * long as the command: its isolation check is remembered in the state folder (see runner/isolationCache.ts).
 */
export async function startEmbedded(): Promise<Embedded> {
  const { startEmbeddedRunner } = await import('../../runner/embedded');
  const temp = await makeSubmitTempDir();
  try {
    const runner = await startEmbeddedRunner({
      dataDir: temp.path,
      heartbeatMs: 5000,
      isolationCacheFile: path.join(defaultStateDir(), 'isolation.json'),
      oneSubmission: true,
    });
    return { runner, temp, token: runner.token };
  } catch (err) {
    await temp.remove();
    throw err;
  }
}

interface Embedded {
  runner: RunningRunner;
  /** The runner's data dir, removed when the command ends. */
  temp: SubmitTempDir;
  token: string;
}

/** The whole command; resolves to the exit code. */
export async function runSubmit(file: string, opts: SubmitCliOptions, io: SubmitIo): Promise<number> {
  if (!isSubmissionMode(opts.mode))
    throw new CliExit(`--mode takes test, benchmark, leaderboard or profile, not "${opts.mode}"`, 2);
  const mode = opts.mode;
  const profile = profileOptionsOfFlags(opts, mode);
  let bytes: Buffer;
  try {
    bytes = await readSubmissionFile(file, io.cwd);
  } catch (err) {
    if (err instanceof SubmissionFileError) throw new CliExit(err.message, 2);
    throw err;
  }

  const controller = new AbortController();
  let interrupts = 0;
  let jobId: number | undefined;
  const onSigint = () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    io.stderr.write(
      `\nkernel-runner: cancelling${jobId === undefined ? '' : ` job ${jobId}`} (Ctrl-C again to quit at once)...\n`,
    );
    controller.abort(new Error('interrupted'));
  };
  process.on('SIGINT', onSigint);
  // SIGTERM, SIGHUP (the terminal closed), SIGQUIT: the job is cancelled and the embedded runner's folder removed
  // as for Ctrl-C, then the signal is raised again; a second one ends the command at once
  let ending: NodeJS.Signals | undefined;
  const onEndSignal = (signal: NodeJS.Signals) => {
    if (ending) process.exit(128 + (osConstants.signals[signal] ?? 15));
    ending = signal;
    controller.abort(new Error(`interrupted by ${signal}`));
  };
  for (const signal of CLEANUP_SIGNALS) process.on(signal, onEndSignal);
  let embedded: Embedded | undefined;
  try {
    const baseUrl = opts.server === 'gpumode' ? gpuModeBaseUrl() : opts.server;
    const token = baseUrl ? clientToken(opts, baseUrl) : undefined;
    let connection: Connection;
    try {
      if (!baseUrl) {
        embedded = await startEmbedded();
        const { info } = embedded.runner;
        connection = await connect({
          baseUrl: embedded.runner.url,
          embedded: {
            health: { status: 'ok', version: 'embedded', gpus: info.gpus, profiler: info.profiler?.kind ?? null },
          },
          token: embedded.token,
          userAgent: 'kernel-runner-cli',
        });
      } else {
        connection = await connect({
          baseUrl,
          ...(token ? { token } : {}),
          ...(opts.token ? { cliId: opts.token } : {}),
          userAgent: 'kernel-runner-cli',
          signal: controller.signal,
        });
      }
    } catch (err) {
      const e = explain(err, { surface: 'cli', baseUrl, service: baseUrl ? undefined : 'kernel-runner' });
      throw new CliExit(e.message, exitCodeFor(e));
    }

    const sink = createLineSink(io, Boolean(opts.json));
    const say = (text: string) => sink.line(true, `kernel-runner: ${text}`);
    let route: Route | undefined;
    let chosen: { leaderboard: string; gpu: string } | undefined;
    const server = baseUrl ? withoutCredentials(baseUrl) : 'embedded';
    const outcome = await runSubmission(
      {
        filePath: file,
        content: bytes,
        mode,
        ...(opts.leaderboard ? { leaderboard: opts.leaderboard } : {}),
        ...(opts.gpu ? { gpu: opts.gpu } : {}),
        ...(profile ? { profile } : {}),
      },
      {
        connection,
        surface: 'cli',
        signal: controller.signal,
        pollIntervalMs: pollIntervalFromEnv(),
        outputBatches: true,
        traces: {
          outDir: path.resolve(io.cwd, opts.out ?? DEFAULT_OUT),
          downloads: true,
          summarize: async (f) => (await import('../../trace/index')).summarizePath(f),
          digest: async (f, summary) => {
            const { digestPath, configurationOf, sha256Text } = await import('../../trace/digest/index');
            return digestPath(f, {
              summary,
              submission: { file: path.basename(file), sha256: sha256Text(bytes) },
              configuration: configurationOf({ server, mode, leaderboard: chosen?.leaderboard, gpu: chosen?.gpu }),
              links: [{ rel: 'trace', href: f }],
            });
          },
        },
        onEvent(ev) {
          switch (ev.type) {
            case 'target':
              route = ev.route;
              chosen = { leaderboard: ev.target.leaderboard, gpu: ev.target.gpu };
              break;
            case 'note':
            case 'queue':
            case 'retry':
              say(ev.text);
              break;
            case 'accepted':
              jobId = ev.id;
              say(ev.text);
              break;
            case 'status': {
              if (!ev.changed || ev.phase === 'submitting') break;
              if (route === 'background') say(`[${formatElapsed(ev.elapsedMs, { padMinutes: true })}] ${ev.text}`);
              else if (ev.phase === 'finishing') break;
              // A single-run mode needs no "running test" line; queue positions and leaderboard/profile runs are worth it.
              else if (ev.queuePosition !== undefined && ev.queuePosition > 0) say(ev.text);
              else if (ev.run && (mode === 'leaderboard' || mode === 'profile')) say(ev.text);
              else if (ev.text.startsWith('[')) say(ev.text); // upstream heartbeats: "[00:15] processing"
              break;
            }
            case 'output':
              if (!ev.noise || opts.showNoise) sink.line(ev.stream === 'stderr', ev.text);
              break;
            case 'trace-saved':
              break;
          }
        },
      },
    );
    sink.flush();
    return render(outcome, opts, io);
  } finally {
    process.off('SIGINT', onSigint);
    if (embedded) {
      await embedded.runner.close();
      await embedded.temp.remove();
    }
    for (const signal of CLEANUP_SIGNALS) process.off(signal, onEndSignal);
    if (ending) process.kill(process.pid, ending);
  }
}
function render(outcome: SubmissionOutcome, opts: SubmitCliOptions, io: SubmitIo): number {
  const err = (line: string) => io.stderr.write(`kernel-runner: ${line}\n`);
  if (outcome.kind === 'failed' || outcome.kind === 'cancelled') {
    const e = outcome.explanation as Explanation;
    throw new CliExit(e.kind === 'cancelled' ? `cancelled: ${e.message}` : e.message, exitCodeFor(e));
  }
  const hiddenLive = opts.showNoise ? 0 : outcome.noiseLines;
  if (outcome.kind === 'error') {
    if (opts.json)
      io.stdout.write(
        `${JSON.stringify({ ok: false, job_id: outcome.id ?? null, error: outcome.error, traces: [], hidden_noise_lines: hiddenLive }, null, 2)}\n`,
      );
    else {
      if (hiddenLive)
        err(`${hiddenLive} profiler log line${hiddenLive === 1 ? '' : 's'} hidden (--show-noise shows them)`);
      io.stderr.write(renderErrorEvent(outcome.error!, { color: io.color }));
    }
    return 1;
  }
  const result = outcome.result!;
  // Without live output (GPU MODE), the program's output is inside the result: hide the noise there.
  const filtered = outcome.liveOutput || opts.showNoise ? { result, hidden: 0 } : filterResultNoise(result);
  const hidden = hiddenLive + filtered.hidden;
  const ok = outcome.passed;
  if (opts.json) {
    const traces = outcome.traces.map((t) => ({
      run: t.run,
      path: t.path,
      bytes: t.bytes,
      summary: t.summary ?? null,
      summary_error: t.summaryError ?? null,
      digest: t.digest ?? null,
      digest_path: t.digestPath ?? null,
      digest_error: t.digestError ?? null,
    }));
    const body = {
      ok,
      service: outcome.connection.service,
      route: outcome.route ?? null,
      job_id: outcome.route === 'stream' ? (outcome.id ?? null) : null,
      submission_id: outcome.route === 'background' ? (outcome.id ?? null) : null,
      status: outcome.jobStatus?.status ?? null,
      score: outcome.score?.seconds ?? null,
      ranked: outcome.score ? outcome.score.notRanked === undefined : null,
      not_ranked: outcome.score?.notRanked ?? null,
      result,
      ...(outcome.submission ? { submission: outcome.submission } : {}),
      traces,
      trace_error: outcome.traceError ?? null,
      hidden_noise_lines: hidden,
    };
    io.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
    return ok ? 0 : 1;
  }
  const out: string[] = [];
  if (outcome.jobStatus)
    out.push(
      `Submission ${outcome.id}: ${outcome.jobStatus.label}${outcome.jobStatus.explanation ? ` — ${outcome.jobStatus.explanation}` : ''}`,
    );
  const paths = new Map(outcome.traces.map((t) => [t.run, relativeTo(io.cwd, t.path)]));
  out.push(
    renderResult(withSummaries(filtered.result, outcome.traces), {
      color: io.color,
      liveOutputShown: outcome.liveOutput || outcome.route === 'background',
      savedTraces: paths,
    }).trimEnd(),
  );
  for (const t of outcome.traces)
    if (t.summaryError) out.push(`  ${t.run}: the trace could not be summarised: ${t.summaryError}`);
  for (const t of outcome.traces) {
    if (t.digestPath)
      out.push(`  ${t.run}: profile digest (for an agent) saved to ${relativeTo(io.cwd, t.digestPath)}`);
    else if (t.digestError) out.push(`  ${t.run}: no profile digest: ${t.digestError}`);
  }
  const score = outcome.score;
  const how = score?.source === 'run' ? "the service's score" : `${score?.rankingBy} of the benchmark means`;
  if (score && score.notRanked === undefined)
    out.push(`Ranked score: ${score.text} (${how}; the secret run is not ranked)`);
  else if (score) out.push(`Score ${score.text} (${how}), not ranked: ${score.notRanked}`);
  const failure = failureOf(outcome);
  if (failure) out.push(`Failed${failure.run ? ` (${failure.run})` : ''}: ${failure.reason}`);
  for (const advice of outcome.advice ?? []) out.push(advice);
  // GPU MODE's markdown reports are its only summary; our runner's say again what the live output and the lines
  // above already showed.
  if (result.reports.length && !outcome.liveOutput) out.push('', 'Reports:', ...result.reports.map((r) => r.trimEnd()));
  io.stdout.write(`\n${out.join('\n')}\n`);
  if (hidden > 0) err(`${hidden} profiler log line${hidden === 1 ? '' : 's'} hidden (--show-noise shows them)`);
  if (outcome.traceError) err(`could not save the trace: ${outcome.traceError}`);
  return ok ? 0 : 1;
}

export function register(program: Command): void {
  program
    .command('submit')
    .description(
      'submit a file to a runner (an embedded one when --server is not given) and print its live output and result',
    )
    .argument(
      '<file>',
      'the submission: a problem solution (submission.py), or any script for the `script` leaderboard',
    )
    .option(
      '--server <url>',
      "runner base URL (kernel-runner serve), or `gpumode` for GPU MODE ($POPCORN_API_URL, else popcorn-cli's default); default: an embedded runner for this command",
    )
    .option(
      '--token <token>',
      "the runner's token (default: --token-file, $KERNEL_RUNNER_TOKEN, else for a loopback URL the one `serve` stored in ~/.local/state/kernel-runner/token); for GPU MODE, a cli_id instead of ~/.popcorn.yaml's",
    )
    .option('--token-file <path>', TOKEN_FILE_HELP)
    .option('--leaderboard <name>', 'leaderboard (default: the file\'s #!POPCORN leaderboard directive, else "script")')
    .option(
      '--gpu <name>',
      "GPU (default: the file's #!POPCORN gpu directive, else the leaderboard's only GPU; on GPU MODE a leaderboard with several GPUs is refused without one, on a runner of ours the first is taken and named)",
    )
    .option('--mode <mode>', 'test | benchmark | leaderboard | profile', 'test')
    .option('--json', 'print the final result as JSON on stdout (live output goes to stderr)')
    .option('--out <dir>', `where profile archives are saved (default: ./${DEFAULT_OUT})`)
    .option('--show-noise', "also print the profiler's log lines (Perfetto, glog) that are hidden by default")
    .option(
      '--counters <spec>',
      'profile mode, our runners: hardware counters: off | roofline | speed-of-light | a comma-separated list (SQ_WAVES,GRBM_GUI_ACTIVE); split into rocprofv3 passes for the GPU',
    )
    .option(
      '--kernel-regex <regex>',
      "profile mode, our runners: rocprofv3's --kernel-include-regex (counters of matching kernels only)",
    )
    .option('--case <index>', 'profile mode, our runners: run and profile only this benchmark case (0-based)')
    .option(
      '--launches <window>',
      "profile mode, our runners: which launches of each matching kernel get counters, rocprofv3's --kernel-iteration-range (10-20, [1-2],[5]; counted from 1)",
    )
    .option(
      '--pc-sampling <method>',
      'with --mode profile: sample the program counter, off | host_trap | stochastic (MI300: stochastic has stall reasons); `kernel-runner hotspots` reads the samples',
    )
    .option(
      '--pc-sampling-interval <n>',
      'host_trap: microseconds (default 1); stochastic: cycles, a power of two >= 256 (default 1048576)',
    )
    .addHelpText(
      'after',
      examplesHelp([
        'kernel-runner submit submission.py --mode benchmark',
        'kernel-runner submit submission.py --server http://mi300-box:8787 --mode profile --counters roofline',
        'kernel-runner submit submission.py --server gpumode --mode leaderboard',
      ]),
    )
    .action(async (file: string, opts: SubmitCliOptions) => {
      const color = process.stdout.isTTY === true && !process.env.NO_COLOR;
      const code = await runSubmit(file, opts, {
        stdout: process.stdout,
        stderr: process.stderr,
        color,
        cwd: process.cwd(),
      });
      if (code !== 0) process.exitCode = code;
    });
}
