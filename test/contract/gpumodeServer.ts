// A contract server of GPU MODE's public submission service, derived from kernelbot's code at commit 4bdd839
// (gpu-mode/kernelbot, 2026-07; the facts as builders in kernelbot.ts) rather than from a summary of it:
// - src/kernelbot/api/main.py            the routes and their answers: the 202 with `details` and `runner_queue`,
//   GET /user/submissions/{id} with `job` (a LEFT JOIN: all null for streaming-route submissions), `runner_queue`
//   (null while there are no runs) and `result` only for public test/benchmark runs, the SSE stream (a status
//   event at once and every 15 s, then `result`, or `error` with status_code for HTTPExceptions only)
// - src/kernelbot/api/api_utils.py       to_submit_info's checks, in order, with their texts and codes (the
//   `stream` keyword is a 500), and _run_submission (preparation errors arrive in-stream as 400)
// - src/libkernelbot/submission.py       prepare_submission: extension, directives, rate limit (a 429 whose wait
//   is only in its text), deadline
// - src/libkernelbot/leaderboard_db.py   get_user_submissions (only public passed runs of submissions whose secret
//   leaderboard run passed), get_submission_by_id, get_leaderboard_submissions (ranked entries), get_leaderboards
// - src/libkernelbot/background_submission_manager.py  initial → pending → running → succeeded | failed |
//   timed_out | hacked, heartbeats, "ranked validation failed on <GPU>" for a leaderboard run that did not pass
// - src/libkernelbot/backend.py          one result per GPU plus the secret-seed copy, a score only on the ranked
//   run; src/libkernelbot/launchers/{github,modal}.py the queue counts each launcher knows (GitHub: queued only)
// - src/libkernelbot/run_eval.py         the result dataclasses; scores leave the database as JSON strings
// Plus OAuth registration (/auth/init, /auth/cli/{provider}) and the X-Popcorn-Cli-Id checks (400 missing, 401
// unknown). A test double: the real submit/poll/stream flow is tested against our runner too.
//
// `deployment: 'old'` is a deployment from before mid-June 2026 (before kernelbot #498, #503/#504 and #511): no
// `job` key, no `runner_queue` key anywhere (and no GET /runner_queue: 404), a 202 with only status and details,
// no run results in a submission's detail.
//
// Variants that are not upstream's defaults, as options: a Retry-After header on the rate limit
// (`submissionLimit.retryAfterHeader`) or on injected failures (`failNext({retryAfter})`, `{message}` bodies),
// polls that see `done` before the final job status (`doneBeforeStatus`, a real window upstream), no profile
// `download_url` (`profileDownloadUrl: null`), and `rewrite` to change any answer before it is sent (with
// upstreamAnswers.ts's `applyVariant`).
//
// What a submission does is chosen by marker comments in its source (the file itself is never run):
//   `contract: fail`       tests fail (test/benchmark: job succeeded, runs not passed; leaderboard: job failed
//                          with the ranked-validation error, as upstream)
//   `contract: secretfail` leaderboard mode: the public runs pass (the ranked run keeps its score), the secret
//                          ranked run fails: job failed with "secret validation failed on <GPU>; ..."
//   `contract: crash`      the program crashes (run_eval.run_program: success false, passed false, result {},
//                          exit -11): background job succeeded with `passed: false` and `result: {}` (no exit
//                          code anywhere); streaming: the RunResult with its exit code
//   `contract: timeout`    the program runs past the task's timeout (TimeoutExpired: exit 114, result {})
//   `contract: noresults`  the runner fails before results (GitHub: "Could not download artifacts", FullResult
//                          success false): background job succeeded with `runs: []`
//   `contract: raise`      the launcher raises (RuntimeError): background job failed with its text; streaming
//                          `error` "An unexpected error occurred: RuntimeError" with raw_error, no status_code
//   `contract: hacked`     KernelGuard rejects it (benchmark/profile/leaderboard; test mode is not checked):
//                          background job `hacked` with KernelGuardRejected's text; streaming an `error` (400)
//   `contract: timed_out`  the background job reaches the manager's hard timeout (`timed_out`)
//   `contract: slow=N`     N extra polls in `running` (background) / N extra heartbeats (streaming)
//   `contract: hold`       background: stays `running` until the test calls `release()` (waits on an event, not on
//                          a number of polls: a UI check can poll quickly and still reload the window mid-run)
//
// Upstream's refusals in their order (submission.prepare_submission): the service stopped (`stop()`), a banned
// account (`ban()`), the extension, directives, a closed (invite-only) leaderboard without an invite, the rate
// limit, the deadline. The background route sends a KernelBotError with its own code and wraps everything else
// (to_submit_info's HTTPExceptions) as 400 "failed to prepare submission request: <code>: <text>"; the streaming
// route answers to_submit_info's errors with their own code before any SSE and prepare_submission's in-stream.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import type { AddressInfo } from 'node:net';
import busboy from 'busboy';
import { ZipArchive } from 'archiver';
import {
  callbackRefusal,
  decimalText,
  isoformatUtc,
  kernelGuardText,
  modeCategory,
  naiveIsoformat,
  pydanticTime,
  pythonJsonDumps,
  pythonStrTime,
  queueAnswer,
  rateLimitText,
  SSE_CONTENT_TYPE,
  systemInfo,
  UPSTREAM_TEXT,
  wrappedPreparationError,
  type Json,
} from './kernelbot';
import type { AnswerKind } from './upstreamAnswers';

export const fixturesDir = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../shared/fixtures/rocprof',
);

const MAX_BYTES = 1_000_000;
const EXTENSIONS = ['.py', '.cu', '.cuh', '.cpp'];
const MODES = ['test', 'benchmark', 'leaderboard', 'profile'];
const TERMINAL = ['succeeded', 'failed', 'timed_out', 'hacked'];

type Values = Record<string, string>;

interface LeaderboardDef {
  id: number;
  name: string;
  description: string;
  deadline: Date;
  gpu_types: string[];
  ranking_by: 'last' | 'mean' | 'geom';
  secret_seed: number;
  /** `closed`: invite-only (admin_set_visibility), not a deadline. */
  visibility: 'public' | 'closed';
}

interface RunRecord {
  start_time: string;
  end_time: string;
  mode: string;
  secret: boolean;
  runner: string;
  /** Seconds, as stored (the answers carry it as a Decimal string). */
  score: number | null;
  passed: boolean;
  result: Values;
}

interface Submission {
  id: number;
  jobStatusId: number;
  account: string;
  leaderboard: LeaderboardDef;
  gpu: string;
  mode: string;
  fileName: string;
  code: string;
  time: Date;
  /** Which route it came through: streaming-route submissions have no job row (their `job` is all null). */
  route: 'background' | 'streaming';
  /** Job status steps still to come (background route); the current one is `status`. */
  steps: string[];
  status: string | null;
  error: string | null;
  lastHeartbeat: Date | null;
  runs: RunRecord[];
  done: boolean;
  /** The final status and error while polls still see `running` after `done` (options.doneBeforeStatus). */
  final?: { status: string | null; error: string | null; polls: number };
  /** `contract: hold`: polls see `running` until `release()`. */
  held?: boolean;
}

export interface FailureRule {
  method?: string;
  /** Matches the path (without query). */
  path: RegExp;
  status: number;
  /** Sent as `{"detail": ...}` (FastAPI's HTTPException). */
  detail?: string;
  /** Sent as `{"message": ...}` instead (a KernelBotError reaching FastAPI's handler). */
  message?: string;
  /** Seconds, sent as a Retry-After header (upstream sends none: a variant for clients that honour it). */
  retryAfter?: number;
  /** How many matching requests fail (default 1). */
  times?: number;
}

export interface ContractServerOptions {
  /** Streaming route: seconds between status events are ~15 upstream; tests shorten it (ms). */
  heartbeatMs?: number;
  /**
   * Upstream's per-leaderboard rate limit, per account and mode category (`leaderboard` or `test`) per window
   * (an hour upstream): 429 `{"detail": "Rate limit exceeded: 1/1 test submissions per hour. Try again in 42s."}`
   * with no Retry-After header (in-stream `error` with status_code 400 on the streaming route). The wait is
   * `retryAfterSeconds`, else what is left of the window. `retryAfterHeader` adds a Retry-After header (not
   * upstream's: a variant). Default unlimited.
   */
  submissionLimit?: { count: number; windowMs: number; retryAfterSeconds?: number; retryAfterHeader?: boolean };
  /** The profile zip's members: fixture CSV file names and their names in the zip. */
  profileFiles?: Array<{ fixture: string; name: string }>;
  /** `current` (kernelbot 4bdd839, the default) or `old`: before mid-June 2026 (see the header). */
  deployment?: 'current' | 'old';
  /**
   * Polls that see `done: true` while the job still says `running`: kernelbot marks the submission done (in
   * submit_full's finally) before the background worker writes the final status. Default 0.
   */
  doneBeforeStatus?: number;
  /** Modal's `available_runners` (num_total_runners) in queue answers; default 2. */
  modalRunners?: number;
  /**
   * A profile run's `download_url`: the GitHub launcher sets its artifact's public URL (the trace is inline too).
   * Default a github.com artifact URL on GitHub GPUs (AMD); null: none.
   */
  profileDownloadUrl?: string | null;
  /**
   * Changes each answer (JSON body or SSE event data, by kind as in upstreamAnswers.ts) just before it is sent:
   * e.g. `applyVariant` of a variant, to drive a client through answers with a field removed or nulled.
   */
  rewrite?: (kind: AnswerKind, body: Json) => Json;
}

export interface ContractRequest {
  method: string;
  path: string;
  cliId: string | undefined;
}

export interface ContractServer {
  url: string;
  /** Every request, in order. */
  requests: ContractRequest[];
  /** An already registered cli_id for an account (created on first use). */
  registeredId(account?: string): string;
  /** Makes the next matching requests fail (e.g. a 429 with Retry-After on the polls). */
  failNext(rule: FailureRule): void;
  submission(id: number): Submission | undefined;
  /** backend.accepts_jobs = False: every submission is refused. */
  stop(): void;
  /** POST /admin/ban/{user_id}. */
  ban(account: string): void;
  /** A claimed invite code: the account may use a closed leaderboard. */
  invite(account: string, leaderboard: string): void;
  /** Lets every `contract: hold` submission go on past `running`; the ids released. */
  release(): number[];
  close(): Promise<void>;
}

const DEFAULT_PROFILE_FILES = [
  { fixture: 'rocm-systems__sdkdocs__kernel_trace.csv', name: '4242_kernel_trace.csv' },
  { fixture: 'rocm-systems__sdkdocs__memory_copy_trace.csv', name: '4242_memory_copy_trace.csv' },
  { fixture: 'rocm-systems__sdkdocs__hip_runtime_trace.csv', name: '4242_hip_api_trace.csv' },
];

function leaderboards(now: number): LeaderboardDef[] {
  const day = 86_400_000;
  const at = (t: number) => new Date(Math.floor(t / 1000) * 1000);
  return [
    {
      id: 1,
      name: 'amd-fp8-mm',
      description: 'FP8 block-scaled GEMM on MI300.\nImplement custom_kernel(data) -> output.',
      deadline: at(now + 30 * day),
      gpu_types: ['MI300'],
      ranking_by: 'geom',
      secret_seed: 4242,
      visibility: 'public',
    },
    {
      id: 2,
      name: 'grayscale',
      description: 'RGB to grayscale (closed).',
      deadline: at(now - 10 * day),
      gpu_types: ['A100', 'H100', 'MI300'],
      ranking_by: 'last',
      secret_seed: 7,
      visibility: 'public',
    },
    {
      id: 3,
      name: 'vectoradd',
      description: 'Add two vectors.',
      deadline: at(now + 3 * day),
      gpu_types: ['MI300', 'T4'],
      ranking_by: 'mean',
      secret_seed: 99,
      visibility: 'public',
    },
    {
      // GPU MODE's AMD challenge of February 2026 (reference-kernels problems/amd_202602.yaml): MI355X only.
      id: 4,
      name: 'amd-mxfp4-mm',
      description: 'MXFP4 matrix multiplication on MI355X.',
      deadline: at(now + 20 * day),
      gpu_types: ['MI355X'],
      ranking_by: 'geom',
      secret_seed: 2602,
      visibility: 'public',
    },
    {
      // an invite-only leaderboard: listed by /leaderboards, its GPUs and ranking need access
      id: 5,
      name: 'invite-only',
      description: 'A closed leaderboard (invite codes only).',
      deadline: at(now + 30 * day),
      gpu_types: ['MI300'],
      ranking_by: 'geom',
      secret_seed: 5,
      visibility: 'closed',
    },
  ];
}

const TESTS = [
  { seed: 1001, size: 128 },
  { seed: 5236, size: 1024 },
];
const BENCHMARKS = [
  { seed: 8135, size: 4096 },
  { seed: 4415, size: 16384 },
];
const spec = (s: Record<string, number>) =>
  Object.entries(s)
    .map(([k, v]) => `${k}: ${v}`)
    .join('; ');

/** A LeaderboardItem through jsonable_encoder: the task dataclass as a dict, the deadline with +00:00. */
function leaderboardJson(lb: LeaderboardDef): Json {
  return {
    id: lb.id,
    name: lb.name,
    deadline: isoformatUtc(lb.deadline),
    task: {
      lang: 'py',
      files: {
        'submission.py': '@SUBMISSION@',
        'reference.py': '# reference\n',
        'eval.py': '# evaluator\n',
        'task.py': '# types\n',
      },
      config: { main: 'eval.py' },
      libraries: [],
      tests: TESTS,
      test_timeout: 180,
      benchmarks: BENCHMARKS,
      benchmark_timeout: 180,
      ranked_timeout: 420,
      ranking_by: lb.ranking_by,
      seed: null,
      multi_gpu: false,
    },
    gpu_types: lb.gpu_types,
    creator_id: 0,
    forum_id: -1,
    description: lb.description,
    secret_seed: lb.secret_seed,
    visibility: lb.visibility,
  };
}

/** Python's base64.b64encode(text.encode(), b"+*"). */
function popcornBase64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64').replace(/\//g, '*');
}

/** run_eval._directory_to_zip_bytes of profile_program_ncu's output: `profile_data/profile.ncu-rep` (not a real report). */
async function buildNcuZip(): Promise<Buffer> {
  return zipOf([
    { name: 'profile_data/profile.ncu-rep', data: Buffer.from('NVIDIA Nsight Compute report (contract stand-in)\n') },
  ]);
}

async function buildProfileZip(files: Array<{ fixture: string; name: string }>): Promise<Buffer> {
  return zipOf([
    ...files.map((f) => ({ name: f.name, data: readFileSync(path.join(fixturesDir, f.fixture)) })),
    { name: 'combined.pftrace', data: Buffer.from([0x0a, 0x00]) },
  ]);
}

async function zipOf(entries: Array<{ name: string; data: Buffer }>): Promise<Buffer> {
  const archive = new ZipArchive({ zlib: { level: 1 } });
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c));
  const ended = new Promise<void>((resolve, reject) => {
    sink.on('end', resolve);
    archive.on('error', reject);
  });
  archive.pipe(sink);
  for (const e of entries) archive.append(e.data, { name: e.name });
  await archive.finalize();
  await ended;
  return Buffer.concat(chunks);
}

// ---------------------------------------------------------------------------------------------------------------
// Results

interface Markers {
  fail: boolean;
  secretFail: boolean;
  crash: boolean;
  timeout: boolean;
  noResults: boolean;
  raise: boolean;
  timedOut: boolean;
  hacked: boolean;
  slow: number;
  hold: boolean;
}

function markers(code: string): Markers {
  return {
    fail: /contract: fail\b/.test(code),
    secretFail: /contract: secretfail\b/.test(code),
    crash: /contract: crash\b/.test(code),
    timeout: /contract: timeout\b/.test(code),
    noResults: /contract: noresults\b/.test(code),
    raise: /contract: raise\b/.test(code),
    timedOut: /contract: timed_out\b/.test(code),
    hacked: /contract: hacked\b/.test(code),
    slow: Number(/contract: slow=(\d+)/.exec(code)?.[1] ?? 0),
    hold: /contract: hold\b/.test(code),
  };
}

function testValues(passed: boolean): Values {
  const v: Values = { check: passed ? 'pass' : 'fail', 'test-count': String(TESTS.length) };
  TESTS.forEach((t, i) => {
    v[`test.${i}.spec`] = spec(t);
    const ok = passed || i === 0;
    v[`test.${i}.status`] = ok ? 'pass' : 'fail';
    if (!ok) v[`test.${i}.error`] = "mismatch found! custom implementation doesn't match reference: max abs diff 0.5";
  });
  return v;
}

function benchmarkValues(meansNs: number[]): Values {
  const v: Values = { check: 'pass', 'benchmark-count': String(BENCHMARKS.length) };
  BENCHMARKS.forEach((b, i) => {
    const mean = meansNs[i] as number;
    Object.assign(v, {
      [`benchmark.${i}.spec`]: spec(b),
      [`benchmark.${i}.runs`]: '100',
      [`benchmark.${i}.mean`]: String(mean),
      [`benchmark.${i}.std`]: String(Math.round(mean * 0.02)),
      [`benchmark.${i}.err`]: String(Math.round(mean * 0.002)),
      [`benchmark.${i}.best`]: String(Math.round(mean * 0.97)),
      [`benchmark.${i}.worst`]: String(Math.round(mean * 1.08)),
    });
  });
  return v;
}

export const PUBLIC_MEANS_NS = [12_500, 48_000];
export const SECRET_MEANS_NS = [12_900, 47_100];

export function scoreOf(meansNs: number[], rankingBy: 'last' | 'mean' | 'geom'): number {
  const s = meansNs.map((m) => m / 1e9);
  if (rankingBy === 'last') return s[s.length - 1] as number;
  if (rankingBy === 'mean') return s.reduce((a, b) => a + b, 0) / s.length;
  return Math.exp(s.reduce((a, b) => a + Math.log(b), 0) / s.length);
}

/** A rocprof-style text report; `?` characters make the standard alphabet's `/` (so the `+*` `*`) appear. */
export function profileReportText(i: number): string {
  return [
    `Kernel report for case ${i} (${spec(BENCHMARKS[i] as Record<string, number>)})`,
    'Kernel                               Calls   Total(ns)   Avg(ns)',
    'addition_kernel<float>                   3       21920      7306',
    'Does it fit? ??? µs per call ✓',
  ].join('\n');
}

/** run_eval.run_program of a program that crashed (SIGSEGV: returncode -11) or ran past its timeout (114). */
function brokenRunJson(how: 'crash' | 'timeout', mode: string, start: Date, end: Date): Json {
  return {
    start: naiveIsoformat(start),
    end: naiveIsoformat(end),
    compilation: null,
    run: {
      success: false,
      passed: false,
      command: `python3 eval.py ${mode} /tmp/tmp69x1suxc`,
      stdout: how === 'crash' ? 'running 2 tests\n' : '',
      stderr: how === 'crash' ? 'Fatal Python error: Segmentation fault\n' : '',
      exit_code: how === 'crash' ? -11 : 114,
      duration: how === 'crash' ? 0.81 : 180,
      result: {},
    },
    profile: null,
  };
}

/** dataclasses.asdict(EvalResult) with the RunResult run_program builds; start/end the runner's naive times. */
function runJson(values: Values, passed: boolean, mode: string, start: Date, end: Date, profile: Json = null): Json {
  return {
    start: naiveIsoformat(start),
    end: naiveIsoformat(end),
    compilation: null,
    run: {
      success: true,
      passed,
      command: `python3 eval.py ${mode} /tmp/tmp69x1suxc`,
      stdout: passed ? 'all good\n' : '',
      // upstream does not filter the profiler's log: it reaches users in stderr
      stderr: mode.startsWith('profile') ? '[329.254] perfetto.cc:33197       Producer connected\nkernel done\n' : '',
      exit_code: passed ? 0 : 112,
      duration: 2.405536843,
      result: values,
    },
    profile,
  };
}

/** A KernelBotError raised by prepare_submission: a 4xx on the background route, an in-stream 400 on the other. */
class PrepareError extends Error {
  constructor(
    message: string,
    readonly code = 400,
  ) {
    super(message);
  }
}

/** submission._get_popcorn_directives: only the first comment block; unknown and repeated directives refused. */
function popcornDirectives(code: string): { leaderboard: string | null; gpus: string[] | null } {
  const info: { leaderboard: string | null; gpus: string[] | null } = { leaderboard: null, gpus: null };
  for (const line of code.split(/\r?\n/)) {
    if (!(line.startsWith('//') || line.startsWith('#'))) break;
    const args = line.split(/\s+/).filter(Boolean);
    if (args[0] !== '//!POPCORN' && args[0] !== '#!POPCORN') continue;
    let arg = (args[1] ?? '').trim().toLowerCase();
    if (args.length < 3) throw new PrepareError(`!POPCORN directive missing argument: ${line}`);
    if (arg === 'gpu') arg = 'gpus';
    if (arg !== 'gpus' && arg !== 'leaderboard') throw new PrepareError(`Invalid !POPCORN directive: ${arg}`);
    if (info[arg] !== null) throw new PrepareError(`Found multiple values for !POPCORN directive ${arg}`);
    if (arg === 'gpus') info.gpus = args.slice(2);
    else info.leaderboard = args[2] as string;
  }
  return info;
}

// ---------------------------------------------------------------------------------------------------------------

export async function startContractServer(options: ContractServerOptions = {}): Promise<ContractServer> {
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const old = options.deployment === 'old';
  const modalRunners = options.modalRunners ?? 2;
  const boards = leaderboards(Date.now());
  const profileZip = (await buildProfileZip(options.profileFiles ?? DEFAULT_PROFILE_FILES)).toString('base64');
  const ncuZip = (await buildNcuZip()).toString('base64');
  /** cli_id → account (null until the OAuth callback linked it). */
  const ids = new Map<string, { account: string | null; provider: string }>();
  /** account → its current cli_id. */
  const accounts = new Map<string, string>();
  const submissions = new Map<number, Submission>();
  /** `${account} ${leaderboard} ${category}` → submission times. */
  const submitTimes = new Map<string, number[]>();
  const failures: FailureRule[] = [];
  const requests: ContractRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  let nextId = 4200;
  let stopped = false;
  const banned = new Set<string>();
  /** `${account} ${leaderboard}`: a claimed invite of a closed leaderboard. */
  const invited = new Set<string>();
  /** account → its numeric user id (the provider's, a Discord snowflake upstream). */
  const userIds = new Map<string, string>();
  const userIdOf = (name: string): string => {
    let id = userIds.get(name);
    if (!id) userIds.set(name, (id = String(412345678901234 + userIds.size)));
    return id;
  };
  let nextJobStatus = 900;
  let nextWorkflowRun = 16_000_000_000;

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent)
        send(
          res,
          500,
          { detail: `contract server bug: ${err instanceof Error ? err.message : String(err)}` },
          'errorBody',
        );
      else res.end();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  const rewrite = (kind: AnswerKind | undefined, body: Json): Json =>
    options.rewrite && kind ? options.rewrite(kind, body) : body;

  /** Sends a JSON answer; `kind` (none for the OAuth routes) names it for options.rewrite. */
  function send(
    res: http.ServerResponse,
    status: number,
    body: Json,
    kind: AnswerKind | undefined,
    headers: Record<string, string> = {},
  ): void {
    const text = JSON.stringify(rewrite(kind, body));
    res.writeHead(status, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(text),
      ...headers,
    });
    res.end(text);
  }

  class HttpError extends Error {
    constructor(
      readonly status: number,
      readonly detail: string,
      readonly headers: Record<string, string> = {},
      /** The body's key: HTTPException's `detail`, or `message` for a KernelBotError reaching FastAPI's handler. */
      readonly key: 'detail' | 'message' = 'detail',
      /** A body of its own (FastAPI's 422 validation errors). */
      readonly body?: Json,
    ) {
      super(detail);
    }
  }

  /**
   * The identity checks: validate_cli_header (streaming route, `cli`) or validate_user_header (background route
   * and /user/*, `user`, which also takes X-Web-Auth-Id), with their own texts.
   */
  function account(req: http.IncomingMessage, kind: 'cli' | 'user'): string {
    const raw = req.headers['x-popcorn-cli-id'];
    const id = Array.isArray(raw) ? raw[0] : raw;
    if (!id)
      throw new HttpError(
        400,
        kind === 'cli' ? 'Missing X-Popcorn-Cli-Id header' : 'Missing X-Web-Auth-Id or X-Popcorn-Cli-Id header',
      );
    const owner = ids.get(id)?.account;
    if (!owner)
      throw new HttpError(
        401,
        kind === 'cli' ? 'Invalid or unauthorized X-Popcorn-Cli-Id' : 'Invalid or unauthorized auth header',
      );
    return owner;
  }

  /** main.enforce_leaderboard_access (optional_user_header: an auth header, when sent, must be valid). */
  function enforceAccess(req: http.IncomingMessage, lb: LeaderboardDef): void {
    const raw = req.headers['x-popcorn-cli-id'];
    const id = Array.isArray(raw) ? raw[0] : raw;
    if (lb.visibility !== 'closed' && !id) return;
    const owner = id ? account(req, 'user') : undefined;
    if (lb.visibility !== 'closed') return;
    if (!owner) throw new HttpError(401, UPSTREAM_TEXT.closedNeedsAuth);
    if (!invited.has(`${owner} ${lb.name}`)) throw new HttpError(403, UPSTREAM_TEXT.noAccess);
  }

  function registeredId(name = 'alice'): string {
    const existing = accounts.get(name);
    if (existing) return existing;
    const id = randomUUID();
    ids.set(id, { account: name, provider: 'discord' });
    accounts.set(name, id);
    return id;
  }

  /** leaderboard_db.check_rate_limit + prepare_submission's KernelBotError(code=429). */
  function rateLimit(owner: string, lb: LeaderboardDef, mode: string): void {
    const limit = options.submissionLimit;
    if (!limit) return;
    const now = Date.now();
    const category = modeCategory(mode);
    const key = `${owner} ${lb.name} ${category}`;
    const times = (submitTimes.get(key) ?? []).filter((t) => now - t < limit.windowMs);
    if (times.length >= limit.count) {
      const oldest = times[0] ?? now;
      const wait = limit.retryAfterSeconds ?? Math.max(0, Math.ceil((oldest + limit.windowMs - now) / 1000));
      throw new PrepareError(rateLimitText(times.length, limit.count, category, wait), 429);
    }
    times.push(now);
    submitTimes.set(key, times);
  }

  /** FastAPI's request validation of `file: UploadFile`: 422 with a list as `detail`. */
  function missingFile(): HttpError {
    return new HttpError(422, 'Field required', {}, 'detail', {
      detail: [{ type: 'missing', loc: ['body', 'file'], msg: 'Field required', input: null }],
    });
  }

  async function readUpload(req: http.IncomingMessage): Promise<{ fileName: string; bytes: Buffer }> {
    const type = req.headers['content-type'] ?? '';
    if (!type.startsWith('multipart/form-data')) throw missingFile();
    return new Promise((resolve, reject) => {
      let file: { fileName: string; bytes: Buffer } | undefined;
      const parser = busboy({ headers: req.headers, limits: { files: 1 } });
      parser.on('file', (field, stream, info) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          if (field === 'file') file = { fileName: info.filename ?? 'submission.py', bytes: Buffer.concat(chunks) };
        });
      });
      parser.on('error', (err: Error) => reject(new HttpError(400, `Error reading submission file: ${err.message}`)));
      parser.on('close', () => {
        if (!file) return reject(missingFile());
        resolve(file);
      });
      req.pipe(parser);
    });
  }

  /** api_utils.to_submit_info: mode, leaderboard and GPU, then the file (empty, 1 MB, UTF-8, `stream`). */
  async function accept(
    req: http.IncomingMessage,
    lbName: string,
    gpu: string,
    rawMode: string,
    owner: string,
    route: Submission['route'],
  ): Promise<Submission> {
    const mode = rawMode.toLowerCase();
    if (![...MODES, 'private'].includes(mode)) throw new HttpError(400, `Invalid submission mode value: '${rawMode}'`);
    if (!MODES.includes(mode))
      throw new HttpError(400, `Submission mode '${rawMode}' is not supported for this endpoint`);
    const lb = boards.find((b) => b.name === lbName);
    if (!lb)
      throw new HttpError(
        500,
        `Internal server error while validating leaderboard/GPU: Leaderboard \`${lbName}\` does not exist.`,
      );
    if (!lb.gpu_types.includes(gpu))
      throw new HttpError(
        400,
        `GPU type '${gpu}' is not supported for leaderboard '${lb.name}'. Supported GPUs: ${lb.gpu_types.join(', ')}`,
      );
    const upload = await readUpload(req);
    if (upload.bytes.length === 0) throw new HttpError(400, 'Empty file submitted. Please provide a file with code.');
    if (upload.bytes.length > MAX_BYTES) throw new HttpError(413, 'Submission file is too large (limit: 1MB).');
    let code: string;
    try {
      code = new TextDecoder('utf-8', { fatal: true }).decode(upload.bytes);
    } catch {
      throw new HttpError(400, 'Failed to decode submission file content as UTF-8.');
    }
    if (code.toLowerCase().includes('stream')) {
      throw new HttpError(
        500,
        'Your code contains work on another stream. This is not allowed and may result in your disqualification. If you think this is a mistake, please contact us.',
      );
    }
    const sub: Submission = {
      id: 0,
      jobStatusId: 0,
      account: owner,
      leaderboard: lb,
      gpu,
      mode,
      fileName: upload.fileName,
      code,
      time: new Date(),
      route,
      steps: [],
      status: null,
      error: null,
      lastHeartbeat: null,
      runs: [],
      done: false,
    };
    return sub;
  }

  /** submission.prepare_submission: extension, directives, rate limit, deadline. */
  function prepare(sub: Submission): void {
    if (stopped) throw new PrepareError(UPSTREAM_TEXT.notAccepting);
    if (banned.has(sub.account)) throw new PrepareError(UPSTREAM_TEXT.banned);
    if (!EXTENSIONS.some((e) => sub.fileName.endsWith(e)))
      throw new PrepareError('Please provide a Python (.py) or CUDA (.cu / .cuh / .cpp) file');
    const info = popcornDirectives(sub.code);
    if (info.leaderboard !== null && info.leaderboard !== sub.leaderboard.name) {
      throw new PrepareError(
        `Leaderboard name \`${sub.leaderboard.name}\` specified in the command doesn't match the one in the submission script header \`${info.leaderboard}\`.`,
      );
    }
    if (sub.leaderboard.visibility === 'closed' && !invited.has(`${sub.account} ${sub.leaderboard.name}`))
      throw new PrepareError(UPSTREAM_TEXT.noAccess, 403);
    rateLimit(sub.account, sub.leaderboard, sub.mode);
    const now = new Date();
    if (now > sub.leaderboard.deadline) {
      throw new PrepareError(
        `The deadline to submit to ${sub.leaderboard.name} has passed.\nIt was ${pythonStrTime(sub.leaderboard.deadline)} and today is ${pythonStrTime(now)}.`,
      );
    }
  }

  function register(sub: Submission): void {
    sub.id = nextId++;
    submissions.set(sub.id, sub);
  }

  /** What backend.submit_full produces: the FullResults it returns and the runs it records (score on the ranked run only). */
  function outcome(sub: Submission): { results: Json[]; reports: string[]; runs: RunRecord[] } {
    const m = markers(sub.code);
    const startAt = new Date(Date.now() - 3000);
    const endAt = new Date();
    const runs: RunRecord[] = [];
    const keep = (mode: string, values: Values, passed: boolean, secret: boolean, score: number | null) =>
      runs.push({
        start_time: pydanticTime(startAt),
        end_time: pydanticTime(endAt),
        mode,
        secret,
        runner: sub.gpu,
        score,
        passed,
        result: values,
      });
    const full = (r: Record<string, Json>): Json => ({
      success: true,
      error: '',
      system: systemInfo(sub.gpu),
      runs: r,
    });
    const passed = !m.fail && !m.crash && !m.timeout;
    const results: Json[] = [];
    const reports: string[] = [];
    const broken = m.crash ? 'crash' : m.timeout ? 'timeout' : undefined;
    if (m.noResults) {
      // launchers/github.py: no `run-result` artifact; backend.submit_leaderboard records no run
      const failedRunner = {
        success: false,
        error: UPSTREAM_TEXT.noArtifacts,
        system: { gpu: '', device_count: 1, cpu: '', runtime: '', platform: '', torch: '', hostname: '' },
        runs: {},
      };
      for (let i = 0; i < (sub.mode === 'leaderboard' ? 2 : 1); i++) results.push(failedRunner);
      results.forEach(() => reports.push('❌ failure\n'));
      return { results, reports, runs };
    }
    if (broken) {
      // the first run of the mode crashed (leaderboard: its tests; run_evaluation stops there)
      const first = sub.mode === 'leaderboard' ? 'test' : sub.mode === 'profile' ? 'profile.0' : sub.mode;
      for (const secret of sub.mode === 'leaderboard' ? [false, true] : [false]) {
        keep(first, {}, false, secret, null);
        results.push(full({ [first]: brokenRunJson(broken, first, startAt, endAt) }));
      }
      results.forEach(() => reports.push('❌ failed\n'));
      return { results, reports, runs };
    }
    if (sub.mode === 'test') {
      const v = testValues(passed);
      keep('test', v, passed, false, null);
      results.push(full({ test: runJson(v, passed, 'test', startAt, endAt) }));
    } else if (sub.mode === 'benchmark') {
      const v = benchmarkValues(PUBLIC_MEANS_NS);
      keep('benchmark', v, passed, false, null);
      results.push(full({ benchmark: runJson(v, passed, 'benchmark', startAt, endAt) }));
    } else if (sub.mode === 'leaderboard') {
      for (const secret of [false, true]) {
        const means = secret ? SECRET_MEANS_NS : PUBLIC_MEANS_NS;
        const r: Record<string, Json> = {};
        const tv = testValues(passed);
        keep('test', tv, passed, secret, null);
        r.test = runJson(tv, passed, 'test', startAt, endAt);
        if (passed) {
          const bv = benchmarkValues(means);
          keep('benchmark', bv, true, secret, null);
          r.benchmark = runJson(bv, true, 'benchmark', startAt, endAt);
          const lv = benchmarkValues(means);
          const ok = !(secret && m.secretFail);
          if (!ok)
            Object.assign(lv, {
              check: 'fail',
              'benchmark.1.status': 'fail',
              'benchmark.1.error': "mismatch found! custom implementation doesn't match reference",
            });
          // backend.submit_leaderboard: a score only for a passed ranked run
          keep('leaderboard', lv, ok, secret, ok ? scoreOf(means, sub.leaderboard.ranking_by) : null);
          r.leaderboard = runJson(lv, ok, 'leaderboard', startAt, endAt);
        }
        results.push(full(r));
      }
    } else {
      const r: Record<string, Json> = {};
      const github = queueAnswer(sub.gpu, { queued: 0 }).runner === 'GitHub';
      // launchers/github.py sets the `profile-data` artifact's URL; Modal leaves ProfileResult's None
      const downloadUrl =
        options.profileDownloadUrl !== undefined
          ? options.profileDownloadUrl
          : github
            ? `https://github.com/gpu-mode/kernelbot/actions/runs/${nextWorkflowRun++}/artifacts/${sub.id}`
            : null;
      // run_eval.profile_program: rocPROF on ROCm, Nsight-Compute (ncu, profile.ncu-rep) on CUDA
      const rocm = systemInfo(sub.gpu).runtime === 'ROCm';
      BENCHMARKS.forEach((b, i) => {
        // profile_program_ncu encodes its report with the standard alphabet (base64.b64encode, no `+*`)
        const report = rocm
          ? popcornBase64(profileReportText(i))
          : Buffer.from(`GPU Throughput\n  Compute (SM) Throughput  %  71.3 ??? case ${i}\n`).toString('base64');
        const v: Values = { 'benchmark-count': '1', 'benchmark.0.spec': spec(b), 'benchmark.0.report': report };
        keep(`profile.${i}`, v, true, false, null);
        const profile = rocm
          ? { profiler: 'rocPROF', trace: profileZip, download_url: downloadUrl }
          : { profiler: 'Nsight-Compute', trace: ncuZip, download_url: downloadUrl };
        r[`profile.${i}`] = runJson(v, true, `profile.${i}`, startAt, endAt, profile);
      });
      results.push(full(r));
    }
    results.forEach((_, i) =>
      reports.push(
        `## ${sub.leaderboard.name} · ${sub.mode} on ${sub.gpu}${i > 0 ? ' (secret)' : ''}\n\n${passed ? '✅ passed' : '❌ failed'}\n`,
      ),
    );
    return { results, reports, runs };
  }

  /** kernelguard: benchmark, profile, leaderboard (and private) are checked; test mode is not. */
  function kernelGuardRejects(sub: Submission): string | undefined {
    return markers(sub.code).hacked && sub.mode !== 'test'
      ? kernelGuardText('reads the reference output', ['reference-read', 'output-cache', 'reference-read'])
      : undefined;
  }

  /** background_submission_manager._run_one's end, and _ranked_completion_status for leaderboard mode. */
  function finishBackground(sub: Submission): void {
    sub.done = true;
    sub.lastHeartbeat = new Date();
    const status = sub.status;
    if (status === 'failed' || status === 'timed_out' || status === 'hacked') {
      sub.error =
        status === 'timed_out'
          ? 'hard timeout reached'
          : status === 'hacked'
            ? (kernelGuardRejects(sub) ?? '')
            : UPSTREAM_TEXT.dispatchFailed; // _run_one: status failed, error=str(e) of the launcher's RuntimeError
      // a timed-out job keeps the runs that finished before the limit
      if (status === 'timed_out') sub.runs = outcome(sub).runs.filter((r) => r.mode === 'test');
      return;
    }
    sub.runs = outcome(sub).runs;
    if (sub.mode === 'leaderboard') {
      // _ranked_completion_status
      const ranked = (secret: boolean) =>
        sub.runs.some((r) => r.mode === 'leaderboard' && r.secret === secret && r.passed);
      if (!ranked(false)) {
        sub.status = 'failed';
        sub.error = `ranked validation failed on ${sub.gpu}; submission will not appear on the leaderboard`;
      } else if (!ranked(true) || sub.runs.some((r) => r.secret && !r.passed)) {
        sub.status = 'failed';
        sub.error = `secret validation failed on ${sub.gpu}; submission will not appear on the leaderboard`;
      }
    }
  }

  /** One poll's worth of the background worker: the next job status. */
  function advance(sub: Submission): void {
    if (sub.route !== 'background') return;
    if (sub.final) {
      // done already; the final status is written after `doneBeforeStatus` polls
      if (--sub.final.polls > 0) return;
      sub.status = sub.final.status;
      sub.error = sub.final.error;
      delete sub.final;
      return;
    }
    if (sub.done) return;
    if (sub.held && sub.status === 'running') {
      sub.lastHeartbeat = new Date();
      return;
    }
    const next = sub.steps.shift();
    if (!next) return;
    sub.status = next;
    if (next === 'pending' || next === 'running') sub.lastHeartbeat = new Date();
    if (!TERMINAL.includes(next)) return;
    finishBackground(sub);
    const lag = options.doneBeforeStatus ?? 0;
    if (lag > 0) {
      // submit_full's finally marks the submission done; the worker writes the final status a moment later
      sub.final = { status: sub.status, error: sub.error, polls: lag + 1 };
      sub.status = 'running';
      sub.error = null;
      advance(sub);
    }
  }

  /** backend.get_runner_queue_status: what the GPU's launcher counts (GitHub: queued workflow runs only). */
  function queueJson(gpu: string): Json {
    const queued = [...submissions.values()].filter(
      (s) => s.gpu === gpu && s.route === 'background' && !s.done && (s.status === 'initial' || s.status === 'pending'),
    ).length;
    return queueAnswer(gpu, { queued, modalRunners });
  }

  function runJsonOf(r: RunRecord): Json {
    const run: { [key: string]: Json } = {
      start_time: r.start_time,
      end_time: r.end_time,
      mode: r.mode,
      secret: r.secret,
      runner: r.runner,
      score: r.score === null ? null : decimalText(r.score),
      passed: r.passed,
    };
    if (!old && !r.secret && (r.mode === 'test' || r.mode === 'benchmark')) run.result = r.result;
    return run;
  }

  /** main.get_user_submission. */
  function detailJson(sub: Submission): Json {
    const body: { [key: string]: Json } = {
      id: sub.id,
      leaderboard_id: sub.leaderboard.id,
      leaderboard_name: sub.leaderboard.name,
      file_name: sub.fileName,
      user_id: userIdOf(sub.account),
      submission_time: pydanticTime(sub.time),
      done: sub.done,
      code: sub.code,
      runs: sub.runs.map(runJsonOf),
    };
    if (old) return body;
    const job = sub.route === 'background';
    body.job = {
      status: job ? sub.status : null,
      error: job ? sub.error : null,
      last_heartbeat: job && sub.lastHeartbeat ? pydanticTime(sub.lastHeartbeat) : null,
    };
    body.runner_queue = sub.runs.length ? queueJson(sub.runs[0]?.runner as string) : null;
    return body;
  }

  /** leaderboard_db.get_user_submissions: public passed runs, only where the secret leaderboard run passed too. */
  function listRuns(sub: Submission): Json[] {
    return sub.runs
      .filter(
        (r) =>
          !r.secret &&
          r.passed &&
          sub.runs.some((s) => s.secret && s.runner === r.runner && s.mode === 'leaderboard' && s.passed) &&
          !sub.runs.some((s) => s.secret && s.runner === r.runner && !s.passed),
      )
      .map((r) => ({ gpu_type: r.runner, score: r.score === null ? null : decimalText(r.score) }));
  }

  /** leaderboard_db.get_leaderboard_submissions (best per user); the float response model keeps scores numbers. */
  function rankedJson(lb: LeaderboardDef, gpu: string): Json[] {
    const best = new Map<string, { sub: Submission; score: number }>();
    for (const sub of submissions.values()) {
      if (sub.leaderboard !== lb || sub.status === 'hacked') continue;
      if (listRuns(sub).length === 0) continue;
      const run = sub.runs.find(
        (r) => !r.secret && r.mode === 'leaderboard' && r.runner === gpu && r.passed && r.score !== null,
      );
      if (!run || run.score === null) continue;
      const mine = best.get(sub.account);
      if (!mine || run.score < mine.score) best.set(sub.account, { sub, score: run.score });
    }
    return [...best.values()]
      .sort((a, b) => a.score - b.score)
      .map(({ sub, score }, i) => ({
        submission_id: sub.id,
        rank: i + 1,
        submission_name: sub.fileName,
        submission_time: pydanticTime(sub.time),
        submission_score: score,
        leaderboard_name: lb.name,
        // LeaderboardRankedEntry.user_id: int (the response model turns the TEXT column into a number)
        user_id: Number(userIdOf(sub.account)),
        user_name: sub.account,
        gpu_type: gpu,
      }));
  }

  /** main._stream_submission_response: a status event at once and every heartbeat, then result or error. */
  async function stream(res: http.ServerResponse, sub: Submission): Promise<void> {
    res.writeHead(200, { 'Content-Type': SSE_CONTENT_TYPE });
    const started = Date.now();
    const event = (name: string, kind: AnswerKind, body: Json) =>
      `event: ${name}\ndata: ${pythonJsonDumps(rewrite(kind, body))}\n\n`;
    const status = () =>
      res.write(
        event('status', 'statusEvent', {
          status: 'processing',
          elapsed_time: Math.round((Date.now() - started) / 10) / 100,
        }),
      );
    const error = (body: Json): void => {
      res.end(event('error', 'errorEvent', body));
    };
    status();
    try {
      prepare(sub);
    } catch (err) {
      if (!(err instanceof PrepareError)) throw err;
      // _run_submission wraps prepare_submission's errors as HTTPException(400)
      return error({ status: 'error', detail: err.message, status_code: 400 });
    }
    register(sub);
    const m = markers(sub.code);
    for (let i = 0; i < m.slow && !res.destroyed; i++) {
      await new Promise((r) => setTimeout(r, heartbeatMs));
      status();
    }
    if (res.destroyed) return;
    sub.done = true;
    const guard = kernelGuardRejects(sub);
    // _run_submission: KernelGuardRejected → HTTPException(400)
    if (guard) return error({ status: 'error', detail: guard, status_code: 400 });
    if (m.raise)
      return error({
        status: 'error',
        detail: 'An unexpected error occurred: RuntimeError',
        raw_error: UPSTREAM_TEXT.dispatchFailed,
      });
    const o = outcome(sub);
    sub.runs = o.runs;
    res.end(event('result', 'resultEvent', { status: 'success', results: o.results, reports: o.reports }));
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://contract');
    const method = req.method ?? 'GET';
    const p = url.pathname;
    const rawId = req.headers['x-popcorn-cli-id'];
    requests.push({ method, path: p + url.search, cliId: Array.isArray(rawId) ? rawId[0] : rawId });
    try {
      const rule = failures.find((f) => (!f.method || f.method === method) && f.path.test(p));
      if (rule) {
        rule.times = (rule.times ?? 1) - 1;
        if (rule.times <= 0) failures.splice(failures.indexOf(rule), 1);
        req.resume();
        const headers: Record<string, string> =
          rule.retryAfter !== undefined ? { 'Retry-After': String(rule.retryAfter) } : {};
        if (rule.message !== undefined) throw new HttpError(rule.status, rule.message, headers, 'message');
        throw new HttpError(rule.status, rule.detail ?? `Injected ${rule.status}`, headers);
      }
      let m: RegExpExecArray | null;
      if (method === 'GET' && p === '/health') return send(res, 200, { status: 'ok' }, 'health');
      if (method === 'GET' && p === '/auth/init') {
        const provider = url.searchParams.get('provider') ?? '';
        if (provider !== 'discord' && provider !== 'github')
          throw new HttpError(400, "Invalid provider, must be 'discord' or 'github'");
        const state = randomUUID();
        ids.set(state, { account: null, provider });
        return send(res, 200, { state }, undefined);
      }
      if (method === 'GET' && (m = /^\/auth\/cli\/([^/]+)$/.exec(p))) {
        const provider = m[1] as string;
        if (provider !== 'discord' && provider !== 'github')
          throw new HttpError(400, "Invalid provider, must be 'discord' or 'github'");
        const code = url.searchParams.get('code');
        const state = url.searchParams.get('state');
        if (!code || !state) throw new HttpError(400, 'Missing authorization code or state');
        let decoded: { cli_id?: unknown; is_reset?: unknown };
        try {
          // base64.urlsafe_b64decode after padding: padded and unpadded states alike
          if (!/^[A-Za-z0-9_+/-]+={0,2}$/.test(state)) throw new Error('Incorrect padding');
          decoded = JSON.parse(Buffer.from(state.replace(/=+$/, ''), 'base64url').toString('utf8')) as typeof decoded;
        } catch (err) {
          throw new HttpError(400, `Invalid state parameter: ${err instanceof Error ? err.message : String(err)}`);
        }
        if (typeof decoded !== 'object' || decoded === null || !('cli_id' in decoded))
          throw new HttpError(400, "Invalid state parameter: 'cli_id'");
        const cliId = String(decoded.cli_id);
        const isReset = decoded.is_reset === true;
        // The code stands for the provider account (its user id); the provider is not checked against /auth/init's.
        const name = code;
        const previous = accounts.get(name);
        if (isReset) {
          // leaderboard_db.reset_user_from_cli: the account must exist; its row takes the new cli_id
          if (!previous) throw new HttpError(400, callbackRefusal(UPSTREAM_TEXT.resetUnknown));
          ids.delete(previous);
        } else {
          // leaderboard_db.create_user_from_cli
          if (previous) throw new HttpError(400, callbackRefusal(UPSTREAM_TEXT.alreadyRegistered));
          const pending = ids.get(cliId);
          if (!pending || pending.account !== null)
            throw new HttpError(400, callbackRefusal(UPSTREAM_TEXT.noTemporaryUser));
        }
        ids.set(cliId, { account: name, provider });
        accounts.set(name, cliId);
        const is_reset = decoded.is_reset === undefined ? false : (decoded.is_reset as Json);
        return send(
          res,
          200,
          {
            status: 'success',
            message: `Successfully authenticated via ${provider} and linked CLI ID.`,
            user_id: userIdOf(name),
            user_name: code,
            is_reset,
          },
          undefined,
        );
      }
      if (method === 'GET' && p === '/leaderboards') return send(res, 200, boards.map(leaderboardJson), 'leaderboards');
      if (method === 'GET' && (m = /^\/gpus\/([^/]+)$/.exec(p))) {
        const name = decodeURIComponent(m[1] as string);
        const lb = boards.find((b) => b.name === name);
        if (!lb) throw new HttpError(500, `Error fetching GPU data: Leaderboard \`${name}\` does not exist.`);
        enforceAccess(req, lb);
        return send(res, 200, lb.gpu_types, 'gpus');
      }
      if (method === 'GET' && !old && (m = /^\/runner_queue\/([^/]+)$/.exec(p)))
        return send(res, 200, queueJson(decodeURIComponent(m[1] as string)), 'runnerQueue');
      if (method === 'GET' && (m = /^\/submissions\/([^/]+)\/([^/]+)$/.exec(p))) {
        const name = decodeURIComponent(m[1] as string);
        const gpu = decodeURIComponent(m[2] as string);
        const lb = boards.find((b) => b.name === name);
        if (!lb) throw new HttpError(500, `Error fetching submissions: Leaderboard \`${name}\` does not exist.`);
        enforceAccess(req, lb);
        const all = rankedJson(lb, gpu);
        if (all.length === 0 && !lb.gpu_types.includes(gpu))
          throw new HttpError(500, `Error fetching submissions: Invalid GPU type '${gpu}' for leaderboard '${name}'`);
        const offset = Number(url.searchParams.get('offset') ?? 0);
        const limit = url.searchParams.get('limit');
        return send(
          res,
          200,
          all.slice(offset, limit === null ? undefined : offset + Number(limit)),
          'rankedSubmissions',
        );
      }
      if (method === 'GET' && p === '/user/submissions') {
        const owner = account(req, 'user');
        const lb = url.searchParams.get('leaderboard');
        const limit = Number(url.searchParams.get('limit') ?? 50);
        const offset = Number(url.searchParams.get('offset') ?? 0);
        if (limit < 1 || limit > 100) throw new HttpError(400, 'limit must be between 1 and 100');
        if (offset < 0) throw new HttpError(400, 'offset must be >= 0');
        const list = [...submissions.values()]
          .filter((s) => s.account === owner && (!lb || s.leaderboard.name === lb))
          .sort((a, b) => b.time.getTime() - a.time.getTime() || b.id - a.id)
          .slice(offset, offset + limit)
          .map((s) => ({
            id: s.id,
            leaderboard_name: s.leaderboard.name,
            file_name: s.fileName,
            submission_time: pydanticTime(s.time),
            done: s.done,
            runs: listRuns(s),
          }));
        return send(res, 200, list, 'userSubmissions');
      }
      if ((m = /^\/user\/submissions\/(\d+)$/.exec(p))) {
        const owner = account(req, 'user');
        const sub = submissions.get(Number(m[1]));
        if (!sub) throw new HttpError(404, 'Submission not found');
        if (sub.account !== owner)
          throw new HttpError(403, `Not authorized to ${method === 'DELETE' ? 'delete' : 'view'} this submission`);
        if (method === 'GET') {
          advance(sub);
          return send(res, 200, detailJson(sub), 'userSubmission');
        }
        if (method === 'DELETE') {
          submissions.delete(sub.id);
          return send(res, 200, { status: 'ok', submission_id: sub.id }, 'deleteSubmission');
        }
      }
      if (method === 'POST' && (m = /^\/submission\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(p))) {
        const owner = account(req, 'user');
        const sub = await accept(
          req,
          decodeURIComponent(m[1] as string),
          decodeURIComponent(m[2] as string),
          decodeURIComponent(m[3] as string),
          owner,
          'background',
        ).catch((err: unknown) => {
          // run_submission_async: `except Exception` wraps to_submit_info's HTTPException (FastAPI's 422 comes first)
          if (err instanceof HttpError && err.status !== 422)
            throw new HttpError(400, wrappedPreparationError(err.status, err.detail));
          throw err;
        });
        try {
          prepare(sub);
        } catch (err) {
          if (!(err instanceof PrepareError)) throw err;
          // run_submission_async: HTTPException(status_code=e.http_code, detail=str(e)); no Retry-After upstream
          const limit = options.submissionLimit;
          const wait =
            err.code === 429 && limit?.retryAfterHeader ? /Try again in (\d+)s/.exec(err.message)?.[1] : undefined;
          throw new HttpError(err.code, err.message, wait !== undefined ? { 'Retry-After': wait } : {});
        }
        register(sub);
        sub.jobStatusId = nextJobStatus++;
        sub.status = 'initial';
        const mk = markers(sub.code);
        const end = mk.raise ? 'failed' : mk.timedOut ? 'timed_out' : kernelGuardRejects(sub) ? 'hacked' : 'succeeded';
        sub.steps = ['pending', 'running', ...Array<string>(mk.slow).fill('running'), end];
        sub.held = mk.hold;
        const body: { [key: string]: Json } = { details: { id: sub.id, job_status_id: sub.jobStatusId } };
        if (!old) body.runner_queue = queueJson(sub.gpu);
        body.status = 'accepted';
        return send(res, 202, body, 'backgroundAccepted');
      }
      if (method === 'POST' && (m = /^\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(p))) {
        const owner = account(req, 'cli');
        const sub = await accept(
          req,
          decodeURIComponent(m[1] as string),
          decodeURIComponent(m[2] as string),
          decodeURIComponent(m[3] as string),
          owner,
          'streaming',
        );
        return stream(res, sub);
      }
      throw new HttpError(404, 'Not Found');
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      req.resume();
      send(
        res,
        err.status,
        err.body ?? (err.key === 'message' ? { message: err.detail } : { detail: err.detail }),
        'errorBody',
        err.headers,
      );
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    registeredId,
    failNext(rule) {
      failures.push({ ...rule });
    },
    submission: (id) => submissions.get(id),
    stop: () => {
      stopped = true;
    },
    ban: (name) => banned.add(name),
    invite: (name, lb) => invited.add(`${name} ${lb}`),
    release: () =>
      [...submissions.values()]
        .filter((sub) => sub.held)
        .map((sub) => {
          sub.held = false;
          return sub.id;
        }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * What the user's browser does after the provider page: the provider redirects to `redirect_uri` with a `code` and
 * the `state` from the authorize URL. `code` names the provider account.
 */
export async function completeOAuthInBrowser(
  authorizeUrl: string,
  code = 'user-1',
): Promise<{ status: number; body: string }> {
  const auth = new URL(authorizeUrl);
  const redirect = auth.searchParams.get('redirect_uri');
  const state = auth.searchParams.get('state');
  if (!redirect || !state) throw new Error(`authorize URL lacks redirect_uri or state: ${authorizeUrl}`);
  const target = new URL(redirect);
  target.searchParams.set('code', code);
  target.searchParams.set('state', state);
  const res = await fetch(target);
  return { status: res.status, body: await res.text() };
}
