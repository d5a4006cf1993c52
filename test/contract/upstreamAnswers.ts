// Sample answers of each route of GPU MODE's service, shaped as kernelbot at commit 4bdd839 writes them (see
// kernelbot.ts for where each fact comes from), and `variants(answer)`: the answer with each optional or
// informational field removed, then nulled, in turn — recursively into nested objects, into the first element of
// arrays, and into every value of maps keyed by data (a result's `runs`). `refusals(answer)` gives the changes a
// client must refuse: the required fields removed or nulled, and values of the wrong kind.
//
// Each answer says which fields are required (what decides the shown outcome); every other field is
// informational and may be null or missing (as it is from older deployments, the GitHub launcher's queue, the
// job of a streaming-route submission). Paths: dot-separated keys, `[]` for an array's first element, `*` for
// every value of a map; e.g. `runs[].passed`, `results[].runs.*.run.success`.
//
// Pure data and generators (no schemas): the unit test runs them through src/core's schemas and readers; the
// submission workflow can be driven with them too.
import {
  callbackRefusal,
  decimalText,
  kernelGuardText,
  UPSTREAM_TEXT,
  wrappedPreparationError,
  emptySystemInfo,
  isoformatUtc,
  naiveIsoformat,
  pydanticTime,
  queueAnswer,
  rateLimitText,
  systemInfo,
  type Json,
} from './kernelbot';

export type { Json };

/** Which upstream answer a sample is (one schema each in src/core/protocol/api.ts). */
export type AnswerKind =
  | 'health'
  | 'leaderboards'
  | 'gpus'
  | 'runnerQueue'
  | 'rankedSubmissions'
  | 'backgroundAccepted'
  | 'userSubmissions'
  | 'userSubmission'
  | 'deleteSubmission'
  | 'statusEvent'
  | 'resultEvent'
  | 'errorEvent'
  | 'errorBody';

export interface UpstreamAnswer {
  kind: AnswerKind;
  /** The route (or SSE event) that answers it: `GET /user/submissions/{id}`, `SSE event: result`. */
  route: string;
  /** What this sample is. */
  name: string;
  /** Where kernelbot (4bdd839) writes it: `<file> <function>` (the route's handler, and what builds the body). */
  source: string;
  /** HTTP status of the answer (200 for SSE events, which arrive in a 200 stream). */
  status: number;
  body: Json;
  /** Fields a client must refuse the answer without (removed or null). */
  required: readonly string[];
  /** Fields whose value is data (a result map, spec dicts, file contents): not walked into. */
  opaque?: readonly string[];
  /** Maps keyed by data (a FullResult's `runs`): their values are walked into, their keys never dropped. */
  maps?: readonly string[];
  /** Values of the wrong kind a client must refuse, at concrete paths (`runs.0.passed`). */
  garbage?: ReadonlyArray<{ path: string; value: Json; why: string }>;
}

export interface Variant {
  /** `runs.0.score removed`: the concrete path and the change. */
  label: string;
  /** The field's pattern (`runs[].score`), as in `required`. */
  path: string;
  /** The concrete path (`['runs', 0, 'score']`): `applyVariant` makes the same change to another answer. */
  keys: ReadonlyArray<string | number>;
  change: 'removed' | 'nulled' | 'garbage';
  /** What the field becomes: undefined when removed. */
  value: Json | undefined;
  /** The sample answer with the change made. */
  body: Json;
}

// ---------------------------------------------------------------------------------------------------------------
// Samples

const T0 = Date.parse('2026-07-06T12:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000);
const SCORE = 2.449489742783178e-5; // geomean(12.5 µs, 48 µs), seconds
const SECRET_SCORE = 2.4606909598112e-5;
const CODE = '#!POPCORN leaderboard amd-fp8-mm\n#!POPCORN gpu MI300\n\ndef custom_kernel(data):\n    return data\n';

const TEST_VALUES: { [key: string]: Json } = {
  check: 'pass',
  'test-count': '2',
  'test.0.spec': 'seed: 1001; size: 128',
  'test.0.status': 'pass',
  'test.1.spec': 'seed: 5236; size: 1024',
  'test.1.status': 'pass',
};
const FAILED_TEST_VALUES: { [key: string]: Json } = {
  check: 'fail',
  'test-count': '2',
  'test.0.spec': 'seed: 1001; size: 128',
  'test.0.status': 'pass',
  'test.1.spec': 'seed: 5236; size: 1024',
  'test.1.status': 'fail',
  'test.1.error': "mismatch found! custom implementation doesn't match reference: max abs diff 0.5",
};
const BENCHMARK_VALUES: { [key: string]: Json } = {
  check: 'pass',
  'benchmark-count': '2',
  'benchmark.0.spec': 'seed: 8135; size: 4096',
  'benchmark.0.runs': '100',
  'benchmark.0.mean': '12500',
  'benchmark.0.std': '250',
  'benchmark.0.err': '25',
  'benchmark.0.best': '12125',
  'benchmark.0.worst': '13500',
  'benchmark.1.spec': 'seed: 4415; size: 16384',
  'benchmark.1.runs': '100',
  'benchmark.1.mean': '48000',
  'benchmark.1.std': '960',
  'benchmark.1.err': '96',
  'benchmark.1.best': '46560',
  'benchmark.1.worst': '51840',
};
// Python: base64.b64encode("Kernel report: gemm 10 calls\nIs it fast??? ✓\n".encode(), b"+*")
const PROFILE_REPORT = 'S2VybmVsIHJlcG9ydDogZ2VtbSAxMCBjYWxscwpJcyBpdCBmYXN0Pz8*IOKckwo=';
/** An empty zip, base64: a ProfileResult's `trace` (the real one holds rocprof's output). */
const EMPTY_ZIP = 'UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA==';

/** dataclasses.asdict(RunResult(...)) as run_program builds it. */
function runResult(
  values: { [key: string]: Json },
  passed: boolean,
  mode: string,
  over: { [key: string]: Json } = {},
): { [key: string]: Json } {
  return {
    success: true,
    passed,
    command: `python3 eval.py ${mode} /tmp/tmp69x1suxc`,
    stdout: passed ? '' : 'running 2 tests\n',
    stderr: mode.startsWith('profile') ? '[329.254] perfetto.cc:33197       Producer connected\n' : '',
    exit_code: passed ? 0 : 112,
    duration: 2.405536843,
    result: values,
    ...over,
  };
}

/** dataclasses.asdict(EvalResult(...)) through the SSE json_serializer: naive runner times. */
function evalResult(run: Json, extra: { compilation?: Json; profile?: Json } = {}): { [key: string]: Json } {
  return {
    start: naiveIsoformat(at(1)),
    end: naiveIsoformat(at(4)),
    compilation: extra.compilation ?? null,
    run,
    profile: extra.profile ?? null,
  };
}

function fullResult(gpu: string, runs: { [key: string]: Json }): { [key: string]: Json } {
  return { success: true, error: '', system: systemInfo(gpu), runs };
}

/** A row of GET /user/submissions/{id}'s `runs` (main.py keeps these fields; `result` only for public test/benchmark). */
function submissionRun(
  mode: string,
  secret: boolean,
  passed: boolean,
  score: number | null,
  result?: Json,
): { [key: string]: Json } {
  const run: { [key: string]: Json } = {
    start_time: pydanticTime(at(1)),
    end_time: pydanticTime(at(4)),
    mode,
    secret,
    runner: 'MI300',
    score: score === null ? null : decimalText(score),
    passed,
  };
  if (!secret && (mode === 'test' || mode === 'benchmark') && result !== undefined) run.result = result;
  return run;
}

function detail(over: { [key: string]: Json }): { [key: string]: Json } {
  return {
    id: 4201,
    leaderboard_id: 1,
    leaderboard_name: 'amd-fp8-mm',
    file_name: 'submission.py',
    user_id: '123456789012345678',
    submission_time: pydanticTime(at(0)),
    done: true,
    code: CODE,
    runs: [],
    job: { status: 'succeeded', error: null, last_heartbeat: pydanticTime(at(5)) },
    runner_queue: queueAnswer('MI300', { queued: 0 }),
    ...over,
  };
}

const RANKED_RUNS: Json[] = [
  submissionRun('test', false, true, null, TEST_VALUES),
  submissionRun('benchmark', false, true, null, BENCHMARK_VALUES),
  submissionRun('leaderboard', false, true, SCORE, BENCHMARK_VALUES),
  submissionRun('test', true, true, null, TEST_VALUES),
  submissionRun('benchmark', true, true, null, BENCHMARK_VALUES),
  submissionRun('leaderboard', true, true, SECRET_SCORE, BENCHMARK_VALUES),
];

const DETAIL_REQUIRED = ['id', 'done', 'runs', 'runs[].mode', 'runs[].secret', 'runs[].passed'] as const;
const DETAIL_OPAQUE = ['runs[].result', 'code'] as const;
const RESULT_REQUIRED = [
  'results',
  'results[].success',
  'results[].runs',
  'results[].runs.*.compilation.success',
  'results[].runs.*.run.success',
  'results[].runs.*.run.passed',
] as const;
const RESULT_SHAPE = {
  required: RESULT_REQUIRED,
  maps: ['results[].runs'],
  opaque: ['results[].runs.*.run.result'],
} as const;

const LEADERBOARD_TASK: { [key: string]: Json } = {
  lang: 'py',
  files: {
    'submission.py': '@SUBMISSION@',
    'reference.py': '# reference\n',
    'eval.py': '# evaluator\n',
    'task.py': '# types\n',
  },
  config: { main: 'eval.py' },
  libraries: [],
  tests: [
    { seed: 1001, size: 128 },
    { seed: 5236, size: 1024 },
  ],
  test_timeout: 180,
  benchmarks: [
    { seed: 8135, size: 4096 },
    { seed: 4415, size: 16384 },
  ],
  benchmark_timeout: 180,
  ranked_timeout: 420,
  ranking_by: 'geom',
  seed: null,
  multi_gpu: false,
};

/** Every sample answer, by route. */
export const upstreamAnswers: readonly UpstreamAnswer[] = [
  {
    kind: 'health',
    route: 'GET /health',
    name: 'health',
    source: 'src/kernelbot/api/main.py health',
    status: 200,
    body: { status: 'ok' },
    required: [],
  },
  {
    kind: 'leaderboards',
    route: 'GET /leaderboards',
    name: 'leaderboards (LeaderboardItem with its task dataclass, through jsonable_encoder)',
    source: 'src/kernelbot/api/main.py get_leaderboards; src/libkernelbot/leaderboard_db.py get_leaderboards',
    status: 200,
    body: [
      {
        id: 1,
        name: 'amd-fp8-mm',
        deadline: isoformatUtc(new Date('2036-09-01T00:00:00Z')),
        task: LEADERBOARD_TASK,
        gpu_types: ['MI300'],
        creator_id: 0,
        forum_id: -1,
        description: 'FP8 block-scaled GEMM on MI300.\nImplement custom_kernel(data) -> output.',
        secret_seed: 4242,
        visibility: 'public',
      },
      {
        id: 2,
        name: 'grayscale_cuda',
        deadline: isoformatUtc(new Date('2026-01-01T00:00:00Z')),
        task: {
          ...LEADERBOARD_TASK,
          lang: 'cu',
          config: { sources: ['eval.cu', 'submission.cu'], include_dirs: [], defines: {}, compile_flags: [] },
          ranking_by: 'last',
        },
        gpu_types: ['A100', 'H100', 'T4'],
        creator_id: 0,
        forum_id: -1,
        description: 'RGB to grayscale.',
        secret_seed: 7,
        visibility: 'public',
      },
    ],
    required: ['[].name'],
    opaque: ['[].task.files', '[].task.tests', '[].task.benchmarks', '[].task.libraries'],
    garbage: [
      { path: '0.name', value: 42, why: 'a leaderboard is submitted to by name' },
      { path: '0.gpu_types', value: 'MI300', why: 'the GPUs are a list' },
    ],
  },
  {
    kind: 'gpus',
    route: 'GET /gpus/{leaderboard}',
    name: 'GPUs of a leaderboard',
    source: 'src/kernelbot/api/main.py get_gpus; src/libkernelbot/leaderboard_db.py get_leaderboard_gpu_types',
    status: 200,
    body: ['MI300'],
    required: [],
    garbage: [{ path: '0', value: 300, why: 'GPU names are strings' }],
  },
  {
    kind: 'runnerQueue',
    route: 'GET /runner_queue/{gpu}',
    name: 'GitHub launcher (AMD): only queued_jobs',
    source: 'src/kernelbot/api/main.py get_runner_queue; src/libkernelbot/launchers/github.py get_queue_status',
    status: 200,
    body: queueAnswer('MI300', { queued: 3 }),
    required: ['status'],
    garbage: [{ path: 'queued_jobs', value: 'three', why: 'a count is a number' }],
  },
  {
    kind: 'runnerQueue',
    route: 'GET /runner_queue/{gpu}',
    name: 'Modal: backlog and runners, running_jobs null',
    source: 'src/kernelbot/api/main.py get_runner_queue; src/libkernelbot/launchers/modal.py get_queue_status',
    status: 200,
    body: queueAnswer('T4', { queued: 6, modalRunners: 1 }),
    required: ['status'],
  },
  {
    kind: 'runnerQueue',
    route: 'GET /runner_queue/{gpu}',
    name: 'GitHub API failing: all counts null, unavailable with the error',
    source: 'src/libkernelbot/launchers/github.py get_queue_status (its except branch)',
    status: 200,
    body: queueAnswer('MI355X', { queued: 0, failure: '403 {"message": "API rate limit exceeded for installation."}' }),
    required: ['status'],
  },
  {
    kind: 'runnerQueue',
    route: 'GET /runner_queue/{gpu}',
    name: 'unknown GPU',
    source: 'src/libkernelbot/backend.py get_runner_queue_status',
    status: 200,
    body: queueAnswer('MI301', { queued: 0 }),
    required: ['status'],
  },
  {
    kind: 'rankedSubmissions',
    route: 'GET /submissions/{leaderboard}/{gpu}',
    name: 'ranked entries (LeaderboardRankedEntry: the response model makes the score a float)',
    source:
      'src/kernelbot/api/main.py get_submissions; src/libkernelbot/leaderboard_db.py get_leaderboard_submissions; db_types.py LeaderboardRankedEntry',
    status: 200,
    body: [
      {
        submission_id: 4201,
        rank: 1,
        submission_name: 'submission.py',
        submission_time: pydanticTime(at(0)),
        submission_score: SCORE,
        leaderboard_name: 'amd-fp8-mm',
        user_id: 412345678901234, // the response model makes the TEXT column an int (a Discord id can exceed 2^53)
        user_name: 'alice',
        gpu_type: 'MI300',
      },
      {
        submission_id: 4187,
        rank: 2,
        submission_name: 'fast.py',
        submission_time: pydanticTime(at(-86_400)),
        submission_score: decimalText(3.1e-5),
        leaderboard_name: 'amd-fp8-mm',
        user_id: 42,
        user_name: null,
        gpu_type: 'MI300',
      },
    ],
    required: ['[].submission_id'],
    garbage: [{ path: '0.submission_score', value: { value: 1 }, why: 'a score is a number or a numeric string' }],
  },
  {
    kind: 'backgroundAccepted',
    route: 'POST /submission/{leaderboard}/{gpu}/{mode}',
    name: '202 with the GitHub launcher queue',
    source: 'src/kernelbot/api/main.py run_submission_async',
    status: 202,
    body: {
      details: { id: 4201, job_status_id: 901 },
      runner_queue: queueAnswer('MI300', { queued: 2 }),
      status: 'accepted',
    },
    required: ['details', 'details.id'],
    garbage: [{ path: 'details.id', value: '4201', why: 'the submission id is a number' }],
  },
  {
    kind: 'backgroundAccepted',
    route: 'POST /submission/{leaderboard}/{gpu}/{mode}',
    name: '202 of a deployment before mid-June 2026: status and details only',
    source: 'src/kernelbot/api/main.py run_submission_async (before kernelbot #498)',
    status: 202,
    body: { details: { id: 4201, job_status_id: 901 }, status: 'accepted' },
    required: ['details', 'details.id'],
  },
  {
    kind: 'userSubmissions',
    route: 'GET /user/submissions',
    name: 'a ranked submission (its public passed runs, scores as strings) and a test submission (no runs)',
    source: 'src/kernelbot/api/main.py get_user_submissions; src/libkernelbot/leaderboard_db.py get_user_submissions',
    status: 200,
    body: [
      {
        id: 4201,
        leaderboard_name: 'amd-fp8-mm',
        file_name: 'submission.py',
        submission_time: pydanticTime(at(0)),
        done: true,
        runs: [
          { gpu_type: 'MI300', score: null },
          { gpu_type: 'MI300', score: null },
          { gpu_type: 'MI300', score: decimalText(SCORE) },
        ],
      },
      {
        id: 4200,
        leaderboard_name: 'amd-fp8-mm',
        file_name: 'test.py',
        submission_time: pydanticTime(at(-600)),
        done: true,
        runs: [],
      },
    ],
    required: ['[].id'],
    garbage: [{ path: '0.runs.2.score', value: true, why: 'a score is a number or a numeric string' }],
  },
  {
    kind: 'userSubmission',
    route: 'GET /user/submissions/{id}',
    name: 'a ranked submission, done: public and secret runs, result only for public test/benchmark',
    source: 'src/kernelbot/api/main.py get_user_submission; src/libkernelbot/leaderboard_db.py get_submission_by_id',
    status: 200,
    body: detail({ runs: RANKED_RUNS }),
    required: DETAIL_REQUIRED,
    opaque: DETAIL_OPAQUE,
    garbage: [
      { path: 'runs.2.passed', value: 'yes', why: 'passed decides what is shown' },
      { path: 'runs', value: { leaderboard: RANKED_RUNS[2] as Json }, why: 'runs are a list' },
      { path: 'done', value: 'true', why: 'done decides when polling ends' },
      { path: 'runs.2.score', value: [SCORE], why: 'a score is a number or a numeric string' },
      { path: 'id', value: '4201', why: 'the id is a number' },
    ],
  },
  {
    kind: 'userSubmission',
    route: 'GET /user/submissions/{id}',
    name: 'background submission waiting: no runs yet, so runner_queue null',
    source: 'src/kernelbot/api/main.py get_user_submission, get_submission_runner_queue_status',
    status: 200,
    body: detail({
      done: false,
      runs: [],
      job: { status: 'pending', error: null, last_heartbeat: pydanticTime(at(1)) },
      runner_queue: null,
    }),
    required: DETAIL_REQUIRED,
    opaque: DETAIL_OPAQUE,
  },
  {
    kind: 'userSubmission',
    route: 'GET /user/submissions/{id}',
    name: 'a streaming-route (profile) submission: no job row, so the LEFT JOIN gives a job of nulls',
    source: 'src/libkernelbot/leaderboard_db.py get_submission_by_id (LEFT JOIN submission_job_status)',
    status: 200,
    body: detail({
      runs: [submissionRun('profile.0', false, true, null), submissionRun('profile.1', false, true, null)],
      job: { status: null, error: null, last_heartbeat: null },
    }),
    required: DETAIL_REQUIRED,
    opaque: DETAIL_OPAQUE,
  },
  {
    kind: 'userSubmission',
    route: 'GET /user/submissions/{id}',
    name: 'leaderboard mode with failing tests: job failed with the ranked-validation error',
    source: 'src/libkernelbot/background_submission_manager.py _ranked_completion_status',
    status: 200,
    body: detail({
      runs: [
        submissionRun('test', false, false, null, FAILED_TEST_VALUES),
        submissionRun('test', true, false, null, FAILED_TEST_VALUES),
      ],
      job: {
        status: 'failed',
        error: 'ranked validation failed on MI300; submission will not appear on the leaderboard',
        last_heartbeat: pydanticTime(at(5)),
      },
    }),
    required: DETAIL_REQUIRED,
    opaque: DETAIL_OPAQUE,
  },
  {
    kind: 'userSubmission',
    route: 'GET /user/submissions/{id}',
    name: 'hard timeout: the runs that finished are kept',
    source: 'src/libkernelbot/background_submission_manager.py _run_one (asyncio.TimeoutError)',
    status: 200,
    body: detail({
      runs: [submissionRun('test', false, true, null, TEST_VALUES)],
      job: { status: 'timed_out', error: 'hard timeout reached', last_heartbeat: pydanticTime(at(3600)) },
    }),
    required: DETAIL_REQUIRED,
    opaque: DETAIL_OPAQUE,
  },
  {
    kind: 'userSubmission',
    route: 'GET /user/submissions/{id}',
    name: 'a deployment before mid-June 2026: no job, no runner_queue, no run results',
    source: 'src/kernelbot/api/main.py get_user_submission (before kernelbot #503/#504, #511)',
    status: 200,
    body: (() => {
      const d = detail({
        runs: RANKED_RUNS.map((r) => {
          const { result: _result, ...rest } = r as { [key: string]: Json };
          return rest;
        }),
      });
      delete d.job;
      delete d.runner_queue;
      return d;
    })(),
    required: DETAIL_REQUIRED,
    opaque: DETAIL_OPAQUE,
  },
  {
    kind: 'deleteSubmission',
    route: 'DELETE /user/submissions/{id}',
    name: 'deleted',
    source: 'src/kernelbot/api/main.py delete_user_submission',
    status: 200,
    body: { status: 'ok', submission_id: 4201 },
    required: [],
  },
  {
    kind: 'statusEvent',
    route: 'SSE event: status',
    name: 'heartbeat (every 15 s)',
    source: 'src/kernelbot/api/main.py _stream_submission_response',
    status: 200,
    body: { status: 'processing', elapsed_time: 15.02 },
    required: [],
  },
  {
    kind: 'resultEvent',
    route: 'SSE event: result',
    name: 'test mode on MI300',
    source: 'src/kernelbot/api/main.py _stream_submission_response; src/libkernelbot/run_eval.py run_program',
    status: 200,
    body: {
      status: 'success',
      results: [fullResult('MI300', { test: evalResult(runResult(TEST_VALUES, true, 'test')) })],
      reports: ['✅ Passed 2/2 tests\n'],
    },
    ...RESULT_SHAPE,
    garbage: [
      {
        path: 'results.0.runs',
        value: [evalResult(runResult(TEST_VALUES, true, 'test'))],
        why: 'runs are a map keyed by run',
      },
      { path: 'results.0.runs.test.run.passed', value: 1, why: 'passed decides what is shown' },
      { path: 'results.0.runs.test.run.result', value: 'check: pass', why: 'the evaluator output is a map' },
      { path: 'results.0.runs.test.run.exit_code', value: 'zero', why: 'an exit code is a number' },
      { path: 'results', value: {}, why: 'results are a list' },
    ],
  },
  {
    kind: 'resultEvent',
    route: 'SSE event: result',
    name: 'leaderboard mode: public result, then the secret-seed copy',
    source: 'src/libkernelbot/backend.py submit_full; src/libkernelbot/run_eval.py run_evaluation',
    status: 200,
    body: {
      status: 'success',
      results: [false, true].map((secret) =>
        fullResult('MI300', {
          test: evalResult(runResult(TEST_VALUES, true, 'test')),
          benchmark: evalResult(runResult(BENCHMARK_VALUES, true, 'benchmark')),
          leaderboard: evalResult(
            runResult(
              secret
                ? { ...BENCHMARK_VALUES, 'benchmark.0.mean': '12900', 'benchmark.1.mean': '47100' }
                : BENCHMARK_VALUES,
              true,
              'leaderboard',
            ),
          ),
        }),
      ),
      reports: ['## public\n', '## secret\n'],
    },
    ...RESULT_SHAPE,
  },
  {
    kind: 'resultEvent',
    route: 'SSE event: result',
    name: 'profile mode on MI300 (GitHub: the trace inline and a download URL)',
    source:
      'src/libkernelbot/run_eval.py profile_program_roc; src/libkernelbot/launchers/github.py run_submission (download_url)',
    status: 200,
    body: {
      status: 'success',
      results: [
        fullResult('MI300', {
          'profile.0': evalResult(
            runResult(
              {
                'benchmark-count': '1',
                'benchmark.0.spec': 'seed: 8135; size: 4096',
                'benchmark.0.report': PROFILE_REPORT,
              },
              true,
              'profile.0',
            ),
            {
              profile: {
                profiler: 'rocPROF',
                trace: EMPTY_ZIP,
                download_url: 'https://github.com/gpu-mode/kernelbot/actions/runs/101/artifacts/202',
              },
            },
          ),
        }),
      ],
      reports: ['## profile\n'],
    },
    ...RESULT_SHAPE,
  },
  {
    kind: 'resultEvent',
    route: 'SSE event: result',
    name: 'a CUDA submission that did not compile (run null)',
    source: 'src/libkernelbot/run_eval.py compile_cuda_script, run_cuda_script',
    status: 200,
    body: {
      status: 'success',
      results: [
        fullResult('H100', {
          test: evalResult(null, {
            compilation: {
              nvcc_found: true,
              nvcc_version: 'Cuda compilation tools, release 12.8',
              success: false,
              command: 'nvcc --std=c++20 eval.cu submission.cu -o eval.out',
              stdout: '',
              stderr: 'submission.cu(3): error: expected a ";"\n',
              exit_code: 1,
            },
          }),
        }),
      ],
      reports: ['❌ compilation failed\n'],
    },
    ...RESULT_SHAPE,
  },
  {
    kind: 'resultEvent',
    route: 'SSE event: result',
    name: "the runner failed (GitHub artifacts missing): FullResult success false, SystemInfo()'s defaults",
    source: 'src/libkernelbot/launchers/github.py run_submission',
    status: 200,
    body: {
      status: 'success',
      results: [{ success: false, error: 'Could not download artifacts', system: emptySystemInfo(), runs: {} }],
      reports: ['❌ failure\n'],
    },
    ...RESULT_SHAPE,
  },
  {
    kind: 'errorEvent',
    route: 'SSE event: error',
    name: 'an HTTPException while preparing (the rate limit arrives in-stream, as 400)',
    source: 'src/kernelbot/api/api_utils.py _run_submission; src/libkernelbot/submission.py prepare_submission',
    status: 200,
    body: { status: 'error', detail: rateLimitText(3, 3, 'test', 1234), status_code: 400 },
    required: [],
  },
  {
    kind: 'errorEvent',
    route: 'SSE event: error',
    name: 'cancelled: no status_code',
    source: 'src/kernelbot/api/main.py _stream_submission_response (asyncio.CancelledError)',
    status: 200,
    body: { status: 'error', detail: 'Submission cancelled' },
    required: [],
  },
  {
    kind: 'errorEvent',
    route: 'SSE event: error',
    name: 'an unexpected exception: raw_error, no status_code',
    source: 'src/kernelbot/api/main.py _stream_submission_response (except Exception)',
    status: 200,
    body: {
      status: 'error',
      detail: 'An unexpected error occurred: RuntimeError',
      raw_error: 'Failed to trigger GitHub Action. Please check the configuration.',
    },
    required: [],
  },
  {
    kind: 'errorBody',
    route: 'POST /submission/{leaderboard}/{gpu}/{mode}',
    name: '429 of the background route: the KernelBotError re-raised as HTTPException, no Retry-After header',
    source: 'src/kernelbot/api/main.py run_submission_async; src/libkernelbot/submission.py prepare_submission',
    status: 429,
    body: { detail: rateLimitText(3, 3, 'leaderboard', 1234) },
    required: [],
  },

  // ---- issue 16: answers read from kernelbot's code that the client had wrong
  ...[
    [
      'unknown leaderboard',
      500,
      'Internal server error while validating leaderboard/GPU: Leaderboard `nope` does not exist.',
    ],
    [
      'a GPU the leaderboard does not run on',
      400,
      "GPU type 'T4' is not supported for leaderboard 'amd-fp8-mm'. Supported GPUs: MI300",
    ],
    ['more than 1 MB', 413, 'Submission file is too large (limit: 1MB).'],
    [
      'the `stream` keyword',
      500,
      'Your code contains work on another stream. This is not allowed and may result in your disqualification. If you think this is a mistake, please contact us.',
    ],
    ['an empty file', 400, 'Empty file submitted. Please provide a file with code.'],
    ['mode private', 400, "Submission mode 'private' is not supported for this endpoint"],
  ].map(([what, code, text]): UpstreamAnswer => ({
    kind: 'errorBody',
    route: 'POST /submission/{leaderboard}/{gpu}/{mode}',
    name: `wrapped preparation error: ${what as string}`,
    source:
      'src/kernelbot/api/main.py run_submission_async (except Exception); src/kernelbot/api/api_utils.py to_submit_info',
    status: 400,
    body: { detail: wrappedPreparationError(code as number, text as string) },
    required: [],
  })),
  {
    kind: 'errorBody',
    route: 'POST /submission/{leaderboard}/{gpu}/{mode}',
    name: 'a closed (invite-only) leaderboard without an invite',
    source: 'src/libkernelbot/submission.py prepare_submission (KernelBotError code 403)',
    status: 403,
    body: { detail: UPSTREAM_TEXT.noAccess },
    required: [],
  },
  {
    kind: 'errorBody',
    route: 'GET /gpus/{leaderboard}',
    name: 'a closed leaderboard asked without auth',
    source: 'src/kernelbot/api/main.py enforce_leaderboard_access',
    status: 401,
    body: { detail: UPSTREAM_TEXT.closedNeedsAuth },
    required: [],
  },
  {
    kind: 'errorBody',
    route: 'POST /submission/{leaderboard}/{gpu}/{mode}',
    name: 'the service stopped',
    source: 'src/libkernelbot/submission.py prepare_submission (backend.accepts_jobs)',
    status: 400,
    body: { detail: UPSTREAM_TEXT.notAccepting },
    required: [],
  },
  {
    kind: 'errorBody',
    route: 'POST /submission/{leaderboard}/{gpu}/{mode}',
    name: 'a banned user',
    source: 'src/libkernelbot/submission.py prepare_submission (is_user_banned)',
    status: 400,
    body: { detail: UPSTREAM_TEXT.banned },
    required: [],
  },
  {
    kind: 'errorBody',
    route: 'GET /auth/cli/{provider}',
    name: 'callback: a second plain registration of a linked account',
    source: 'src/kernelbot/api/main.py cli_auth; src/libkernelbot/leaderboard_db.py create_user_from_cli',
    status: 400,
    body: { detail: callbackRefusal(UPSTREAM_TEXT.alreadyRegistered) },
    required: [],
  },
  {
    kind: 'errorBody',
    route: 'GET /auth/cli/{provider}',
    name: 'callback: a cli_id /auth/init never made',
    source: 'src/kernelbot/api/main.py cli_auth; src/libkernelbot/leaderboard_db.py create_user_from_cli',
    status: 400,
    body: { detail: callbackRefusal(UPSTREAM_TEXT.noTemporaryUser) },
    required: [],
  },
  {
    kind: 'errorBody',
    route: 'GET /auth/cli/{provider}',
    name: 'callback: a reset of an unknown account',
    source: 'src/kernelbot/api/main.py cli_auth; src/libkernelbot/leaderboard_db.py reset_user_from_cli',
    status: 400,
    body: { detail: callbackRefusal(UPSTREAM_TEXT.resetUnknown) },
    required: [],
  },
  {
    kind: 'userSubmission',
    route: 'GET /user/submissions/{id}',
    name: 'a crash or a timeout: job succeeded, the run passed: false with result {}, no exit code',
    source:
      'src/libkernelbot/run_eval.py run_program (TimeoutExpired / a crash); src/libkernelbot/background_submission_manager.py _ranked_completion_status',
    status: 200,
    body: detail({ runs: [submissionRun('test', false, false, null, {})] }),
    required: DETAIL_REQUIRED,
    opaque: DETAIL_OPAQUE,
  },
  {
    kind: 'userSubmission',
    route: 'GET /user/submissions/{id}',
    name: 'the runner failed before results: job succeeded with runs []',
    source: 'src/libkernelbot/backend.py submit_leaderboard (no run recorded when FullResult.success is false)',
    status: 200,
    body: detail({ runs: [], runner_queue: null }),
    required: DETAIL_REQUIRED,
    opaque: DETAIL_OPAQUE,
  },
  {
    kind: 'userSubmission',
    route: 'GET /user/submissions/{id}',
    name: 'secret validation failed: the public ranked run keeps its score',
    source:
      'src/libkernelbot/background_submission_manager.py _ranked_completion_status; src/libkernelbot/backend.py submit_leaderboard',
    status: 200,
    body: detail({
      runs: [...RANKED_RUNS.slice(0, 5), submissionRun('leaderboard', true, false, null, BENCHMARK_VALUES)],
      job: {
        status: 'failed',
        error: 'secret validation failed on MI300; submission will not appear on the leaderboard',
        last_heartbeat: pydanticTime(at(5)),
      },
    }),
    required: DETAIL_REQUIRED,
    opaque: DETAIL_OPAQUE,
  },
  {
    kind: 'userSubmission',
    route: 'GET /user/submissions/{id}',
    name: "KernelGuard's rejection: job hacked with its text, no runs",
    source:
      'src/libkernelbot/kernelguard.py enforce_submission_precheck; src/libkernelbot/background_submission_manager.py _run_one',
    status: 200,
    body: detail({
      runs: [],
      runner_queue: null,
      job: {
        status: 'hacked',
        error: kernelGuardText('reads the reference output', ['reference-read', 'output-cache']),
        last_heartbeat: pydanticTime(at(2)),
      },
    }),
    required: DETAIL_REQUIRED,
    opaque: DETAIL_OPAQUE,
  },
  {
    kind: 'userSubmission',
    route: 'GET /user/submissions/{id}',
    name: 'a launcher exception: job failed with its text',
    source: 'src/libkernelbot/background_submission_manager.py _run_one (except Exception: error=str(e))',
    status: 200,
    body: detail({
      runs: [],
      runner_queue: null,
      job: { status: 'failed', error: UPSTREAM_TEXT.dispatchFailed, last_heartbeat: pydanticTime(at(2)) },
    }),
    required: DETAIL_REQUIRED,
    opaque: DETAIL_OPAQUE,
  },
  {
    kind: 'errorEvent',
    route: 'SSE event: error',
    name: "KernelGuard's rejection in-stream (HTTPException 400)",
    source: 'src/kernelbot/api/api_utils.py _run_submission (except KernelGuardRejected)',
    status: 200,
    body: {
      status: 'error',
      detail: kernelGuardText('reads the reference output', ['reference-read', 'output-cache']),
      status_code: 400,
    },
    required: [],
  },
  {
    kind: 'resultEvent',
    route: 'SSE event: result',
    name: 'profile mode on T4 (Modal: Nsight-Compute, download_url null)',
    source: 'src/libkernelbot/run_eval.py profile_program_ncu; src/libkernelbot/launchers/modal.py run_submission',
    status: 200,
    body: {
      status: 'success',
      results: [
        fullResult('T4', {
          'profile.0': evalResult(
            runResult(
              {
                'benchmark-count': '1',
                'benchmark.0.spec': 'seed: 8135; size: 4096',
                'benchmark.0.report': 'R1BVIFRocm91Z2hwdXQK',
              },
              true,
              'profile.0',
            ),
            {
              profile: { profiler: 'Nsight-Compute', trace: EMPTY_ZIP, download_url: null },
            },
          ),
        }),
      ],
      reports: ['## profile\n'],
    },
    ...RESULT_SHAPE,
  },
];

/** The samples of one kind. */
export function answersOf(kind: AnswerKind): UpstreamAnswer[] {
  return upstreamAnswers.filter((a) => a.kind === kind);
}

// ---------------------------------------------------------------------------------------------------------------
// Variants

type Key = string | number;

interface Site {
  pattern: string;
  keys: Key[];
  value: Json;
}

function isObject(value: Json): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every field of the body that variants may change, with its pattern and concrete path. */
function sites(answer: UpstreamAnswer): Site[] {
  const opaque = new Set(answer.opaque ?? []);
  const maps = new Set(answer.maps ?? []);
  const out: Site[] = [];
  const walk = (value: Json, pattern: string, keys: Key[]): void => {
    if (opaque.has(pattern)) return;
    if (Array.isArray(value)) {
      const first = value[0];
      if (first !== undefined && (isObject(first) || Array.isArray(first))) walk(first, `${pattern}[]`, [...keys, 0]);
      return;
    }
    if (!isObject(value)) return;
    if (maps.has(pattern)) {
      for (const [k, v] of Object.entries(value)) walk(v, `${pattern}.*`, [...keys, k]);
      return;
    }
    for (const [k, v] of Object.entries(value)) {
      const child = pattern ? `${pattern}.${k}` : k;
      out.push({ pattern: child, keys: [...keys, k], value: v });
      walk(v, child, [...keys, k]);
    }
  };
  walk(answer.body, '', []);
  return out;
}

function clone(value: Json): Json {
  return JSON.parse(JSON.stringify(value)) as Json;
}

/** A copy of `body` with the value at `keys` removed (`undefined`) or replaced; unchanged when the path is not there. */
function changed(body: Json, keys: readonly Key[], value: Json | undefined): Json {
  const copy = clone(body);
  let parent: Json | undefined = copy;
  for (const key of keys.slice(0, -1))
    parent =
      parent !== null && typeof parent === 'object' ? (parent as { [k: string]: Json })[key as string] : undefined;
  const last = keys[keys.length - 1] as Key;
  if (Array.isArray(parent) && typeof last === 'number' && last < parent.length) {
    if (value === undefined) parent.splice(last, 1);
    else parent[last] = value;
  } else if (
    parent !== undefined &&
    isObject(parent) &&
    typeof last === 'string' &&
    (last in parent || value !== undefined)
  ) {
    if (value === undefined) delete parent[last];
    else parent[last] = value;
  }
  return copy;
}

/**
 * Makes a variant's change (a field removed, nulled or replaced at its concrete path) to another answer of the
 * same kind — e.g. to what the contract server is about to send (its `rewrite` option). Answers without that path
 * are returned as they are.
 */
export function applyVariant(body: Json, variant: Pick<Variant, 'keys' | 'value'>): Json {
  return changed(body, variant.keys, variant.value);
}

/** The site removed, then nulled (unless null already). */
function* changes(answer: UpstreamAnswer, site: Site): Generator<Variant> {
  const at = site.keys.join('.');
  const make = (change: 'removed' | 'nulled', value: Json | undefined): Variant => ({
    label: `${at} ${change}`,
    path: site.pattern,
    keys: site.keys,
    change,
    value,
    body: changed(answer.body, site.keys, value),
  });
  yield make('removed', undefined);
  if (site.value !== null) yield make('nulled', null);
}

/**
 * The answer with each optional/informational field removed, then nulled (when not null already), one at a time:
 * what a client must still read, showing what is left. Required fields are walked into but not changed.
 */
export function* variants(answer: UpstreamAnswer): Generator<Variant> {
  const required = new Set(answer.required);
  for (const site of sites(answer)) if (!required.has(site.pattern)) yield* changes(answer, site);
}

/** What a client must refuse: each required field removed, then nulled; then each `garbage` value in its place. */
export function* refusals(answer: UpstreamAnswer): Generator<Variant> {
  const required = new Set(answer.required);
  for (const site of sites(answer)) if (required.has(site.pattern)) yield* changes(answer, site);
  for (const g of answer.garbage ?? []) {
    const keys = g.path.split('.').map((k) => (/^\d+$/.test(k) ? Number(k) : k));
    yield {
      label: `${g.path} = ${JSON.stringify(g.value).slice(0, 40)} (${g.why})`,
      path: g.path,
      keys,
      change: 'garbage',
      value: g.value,
      body: changed(answer.body, keys, g.value),
    };
  }
}
