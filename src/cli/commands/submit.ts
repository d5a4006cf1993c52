// `kernel-runner submit FILE`: send a file to a runner (ours, an embedded one, or GPU MODE's service), print its
// live output with the profiler's noise hidden, then a readable result; save profile archives; exit non-zero
// when the submission failed.
import type { Command } from 'commander';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CliExit } from '../exit';
import { createRunnerClient, RunnerClientError, type ClientEvent, type RunnerClient, type StreamOutcome } from '../../core/client/index';
import { parseDirectivesClient } from '../../core/directives';
import { readPopcornConfig } from '../../core/popcornConfig';
import { SCRIPT_LEADERBOARD, isSubmissionMode, queueLabel, type SubmissionMode } from '../../core/protocol/api';
import { renderErrorEvent, renderResult, resultPassed } from '../render/submissionResult';
import { saveProfileTraces, type SavedTrace } from '../../core/gpumode/traces';
import { gpuModeBaseUrl, isGpuModeUrl } from '../../core/gpumode/target';
import { runGpuModeSubmit } from '../submit/gpumode';
import { startRunner, type RunningRunner } from '../../runner/index';

export interface SubmitCliOptions {
  server?: string;
  token?: string;
  leaderboard?: string;
  gpu?: string;
  mode: string;
  json?: boolean;
  out?: string;
  showNoise?: boolean;
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

function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === 'localhost' || host === '[::1]' || /^127\./.test(host);
  } catch {
    return false;
  }
}

async function resolveIdentity(opts: SubmitCliOptions): Promise<{ token?: string; cliId?: string }> {
  const token = opts.token ?? (process.env.KERNEL_RUNNER_TOKEN || undefined);
  if (token) return { token };
  if (!opts.server || isLoopbackUrl(opts.server)) return {};
  // A remote server without a token: GPU MODE's identity, shared with popcorn-cli.
  try {
    const config = await readPopcornConfig();
    return config.cliId ? { cliId: config.cliId } : {};
  } catch (err) {
    throw new CliExit(err instanceof Error ? err.message : String(err), 2);
  }
}

function clientErrorExit(err: unknown): never {
  if (err instanceof RunnerClientError) {
    let hint = '';
    if (err.type === 'http' && (err.status === 401 || err.status === 403)) hint = ' (check --token / KERNEL_RUNNER_TOKEN, or the cli_id in ~/.popcorn.yaml)';
    if (err.type === 'network' && err.code === 'ECONNREFUSED') hint = '. Start `kernel-runner serve` there, or leave out --server to use an embedded runner.';
    throw new CliExit(`${err.message}${hint}`, err.type === 'cancelled' ? 130 : 1);
  }
  throw err;
}

interface Target {
  leaderboard: string;
  gpu: string;
  mode: SubmissionMode;
}

async function resolveTarget(client: RunnerClient, opts: SubmitCliOptions, source: string, io: SubmitIo, knownGpus?: string[]): Promise<Target> {
  if (!isSubmissionMode(opts.mode)) throw new CliExit(`--mode takes test, benchmark, leaderboard or profile, not "${opts.mode}"`, 2);
  const directives = parseDirectivesClient(source);
  if (directives.errors.length && !opts.gpu) throw new CliExit(directives.errors.map((e) => e.message).join('; '), 2);
  const leaderboard = opts.leaderboard ?? directives.leaderboard ?? SCRIPT_LEADERBOARD;
  let gpu = opts.gpu ?? directives.gpus[0];
  if (!gpu) {
    // The built-in script leaderboard takes every GPU of the runner; other leaderboards list theirs.
    const gpus = knownGpus && leaderboard === SCRIPT_LEADERBOARD ? knownGpus : await client.listGpus(leaderboard).catch(clientErrorExit);
    if (gpus.length === 0) throw new CliExit(`leaderboard "${leaderboard}" lists no GPUs on ${client.baseUrl}`, 1);
    gpu = gpus[0] as string;
    if (gpus.length > 1) io.stderr.write(`kernel-runner: using GPU ${gpu} (of ${gpus.join(', ')}; --gpu chooses)\n`);
  }
  return { leaderboard, gpu, mode: opts.mode };
}

/** One short line per change worth telling: waiting behind other jobs, and each run as it starts. */
function describeStatus(event: ClientEvent, last: { text: string }): string | undefined {
  let text: string | undefined;
  const position = event.event === 'job' || event.event === 'status' ? (event.data.queue_position ?? 0) : 0;
  if (position > 0) text = `${queueLabel(position)} (waiting for a free device)`;
  else if (event.event === 'status' && event.data.run && event.data.state !== 'queued') text = `running ${event.data.run}`;
  if (!text || text === last.text) return undefined;
  last.text = text;
  return text;
}

/** The whole command; resolves to the exit code. */
export async function runSubmit(file: string, opts: SubmitCliOptions, io: SubmitIo): Promise<number> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path.resolve(io.cwd, file));
  } catch (err) {
    throw new CliExit(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, 2);
  }
  const source = bytes.toString('utf8');
  const identity = await resolveIdentity(opts);

  let embedded: RunningRunner | undefined;
  let embeddedData: string | undefined;
  const controller = new AbortController();
  let interrupts = 0;
  let jobId: number | undefined;
  const onSigint = () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    io.stderr.write(`\nkernel-runner: cancelling${jobId === undefined ? '' : ` job ${jobId}`} (Ctrl-C again to quit at once)...\n`);
    controller.abort(new Error('interrupted'));
  };
  process.on('SIGINT', onSigint);
  try {
    let baseUrl = opts.server === 'gpumode' ? gpuModeBaseUrl() : opts.server;
    // GPU MODE's service by its URL: its own flow (pre-flight checks, queue, background route + polling, cli_id).
    if (baseUrl && isGpuModeUrl(baseUrl)) return await runGpuModeSubmit(file, bytes, { ...opts, server: baseUrl }, io, controller.signal);
    if (!baseUrl) {
      embeddedData = await mkdtemp(path.join(tmpdir(), 'kernel-runner-submit-'));
      embedded = await startRunner({ port: 0, dataDir: embeddedData, heartbeatMs: 5000 });
      baseUrl = embedded.url;
    }
    const client = (() => {
      try {
        return createRunnerClient({ baseUrl, ...identity, userAgent: 'kernel-runner-cli' });
      } catch (err) {
        return clientErrorExit(err);
      }
    })();
    // The embedded runner is ours and runs everything on its first GPU: no round trips needed to find out.
    const health = embedded ? undefined : await client.health({ signal: controller.signal }).catch(clientErrorExit);
    const ours = embedded !== undefined || health?.version !== undefined;
    // A server without our /health additions is GPU MODE's service (or a copy of it) under another name.
    if (!ours) return await runGpuModeSubmit(file, bytes, { ...opts, server: client.baseUrl }, io, controller.signal);
    const target = await resolveTarget(client, opts, source, io, embedded?.info.gpus);
    const request = { ...target, file: { name: path.basename(file), content: bytes } };

    const sink = createLineSink(io, Boolean(opts.json));
    let hidden = 0;
    let live = false;
    const lastStatus = { text: '' };
    let outcome: StreamOutcome;
    try {
      outcome = await client.submit(request, {
        signal: controller.signal,
        onEvent(event) {
          if (event.event === 'job') {
            jobId = event.data.job_id;
            const where = embedded ? 'embedded runner' : client.baseUrl;
            sink.line(true, `kernel-runner: job ${jobId}: ${request.file.name} → ${target.leaderboard} on ${target.gpu}, ${target.mode} (${where})`);
          }
          if (event.event === 'output') {
            live = true;
            if (event.data.noise && !opts.showNoise) hidden += 1;
            else sink.line(event.data.stream === 'stderr', event.data.text);
            return;
          }
          const status = describeStatus(event, lastStatus);
          // A single-run mode needs no "running test" line; leaderboard and profile runs are worth naming.
          if (status && (target.mode === 'leaderboard' || target.mode === 'profile' || !status.startsWith('running'))) sink.line(true, `kernel-runner: ${status}`);
        },
        onReconnect(info) {
          sink.line(true, `kernel-runner: connection lost (${info.reason.message}); resuming job ${info.jobId} after event ${info.lastEventId}...`);
        },
      });
    } catch (err) {
      sink.flush();
      if (controller.signal.aborted) throw new CliExit(`cancelled${jobId === undefined ? '' : `: job ${jobId} was stopped on the runner`}`, 130);
      return clientErrorExit(err);
    }
    sink.flush();
    return await finish(client, outcome, { ...opts, ...target, file, live, hidden }, io, controller.signal);
  } finally {
    process.off('SIGINT', onSigint);
    await embedded?.close();
    if (embeddedData) await rm(embeddedData, { recursive: true, force: true });
  }
}

async function finish(
  client: RunnerClient,
  outcome: StreamOutcome,
  ctx: SubmitCliOptions & { file: string; live: boolean; hidden: number },
  io: SubmitIo,
  signal: AbortSignal,
): Promise<number> {
  const noiseNote = ctx.hidden > 0 ? `kernel-runner: ${ctx.hidden} profiler log line${ctx.hidden === 1 ? '' : 's'} hidden (--show-noise shows them)\n` : '';
  if (outcome.kind === 'error') {
    if (ctx.json) io.stdout.write(`${JSON.stringify({ ok: false, job_id: outcome.jobId ?? null, error: outcome.error, traces: [], hidden_noise_lines: ctx.hidden }, null, 2)}\n`);
    else io.stderr.write(noiseNote + renderErrorEvent(outcome.error, { color: io.color }));
    return 1;
  }
  let saved: SavedTrace[] = [];
  let saveError: string | undefined;
  try {
    saved = await saveProfileTraces(outcome.result, {
      client,
      outDir: path.resolve(io.cwd, ctx.out ?? DEFAULT_OUT),
      fileName: ctx.file,
      leaderboard: ctx.leaderboard,
      gpu: ctx.gpu,
      submissionId: outcome.jobId,
      signal,
      summarize: false, // our runner sends the summary with the result
    });
  } catch (err) {
    saveError = err instanceof Error ? err.message : String(err);
  }
  const passed = resultPassed(outcome.result);
  if (ctx.json) {
    const traces = saved.map((t) => ({ run: t.run, path: t.path, bytes: t.bytes }));
    io.stdout.write(`${JSON.stringify({ ok: passed, job_id: outcome.jobId ?? null, result: outcome.result, traces, hidden_noise_lines: ctx.hidden }, null, 2)}\n`);
  } else {
    const shown = new Map(saved.map((t) => [t.run, relativeTo(io.cwd, t.path)]));
    io.stdout.write(`\n${renderResult(outcome.result, { color: io.color, liveOutputShown: ctx.live, savedTraces: shown })}`);
    io.stderr.write(noiseNote);
  }
  if (saveError) io.stderr.write(`kernel-runner: could not save the trace: ${saveError}\n`);
  return passed && !saveError ? 0 : 1;
}

function relativeTo(cwd: string, file: string): string {
  const rel = path.relative(cwd, file);
  return rel.startsWith('..') ? file : rel;
}

export function register(program: Command): void {
  program
    .command('submit')
    .description('submit a file to a runner (an embedded one when --server is not given) and print its live output and result')
    .argument('<file>', 'the submission: a problem solution (submission.py), or any script for the `script` leaderboard')
    .option('--server <url>', 'runner base URL (kernel-runner serve), or `gpumode` for GPU MODE ($POPCORN_API_URL, else popcorn-cli\'s default); default: an embedded runner for this command')
    .option('--token <token>', "the runner's token (default: $KERNEL_RUNNER_TOKEN; for GPU MODE the cli_id from ~/.popcorn.yaml)")
    .option('--leaderboard <name>', 'leaderboard (default: the file\'s #!POPCORN leaderboard directive, else "script")')
    .option('--gpu <name>', "GPU (default: the file's #!POPCORN gpu directive, else the leaderboard's first GPU)")
    .option('--mode <mode>', 'test | benchmark | leaderboard | profile', 'test')
    .option('--json', 'print the final result as JSON on stdout (live output goes to stderr)')
    .option('--out <dir>', `where profile archives are saved (default: ./${DEFAULT_OUT})`)
    .option('--show-noise', "also print the profiler's log lines (Perfetto, glog) that are hidden by default")
    .action(async (file: string, opts: SubmitCliOptions) => {
      const color = process.stdout.isTTY === true && !process.env.NO_COLOR;
      const code = await runSubmit(file, opts, { stdout: process.stdout, stderr: process.stderr, color, cwd: process.cwd() });
      if (code !== 0) process.exitCode = code;
    });
}
