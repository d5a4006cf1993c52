// The runner HTTP API: GPU MODE's submission API shapes (shared/docs/gpumode-api.md, checked against kernelbot's
// code) plus Kernel Runner's additive extensions. One definition for the runner, the client, the extension and the
// webview: pure module, no Node imports.
//
// The schemas read what GPU MODE's service (kernelbot) really sends, not a summary of it: its answers are plain
// dicts and dataclasses, so informational fields come as null (queue counts from the GitHub launcher, the job of
// a streaming-route submission), go missing (deployments before mid-June 2026 have no `job` and no
// `runner_queue`), or change type (scores are JSON strings: a NUMERIC column read as Decimal). So:
// - every schema is a loose object: unknown keys are kept;
// - informational fields accept null and absence. Text where absent and '' mean the same (stdout, file names,
//   system info, ...) is normalised to ''; other values become nullable and the readers show what is known;
// - scores go through `scoreSchema`: a number or a numeric string, normalised to a finite number or null;
// - what decides the shown outcome is still required and type-checked, so a malformed answer is refused rather
//   than shown wrong: a submission's `id`, `done` and `runs`, a run's `mode`/`secret`/`passed`, a result's
//   `success` and its `runs` map, a run result's `success`/`passed`, the queue's `status`.
// Our runner writes the full shapes; the types (z.infer: what a parse gives) are what readers get.
//
// Each schema is built on its first parse (z.lazy): a command or a runner uses a few of them, and building all of
// them was ~5 ms of every start of the CLI.
import { z } from './zod';
import { traceSummarySchema } from './traceSummary';
import { routePath } from './routes';

// ---------------------------------------------------------------------------------------------------------------
// Constants

/** Request header a client sends (value `1`) to receive the additive SSE extensions. */
export const EXTENSIONS_HEADER = 'X-Kernel-Runner-Extensions';
/** Upstream identity header; our runner also accepts its token here (popcorn-cli compatibility). */
export const CLI_ID_HEADER = 'X-Popcorn-Cli-Id';
/** Built-in leaderboard that runs the submitted file as a program. */
export const SCRIPT_LEADERBOARD = 'script';

// Profile mode on our runner also reads form fields beside `file` (counters, kernel selection): names and checks in
// src/core/profileOptions.ts (PROFILE_FORM_FIELDS); GPU MODE's service is not sent them.
const submissionModes = ['test', 'benchmark', 'leaderboard', 'profile'] as const;
export const submissionModeSchema = z.enum(submissionModes);
export type SubmissionMode = z.infer<typeof submissionModeSchema>;

export function isSubmissionMode(value: string): value is SubmissionMode {
  return (submissionModes as readonly string[]).includes(value);
}

// ---------------------------------------------------------------------------------------------------------------
// Tolerant building blocks

const NUMERIC = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * A score as upstream sends it, in seconds: a JSON number, or a JSON string (`"0.0000246"`, `"1.5E-9"`: psycopg2's
 * Decimal serialised by pydantic). A finite number, or null for null, absence, and anything that is not a number
 * (`"NaN"`, `"Infinity"` and other text included): never NaN.
 */
export function parseScore(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (!NUMERIC.test(text)) return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

/** A score field: number or numeric string in, `number | null` out (see parseScore); other JSON types are refused. */
export const scoreSchema = z.lazy(() =>
  z
    .union([z.number(), z.string()])
    .nullish()
    .transform((v): number | null => parseScore(v)),
);

/** Text where absent, null and '' mean the same (stdout, a file name, a GPU model): normalised to ''. */
const text = z
  .string()
  .nullish()
  .transform((v): string => v ?? '');

/** An informational value that may be null or missing, normalised to null. */
function orNull<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((v): z.output<T> | null => (v ?? null) as z.output<T> | null);
}

// ---------------------------------------------------------------------------------------------------------------
// Errors: `{detail}` (some upstream server errors use `{message}`)

export const errorBodySchema = z.lazy(() =>
  z.looseObject({
    /** A string from HTTPExceptions; FastAPI's own 422 sends a list of validation errors here. */
    detail: z.unknown().optional(),
    /** A KernelBotError that reached FastAPI's handler. */
    message: z.string().nullish(),
  }),
);

// ---------------------------------------------------------------------------------------------------------------
// GET /health

export const healthSchema = z.lazy(() =>
  z.looseObject({
    /** `ok` upstream. */
    status: z.string().nullish(),
    // additive (our runner)
    version: z.string().nullish(),
    gpus: z.array(z.string()).nullish(),
    profiler: z.string().nullish(),
    /** Where jobs run (`local`, `slurm`) and whether it can take them now; `detail` says why not. */
    executor: z.looseObject({ kind: z.string(), available: z.boolean(), detail: z.string().nullish() }).nullish(),
  }),
);
export type Health = z.infer<typeof healthSchema>;

// ---------------------------------------------------------------------------------------------------------------
// GET /leaderboards, GET /gpus/{lb}

/** A `files` entry as written in task.yml. */
const taskFileSchema = z.lazy(() => z.looseObject({ name: z.string(), source: z.string() }));

/** kernelbot's LeaderboardTask dataclass (task.py), all informational for a client. */
const leaderboardTaskSchema = z.lazy(() =>
  z.looseObject({
    /** `py` or `cu`. */
    lang: z.string().nullish(),
    /** Upstream serves a name -> contents map (`@SUBMISSION@` for the user's file); task.yml lists {name, source}. */
    files: z.union([z.record(z.string(), z.string()), z.array(taskFileSchema)]).nullish(),
    /** `{main}` for Python tasks, `{sources, include_dirs, defines, compile_flags}` for CUDA ones. */
    config: z.looseObject({ main: z.string().nullish() }).nullish(),
    tests: z.array(z.record(z.string(), z.unknown())).nullish(),
    benchmarks: z.array(z.record(z.string(), z.unknown())).nullish(),
    test_timeout: z.number().nullish(),
    benchmark_timeout: z.number().nullish(),
    ranked_timeout: z.number().nullish(),
    /** `last` | `mean` | `geom`. */
    ranking_by: z.string().nullish(),
    /** Older task definitions carried it; upstream moved it to the leaderboard (2025-06). */
    description: z.string().nullish(),
    seed: z.number().nullish(),
    multi_gpu: z.boolean().nullish(),
  }),
);
export type LeaderboardTask = z.infer<typeof leaderboardTaskSchema>;

/** kernelbot's LeaderboardItem (db_types.py); upstream also sends creator_id, forum_id, secret_seed, visibility. */
const leaderboardSchema = z.lazy(() =>
  z.looseObject({
    id: z.number().nullish(),
    /** What a submission names: required. */
    name: z.string(),
    description: z.string().nullish(),
    /** ISO time; null (or missing) means no deadline is known. */
    deadline: orNull(z.string()),
    gpu_types: z
      .array(z.string())
      .nullish()
      .transform((v): string[] => v ?? []),
    task: leaderboardTaskSchema.nullish().transform((v): LeaderboardTask => v ?? {}),
  }),
);
export type Leaderboard = z.infer<typeof leaderboardSchema>;
export const leaderboardListSchema = z.lazy(() => z.array(leaderboardSchema));

export const gpuListSchema = z.lazy(() => z.array(z.string()));

// ---------------------------------------------------------------------------------------------------------------
// Queue position (additive; our runner). Jobs queue FIFO per GPU name, one job per device at a time.
// `queue_position` in the `job` event, in `status` events and in job records means:
//   0  the job is running, or about to run: a free device takes it at once (so a job submitted to an idle GPU
//      reports 0 from its very first event);
//   n  the job waits, n-th in line for the next free device of its GPU. On a one-device GPU exactly n jobs are
//      ahead of it (the running one and n - 1 waiting); it moves to n - 1 as they start, and 0 when it starts.
// Job records say null once the job has finished. In GET /runner_queue/{gpu}, `running_jobs` counts the jobs at 0
// and `queued_jobs` those at n >= 1; a job submitted now would get 0 when `available_runners` > 0, else
// `queued_jobs` + 1.

/** How a client shows a position: `starting` for 0, `queued #n` otherwise. */
export function queueLabel(position: number): string {
  return position <= 0 ? 'starting' : `queued #${position}`;
}

// ---------------------------------------------------------------------------------------------------------------
// GET /runner_queue/{gpu}

// Upstream: kernelbot's RunnerQueueStatus dataclass (launchers/launcher.py), whose counts default to None. The
// GitHub launcher (every AMD GPU) fills only `queued_jobs`; Modal `queued_jobs` (its backlog) and
// `available_runners`; every error path sends all three null with `status: "unavailable"` and an `error`. Our
// runner fills all three.

export const runnerQueueSchema = z.lazy(() =>
  z.looseObject({
    /** `GitHub`, `Modal`, `unknown` upstream; ours names the runner. */
    runner: z.string().nullish(),
    gpu: z.string().nullish(),
    /** Jobs waiting for a device (queue_position >= 1); null when the service cannot tell. */
    queued_jobs: z.number().nullish(),
    /** Jobs running (queue_position 0); null upstream except on our runner. */
    running_jobs: z.number().nullish(),
    /** Idle devices of this GPU; null when unknown. */
    available_runners: z.number().nullish(),
    /** `available` | `unavailable`: required, it says whether the counts mean anything. */
    status: z.string(),
    error: z.string().nullish(),
  }),
);
export type RunnerQueue = z.infer<typeof runnerQueueSchema>;

// ---------------------------------------------------------------------------------------------------------------
// GET /submissions/{lb}/{gpu} (ranked entries)

/** kernelbot's LeaderboardRankedEntry; upstream also sends leaderboard_name and user_id. */
const rankedSubmissionSchema = z.lazy(() =>
  z.looseObject({
    submission_id: z.number(),
    rank: orNull(z.number()),
    submission_name: text,
    submission_time: text,
    /** Seconds; a number here upstream (the route's response model is float), a string would do too. */
    submission_score: scoreSchema,
    user_name: text,
    gpu_type: text,
  }),
);
export type RankedSubmission = z.infer<typeof rankedSubmissionSchema>;
export const rankedSubmissionListSchema = z.lazy(() => z.array(rankedSubmissionSchema));

// ---------------------------------------------------------------------------------------------------------------
// Result shapes

// Upstream: the dataclasses of kernelbot's run_eval.py, serialised with dataclasses.asdict. SystemInfo's fields
// default to '' (a failed run sends SystemInfo() as it is); CompileResult's stdout/stderr can be None; a run that
// did not compile has `run: null`; a timed-out run has `result: {}`.

const systemInfoSchema = z.lazy(() =>
  z.looseObject({
    gpu: text,
    device_count: z.number().nullish(),
    cpu: text,
    /** `CUDA` | `ROCm` | ''. */
    runtime: z.string().nullish(),
    platform: text,
    torch: text,
    hostname: z.string().nullish(),
  }),
);
export type SystemInfo = z.infer<typeof systemInfoSchema>;

const compileResultSchema = z.lazy(() =>
  z.looseObject({
    nvcc_found: z.boolean().nullish(),
    nvcc_version: text,
    /** Decides what is shown (compile error): required. */
    success: z.boolean(),
    command: text,
    stdout: text,
    stderr: text,
    exit_code: orNull(z.number()),
  }),
);
export type CompileResult = z.infer<typeof compileResultSchema>;

/** A run result's flat key/value map as the evaluator wrote it to POPCORN_FD; null or missing reads as {}. */
const resultMapSchema = z
  .record(z.string(), z.string())
  .nullish()
  .transform((v): Record<string, string> => v ?? {});

const runResultSchema = z.lazy(() =>
  z.looseObject({
    /** The process ran (exit 0 or 112): required. */
    success: z.boolean(),
    /** The tests passed (`check: pass`): required. */
    passed: z.boolean(),
    command: text,
    stdout: text,
    stderr: text,
    exit_code: orNull(z.number()),
    /** Process wall time in seconds (upstream always sends it; 0 when an answer does not). */
    duration: z
      .number()
      .nullish()
      .transform((v): number => v ?? 0),
    /** Flat key/value map written by the evaluator to POPCORN_FD. */
    result: resultMapSchema,
  }),
);
export type RunResult = z.infer<typeof runResultSchema>;

const profileResultSchema = z.lazy(() =>
  z.looseObject({
    /** `rocPROF` | `Nsight-Compute`; '' when not sent. */
    profiler: text,
    /** Base64 of a ZIP; empty when not inline (over the runner's limit, or GitHub's: then use download_url). */
    trace: text,
    download_url: orNull(z.string()),
    // additive (our runner)
    summary: traceSummarySchema.optional(),
    /** Why the runner gave up summarising the profile (its time or memory limit); the archive is whole. */
    summaryCutShort: z.string().optional(),
    /** Artifact name, for GET /jobs/{id}/artifacts/{name}. */
    artifact: z.string().optional(),
  }),
);
export type ProfileResult = z.infer<typeof profileResultSchema>;

const evalResultSchema = z.lazy(() =>
  z.looseObject({
    /** ISO times (upstream's are naive local times of the runner); '' when not sent. */
    start: text,
    end: text,
    compilation: orNull(compileResultSchema),
    run: orNull(runResultSchema),
    profile: orNull(profileResultSchema),
  }),
);
export type EvalResult = z.infer<typeof evalResultSchema>;

const emptySystem = (): SystemInfo => ({ gpu: '', cpu: '', platform: '', torch: '' });

const fullResultSchema = z.lazy(() =>
  z.looseObject({
    /** Whether the runner (GitHub, Modal, ours) executed the job at all: required. */
    success: z.boolean(),
    /** Why not, when not; '' otherwise. */
    error: text,
    system: systemInfoSchema.nullish().transform((v): SystemInfo => v ?? emptySystem()),
    /** Run key (`test`, `benchmark`, `leaderboard`, `profile.<i>`) -> result: required, and a map. */
    runs: z.record(z.string(), evalResultSchema),
  }),
);
export type FullResult = z.infer<typeof fullResultSchema>;

// ---------------------------------------------------------------------------------------------------------------
// SSE events (streaming route and GET /jobs/{id}/events)

const jobStates = ['queued', 'running', 'succeeded', 'failed', 'timed_out', 'cancelled', 'interrupted'] as const;
const jobStateSchema = z.enum(jobStates);
export type JobState = z.infer<typeof jobStateSchema>;
const terminalJobStates: readonly JobState[] = ['succeeded', 'failed', 'timed_out', 'cancelled', 'interrupted'];

export function isTerminalJobState(state: JobState): boolean {
  return terminalJobStates.includes(state);
}

export const statusEventSchema = z.lazy(() =>
  z.looseObject({
    /** `processing` upstream; '' when not sent. */
    status: text,
    /** Seconds since the submission started (upstream rounds to 0.01); null when not sent. */
    elapsed_time: z.number().nullish(),
    // additive
    state: jobStateSchema.optional(),
    /** 0 = running or about to run; n = n-th in line (see "Queue position" above). */
    queue_position: z.number().optional(),
    /** Run in progress, e.g. `test`, `benchmark`, `profile.1`. */
    run: z.string().optional(),
  }),
);
export type StatusEvent = z.infer<typeof statusEventSchema>;

export const resultEventSchema = z.lazy(() =>
  z.looseObject({
    /** `success` upstream. */
    status: z.string().nullish(),
    /** One FullResult per run of the submission: the public one first, then the secret-seed copies. Required. */
    results: z.array(fullResultSchema),
    /** Markdown reports, one per result. */
    reports: z
      .array(z.string())
      .nullish()
      .transform((v): string[] => v ?? []),
  }),
);
export type ResultEvent = z.infer<typeof resultEventSchema>;

/** An error's detail as text: FastAPI lets an HTTPException carry any JSON as `detail`. */
const detailText = z
  .unknown()
  .optional()
  .transform((v): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v)));

export const errorEventSchema = z.lazy(() =>
  z.looseObject({
    /** `error` upstream. */
    status: z.string().nullish(),
    /** '' when the service sent none. */
    detail: detailText,
    /**
     * Upstream sends it for HTTPExceptions raised while preparing or running (400 for a rejected submission, the
     * rate limit included); not for a cancelled submission nor an unexpected error (those carry `raw_error`). Our
     * runner always sends it.
     */
    status_code: z.number().nullish(),
    raw_error: z.string().nullish(),
  }),
);
export type ErrorEvent = z.infer<typeof errorEventSchema>;

/** Additive: first event of a job for extension clients. */
export const jobEventSchema = z.lazy(() =>
  z.looseObject({
    job_id: z.number(),
    leaderboard: z.string(),
    gpu: z.string(),
    mode: submissionModeSchema,
    /** 0 = a free device takes it at once; n = n-th in line (see "Queue position" above). */
    queue_position: z.number(),
  }),
);
type JobEvent = z.infer<typeof jobEventSchema>;

const outputStreamSchema = z.enum(['stdout', 'stderr']);
export type OutputStream = z.infer<typeof outputStreamSchema>;

/**
 * Additive: live output (ANSI-free, no line terminators), classified by the noise filter line by line. One event
 * holds `lines` consecutive lines of one stream (absent = 1), joined by "\n" in `text`; each line has the event's
 * `noise`/`kind` except those listed in `marks` as `[index, kind, noise]`. Our runner batches lines this way
 * (flushed every few ms or 64 KiB, and before any other event, so order is kept); expandOutput gives the lines.
 */
export const outputEventSchema = z.lazy(() =>
  z.looseObject({
    stream: outputStreamSchema,
    text: z.string(),
    noise: z.boolean(),
    /** The classifier's kind (`perfetto`, `glog`, `rocprofv3`, `legacy`, `fatal`); absent for the program's own lines. */
    kind: z.string().optional(),
    lines: z.number().int().positive().optional(),
    marks: z.array(z.tuple([z.number().int().nonnegative(), z.string(), z.boolean()])).optional(),
  }),
);
export type OutputEvent = z.infer<typeof outputEventSchema>;

/** One line of live output. */
export interface OutputLine {
  stream: OutputStream;
  text: string;
  noise: boolean;
  kind?: string;
}

/** The lines of an output event (one for a single-line event), each with its own class. */
export function expandOutput(data: OutputEvent): OutputLine[] {
  const base = (text: string): OutputLine =>
    data.kind === undefined
      ? { stream: data.stream, text, noise: data.noise }
      : { stream: data.stream, text, noise: data.noise, kind: data.kind };
  if (data.lines === undefined || data.lines === 1) return [base(data.text)];
  const lines = data.text.split('\n').map(base);
  for (const [i, kind, noise] of data.marks ?? []) {
    const line = lines[i];
    if (line)
      lines[i] =
        kind === 'program'
          ? { stream: data.stream, text: line.text, noise }
          : { stream: data.stream, text: line.text, noise, kind };
  }
  return lines;
}

export const sseEventNames = ['job', 'status', 'output', 'result', 'error'] as const;
export type SseEventName = (typeof sseEventNames)[number];
export const terminalEventNames: readonly SseEventName[] = ['result', 'error'];

/** A job's event as stored and replayed; `id` is the per-job sequence starting at 1. */
export type RunnerEvent =
  | { id: number; event: 'job'; data: JobEvent }
  | { id: number; event: 'status'; data: StatusEvent }
  | { id: number; event: 'output'; data: OutputEvent }
  | { id: number; event: 'result'; data: ResultEvent }
  | { id: number; event: 'error'; data: ErrorEvent };

/** Parses the `data` of one SSE event by its name; unknown names give undefined (forward compatible). */
export function parseEventData(event: string, data: unknown): RunnerEvent['data'] | undefined {
  switch (event) {
    case 'job':
      return jobEventSchema.parse(data);
    case 'status':
      return statusEventSchema.parse(data);
    case 'output':
      return outputEventSchema.parse(data);
    case 'result':
      return resultEventSchema.parse(data);
    case 'error':
      return errorEventSchema.parse(data);
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Background route: POST /submission/{lb}/{gpu}/{mode} -> 202

// Upstream: `{"status":"accepted","details":{"id","job_status_id"},"runner_queue":{...}}`; deployments before
// mid-June 2026 send only status and details. The queue is informational: a malformed one reads as null rather
// than losing the accepted submission.
export const backgroundAcceptedSchema = z.lazy(() =>
  z.looseObject({
    /** `accepted` upstream (the 202 says it already). */
    status: z.string().nullish(),
    /** The submission id is what everything after depends on: required. */
    details: z.looseObject({ id: z.number(), job_status_id: z.number().nullish() }),
    runner_queue: runnerQueueSchema.nullish().catch(null),
  }),
);
export type BackgroundAccepted = z.infer<typeof backgroundAcceptedSchema>;

// ---------------------------------------------------------------------------------------------------------------
// GET /user/submissions, GET|DELETE /user/submissions/{id}

// Upstream (leaderboard_db.py get_user_submissions): `runs` holds only the public passed runs of submissions
// whose secret leaderboard run passed too — test, benchmark and leaderboard runs of a ranked submission, the first
// two with score null — and is [] for everything else. Scores are JSON strings.
const userSubmissionSummarySchema = z.lazy(() =>
  z.looseObject({
    id: z.number(),
    leaderboard_name: text,
    file_name: text,
    submission_time: text,
    /** Informational in a list; null or missing reads as not known. */
    done: z.boolean().nullish(),
    runs: z
      .array(z.looseObject({ gpu_type: text, score: scoreSchema }))
      .nullish()
      .transform((v) => v ?? []),
  }),
);
export type UserSubmissionSummary = z.infer<typeof userSubmissionSummarySchema>;
export const userSubmissionListSchema = z.lazy(() => z.array(userSubmissionSummarySchema));

// Upstream (main.py get_user_submission): `result` only for public test/benchmark runs (secret runs and the ranked
// run carry score and passed only); `job` from a LEFT JOIN, so all null for streaming-route submissions, and no
// `job` key before mid-June 2026; `runner_queue` null while there are no runs (and no key before the queue PRs).
const submissionDetailRunSchema = z.lazy(() =>
  z.looseObject({
    start_time: orNull(z.string()),
    end_time: orNull(z.string()),
    /** `test`, `benchmark`, `leaderboard`, `profile.<i>`: which run it is decides how it is shown. Required. */
    mode: z.string(),
    /** The secret-seed copy is never the ranked score: required. */
    secret: z.boolean(),
    /** The GPU it ran on (`MI300`); '' when not sent. */
    runner: text,
    /** Seconds, for the ranked run; a JSON string upstream. */
    score: scoreSchema,
    /** Required: a run without it cannot be shown as passed or failed. */
    passed: z.boolean(),
    /** The evaluator's flat map (public test/benchmark runs only). */
    result: z.unknown().optional(),
  }),
);
export type SubmissionDetailRun = z.infer<typeof submissionDetailRunSchema>;

const submissionJobSchema = z.lazy(() =>
  z.looseObject({
    /** initial → pending → running → succeeded | failed | timed_out | hacked; null when the service keeps no job. */
    status: orNull(z.string()),
    error: orNull(z.string()),
    last_heartbeat: orNull(z.string()),
    // additive: our runner's finer state
    state: jobStateSchema.optional(),
  }),
);

export const userSubmissionDetailSchema = z.lazy(() =>
  z.looseObject({
    id: z.number(),
    leaderboard_name: text,
    file_name: text,
    submission_time: text,
    /** Whether the service is finished with it: decides when polling ends. Required. */
    done: z.boolean(),
    code: text,
    runs: z.array(submissionDetailRunSchema),
    /** null when the answer has none (an older deployment) or says nothing. */
    job: orNull(submissionJobSchema),
    /** Informational: a malformed queue reads as null. */
    runner_queue: runnerQueueSchema.nullish().catch(null),
  }),
);
export type UserSubmissionDetail = z.infer<typeof userSubmissionDetailSchema>;

export const deleteSubmissionSchema = z.lazy(() =>
  z.looseObject({ status: z.string().nullish(), submission_id: z.number().nullish() }),
);
export type DeleteSubmissionAnswer = z.infer<typeof deleteSubmissionSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Extension routes: GET|DELETE /jobs/{id}

const artifactInfoSchema = z.lazy(() =>
  z.looseObject({
    name: z.string(),
    size: z.number(),
    /** Absolute URL of GET /jobs/{id}/artifacts/{name}. */
    url: z.string(),
  }),
);
export type ArtifactInfo = z.infer<typeof artifactInfoSchema>;

export const jobRecordSchema = z.lazy(() =>
  z.looseObject({
    id: z.number(),
    leaderboard: z.string(),
    gpu: z.string(),
    mode: submissionModeSchema,
    file_name: z.string(),
    state: jobStateSchema,
    /** 0 = running or about to run; n = n-th in line for its GPU (see "Queue position" above); null once finished. */
    queue_position: z.number().nullable(),
    created_at: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    /** Highest event id written so far (resume with Last-Event-ID). */
    last_event_id: z.number(),
    result: resultEventSchema.nullable(),
    error: errorEventSchema.nullable(),
    artifacts: z.array(artifactInfoSchema),
  }),
);
export type JobRecord = z.infer<typeof jobRecordSchema>;

export const cancelAnswerSchema = z.lazy(() =>
  z.looseObject({ status: z.literal('ok'), job_id: z.number(), state: jobStateSchema }),
);
export type CancelAnswer = z.infer<typeof cancelAnswerSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Route paths (relative to the base URL, each component URI-encoded), from the one route table (./routes.ts)

export const routes = {
  health: () => routePath('health', {}),
  leaderboards: () => routePath('leaderboards', {}),
  gpus: (leaderboard: string) => routePath('gpus', { leaderboard }),
  authInit: (provider: string) => routePath('authInit', {}, { provider }),
  runnerQueue: (gpu: string) => routePath('runnerQueue', { gpu }),
  rankedSubmissions: (leaderboard: string, gpu: string, opts: { limit?: number; offset?: number } = {}) =>
    routePath('rankedSubmissions', { leaderboard, gpu }, opts),
  /** Streaming route (SSE). */
  submit: (leaderboard: string, gpu: string, mode: SubmissionMode) => routePath('submit', { leaderboard, gpu, mode }),
  /** Background route (202). */
  submitBackground: (leaderboard: string, gpu: string, mode: SubmissionMode) =>
    routePath('submitBackground', { leaderboard, gpu, mode }),
  userSubmissions: (opts: { leaderboard?: string; limit?: number; offset?: number } = {}) =>
    routePath('userSubmissions', {}, opts),
  userSubmission: (id: number) => routePath('userSubmission', { id }),
  job: (id: number) => routePath('job', { id }),
  jobEvents: (id: number, after?: number) => routePath('jobEvents', { id }, { after }),
  artifact: (id: number, name: string) => routePath('artifact', { id, name }),
} as const;
