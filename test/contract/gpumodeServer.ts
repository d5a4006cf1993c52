// A contract server for what only GPU MODE's public service does, written from shared/docs/gpumode-api.md field
// for field: OAuth registration (/auth/init, /auth/cli/{provider}), X-Popcorn-Cli-Id checks (400 missing, 401
// unknown), leaderboards with deadlines (one closed), /gpus, /runner_queue, 413 over 1 MB, 429 with Retry-After,
// the background route with job states initial → pending → running → succeeded | failed | timed_out | hacked
// (one step per poll), leaderboard runs with a secret-seed copy, the streaming route with status heartbeats only
// (no live output), profile runs with a base64 zip `trace` and `+*`-encoded reports, and /user/submissions
// list/show (with code)/delete. A test double: the real submit/poll/stream flow is tested against our runner.
//
// What a submission does is chosen by marker comments in its source (the file itself is never run):
//   `contract: fail`       tests fail (job succeeded, runs not passed)
//   `contract: crash`      the job fails with an error (streaming: an `error` event)
//   `contract: timed_out`  / `contract: hacked`  the job ends in that state (background route)
//   `contract: slow=N`     N extra polls in `running` (background) / N extra heartbeats (streaming)
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import type { AddressInfo } from 'node:net';
import busboy from 'busboy';
import { ZipArchive } from 'archiver';

export const fixturesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/fixtures/rocprof');

const MAX_BYTES = 1_000_000;
const EXTENSIONS = ['.py', '.cu', '.cuh', '.cpp'];
const MODES = ['test', 'benchmark', 'leaderboard', 'profile'];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Values = Record<string, string>;

interface LeaderboardDef {
  id: number;
  name: string;
  description: string;
  deadline: string;
  gpu_types: string[];
  ranking_by: 'last' | 'mean' | 'geom';
}

interface RunRecord {
  start_time: string;
  end_time: string;
  mode: string;
  secret: boolean;
  runner: string;
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
  time: string;
  /** Job status steps still to come (background route); the current one is `status`. */
  steps: string[];
  status: string;
  error: string | null;
  lastHeartbeat: string | null;
  runs: RunRecord[];
  done: boolean;
}

export interface FailureRule {
  method?: string;
  /** Matches the path (without query). */
  path: RegExp;
  status: number;
  detail?: string;
  /** Seconds, sent as Retry-After. */
  retryAfter?: number;
  /** How many matching requests fail (default 1). */
  times?: number;
}

export interface ContractServerOptions {
  /** Streaming route: seconds between status events are ~15 upstream; tests shorten it (ms). */
  heartbeatMs?: number;
  /** Submissions (either route) per account per window before 429; default unlimited. */
  submissionLimit?: { count: number; windowMs: number; retryAfterSeconds: number };
  /** The profile zip's members: fixture CSV file names and their names in the zip. */
  profileFiles?: Array<{ fixture: string; name: string }>;
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
  close(): Promise<void>;
}

const DEFAULT_PROFILE_FILES = [
  { fixture: 'rocm-systems__sdkdocs__kernel_trace.csv', name: '4242_kernel_trace.csv' },
  { fixture: 'rocm-systems__sdkdocs__memory_copy_trace.csv', name: '4242_memory_copy_trace.csv' },
  { fixture: 'rocm-systems__sdkdocs__hip_runtime_trace.csv', name: '4242_hip_api_trace.csv' },
];

function leaderboards(now: number): LeaderboardDef[] {
  const day = 86_400_000;
  const iso = (t: number) => new Date(t).toISOString().replace(/\.\d{3}Z$/, '+00:00');
  return [
    {
      id: 1,
      name: 'amd-fp8-mm',
      description: 'FP8 block-scaled GEMM on MI300.\nImplement custom_kernel(data) -> output.',
      deadline: iso(now + 30 * day),
      gpu_types: ['MI300'],
      ranking_by: 'geom',
    },
    {
      id: 2,
      name: 'grayscale',
      description: 'RGB to grayscale (closed).',
      deadline: iso(now - 10 * day),
      gpu_types: ['A100', 'H100', 'MI300'],
      ranking_by: 'last',
    },
    {
      id: 3,
      name: 'vectoradd',
      description: 'Add two vectors.',
      deadline: iso(now + 3 * day),
      gpu_types: ['MI300', 'T4'],
      ranking_by: 'mean',
    },
  ];
}

const TESTS = [{ seed: 1001, size: 128 }, { seed: 5236, size: 1024 }];
const BENCHMARKS = [{ seed: 8135, size: 4096 }, { seed: 4415, size: 16384 }];
const spec = (s: Record<string, number>) => Object.entries(s).map(([k, v]) => `${k}: ${v}`).join('; ');

function leaderboardJson(lb: LeaderboardDef): Json {
  return {
    id: lb.id,
    name: lb.name,
    description: lb.description,
    deadline: lb.deadline,
    gpu_types: lb.gpu_types,
    creator_id: 1,
    forum_id: null,
    secret_seed: null,
    task: {
      lang: 'py',
      files: { 'submission.py': '@SUBMISSION@', 'reference.py': '# reference\n', 'eval.py': '# evaluator\n', 'task.py': '# types\n' },
      config: { main: 'eval.py' },
      tests: TESTS,
      benchmarks: BENCHMARKS,
      test_timeout: 180,
      benchmark_timeout: 180,
      ranked_timeout: 420,
      ranking_by: lb.ranking_by,
      seed: null,
      multi_gpu: false,
      description: lb.description,
    },
  };
}

/** Python's base64.b64encode(text.encode(), b"+*"). */
function popcornBase64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64').replace(/\//g, '*');
}

async function buildProfileZip(files: Array<{ fixture: string; name: string }>): Promise<Buffer> {
  const archive = new ZipArchive({ zlib: { level: 1 } });
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c));
  const ended = new Promise<void>((resolve, reject) => {
    sink.on('end', resolve);
    archive.on('error', reject);
  });
  archive.pipe(sink);
  for (const f of files) archive.append(readFileSync(path.join(fixturesDir, f.fixture)), { name: f.name });
  archive.append(Buffer.from([0x0a, 0x00]), { name: 'combined.pftrace' });
  await archive.finalize();
  await ended;
  return Buffer.concat(chunks);
}

// ---------------------------------------------------------------------------------------------------------------
// Results

interface Markers {
  fail: boolean;
  crash: boolean;
  timedOut: boolean;
  hacked: boolean;
  slow: number;
}

function markers(code: string): Markers {
  return {
    fail: /contract: fail\b/.test(code),
    crash: /contract: crash\b/.test(code),
    timedOut: /contract: timed_out\b/.test(code),
    hacked: /contract: hacked\b/.test(code),
    slow: Number(/contract: slow=(\d+)/.exec(code)?.[1] ?? 0),
  };
}

function testValues(passed: boolean): Values {
  const v: Values = { check: passed ? 'pass' : 'fail', 'test-count': String(TESTS.length) };
  TESTS.forEach((t, i) => {
    v[`test.${i}.spec`] = spec(t);
    const ok = passed || i === 0;
    v[`test.${i}.status`] = ok ? 'pass' : 'fail';
    if (!ok) v[`test.${i}.error`] = 'mismatch found! custom implementation doesn\'t match reference: max abs diff 0.5';
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

function system(gpu: string): Json {
  return { gpu: gpu === 'MI300' ? 'AMD Instinct MI300X' : gpu, device_count: 1, cpu: 'AMD EPYC 9654', runtime: gpu.startsWith('MI') ? 'ROCm' : 'CUDA', platform: 'Linux-6.8.0-x86_64-with-glibc2.35', torch: '2.6.0+rocm6.2', hostname: 'runner-7' };
}

function runJson(values: Values, passed: boolean, mode: string, start: string, end: string, profile: Json = null): Json {
  return {
    start,
    end,
    compilation: null,
    run: {
      success: true,
      passed,
      command: `python eval.py ${mode} /tmp/tmp69x1suxc`,
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

// ---------------------------------------------------------------------------------------------------------------

export async function startContractServer(options: ContractServerOptions = {}): Promise<ContractServer> {
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const boards = leaderboards(Date.now());
  const profileZip = (await buildProfileZip(options.profileFiles ?? DEFAULT_PROFILE_FILES)).toString('base64');
  /** cli_id → account (null until the OAuth callback linked it). */
  const ids = new Map<string, { account: string | null; provider: string }>();
  /** account → its current cli_id. */
  const accounts = new Map<string, string>();
  const submissions = new Map<number, Submission>();
  const submitTimes = new Map<string, number[]>();
  const failures: FailureRule[] = [];
  const requests: ContractRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  let nextId = 4200;
  let nextJobStatus = 900;

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, { message: `contract server bug: ${err instanceof Error ? err.message : String(err)}` });
      else res.end();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  function send(res: http.ServerResponse, status: number, body: Json, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  class HttpError extends Error {
    constructor(
      readonly status: number,
      readonly detail: string,
      readonly headers: Record<string, string> = {},
    ) {
      super(detail);
    }
  }

  function account(req: http.IncomingMessage): string {
    const raw = req.headers['x-popcorn-cli-id'];
    const id = Array.isArray(raw) ? raw[0] : raw;
    if (!id) throw new HttpError(400, 'Missing X-Popcorn-Cli-Id header');
    const owner = ids.get(id)?.account;
    if (!owner) throw new HttpError(401, 'Invalid or unauthorized X-Popcorn-Cli-Id');
    return owner;
  }

  function registeredId(name = 'alice'): string {
    const existing = accounts.get(name);
    if (existing) return existing;
    const id = randomUUID();
    ids.set(id, { account: name, provider: 'discord' });
    accounts.set(name, id);
    return id;
  }

  function rateLimit(owner: string): void {
    const limit = options.submissionLimit;
    if (!limit) return;
    const now = Date.now();
    const times = (submitTimes.get(owner) ?? []).filter((t) => now - t < limit.windowMs);
    if (times.length >= limit.count) {
      throw new HttpError(429, `Rate limit exceeded: at most ${limit.count} submissions per ${Math.round(limit.windowMs / 1000)} s`, {
        'Retry-After': String(limit.retryAfterSeconds),
      });
    }
    times.push(now);
    submitTimes.set(owner, times);
  }

  async function readUpload(req: http.IncomingMessage): Promise<{ fileName: string; bytes: Buffer }> {
    const type = req.headers['content-type'] ?? '';
    if (!type.startsWith('multipart/form-data')) throw new HttpError(400, 'Expected a multipart/form-data upload with a `file` field');
    return new Promise((resolve, reject) => {
      let file: { fileName: string; bytes: Buffer } | undefined;
      let tooLarge = false;
      const parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: MAX_BYTES + 1 } });
      parser.on('file', (field, stream, info) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('limit', () => {
          tooLarge = true;
        });
        stream.on('end', () => {
          if (field === 'file') file = { fileName: info.filename ?? 'submission', bytes: Buffer.concat(chunks) };
        });
      });
      parser.on('error', (err: Error) => reject(new HttpError(400, `Bad upload: ${err.message}`)));
      parser.on('close', () => {
        if (tooLarge) return reject(new HttpError(413, 'Submission file is too large (limit: 1MB)'));
        if (!file) return reject(new HttpError(400, 'No file uploaded (form field `file`)'));
        resolve(file);
      });
      req.pipe(parser);
    });
  }

  async function accept(req: http.IncomingMessage, lbName: string, gpu: string, mode: string, owner: string): Promise<Submission> {
    const lb = boards.find((b) => b.name === lbName);
    if (!lb) throw new HttpError(404, `Leaderboard '${lbName}' not found`);
    if (!MODES.includes(mode)) throw new HttpError(400, `Invalid submission mode '${mode}'`);
    if (!lb.gpu_types.includes(gpu)) throw new HttpError(400, `GPU ${gpu} is not available for leaderboard ${lb.name}; choose one of ${lb.gpu_types.join(', ')}`);
    const upload = await readUpload(req);
    if (upload.bytes.length === 0) throw new HttpError(400, 'Empty file submitted. Please provide a file with code.');
    if (upload.bytes.length > MAX_BYTES) throw new HttpError(413, 'Submission file is too large (limit: 1MB)');
    let code: string;
    try {
      code = new TextDecoder('utf-8', { fatal: true }).decode(upload.bytes);
    } catch {
      throw new HttpError(400, 'Failed to decode submission file content as UTF-8.');
    }
    if (!EXTENSIONS.some((e) => upload.fileName.endsWith(e))) throw new HttpError(400, 'Please provide a Python (.py) or CUDA (.cu / .cuh / .cpp) file');
    rateLimit(owner);
    const sub: Submission = {
      id: nextId++,
      jobStatusId: nextJobStatus++,
      account: owner,
      leaderboard: lb,
      gpu,
      mode,
      fileName: upload.fileName,
      code,
      time: new Date().toISOString(),
      steps: [],
      status: 'initial',
      error: null,
      lastHeartbeat: null,
      runs: [],
      done: false,
    };
    submissions.set(sub.id, sub);
    return sub;
  }

  /** The FullResults of a finished run (what the streaming route sends and the runs the background route keeps). */
  function outcome(sub: Submission): { results: Json[]; reports: string[]; runs: RunRecord[]; error?: string } {
    const m = markers(sub.code);
    const start = new Date(Date.now() - 3000).toISOString();
    const end = new Date().toISOString();
    const runs: RunRecord[] = [];
    const keep = (mode: string, values: Values, passed: boolean, secret: boolean, score: number | null) =>
      runs.push({ start_time: start, end_time: end, mode, secret, runner: sub.gpu, score, passed, result: values });
    const full = (r: Record<string, Json>): Json => ({ success: true, error: '', system: system(sub.gpu), runs: r });
    const passed = !m.fail;
    const results: Json[] = [];
    const reports: string[] = [];
    if (sub.mode === 'test') {
      const v = testValues(passed);
      keep('test', v, passed, false, null);
      results.push(full({ test: runJson(v, passed, 'test', start, end) }));
    } else if (sub.mode === 'benchmark') {
      const v = benchmarkValues(PUBLIC_MEANS_NS);
      keep('benchmark', v, passed, false, null);
      results.push(full({ benchmark: runJson(v, passed, 'benchmark', start, end) }));
    } else if (sub.mode === 'leaderboard') {
      for (const secret of [false, true]) {
        const means = secret ? SECRET_MEANS_NS : PUBLIC_MEANS_NS;
        const r: Record<string, Json> = {};
        const tv = testValues(passed);
        keep('test', tv, passed, secret, null);
        r.test = runJson(tv, passed, 'test', start, end);
        if (passed) {
          const bv = benchmarkValues(means);
          keep('benchmark', bv, true, secret, null);
          r.benchmark = runJson(bv, true, 'benchmark', start, end);
          const lv = benchmarkValues(means);
          keep('leaderboard', lv, true, secret, scoreOf(means, sub.leaderboard.ranking_by));
          r.leaderboard = runJson(lv, true, 'leaderboard', start, end);
        }
        results.push(full(r));
      }
    } else {
      const r: Record<string, Json> = {};
      BENCHMARKS.forEach((b, i) => {
        const v: Values = { 'benchmark-count': '1', 'benchmark.0.spec': spec(b), 'benchmark.0.report': popcornBase64(profileReportText(i)) };
        keep(`profile.${i}`, v, true, false, null);
        r[`profile.${i}`] = runJson(v, true, `profile.${i}`, start, end, { profiler: 'rocPROF', trace: profileZip, download_url: null });
      });
      results.push(full(r));
    }
    results.forEach((_, i) => reports.push(`## ${sub.leaderboard.name} · ${sub.mode} on ${sub.gpu}${i > 0 ? ' (secret)' : ''}\n\n${passed ? '✅ passed' : '❌ failed'}\n`));
    return { results, reports, runs };
  }

  function finishBackground(sub: Submission): void {
    sub.done = true;
    if (sub.status === 'failed' || sub.status === 'timed_out' || sub.status === 'hacked') {
      sub.error =
        sub.status === 'timed_out'
          ? `Submission ran longer than the ranked timeout (${420} s)`
          : sub.status === 'hacked'
            ? 'Submission flagged: it tried to read the reference output'
            : 'Runner crashed: exit code 110 (GPU API failure)';
      // a timed-out job keeps the runs that finished before the limit
      if (sub.status === 'timed_out') sub.runs = outcome(sub).runs.filter((r) => r.mode === 'test');
      return;
    }
    sub.runs = outcome(sub).runs;
  }

  function advance(sub: Submission): void {
    if (sub.done) return;
    const next = sub.steps.shift();
    if (!next) return;
    sub.status = next;
    if (next === 'running') sub.lastHeartbeat = new Date().toISOString();
    if (['succeeded', 'failed', 'timed_out', 'hacked'].includes(next)) finishBackground(sub);
  }

  function queueJson(gpu: string): Json {
    const known = boards.some((b) => b.gpu_types.includes(gpu));
    const active = [...submissions.values()].filter((s) => s.gpu === gpu && !s.done);
    return {
      runner: gpu.startsWith('MI') ? 'amd-github-runner' : 'modal',
      gpu,
      queued_jobs: active.filter((s) => s.status === 'initial' || s.status === 'pending').length,
      running_jobs: active.filter((s) => s.status === 'running').length,
      available_runners: known ? 2 : 0,
      status: known ? 'available' : 'unavailable',
      error: known ? null : `No runners for GPU ${gpu}`,
    };
  }

  function detailJson(sub: Submission): Json {
    return {
      id: sub.id,
      leaderboard_id: sub.leaderboard.id,
      leaderboard_name: sub.leaderboard.name,
      file_name: sub.fileName,
      user_id: sub.account,
      submission_time: sub.time,
      done: sub.done,
      code: sub.code,
      runs: sub.runs.map((r) => ({ ...r })),
      job: { status: sub.status, error: sub.error, last_heartbeat: sub.lastHeartbeat },
      runner_queue: queueJson(sub.gpu),
    };
  }

  async function stream(res: http.ServerResponse, sub: Submission): Promise<void> {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
    const started = Date.now();
    const status = () => res.write(`event: status\ndata: ${JSON.stringify({ status: 'processing', elapsed_time: (Date.now() - started) / 1000 })}\n\n`);
    const m = markers(sub.code);
    status();
    for (let i = 0; i < m.slow && !res.destroyed; i++) {
      await new Promise((r) => setTimeout(r, heartbeatMs));
      status();
    }
    if (res.destroyed) return;
    sub.done = true;
    sub.status = m.crash ? 'failed' : 'succeeded';
    if (m.crash) {
      sub.error = 'Runner crashed: exit code 110 (GPU API failure)';
      res.end(`event: error\ndata: ${JSON.stringify({ status: 'error', detail: sub.error, status_code: 500 })}\n\n`);
      return;
    }
    const o = outcome(sub);
    sub.runs = o.runs;
    res.end(`event: result\ndata: ${JSON.stringify({ status: 'success', results: o.results, reports: o.reports })}\n\n`);
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
        throw new HttpError(rule.status, rule.detail ?? `Injected ${rule.status}`, rule.retryAfter !== undefined ? { 'Retry-After': String(rule.retryAfter) } : {});
      }
      let m: RegExpExecArray | null;
      if (method === 'GET' && p === '/health') return send(res, 200, { status: 'ok' });
      if (method === 'GET' && p === '/auth/init') {
        const provider = url.searchParams.get('provider') ?? '';
        if (provider !== 'discord' && provider !== 'github') throw new HttpError(400, `Unsupported provider: ${provider}`);
        const state = randomUUID();
        ids.set(state, { account: null, provider });
        return send(res, 200, { state });
      }
      if (method === 'GET' && (m = /^\/auth\/cli\/([^/]+)$/.exec(p))) {
        const provider = m[1] as string;
        const code = url.searchParams.get('code');
        const state = url.searchParams.get('state');
        if (!code || !state) throw new HttpError(400, 'Missing code or state');
        let decoded: { cli_id?: unknown; is_reset?: unknown };
        try {
          if (!/^[A-Za-z0-9_-]+$/.test(state)) throw new Error('not base64url without padding');
          decoded = JSON.parse(Buffer.from(state, 'base64url').toString('utf8')) as typeof decoded;
        } catch {
          throw new HttpError(400, 'Invalid state parameter');
        }
        const cliId = typeof decoded.cli_id === 'string' ? decoded.cli_id : '';
        const pending = ids.get(cliId);
        if (!pending || typeof decoded.is_reset !== 'boolean') throw new HttpError(400, 'Invalid state parameter');
        if (pending.provider !== provider) throw new HttpError(400, `State was issued for ${pending.provider}, not ${provider}`);
        // The code stands for the provider account; unverified detail: a second plain registration is refused.
        const name = `${provider}:${code}`;
        const previous = accounts.get(name);
        if (previous && !decoded.is_reset) throw new HttpError(400, 'This account is already registered; use re-register (reset) to link a new CLI id');
        if (previous) ids.delete(previous);
        ids.set(cliId, { account: name, provider });
        accounts.set(name, cliId);
        return send(res, 200, { status: 'success', message: `Successfully ${decoded.is_reset ? 're-' : ''}registered the CLI id with ${provider}` });
      }
      if (method === 'GET' && p === '/leaderboards') return send(res, 200, boards.map(leaderboardJson));
      if (method === 'GET' && (m = /^\/gpus\/([^/]+)$/.exec(p))) {
        const lb = boards.find((b) => b.name === decodeURIComponent(m?.[1] ?? ''));
        if (!lb) throw new HttpError(404, 'Leaderboard not found');
        return send(res, 200, lb.gpu_types);
      }
      if (method === 'GET' && (m = /^\/runner_queue\/([^/]+)$/.exec(p))) return send(res, 200, queueJson(decodeURIComponent(m[1] as string)));
      if (method === 'GET' && p === '/user/submissions') {
        const owner = account(req);
        const lb = url.searchParams.get('leaderboard');
        const limit = Number(url.searchParams.get('limit') ?? 50);
        const offset = Number(url.searchParams.get('offset') ?? 0);
        const list = [...submissions.values()]
          .filter((s) => s.account === owner && (!lb || s.leaderboard.name === lb))
          .sort((a, b) => b.id - a.id)
          .slice(offset, offset + limit)
          .map((s) => ({
            id: s.id,
            leaderboard_name: s.leaderboard.name,
            file_name: s.fileName,
            submission_time: s.time,
            done: s.done,
            runs: s.runs.filter((r) => !r.secret && r.mode === s.mode).map((r) => ({ gpu_type: s.gpu, score: r.score })),
          }));
        return send(res, 200, list);
      }
      if ((m = /^\/user\/submissions\/(\d+)$/.exec(p))) {
        const owner = account(req);
        const sub = submissions.get(Number(m[1]));
        if (!sub || sub.account !== owner) throw new HttpError(404, 'Submission not found');
        if (method === 'GET') {
          advance(sub);
          return send(res, 200, detailJson(sub));
        }
        if (method === 'DELETE') {
          submissions.delete(sub.id);
          return send(res, 200, { status: 'ok', submission_id: sub.id });
        }
      }
      if (method === 'POST' && (m = /^\/submission\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(p))) {
        const owner = account(req);
        const sub = await accept(req, decodeURIComponent(m[1] as string), decodeURIComponent(m[2] as string), decodeURIComponent(m[3] as string), owner);
        const mk = markers(sub.code);
        const end = mk.crash ? 'failed' : mk.timedOut ? 'timed_out' : mk.hacked ? 'hacked' : 'succeeded';
        sub.steps = ['pending', 'running', ...Array<string>(mk.slow).fill('running'), end];
        return send(res, 202, { status: 'accepted', details: { id: sub.id, job_status_id: sub.jobStatusId }, runner_queue: queueJson(sub.gpu) });
      }
      if (method === 'POST' && (m = /^\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(p))) {
        const owner = account(req);
        const sub = await accept(req, decodeURIComponent(m[1] as string), decodeURIComponent(m[2] as string), decodeURIComponent(m[3] as string), owner);
        sub.status = 'running';
        return stream(res, sub);
      }
      throw new HttpError(404, 'Not Found');
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      req.resume();
      send(res, err.status, { detail: err.detail }, err.headers);
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
export async function completeOAuthInBrowser(authorizeUrl: string, code = 'user-1'): Promise<{ status: number; body: string }> {
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
