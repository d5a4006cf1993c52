// The runner HTTP API: GPU MODE's submission API shapes (field for field, see shared/docs/gpumode-api.md) plus
// Kernel Runner's additive extensions. One definition for the runner, the client, the extension and the webview:
// pure module, no Node imports.
//
// Schemas are loose objects (unknown keys kept) so the client accepts a newer upstream; the types are what our
// runner always writes.
import { z } from 'zod';
import { traceSummarySchema } from './traceSummary';

// ---------------------------------------------------------------------------------------------------------------
// Constants

/** Request header a client sends (value `1`) to receive the additive SSE extensions. */
export const EXTENSIONS_HEADER = 'X-Kernel-Runner-Extensions';
/** Upstream identity header; our runner also accepts its token here (popcorn-cli compatibility). */
export const CLI_ID_HEADER = 'X-Popcorn-Cli-Id';
/** Built-in leaderboard that runs the submitted file as a program. */
export const SCRIPT_LEADERBOARD = 'script';

export const submissionModes = ['test', 'benchmark', 'leaderboard', 'profile'] as const;
export const submissionModeSchema = z.enum(submissionModes);
export type SubmissionMode = z.infer<typeof submissionModeSchema>;

export function isSubmissionMode(value: string): value is SubmissionMode {
  return (submissionModes as readonly string[]).includes(value);
}

// ---------------------------------------------------------------------------------------------------------------
// Errors: `{detail}` (some upstream server errors use `{message}`)

export const errorBodySchema = z.looseObject({
  detail: z.string().optional(),
  message: z.string().optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

// ---------------------------------------------------------------------------------------------------------------
// GET /health

export const healthSchema = z.looseObject({
  status: z.string(),
  // additive (our runner)
  version: z.string().optional(),
  gpus: z.array(z.string()).optional(),
  profiler: z.string().nullable().optional(),
});
export type Health = z.infer<typeof healthSchema>;

// ---------------------------------------------------------------------------------------------------------------
// GET /leaderboards, GET /gpus/{lb}

/** A `files` entry as written in task.yml. */
export const taskFileSchema = z.looseObject({ name: z.string(), source: z.string() });

export const leaderboardTaskSchema = z.looseObject({
  lang: z.string(),
  /** Upstream serves a name -> contents map (`@SUBMISSION@` for the user's file); task.yml lists {name, source}. */
  files: z.union([z.record(z.string(), z.string()), z.array(taskFileSchema)]),
  config: z.looseObject({ main: z.string().optional() }).nullable().optional(),
  tests: z.array(z.record(z.string(), z.unknown())).optional(),
  benchmarks: z.array(z.record(z.string(), z.unknown())).optional(),
  test_timeout: z.number().optional(),
  benchmark_timeout: z.number().optional(),
  ranked_timeout: z.number().optional(),
  ranking_by: z.string().optional(),
  description: z.string().optional(),
  seed: z.number().nullable().optional(),
  multi_gpu: z.boolean().optional(),
});
export type LeaderboardTask = z.infer<typeof leaderboardTaskSchema>;

export const leaderboardSchema = z.looseObject({
  id: z.number(),
  name: z.string(),
  description: z.string().nullable().optional(),
  deadline: z.string().nullable(),
  gpu_types: z.array(z.string()),
  task: leaderboardTaskSchema,
});
export type Leaderboard = z.infer<typeof leaderboardSchema>;
export const leaderboardListSchema = z.array(leaderboardSchema);

export const gpuListSchema = z.array(z.string());

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

export const runnerQueueSchema = z.looseObject({
  runner: z.string(),
  gpu: z.string(),
  /** Jobs waiting for a device (queue_position >= 1). */
  queued_jobs: z.number(),
  /** Jobs running (queue_position 0). */
  running_jobs: z.number(),
  /** Idle devices of this GPU. */
  available_runners: z.number(),
  status: z.enum(['available', 'unavailable']),
  error: z.string().nullable(),
});
export type RunnerQueue = z.infer<typeof runnerQueueSchema>;

// ---------------------------------------------------------------------------------------------------------------
// GET /submissions/{lb}/{gpu} (ranked entries)

export const rankedSubmissionSchema = z.looseObject({
  submission_id: z.number(),
  rank: z.number(),
  submission_name: z.string(),
  submission_time: z.string(),
  submission_score: z.number(),
  user_name: z.string(),
  gpu_type: z.string(),
});
export type RankedSubmission = z.infer<typeof rankedSubmissionSchema>;
export const rankedSubmissionListSchema = z.array(rankedSubmissionSchema);

// ---------------------------------------------------------------------------------------------------------------
// Result shapes

export const systemInfoSchema = z.looseObject({
  gpu: z.string(),
  device_count: z.number().optional(),
  cpu: z.string(),
  runtime: z.string().optional(),
  platform: z.string(),
  torch: z.string(),
  hostname: z.string().optional(),
});
export type SystemInfo = z.infer<typeof systemInfoSchema>;

export const compileResultSchema = z.looseObject({
  nvcc_found: z.boolean(),
  nvcc_version: z.string(),
  success: z.boolean(),
  command: z.string(),
  stdout: z.string(),
  stderr: z.string(),
  exit_code: z.number(),
});
export type CompileResult = z.infer<typeof compileResultSchema>;

export const runResultSchema = z.looseObject({
  success: z.boolean(),
  passed: z.boolean(),
  command: z.string(),
  stdout: z.string(),
  stderr: z.string(),
  exit_code: z.number(),
  /** Process wall time in seconds. */
  duration: z.number(),
  /** Flat key/value map written by the evaluator to POPCORN_FD. */
  result: z.record(z.string(), z.string()),
});
export type RunResult = z.infer<typeof runResultSchema>;

export const profileResultSchema = z.looseObject({
  profiler: z.string(),
  /** Base64 of a ZIP; empty when the archive is over the runner's inline limit (then use download_url). */
  trace: z.string(),
  download_url: z.string().nullable(),
  // additive (our runner)
  summary: traceSummarySchema.optional(),
  /** Artifact name, for GET /jobs/{id}/artifacts/{name}. */
  artifact: z.string().optional(),
});
export type ProfileResult = z.infer<typeof profileResultSchema>;

export const evalResultSchema = z.looseObject({
  start: z.string(),
  end: z.string(),
  compilation: compileResultSchema.nullable(),
  run: runResultSchema.nullable(),
  profile: profileResultSchema.nullable(),
});
export type EvalResult = z.infer<typeof evalResultSchema>;

export const fullResultSchema = z.looseObject({
  success: z.boolean(),
  error: z.string(),
  system: systemInfoSchema,
  runs: z.record(z.string(), evalResultSchema),
});
export type FullResult = z.infer<typeof fullResultSchema>;

// ---------------------------------------------------------------------------------------------------------------
// SSE events (streaming route and GET /jobs/{id}/events)

export const jobStates = ['queued', 'running', 'succeeded', 'failed', 'timed_out', 'cancelled', 'interrupted'] as const;
export const jobStateSchema = z.enum(jobStates);
export type JobState = z.infer<typeof jobStateSchema>;
export const terminalJobStates: readonly JobState[] = ['succeeded', 'failed', 'timed_out', 'cancelled', 'interrupted'];

export function isTerminalJobState(state: JobState): boolean {
  return terminalJobStates.includes(state);
}

export const statusEventSchema = z.looseObject({
  status: z.string(),
  elapsed_time: z.number(),
  // additive
  state: jobStateSchema.optional(),
  /** 0 = running or about to run; n = n-th in line (see "Queue position" above). */
  queue_position: z.number().optional(),
  /** Run in progress, e.g. `test`, `benchmark`, `profile.1`. */
  run: z.string().optional(),
});
export type StatusEvent = z.infer<typeof statusEventSchema>;

export const resultEventSchema = z.looseObject({
  status: z.literal('success'),
  results: z.array(fullResultSchema),
  reports: z.array(z.string()),
});
export type ResultEvent = z.infer<typeof resultEventSchema>;

export const errorEventSchema = z.looseObject({
  status: z.literal('error'),
  detail: z.string(),
  /** Upstream omits it on some errors (a cancelled submission); our runner always sends it. */
  status_code: z.number().optional(),
  raw_error: z.string().optional(),
});
export type ErrorEvent = z.infer<typeof errorEventSchema>;

/** Additive: first event of a job for extension clients. */
export const jobEventSchema = z.looseObject({
  job_id: z.number(),
  leaderboard: z.string(),
  gpu: z.string(),
  mode: submissionModeSchema,
  /** 0 = a free device takes it at once; n = n-th in line (see "Queue position" above). */
  queue_position: z.number(),
});
export type JobEvent = z.infer<typeof jobEventSchema>;

export const outputStreamSchema = z.enum(['stdout', 'stderr']);
export type OutputStream = z.infer<typeof outputStreamSchema>;

/** Additive: one line of live output (ANSI-free, no line terminator), classified by the noise filter. */
export const outputEventSchema = z.looseObject({
  stream: outputStreamSchema,
  text: z.string(),
  noise: z.boolean(),
  /** The classifier's kind (`perfetto`, `glog`, `rocprofv3`, `legacy`, `fatal`); absent for the program's own lines. */
  kind: z.string().optional(),
});
export type OutputEvent = z.infer<typeof outputEventSchema>;

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

export const runnerEventSchema = z.discriminatedUnion('event', [
  z.object({ id: z.number(), event: z.literal('job'), data: jobEventSchema }),
  z.object({ id: z.number(), event: z.literal('status'), data: statusEventSchema }),
  z.object({ id: z.number(), event: z.literal('output'), data: outputEventSchema }),
  z.object({ id: z.number(), event: z.literal('result'), data: resultEventSchema }),
  z.object({ id: z.number(), event: z.literal('error'), data: errorEventSchema }),
]);

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

export const backgroundAcceptedSchema = z.looseObject({
  status: z.literal('accepted'),
  details: z.looseObject({ id: z.number(), job_status_id: z.number() }),
  runner_queue: runnerQueueSchema.nullable().optional(),
});
export type BackgroundAccepted = z.infer<typeof backgroundAcceptedSchema>;

// ---------------------------------------------------------------------------------------------------------------
// GET /user/submissions, GET|DELETE /user/submissions/{id}

/** Upstream job status of a background submission. */
export const upstreamJobStatuses = ['initial', 'pending', 'running', 'succeeded', 'failed', 'timed_out', 'hacked'] as const;

export const userSubmissionSummarySchema = z.looseObject({
  id: z.number(),
  leaderboard_name: z.string(),
  file_name: z.string(),
  submission_time: z.string(),
  done: z.boolean(),
  runs: z.array(z.looseObject({ gpu_type: z.string(), score: z.number().nullable() })),
});
export type UserSubmissionSummary = z.infer<typeof userSubmissionSummarySchema>;
export const userSubmissionListSchema = z.array(userSubmissionSummarySchema);

export const submissionRunSchema = z.looseObject({
  start_time: z.string().nullable(),
  end_time: z.string().nullable(),
  mode: z.string(),
  secret: z.boolean(),
  runner: z.string(),
  score: z.number().nullable(),
  passed: z.boolean(),
  result: z.unknown().optional(),
});
export type SubmissionRun = z.infer<typeof submissionRunSchema>;

export const userSubmissionDetailSchema = z.looseObject({
  id: z.number(),
  leaderboard_name: z.string(),
  file_name: z.string(),
  submission_time: z.string(),
  done: z.boolean(),
  code: z.string(),
  runs: z.array(submissionRunSchema),
  job: z
    .looseObject({
      status: z.string(),
      error: z.string().nullable(),
      last_heartbeat: z.string().nullable(),
      // additive: our runner's finer state
      state: jobStateSchema.optional(),
    })
    .nullable(),
  runner_queue: runnerQueueSchema.nullable().optional(),
});
export type UserSubmissionDetail = z.infer<typeof userSubmissionDetailSchema>;

export const deleteSubmissionSchema = z.looseObject({ status: z.literal('ok'), submission_id: z.number() });
export type DeleteSubmissionAnswer = z.infer<typeof deleteSubmissionSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Extension routes: GET|DELETE /jobs/{id}

export const artifactInfoSchema = z.looseObject({
  name: z.string(),
  size: z.number(),
  /** Absolute URL of GET /jobs/{id}/artifacts/{name}. */
  url: z.string(),
});
export type ArtifactInfo = z.infer<typeof artifactInfoSchema>;

export const jobRecordSchema = z.looseObject({
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
});
export type JobRecord = z.infer<typeof jobRecordSchema>;

export const cancelAnswerSchema = z.looseObject({ status: z.literal('ok'), job_id: z.number(), state: jobStateSchema });
export type CancelAnswer = z.infer<typeof cancelAnswerSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Route paths (relative to the base URL, each component URI-encoded)

const seg = encodeURIComponent;

function query(params: Record<string, string | number | undefined>): string {
  const parts = Object.entries(params)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([k, v]) => `${seg(k)}=${seg(String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

export const routes = {
  health: () => '/health',
  leaderboards: () => '/leaderboards',
  gpus: (leaderboard: string) => `/gpus/${seg(leaderboard)}`,
  runnerQueue: (gpu: string) => `/runner_queue/${seg(gpu)}`,
  rankedSubmissions: (leaderboard: string, gpu: string, opts: { limit?: number; offset?: number } = {}) =>
    `/submissions/${seg(leaderboard)}/${seg(gpu)}${query(opts)}`,
  /** Streaming route (SSE). */
  submit: (leaderboard: string, gpu: string, mode: SubmissionMode) => `/${seg(leaderboard)}/${seg(gpu)}/${seg(mode)}`,
  /** Background route (202). */
  submitBackground: (leaderboard: string, gpu: string, mode: SubmissionMode) =>
    `/submission/${seg(leaderboard)}/${seg(gpu)}/${seg(mode)}`,
  userSubmissions: (opts: { leaderboard?: string; limit?: number; offset?: number } = {}) => `/user/submissions${query(opts)}`,
  userSubmission: (id: number) => `/user/submissions/${id}`,
  job: (id: number) => `/jobs/${id}`,
  jobEvents: (id: number, after?: number) => `/jobs/${id}/events${query({ after })}`,
  artifact: (id: number, name: string) => `/jobs/${id}/artifacts/${seg(name)}`,
} as const;
