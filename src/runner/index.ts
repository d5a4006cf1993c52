// The runner service: `startRunner()` is used by `kernel-runner serve`, by `kernel-runner submit` without
// --server (embedded, for the command's duration) and by the VS Code extension in-process.
import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { RunSettings } from './evaluate';
import { DEFAULT_SUMMARY_LIMITS, type SummaryLimits } from './boundedSummary';
import { detectGpus, type GpuInventory } from './gpus';
import { createLocalExecutor, type Executor, type ExecutorKind } from './executors';
import type { SlurmSettings } from './executors/slurm';
import { HttpError, sendError } from './http/errors';
import { isLoopbackHost } from '../core/loopback';
import { listeningFilePath } from '../core/runnerToken';
import { checkLocalCaller, checkOrigin, checkToken } from './http/auth';
import { createJobManager, type JobManager } from './jobs';
import { defaultDataDir, defaultProblemsDir, packageRoot, packageVersion, preparePrivateDir } from './paths';
import { loadProblems, type Problem, type ProblemSet } from './problems';
import { detectProfiler, findOnPath, type Profiler, type ProfilerChoice } from './profilers';
import { detectIsolation, type Isolation } from './isolation';
import { buildSandbox } from './sandbox';
import { DEFAULT_JOB_PROCESS_LIMIT, defaultJobMemoryLimit, describeGroupLimits, type JobLimits } from './jobLimits';
import { defaultStateDir } from '../core/runnerToken';
import { createBacklogBudget } from './http/backlogBudget';
import { shareConnections, type ConnectionShare } from './http/connectionShare';
import { createRoutes } from './routes';
import { openStore, type RetentionPolicy } from './store';

import { probeSystem } from './system';
import { KernelRunnerError, errorMessage } from '../core/errors';
import { ROUTES } from '../core/protocol/routes';
import { MAX_SUBMISSION_BYTES } from '../core/limits';
import {
  BODY_IDLE_TIMEOUT_MS,
  BODY_TIMEOUT_MS,
  DEFAULT_MAX_JOB_DISK_BYTES,
  DEFAULT_MAX_JOB_OUTPUT,
  HEADERS_TIMEOUT_MS,
  HEARTBEAT_MS,
  KILL_GRACE_MS,
  RETENTION_INTERVAL_MS,
} from './limits';

/** The data dir's budget for jobs (--max-data): 20 GB. */
const DEFAULT_MAX_DATA_BYTES = 20e9;

export interface RunnerOptions {
  host?: string;
  /** 0 = an ephemeral port. Default 8787. */
  port?: number;
  problemsDir?: string;
  dataDir?: string;
  token?: string;
  gpuName?: string;
  profiler?: ProfilerChoice;
  /** Where jobs run: `local` (default: children of the runner) or `slurm` (one Slurm job per run, see executors/slurm.ts). */
  executor?: ExecutorKind;
  /** The Slurm executor's partition, GRES, account, QoS, extra srun arguments and start check. */
  slurm?: SlurmSettings;

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
  /**
   * Time and memory a finished profile's summary may take (a worker thread, boundedSummary.ts); past either the
   * job's result says the summary was cut short. Default 120 s and 1024 MiB.
   */
  summaryLimits?: Partial<SummaryLimits>;
  /** Also ask rocprofv3 for its rocpd database (ROCm 7). Default false. */
  rocpd?: boolean;
  /** Stored output per job: live output events and profiler stderr logs together. Default 256 MiB. */
  maxJobOutputBytes?: number;
  /** What a job's work dir may take on disk while it runs; past it the job is stopped. Default 8 GiB, at most the data budget. */
  maxJobDiskBytes?: number;
  /** The runner runs one submission and stops (`kernel-runner submit`'s): no namespace made ahead for after it. */
  oneSubmission?: boolean;
  /** Memory each process of a job may allocate (RLIMIT_DATA, jobLimits.ts). Default 3/4 of the machine's; 0 = none. */
  maxJobMemoryBytes?: number;
  /** Processes and threads of a job (RLIMIT_NPROC, jobLimits.ts). Default 4096; 0 = none. */
  maxJobProcesses?: number;
  /**
   * Who a root runner's jobs run as (in a PID namespace): `auto` (default: the kernel-runner-job account where it
   * exists, else nobody), an account name, or UID[:GID]. Not used by a runner that is not root.
   */
  jobUser?: string;
  /** Files and folders besides the data dir that jobs must not see (serve: its --token-file). The user's state folder always. */
  privatePaths?: string[];
  /**
   * Finished jobs older than maxAgeDays (default 30) are deleted, and the oldest finished jobs go first while the
   * data dir's jobs take more than maxTotalBytes (default 20 GB).
   */
  retention?: Partial<RetentionPolicy>;
  /** How often retention runs (also once at start, and after a job ends when the last sweep was a minute ago). Default 1 h. */
  retentionIntervalMs?: number;
  /** The least time between two sweeps after jobs end; a job ending sooner has one scheduled for then. Default 60 s. */
  retentionGapMs?: number;
  /** Environment of child processes and of profiler discovery. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Python interpreter. Default python3. */
  python?: string;
  /** Where the PID namespace check's finding is remembered (isolationCache.ts): for runners that live as long as one command. */
  isolationCacheFile?: string;
  /**
   * Base URL of artifact links (`download_url`), for a runner behind a proxy. Default: the listening address (the
   * machine's host name for a wildcard address); never the request's Host header.
   */
  publicUrl?: string;
  /** The whole request head must arrive within this (Node's headersTimeout). Default 30 s. */
  headersTimeoutMs?: number;
  /**
   * A request body that makes no progress for this long is answered 408 and closed; so is one that brings fewer
   * than bodyMinBytesPerSec in any such period. Default 30 s.
   */
  bodyIdleTimeoutMs?: number;
  /** The slowest a request body may arrive, measured over each bodyIdleTimeoutMs. Default 1 KiB/s. */
  bodyMinBytesPerSec?: number;
  /** The longest a request body may take in all, however it trickles. Default 120 s. */
  bodyTimeoutMs?: number;
  /** Unsent bytes an extension client may lag behind live output before it is relayed from the log instead. Default 16 MiB. */
  maxClientBacklogBytes?: number;
  /** What all event-stream clients together may hold of unsent live output (past it, the ones furthest behind continue from the job's log). Default 64 MiB. */
  maxTotalBacklogBytes?: number;
  /**
   * Open connections beyond this are closed at once (server.maxConnections). Default 256, a quarter of them kept
   * for connections whose request passed the token (http/connectionShare.ts).
   */
  maxConnections?: number;
  /** Startup and warning lines. Default: nothing. */
  log?: (line: string) => void;
}

export interface RunningRunner {
  url: string;
  close(): Promise<void>;
  /** What the runner found at start (for the startup line). */
  info: {
    gpus: string[];
    runtime: GpuInventory['runtime'];
    profiler: Profiler | null;
    isolation: Pick<Isolation, 'kind' | 'description'>;
    /** Where jobs run, one line. */
    executor: string;
    problemsDir: string;
    problems: string[];
    dataDir: string;
    warnings: string[];
  };
}

export class RunnerStartError extends KernelRunnerError {
  override readonly name = 'RunnerStartError';
  readonly code = 'RUNNER_START';
  readonly type = 'runner-start' as const;
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
  if (opts.publicUrl !== undefined) {
    let ok: boolean;
    try {
      ok = /^https?:$/.test(new URL(opts.publicUrl).protocol);
    } catch {
      ok = false;
    }
    if (!ok)
      throw new RunnerStartError(
        `public URL "${opts.publicUrl}" is not an http(s) URL (e.g. https://runner.example.com)`,
      );
  }
  const headersTimeoutMs = opts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  const bodyIdleTimeoutMs = opts.bodyIdleTimeoutMs ?? BODY_IDLE_TIMEOUT_MS;
  const bodyMinBytesPerSec = opts.bodyMinBytesPerSec ?? 1024;
  const bodyTimeoutMs = opts.bodyTimeoutMs ?? BODY_TIMEOUT_MS;
  const profiler = detectProfiler(opts.profiler ?? 'auto', env.PATH);
  const problems = new LazyProblems(() => {
    const set = loadProblems(problemsDir);
    for (const w of set.warnings) log(`warning: ${w}`);
    return set;
  });
  const python = opts.python ?? 'python3';

  // private state: other users of the machine must not read jobs, code or results
  preparePrivateDir(dataDir, log);
  const store = openStore(dataDir);
  const maxDataBytes = opts.retention?.maxTotalBytes ?? DEFAULT_MAX_DATA_BYTES;
  const maxJobDiskBytes = opts.maxJobDiskBytes ?? Math.min(DEFAULT_MAX_JOB_DISK_BYTES, maxDataBytes);
  const jobLimits: JobLimits = {
    memory: opts.maxJobMemoryBytes ?? defaultJobMemoryLimit(),
    processes: opts.maxJobProcesses ?? DEFAULT_JOB_PROCESS_LIMIT,
  };
  // what a job sees of this runner: its own work dir, not the data dir, the state folder or the runner's files
  let sandbox;
  try {
    sandbox = buildSandbox({
      dataDir,
      privatePaths: [defaultStateDir(env), ...(opts.privatePaths ?? [])],
      runnerFiles: [packageRoot()],
      jobUser: opts.jobUser ?? 'auto',
      toolchain: [findOnPath(python, env.PATH) ?? python],
      fileSizeLimit: maxJobDiskBytes,
      processLimit: jobLimits.processes,
      memoryLimit: jobLimits.memory,
    });
  } catch (err) {
    store.close();
    throw new RunnerStartError(errorMessage(err));
  }
  // how each job's processes are kept together (probed once; see isolation.ts)
  const isolation = detectIsolation(env, {
    ...(opts.isolationCacheFile ? { cacheFile: opts.isolationCacheFile } : {}),
    sandbox,
  });
  // after the store (one runner per data dir): the Slurm jobs a previous start left are cancelled before the job
  // manager reports them interrupted (executors/slurm.ts)
  let executor: Executor;
  let inventory: GpuInventory;
  if (opts.executor === 'slurm') {
    // loaded only here: the embedded runners of `submit` and the extension never need it
    const { createSlurmExecutor, SlurmStartError } = await import('./executors/slurm');
    const { slurmInventory } = await import('./executors/slurmInventory');
    try {
      const slurm = await createSlurmExecutor({ ...opts.slurm, dataDir, env, python, log });
      executor = slurm;
      inventory = slurmInventory({
        gpuName: opts.gpuName,
        partition: opts.slurm?.partition,
        gres: opts.slurm?.gres,
        nodeGres: slurm.gres,
      });
    } catch (err) {
      store.close();
      if (err instanceof SlurmStartError) throw new RunnerStartError(err.message);
      throw err;
    }
  } else {
    // first: the namespace made ahead for the first job (standbyNamespace.ts) gets ready while the runner starts
    executor = createLocalExecutor({ isolation, oneSubmission: opts.oneSubmission ?? false });
    try {
      inventory = await detectGpus(opts.gpuName, env.PATH);
    } catch (err) {
      store.close();
      await executor.close();
      throw err;
    }
  }
  const settings: RunSettings = {
    python,
    graceMs: opts.killGraceMs ?? KILL_GRACE_MS,
    capBytes: opts.outputCapBytes ?? 16 * 1024,
    inlineTraceBytes: opts.inlineTraceBytes ?? 8 * 1024 * 1024,
    zipLevel: opts.zipLevel ?? 1,
    summaryLimits: { ...DEFAULT_SUMMARY_LIMITS, ...opts.summaryLimits },
    scriptTimeoutSec: opts.scriptTimeoutSec ?? 180,
    compileTimeoutSec: 300,
    profiler,
    rocpd: opts.rocpd ?? false,
    env,
    isolation,
    executor,
    maxJobDiskBytes,
    jobLimits,
  };
  const system = probeSystem(inventory, python, env);
  let jobs: JobManager;
  try {
    jobs = createJobManager({
      store,
      inventory,
      system,
      settings,
      heartbeatMs: opts.heartbeatMs ?? HEARTBEAT_MS,
      retention: { maxAgeDays: 30, maxTotalBytes: DEFAULT_MAX_DATA_BYTES, ...opts.retention },
      retentionIntervalMs: opts.retentionIntervalMs ?? RETENTION_INTERVAL_MS,
      ...(opts.retentionGapMs !== undefined ? { retentionGapMs: opts.retentionGapMs } : {}),
      maxJobOutputBytes: opts.maxJobOutputBytes ?? DEFAULT_MAX_JOB_OUTPUT,
      maxQueuedJobs: 10_000,
      hardTimeoutMs: (opts.hardTimeoutSec ?? 1800) * 1000,
      log,
    });
  } catch (err) {
    system.stop();
    store.close();
    await executor.close();
    throw err;
  }
  /** Where artifact links point: --public-url, else the address we listen on (set once listening). */
  let linkBase = opts.publicUrl;
  const router = createRoutes({
    jobs,
    store,
    problems,
    inventory,
    profiler,
    version: packageVersion(),
    maxFileBytes: MAX_SUBMISSION_BYTES,
    get publicUrl() {
      return linkBase;
    },
    backlog: createBacklogBudget(
      opts.maxClientBacklogBytes ?? 16 * 1024 * 1024,
      opts.maxTotalBacklogBytes ?? 64 * 1024 * 1024,
    ),
    log,
    heartbeatMs: opts.heartbeatMs ?? HEARTBEAT_MS,
    executor,
  });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    // errors of a client that went away are reported to whoever reads the stream; none may become uncaught
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    watchBody(req, res);
    try {
      const url = new URL(req.url ?? '/', 'http://runner.invalid');
      // route on the path as sent: URL parsing would resolve `..` and `%2e%2e` segments before we can refuse them
      const rawPath = (req.url ?? '/').split('?')[0] as string;
      checkOrigin(req, opts.publicUrl);
      if (token) {
        // /auth/init is where popcorn-cli registers, before it has an id: it answers how to use the token instead
        if (rawPath !== ROUTES.health.pattern && rawPath !== ROUTES.authInit.pattern) {
          checkToken(req, token);
          connections.trust(req.socket);
        }
      } else {
        checkLocalCaller(req);
        connections.trust(req.socket);
      }
      const { handler, params } = router.match(req.method ?? 'GET', rawPath);
      await handler({ req, res, url, params });
    } catch (err) {
      if (err instanceof HttpError) refuse(req, res, err);
      else {
        log(`error: ${req.method} ${req.url}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        refuse(req, res, new HttpError(500, `Internal server error: ${errorMessage(err)}`));
      }
    }
  };

  /**
   * An error answer. A refused stranger (401, 403), and any request whose body has not been read, is answered with
   * `Connection: close` and the connection goes once the answer is out: no more of its body is read (Node would
   * otherwise read and drop all of it, a gigabyte as well, to keep the connection).
   */
  const refuse = (req: IncomingMessage, res: ServerResponse, err: HttpError) => {
    const unreadBody = hasBody(req) && !req.complete;
    if (!unreadBody && err.status !== 401 && err.status !== 403) {
      sendError(res, err);
      return;
    }
    sendError(res, new HttpError(err.status, err.detail, { ...err.headers, Connection: 'close' }));
    if (res.writableFinished) dropAfterAnswer(req);
    else res.once('finish', () => dropAfterAnswer(req));
  };
  const dropAfterAnswer = (req: IncomingMessage) => {
    // Node ends the connection after an answer that says Connection: close; this is for a client that does not
    // read it
    req.pause();
    setTimeout(() => req.socket.destroy(), 1000).unref();
  };

  /**
   * A body that makes no progress for bodyIdleTimeoutMs is answered 408 and closed. The timer is the socket's and
   * runs only while the body is incomplete: a streaming answer, which legitimately lasts as long as the job, is
   * not subject to it.
   */
  const watchBody = (req: IncomingMessage, res: ServerResponse) => {
    if (!hasBody(req) || req.complete || bodyIdleTimeoutMs <= 0) return;
    let over = false;
    const close = (why: string) => {
      if (req.complete || over) return;
      over = true;
      stopWatching();
      log(`warning: ${req.method} ${req.url}: the request body ${why}; closing the connection`);
      if (!res.headersSent)
        sendError(
          res,
          new HttpError(408, `The request body ${why}; the connection is closed`, { Connection: 'close' }),
        );
      res.once('finish', () => req.socket.destroy());
      setTimeout(() => req.socket.destroy(), 1000).unref();
    };
    const stalled = () => close(`made no progress for ${duration(bodyIdleTimeoutMs)}`);
    req.setTimeout(bodyIdleTimeoutMs, stalled);
    // the socket's count: reading it takes nothing from the body's stream
    const socket = req.socket;
    let windowStart = socket.bytesRead;
    const minPerWindow = (bodyMinBytesPerSec * bodyIdleTimeoutMs) / 1000;
    const rate = setInterval(() => {
      const got = socket.bytesRead - windowStart;
      windowStart = socket.bytesRead;
      if (got > 0 && got < minPerWindow) {
        close(
          `arrived at ${Math.round((got * 1000) / bodyIdleTimeoutMs)} bytes/s, slower than the ${bodyMinBytesPerSec} bytes/s it must keep`,
        );
      }
    }, bodyIdleTimeoutMs);
    rate.unref();
    const deadline =
      bodyTimeoutMs > 0
        ? setTimeout(() => close(`did not arrive within ${duration(bodyTimeoutMs)}`), bodyTimeoutMs)
        : null;
    deadline?.unref();
    const stopWatching = () => {
      req.off('timeout', stalled);
      clearInterval(rate);
      if (deadline) clearTimeout(deadline);
    };
    req.once('end', () => {
      stopWatching();
      // once the answer is finished the socket's timer is Node's keep-alive timer: leave it
      if (!res.writableFinished && !req.socket.destroyed) req.socket.setTimeout(0);
    });
    // an answer sent before the body was read (a refusal) closes the connection (refuse)
    res.once('close', stopWatching);
  };

  const server = createServer(
    // headersTimeout is enforced by a periodic check: run it often enough for short (test) timeouts
    { connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(headersTimeoutMs / 4))) },
    (req, res) => void handle(req, res),
  );
  server.keepAliveTimeout = 5_000;
  server.requestTimeout = 0; // streaming responses last as long as the job
  server.headersTimeout = headersTimeoutMs;
  const connections: ConnectionShare = shareConnections(server, opts.maxConnections ?? 256, log);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => answerClientError(err, socket));
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
    await executor.close();
    const e = err as NodeJS.ErrnoException;
    throw new RunnerStartError(
      e.code === 'EADDRINUSE'
        ? `port ${port} on ${host} is already in use (try --port 0 for any free port)`
        : `cannot listen on ${host}:${port}: ${e.message}`,
    );
  }
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${urlHost}:${address.port}`;
  if (!linkBase) {
    const wildcard = address.address === '0.0.0.0' || address.address === '::';
    linkBase = wildcard ? `http://${hostname()}:${address.port}` : url;
    if (wildcard)
      log(
        `warning: artifact links use this machine's name (${linkBase}); pass --public-url URL if clients reach it under another address`,
      );
  }

  // clients of this user offer the stored token to this port only, and only while this runner runs
  const listening = listeningFilePath(dataDir);
  try {
    writeFileSync(listening, JSON.stringify({ pid: process.pid, port: address.port }), { mode: 0o600 });
  } catch (err) {
    log(`warning: cannot write ${listening}: ${(err as Error).message}`);
  }
  let closing: Promise<void> | null = null;
  return {
    url,
    info: {
      gpus: inventory.names,
      runtime: inventory.runtime,
      profiler,
      isolation: {
        kind: isolation.kind,
        description:
          executor.kind === 'slurm'
            ? "Slurm's process tracking on the nodes (its ProctrackType: proctrack/cgroup ends every process of a job; see docs/runner.md)"
            : isolation.kind === 'pid-namespace'
              ? isolation.description
              : `${isolation.description}; ${describeGroupLimits(jobLimits)}`,
      },
      executor: executor.description,
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
        await executor.close();
        // every stream has its terminal event now: let them drain, then cut whatever is left
        server.closeIdleConnections();
        const grace = setTimeout(() => server.closeAllConnections(), 2000);
        await stopped;
        clearTimeout(grace);
        rmSync(listening, { force: true });
      })();
      return closing;
    },
  };
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return length !== undefined ? Number(length) > 0 : req.headers['transfer-encoding'] !== undefined;
}

const duration = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`);

/** Reason phrases of the answers the HTTP layer makes itself. */
function clientErrorStatus(err: NodeJS.ErrnoException): { status: number; detail: string } {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, detail: 'Request header fields too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, detail: 'The request head did not arrive in time; the connection is closed' };
    default:
      return { status: 400, detail: `Bad request: ${err.message}` };
  }
}

/**
 * Node's own answers (400 for a garbled request, 431 for a huge head, 408 for a head too slow) as raw HTTP with
 * a JSON {detail} body, like every other answer; a socket that is already gone is just closed.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const { status, detail } = clientErrorStatus(err);
  const body = JSON.stringify({ detail });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Cache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
  setTimeout(() => socket.destroy(), 1000).unref();
}
