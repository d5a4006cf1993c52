// What GPU MODE's service (gpu-mode/kernelbot) writes into its answers, read from its code at commit 4bdd839
// (2026-07) and rewritten here as small builders, for the contract server (gpumodeServer.ts) and the table of
// sample answers (upstreamAnswers.ts). Where each fact comes from:
// - src/libkernelbot/consts.py        GitHubGPU / ModalGPU enums (which launcher serves a GPU), mode categories
// - src/libkernelbot/launchers/launcher.py  RunnerQueueStatus: counts default to None, status "available"
// - src/libkernelbot/launchers/github.py    queue: only `queued_jobs` (queued workflow runs); errors: all null
// - src/libkernelbot/launchers/modal.py     queue: backlog as `queued_jobs`, `available_runners`, running null
// - src/libkernelbot/backend.py       unknown GPU / launcher not registered: unavailable with an error
// - src/libkernelbot/submission.py    rate limit text (KernelBotError code 429), deadline text
// - src/libkernelbot/run_eval.py      SystemInfo / RunResult / CompileResult / ProfileResult / EvalResult fields
// - src/kernelbot/api/main.py         route answers; FastAPI 0.128 + pydantic 2.11 (uv.lock) serialise them:
//   routes annotated `-> dict` / `-> list[dict]` through pydantic (Decimal → JSON string, datetime → ISO with Z),
//   unannotated ones through jsonable_encoder (datetime.isoformat(): +00:00), SSE data through json.dumps with
//   isoformat (the runner's naive local times).
// A test double's vocabulary: nothing here is imported by src/.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** consts.py GitHubGPU: run by the GitHub launcher (every AMD GPU). */
export const GITHUB_GPUS = ['NVIDIA', 'B200_Nebius', 'MI300', 'MI250', 'MI300x8', 'MI355X'] as const;
/** consts.py ModalGPU: run by the Modal launcher. */
export const MODAL_GPUS = ['T4', 'L4', 'A100', 'H100', 'B200', 'L4x4'] as const;

export type Launcher = 'GitHub' | 'Modal';

/** consts.get_gpu_by_name: case-insensitive; the enum's own spelling back, or undefined. */
export function gpuByName(name: string): { name: string; runner: Launcher } | undefined {
  const lower = name.toLowerCase();
  const github = GITHUB_GPUS.find((g) => g.toLowerCase() === lower);
  if (github) return { name: github, runner: 'GitHub' };
  const modal = MODAL_GPUS.find((g) => g.toLowerCase() === lower);
  return modal ? { name: modal, runner: 'Modal' } : undefined;
}

/** dataclasses.asdict(RunnerQueueStatus(...)): every key, in the dataclass's order, counts defaulting to None. */
export function runnerQueueStatus(init: {
  runner: string;
  gpu: string;
  queued_jobs: number | null;
  running_jobs?: number | null;
  available_runners?: number | null;
  status?: string;
  error?: string | null;
}): { [key: string]: Json } {
  return {
    runner: init.runner,
    gpu: init.gpu,
    queued_jobs: init.queued_jobs,
    running_jobs: init.running_jobs ?? null,
    available_runners: init.available_runners ?? null,
    status: init.status ?? 'available',
    error: init.error ?? null,
  };
}

/**
 * backend.get_runner_queue_status for a GPU name: GitHub counts only the queued workflow runs; Modal its backlog
 * and its runners; an unknown name is unavailable with "unknown gpu". `failure` is the launcher's exception text
 * (GitHub API or Modal down): all counts null.
 */
export function queueAnswer(
  gpuName: string,
  counts: { queued: number; modalRunners?: number; failure?: string },
): { [key: string]: Json } {
  const gpu = gpuByName(gpuName);
  if (!gpu)
    return runnerQueueStatus({
      runner: 'unknown',
      gpu: gpuName,
      queued_jobs: null,
      status: 'unavailable',
      error: 'unknown gpu',
    });
  if (counts.failure)
    return runnerQueueStatus({
      runner: gpu.runner,
      gpu: gpu.name,
      queued_jobs: null,
      status: 'unavailable',
      error: counts.failure,
    });
  if (gpu.runner === 'GitHub')
    return runnerQueueStatus({ runner: 'GitHub', gpu: gpu.name, queued_jobs: counts.queued });
  return runnerQueueStatus({
    runner: 'Modal',
    gpu: gpu.name,
    queued_jobs: counts.queued,
    available_runners: counts.modalRunners ?? 1,
  });
}

/**
 * A score as GPU MODE sends it: the float went into a NUMERIC column, psycopg2 reads it back as a Decimal and
 * pydantic writes str(Decimal): "0.00002449489742783178", "1.5E-9" (scientific below 1e-6, Python's rule).
 */
export function decimalText(value: number): string {
  const [mantissa = '0', exponent = '0'] = value.toExponential().split('e');
  const negative = mantissa.startsWith('-');
  let digits = mantissa.replace('-', '').replace('.', '');
  const adjusted = Number(exponent);
  // PostgreSQL prints NUMERIC in plain notation, so the Decimal read back never has a positive exponent
  if (adjusted - (digits.length - 1) > 0) digits = digits.padEnd(adjusted + 1, '0');
  let out: string;
  if (adjusted >= -6) {
    if (adjusted >= 0) {
      const int = digits.slice(0, adjusted + 1).padEnd(adjusted + 1, '0');
      const frac = digits.slice(adjusted + 1);
      out = frac ? `${int}.${frac}` : int;
    } else {
      out = `0.${'0'.repeat(-adjusted - 1)}${digits}`;
    }
  } else {
    out = `${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ''}E${adjusted >= 0 ? '+' : ''}${adjusted}`;
  }
  return negative ? `-${out}` : out;
}

function fraction(date: Date): string {
  const ms = date.getUTCMilliseconds();
  return ms ? `.${String(ms).padStart(3, '0')}000` : '';
}

/** A tz-aware UTC datetime through pydantic (routes annotated `-> dict`): `2026-07-06T12:00:00.123000Z`. */
export function pydanticTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}${fraction(date)}Z`;
}

/** A tz-aware UTC datetime through datetime.isoformat() (jsonable_encoder): `2026-07-06T12:00:00+00:00`. */
export function isoformatUtc(date: Date): string {
  return `${date.toISOString().slice(0, 19)}${fraction(date)}+00:00`;
}

/** The runner's `datetime.datetime.now()` (naive) through isoformat, as EvalResult start/end: no zone. */
export function naiveIsoformat(date: Date): string {
  return `${date.toISOString().slice(0, 19)}${fraction(date)}`;
}

/** str(datetime) as Python prints a tz-aware one in messages: `2026-05-01 00:00:00+00:00`. */
export function pythonStrTime(date: Date): string {
  return isoformatUtc(date).replace('T', ' ');
}

/** consts.get_mode_category: the rate limit's bucket. */
export function modeCategory(mode: string): 'leaderboard' | 'test' {
  return mode === 'leaderboard' ? 'leaderboard' : 'test';
}

/** submission.py prepare_submission: the KernelBotError (code 429) of an exceeded per-hour limit. No header. */
export function rateLimitText(current: number, max: number, category: string, retryAfterSeconds: number): string {
  return `Rate limit exceeded: ${current}/${max} ${category} submissions per hour. Try again in ${retryAfterSeconds}s.`;
}

/** run_eval.SystemInfo(): what a failed run (FullResult success false) sends. */
export function emptySystemInfo(): { [key: string]: Json } {
  return { gpu: '', device_count: 1, cpu: '', runtime: '', platform: '', torch: '', hostname: '' };
}

/** run_eval.make_system_info() on a runner with torch. */
export function systemInfo(gpu: string): { [key: string]: Json } {
  const amd = gpuByName(gpu)?.runner === 'GitHub' && gpu.startsWith('MI');
  return {
    gpu: gpu.startsWith('MI300')
      ? 'AMD Instinct MI300X'
      : gpu.startsWith('MI355')
        ? 'AMD Instinct MI355X'
        : `NVIDIA ${gpu}`,
    device_count: gpu.endsWith('x8') ? 8 : 1,
    cpu: amd ? 'AMD EPYC 9654 96-Core Processor' : 'GenuineIntel',
    runtime: amd ? 'ROCm' : 'CUDA',
    platform: 'Linux-6.8.0-x86_64-with-glibc2.35',
    torch: amd ? '2.6.0+rocm6.2' : '2.6.0+cu124',
    hostname: amd ? 'amd-runner-7' : 'modal-4f2a',
  };
}

/**
 * Python's json.dumps(value) with its defaults, as the SSE route writes `data:` (main._stream_submission_response):
 * ", " and ": " separators, non-ASCII escaped as \uXXXX (ensure_ascii). Python floats keep a decimal point
 * (`0.0`, `15.02`): numbers at keys in `floats` are written so even when whole.
 */
export function pythonJsonDumps(value: Json, floats: ReadonlySet<string> = PY_FLOATS, key = ''): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isInteger(value) && floats.has(key) ? value.toFixed(1) : String(value);
  if (typeof value === 'string')
    return JSON.stringify(value).replace(
      /[\u0080-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  if (Array.isArray(value)) return `[${value.map((v) => pythonJsonDumps(v, floats, key)).join(', ')}]`;
  return `{${Object.entries(value)
    .map(([k, v]) => `${pythonJsonDumps(k)}: ${pythonJsonDumps(v, floats, k)}`)
    .join(', ')}}`;
}

/** Fields the dataclasses declare as float (StatusEvent elapsed_time, RunResult duration). */
const PY_FLOATS = new Set(['elapsed_time', 'duration']);

/** Starlette's StreamingResponse(media_type="text/event-stream") adds the charset of text/* types. */
export const SSE_CONTENT_TYPE = 'text/event-stream; charset=utf-8';

/** main.run_submission_async: every preparation error but a KernelBotError, as str(HTTPException) = "<code>: <detail>". */
export function wrappedPreparationError(code: number, detail: string): string {
  return `failed to prepare submission request: ${code}: ${detail}`;
}

/** kernelguard.enforce_submission_precheck: the KernelGuardRejected text (rules sorted, deduplicated). */
export function kernelGuardText(reason: string, rules: readonly string[]): string {
  const sorted = [...new Set(rules)].sort();
  return `Submission rejected by KernelGuard pre-check (${reason})${sorted.length ? `. Matched rules: ${sorted.join(', ')}` : ''}.`;
}

/** Texts of kernelbot's refusals, each from the function that raises it. */
export const UPSTREAM_TEXT = {
  /** submission.prepare_submission, backend.accepts_jobs false (KernelBotError, code 400). */
  notAccepting: 'The bot is currently not accepting any new submissions, please try again later.',
  /** submission.prepare_submission, leaderboard_db.is_user_banned (KernelBotError, code 400). */
  banned: 'You are banned from making submissions.',
  /** submission.prepare_submission / main.enforce_leaderboard_access, a closed leaderboard without an invite (403). */
  noAccess: 'You do not have access to this leaderboard',
  /** main.enforce_leaderboard_access without any auth header (401). */
  closedNeedsAuth: 'Authentication required for closed leaderboard',
  /** leaderboard_db.create_user_from_cli: the account has a row already (two literals, no space between them). */
  alreadyRegistered:
    'User already has a valid account with this User ID.Please use the re-register command to re-authenticate.',
  /** leaderboard_db.create_user_from_cli: the cli_id was never initialised (or its temp row was cleaned up). */
  noTemporaryUser: 'No temporary user found with this CLI ID. No effect.',
  /** leaderboard_db.reset_user_from_cli: no such account. */
  resetUnknown: 'User not found. Please use the register command to create an account.',
  /** launchers/github.py run_submission: the workflow left no `run-result` artifact (FullResult success false). */
  noArtifacts: 'Could not download artifacts',
  /** launchers/github.py: a dispatch that failed (a RuntimeError of the launcher). */
  dispatchFailed: 'Failed to trigger GitHub Action. Please check the configuration.',
} as const;

/** main.cli_auth wraps the database's exception: HTTPException(400, f"Database update failed: {e}"). */
export function callbackRefusal(text: string): string {
  return `Database update failed: ${text}`;
}
