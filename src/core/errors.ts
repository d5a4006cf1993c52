// One base for every error Kernel Runner throws on purpose: a `name` that says which class, a `code` from the table
// below (one per kind of failure, grouped by the layer that throws it), and the standard `cause`. The table is the
// one place a code is listed, with what it means and what it amounts to for the user (its FailureKind, from which the
// CLI's exit code follows: exitCodeFor). test/unit/core/errorCodes.test.ts checks that every code thrown in src/ is
// in it, with an explanation, and that it lists none that nothing throws.
//
// Pure (no node:, no packages): every layer, trace included, imports it.

/** What a failure amounts to for the user; decides the CLI's exit code (exitCodeFor) and the editor's actions. */
export type FailureKind =
  | 'usage' // what the user asked for cannot be done as asked (bad flag, unknown leaderboard or GPU)
  | 'rejected' // the file would be (or was) refused by the service
  | 'no-identity'
  | 'unregistered'
  | 'unauthorized'
  | 'rate-limited'
  | 'no-profiler'
  | 'no-gpu'
  | 'network'
  | 'timeout'
  | 'server'
  | 'protocol'
  | 'cancelled'
  | 'internal';

export interface ErrorCodeInfo {
  kind: FailureKind;
  /** What the code means, in one sentence. */
  explanation: string;
}

/** Errors of src/core: the runner client, GPU MODE's answers, the submission workflow, local files. */
const CORE_CODES = {
  CLIENT_HTTP: { kind: 'server', explanation: 'The runner answered with an HTTP error status.' },
  CLIENT_NETWORK: {
    kind: 'network',
    explanation: 'The runner could not be reached (connection refused, host not found, connection reset).',
  },
  CLIENT_PROTOCOL: { kind: 'protocol', explanation: 'The runner sent something this version cannot read.' },
  CLIENT_CANCELLED: { kind: 'cancelled', explanation: 'The request was cancelled by the user.' },
  CLIENT_TIMEOUT: { kind: 'timeout', explanation: 'The runner did not answer in time.' },
  CLIENT_INVALID_URL: { kind: 'usage', explanation: 'The runner URL given is not an http(s) URL.' },
  CLIENT_GAVE_UP: {
    kind: 'network',
    explanation: 'The client stopped following a job after its reconnections failed; the job may still be running.',
  },
  CLIENT_EVENT_TOO_LARGE: {
    kind: 'protocol',
    explanation: 'One server-sent event was larger than the client accepts.',
  },
  CLIENT_EVENT_DECODE: { kind: 'protocol', explanation: 'A server-sent event could not be decoded as a runner event.' },
  GPUMODE_UNREGISTERED: {
    kind: 'unregistered',
    explanation: 'GPU MODE does not recognise the cli_id (401): register again.',
  },
  GPUMODE_NO_IDENTITY: { kind: 'no-identity', explanation: 'No GPU MODE cli_id was sent: register first.' },
  GPUMODE_RATE_LIMITED: { kind: 'rate-limited', explanation: 'GPU MODE is rate limiting these requests (429).' },
  GPUMODE_TOO_LARGE: { kind: 'rejected', explanation: 'GPU MODE refused the file as too large (413).' },
  GPUMODE_BAD_REQUEST: {
    kind: 'rejected',
    explanation: 'GPU MODE refused the request (4xx, or one of its 500s that are refusals).',
  },
  GPUMODE_NETWORK: { kind: 'network', explanation: 'GPU MODE could not be reached.' },
  GPUMODE_TIMEOUT: { kind: 'timeout', explanation: 'GPU MODE did not answer in time.' },
  GPUMODE_SERVER: { kind: 'server', explanation: 'GPU MODE failed to answer (5xx).' },
  GPUMODE_PROTOCOL: { kind: 'protocol', explanation: 'GPU MODE sent something this version cannot read.' },
  GPUMODE_CANCELLED: { kind: 'cancelled', explanation: 'The request to GPU MODE was cancelled by the user.' },
  POPCORN_CONFIG: {
    kind: 'usage',
    explanation: '~/.popcorn.yaml (or POPCORN_CONFIG) cannot be read or holds no usable cli_id.',
  },
  RUNNER_TOKEN: { kind: 'usage', explanation: 'The runner token file cannot be read or written.' },
  REPORT_ENCODING: {
    kind: 'protocol',
    explanation: "A profile report is not valid `+*` base64 (GPU MODE's encoding).",
  },
  SUBMISSION_USAGE: {
    kind: 'usage',
    explanation: 'The submission cannot be made as asked (unknown leaderboard or GPU, bad mode).',
  },
  SUBMISSION_REJECTED: { kind: 'rejected', explanation: 'The file would be (or was) refused by the service.' },
  SUBMISSION_NO_IDENTITY: {
    kind: 'no-identity',
    explanation: 'The submission needs a GPU MODE cli_id and there is none.',
  },
  SUBMISSION_UNREGISTERED: { kind: 'unregistered', explanation: 'The cli_id is unknown to GPU MODE.' },
  SUBMISSION_UNAUTHORIZED: { kind: 'unauthorized', explanation: 'The runner refused the credentials (401/403).' },
  SUBMISSION_RATE_LIMITED: { kind: 'rate-limited', explanation: 'The service asked to wait before submitting again.' },
  SUBMISSION_NO_PROFILER: { kind: 'no-profiler', explanation: 'The target has no profiler for a profile run.' },
  SUBMISSION_NO_GPU: { kind: 'no-gpu', explanation: 'The target has no GPU the submission asked for.' },
  SUBMISSION_NETWORK: { kind: 'network', explanation: 'The service could not be reached during the submission.' },
  SUBMISSION_TIMEOUT: { kind: 'timeout', explanation: 'The service did not answer in time during the submission.' },
  SUBMISSION_SERVER: { kind: 'server', explanation: 'The service failed during the submission.' },
  SUBMISSION_PROTOCOL: {
    kind: 'protocol',
    explanation: 'The service sent something this version cannot read during the submission.',
  },
  SUBMISSION_CANCELLED: { kind: 'cancelled', explanation: 'The submission was cancelled.' },
  SUBMISSION_INTERNAL: {
    kind: 'internal',
    explanation: 'The submission failed for a reason this version did not foresee (a bug).',
  },
  PROFILE_OPTION: {
    kind: 'usage',
    explanation: 'A profile option (counters, kernel selection, PC sampling) has a value that cannot be used.',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/** Errors of src/trace: rocprof output and code objects that cannot be read. */
const TRACE_CODES = {
  TRACE_INPUT: {
    kind: 'usage',
    explanation: 'The trace input is missing or holds nothing the trace toolkit can read.',
  },
  TRACE_CSV_FORMAT: {
    kind: 'usage',
    explanation: 'A CSV file is malformed (unterminated quote, a row past the size limit).',
  },
  TRACE_ZIP_LIMIT: {
    kind: 'usage',
    explanation: 'A zip archive goes past a safety limit (size, ratio, entries sharing bytes).',
  },
  TRACE_NOT_V1: { kind: 'usage', explanation: 'The file is not a legacy rocprof v1 JSON trace.' },
  TRACE_NOT_ROCPD: { kind: 'usage', explanation: 'The file is not a rocpd database.' },
  TRACE_ELF_FORMAT: { kind: 'usage', explanation: 'The file is not a well-formed ELF file.' },
  TRACE_CODE_OBJECT: { kind: 'usage', explanation: 'The file is not an AMDGPU code object that can be read.' },
  TRACE_DISASSEMBLY: {
    kind: 'usage',
    explanation: 'No llvm-objdump for the AMDGPU target, or it failed to disassemble.',
  },
  TRACE_DIGEST_BUDGET: {
    kind: 'usage',
    explanation: 'The profile digest cannot fit in the byte budget asked for, even with every list cut.',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/** Errors of src/runner: start-up, HTTP answers, jobs, problems, the store. */
const RUNNER_CODES = {
  RUNNER_START: {
    kind: 'usage',
    explanation: 'The runner cannot start as configured (port in use, bad data dir, isolation unavailable).',
  },
  RUNNER_HTTP: { kind: 'rejected', explanation: 'An HTTP answer with an error status and a `{detail}` body.' },
  RUNNER_PREPARATION: {
    kind: 'rejected',
    explanation: "The submission was refused while it was prepared (upstream's 400s of to_submit_info).",
  },
  RUNNER_SLURM_START: {
    kind: 'usage',
    explanation: 'The Slurm executor cannot start (commands missing, cluster unreachable).',
  },
  RUNNER_STORE: {
    kind: 'usage',
    explanation: 'The data dir cannot be used (locked by another runner, unreadable, wrong version).',
  },
  RUNNER_PROFILER: { kind: 'no-profiler', explanation: 'The profiler asked for is not available on this machine.' },
  RUNNER_QUEUE_FULL: { kind: 'rate-limited', explanation: "The runner's queue is full: try again later." },
  RUNNER_PROBLEM: {
    kind: 'usage',
    explanation: 'A problem (task.yml, competition entry) in the problems folder cannot be read.',
  },
  RUNNER_COUNTERS: {
    kind: 'usage',
    explanation: 'The counters asked for cannot be collected on this GPU (unknown arch or counter set).',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/** Errors of src/cli. */
const CLI_CODES = {
  CLI_EXIT: { kind: 'usage', explanation: 'A command ends with a one-line message and the exit code it chose.' },
  CLI_AGENT_SETUP: {
    kind: 'usage',
    explanation: 'setup-agent cannot merge into a config file that is not plain JSON, or cannot write it.',
  },
  CLI_MCP_TARGET: {
    kind: 'usage',
    explanation: 'The MCP server cannot reach or identify the target it was started for.',
  },
  CLI_MCP_TOOL: {
    kind: 'usage',
    explanation: 'An MCP tool was called with arguments it cannot use, or its run failed.',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/** Every error code, by layer. */
export const ERROR_CODES: Readonly<Record<ErrorCode, ErrorCodeInfo>> = {
  ...CORE_CODES,
  ...TRACE_CODES,
  ...RUNNER_CODES,
  ...CLI_CODES,
};

export type CoreErrorCode = keyof typeof CORE_CODES;
type TraceErrorCode = keyof typeof TRACE_CODES;
export type RunnerErrorCode = keyof typeof RUNNER_CODES;
type CliErrorCode = keyof typeof CLI_CODES;
export type ErrorCode = CoreErrorCode | TraceErrorCode | RunnerErrorCode | CliErrorCode;

/** The base of every error class of src/: each sets its `name` and `code`. */
export abstract class KernelRunnerError extends Error {
  abstract override readonly name: string;
  abstract readonly code: ErrorCode;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
  }
}

export function isKernelRunnerError(err: unknown): err is KernelRunnerError {
  return err instanceof KernelRunnerError;
}

/** What a code means (its entry in the table). */
export function explainCode(code: ErrorCode): ErrorCodeInfo {
  return ERROR_CODES[code];
}

/** The one line to show for anything thrown: an Error's message, else the value as text. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The CLI's exit code for a failure: 130 cancelled; 2 for what the user can fix before sending (flags, the file,
 * the identity, a GPU the target does not have, problems found before sending); else 1.
 */
export function exitCodeFor(failure: { kind: FailureKind; problems?: readonly string[] | undefined }): number {
  if (failure.kind === 'cancelled') return 130;
  if (
    failure.kind === 'usage' ||
    failure.kind === 'no-identity' ||
    failure.kind === 'no-gpu' ||
    (failure.kind === 'rejected' && failure.problems)
  )
    return 2;
  return 1;
}
