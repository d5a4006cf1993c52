// The runner service: `startRunner()` is used by `kernel-runner serve`, by `kernel-runner submit` without
// --server (embedded, for the command's duration) and by the VS Code extension in-process.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { RunSettings } from './evaluate';
import { detectGpus, type GpuInventory } from './gpus';
import { HttpError, sendError } from './http/errors';
import { checkLocalCaller, checkToken, isLoopbackHost } from './http/auth';
import { createJobManager, type JobManager } from './jobs';
import { defaultDataDir, defaultProblemsDir, packageRoot } from './paths';
import { loadProblems, type Problem, type ProblemSet } from './problems';
import { detectProfiler, type Profiler, type ProfilerChoice } from './profilers';
import { createRoutes } from './routes';
import { openStore, type RetentionPolicy } from './store';
import { probeSystem } from './system';

export interface RunnerOptions {
  host?: string;
  /** 0 = an ephemeral port. Default 8787. */
  port?: number;
  problemsDir?: string;
  dataDir?: string;
  token?: string;
  gpuName?: string;
  profiler?: ProfilerChoice;

  // Tuning (defaults suit a real service; tests shorten them)
  /** Interval of `status` heartbeats. Default 15 s (upstream's). */
  heartbeatMs?: number;
  /** Between SIGINT and SIGKILL on timeout/cancel (rocprofv3 writes its files on SIGINT). Default 10 s. */
  killGraceMs?: number;
  /** Timeout of the `script` leaderboard's runs. Default 180 s. */
  scriptTimeoutSec?: number;
  /** The most one job may run, all its runs together; past it the job is `timed_out`. Default 1800 s (upstream's). */
  hardTimeoutSec?: number;
  /** stdout/stderr kept in a RunResult (head + tail). Default 16 KiB each. */
  outputCapBytes?: number;
  /** Profile zips up to this size are inlined (base64) in ProfileResult.trace. Default 8 MB. */
  inlineTraceBytes?: number;
  /** zlib level of profile zips. Default 1 (fast; see shared performance notes). */
  zipLevel?: number;
  /** Also ask rocprofv3 for its rocpd database (ROCm 7). Default false. */
  rocpd?: boolean;
  retention?: Partial<RetentionPolicy>;
  /** How often retention runs (also once at start). Default 1 h. */
  retentionIntervalMs?: number;
  /** Environment of child processes and of profiler discovery. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Python interpreter. Default python3. */
  python?: string;
  /** Base URL used in artifact links instead of the request's Host. */
  publicUrl?: string;
  /** Startup and warning lines. Default: nothing. */
  log?: (line: string) => void;
}

export interface RunningRunner {
  url: string;
  close(): Promise<void>;
  /** What the runner found at start (for the startup line). */
  info: { gpus: string[]; runtime: GpuInventory['runtime']; profiler: Profiler | null; problemsDir: string; problems: string[]; dataDir: string; warnings: string[] };
}

export class RunnerStartError extends Error {
  readonly type = 'runner-start' as const;
}

export function runnerVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/**
 * The problems folder, read on first use: a plain script's submission (the embedded runner of `kernel-runner
 * submit`) never needs it, and parsing the task files costs a fresh process about 10 ms. Its warnings are logged
 * when it is read.
 */
class LazyProblems extends Map<string, Problem> {
  #load: (() => ProblemSet) | null;
  #warnings: string[] = [];

  constructor(load: () => ProblemSet) {
    super();
    this.#load = load;
  }

  #ready(): this {
    const load = this.#load;
    if (load) {
      this.#load = null;
      const set = load();
      for (const [name, problem] of set.problems) super.set(name, problem);
      this.#warnings = set.warnings;
    }
    return this;
  }

  get warnings(): string[] {
    this.#ready();
    return this.#warnings;
  }
  override get size(): number {
    this.#ready();
    return super.size;
  }
  override get(name: string): Problem | undefined {
    this.#ready();
    return super.get(name);
  }
  override has(name: string): boolean {
    this.#ready();
    return super.has(name);
  }
  override keys(): MapIterator<string> {
    this.#ready();
    return super.keys();
  }
  override values(): MapIterator<Problem> {
    this.#ready();
    return super.values();
  }
  override entries(): MapIterator<[string, Problem]> {
    this.#ready();
    return super.entries();
  }
  override forEach(fn: (problem: Problem, name: string, map: Map<string, Problem>) => void, thisArg?: unknown): void {
    this.#ready();
    super.forEach(fn, thisArg);
  }
  override [Symbol.iterator](): MapIterator<[string, Problem]> {
    this.#ready();
    return super[Symbol.iterator]();
  }
}

export async function startRunner(opts: RunnerOptions = {}): Promise<RunningRunner> {
  const host = opts.host ?? '127.0.0.1';
  const port = opts.port ?? 8787;
  const token = opts.token === '' ? undefined : opts.token;
  if (!token && !isLoopbackHost(host)) {
    throw new RunnerStartError(
      `refusing to listen on ${host} without a token: anyone who can reach it could run code on this machine. ` +
        'Pass --token TOKEN (clients send it as a Bearer token or X-Popcorn-Cli-Id), or listen on 127.0.0.1.',
    );
  }
  const env = opts.env ?? process.env;
  const log = opts.log ?? (() => undefined);
  const problemsDir = resolve(opts.problemsDir ?? defaultProblemsDir());
  const dataDir = resolve(opts.dataDir ?? defaultDataDir());
  const profiler = detectProfiler(opts.profiler ?? 'auto', env.PATH);
  const inventory = await detectGpus(opts.gpuName, env.PATH);
  const problems = new LazyProblems(() => {
    const set = loadProblems(problemsDir);
    for (const w of set.warnings) log(`warning: ${w}`);
    return set;
  });
  const python = opts.python ?? 'python3';

  const store = openStore(dataDir);
  const settings: RunSettings = {
    python,
    graceMs: opts.killGraceMs ?? 10_000,
    capBytes: opts.outputCapBytes ?? 16 * 1024,
    inlineTraceBytes: opts.inlineTraceBytes ?? 8 * 1024 * 1024,
    zipLevel: opts.zipLevel ?? 1,
    scriptTimeoutSec: opts.scriptTimeoutSec ?? 180,
    compileTimeoutSec: 300,
    profiler,
    rocpd: opts.rocpd ?? false,
    env,
  };
  const system = probeSystem(inventory, python, env);
  let jobs: JobManager;
  try {
    jobs = createJobManager({
      store,
      inventory,
      system,
      settings,
      heartbeatMs: opts.heartbeatMs ?? 15_000,
      retention: { maxAgeDays: 30, maxTotalBytes: 10 * 1024 ** 3, ...opts.retention },
      retentionIntervalMs: opts.retentionIntervalMs ?? 3_600_000,
      maxLiveOutputBytes: 1024 ** 3,
      maxQueuedJobs: 10_000,
      hardTimeoutMs: (opts.hardTimeoutSec ?? 1800) * 1000,
      log,
    });
  } catch (err) {
    system.stop();
    store.close();
    throw err;
  }
  const router = createRoutes({
    jobs,
    store,
    problems,
    inventory,
    profiler,
    version: runnerVersion(),
    maxFileBytes: 1_000_000,
    publicUrl: opts.publicUrl,
    maxClientBacklogBytes: 64 * 1024 * 1024,
    heartbeatMs: opts.heartbeatMs ?? 15_000,
  });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const url = new URL(req.url ?? '/', 'http://runner.invalid');
      // route on the path as sent: URL parsing would resolve `..` and `%2e%2e` segments before we can refuse them
      const rawPath = (req.url ?? '/').split('?')[0] as string;
      if (token) {
        // /auth/init is where popcorn-cli registers, before it has an id: it answers how to use the token instead
        if (rawPath !== '/health' && rawPath !== '/auth/init') checkToken(req, token);
      } else checkLocalCaller(req);
      const { handler, params } = router.match(req.method ?? 'GET', rawPath);
      await handler({ req, res, url, params });
    } catch (err) {
      if (err instanceof HttpError) sendError(res, err);
      else {
        log(`error: ${req.method} ${req.url}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        sendError(res, new HttpError(500, `Internal server error: ${err instanceof Error ? err.message : String(err)}`));
      }
    }
  };

  const server = createServer((req, res) => void handle(req, res));
  server.keepAliveTimeout = 5_000;
  server.requestTimeout = 0; // streaming responses last as long as the job
  try {
    await new Promise<void>((resolveListen, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolveListen();
      });
    });
  } catch (err) {
    system.stop();
    await jobs.close();
    const e = err as NodeJS.ErrnoException;
    throw new RunnerStartError(e.code === 'EADDRINUSE' ? `port ${port} on ${host} is already in use (try --port 0 for any free port)` : `cannot listen on ${host}:${port}: ${e.message}`);
  }
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${urlHost}:${address.port}`;

  let closing: Promise<void> | null = null;
  return {
    url,
    info: {
      gpus: inventory.names,
      runtime: inventory.runtime,
      profiler,
      problemsDir,
      get problems() {
        return [...problems.keys()].sort();
      },
      dataDir,
      get warnings() {
        return problems.warnings;
      },
    },
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((r) => server.close(() => r()));
        system.stop();
        await jobs.close();
        // every stream has its terminal event now: let them drain, then cut whatever is left
        server.closeIdleConnections();
        const grace = setTimeout(() => server.closeAllConnections(), 2000);
        await stopped;
        clearTimeout(grace);
      })();
      return closing;
    },
  };
}
