// Messages between the results webview and the extension host, one definition for both sides (GitLens style:
// each message is a typed descriptor with `is()`). Pure types and constants: no vscode, no DOM, no Node.
// Flow: the webview posts `ready`; the host answers with `state`; buttons post commands.
import type { TraceSummary } from '../core/protocol/traceSummary';
import type { BenchmarkCase, TestCase } from '../core/submission/resultMaps';

export const RESULTS_VIEW_TYPE = 'kernelRunner.results';

// ---------------------------------------------------------------------------------------------------------------
// The view model the host builds from a runner result (src/extension/resultModel.ts) or an opened trace.

/** A test case as the evaluator's result map says (core's reader: src/core/submission/resultMaps.ts). */
export type TestCaseView = TestCase;

/** A benchmark case with its timings (only cases with a mean are shown). */
export type BenchmarkCaseView = Omit<BenchmarkCase, 'failed' | 'error'>;

export interface RunSectionView {
  /** `test`, `benchmark`, `leaderboard`, `profile.0` ... */
  key: string;
  /** The service's secret-seed copy of the run (GPU MODE leaderboard submissions): not shown on the leaderboard. */
  secret?: boolean;
  /** The score the service gave this run (seconds), when it gave one. */
  scoreS?: number;
  /** Background submissions: the service reports no command or exit code, only passed/failed and timings. */
  noProcessInfo?: boolean;
  success: boolean;
  passed: boolean;
  exitCode: number;
  /** What the evaluator's exit code means (112 validation failed, ...). */
  exitMeaning?: string;
  durationS: number;
  command: string;
  check?: string;
  tests: TestCaseView[];
  benchmarks: BenchmarkCaseView[];
  compile?: { success: boolean; command: string; exitCode: number; stderrTail: string };
  /** Last lines of stderr when the run failed. */
  stderrTail?: string;
}

type PerfettoAvailability = 'available' | 'too-large' | 'none';

/** A code object of the profile's trace (kernelbot ships `_code_object<N>.o` in the zip). */
interface IsaCodeObjectView {
  file: string;
  bundleEntry: string | null;
  processor: string | null;
}

/** A kernel row of the "Kernels (ISA)" section: a code object kernel, with the profiled kernels it is. */
export interface IsaKernelView {
  /** Index into IsaView.codeObjects, and the kernel's index in that code object (for OpenDisassemblyCommand). */
  codeObject: number;
  kernel: number;
  name: string;
  /** The profiled kernel names (the trace's) that are this kernel; empty when it was not profiled. */
  profiledNames: string[];
  vgprCount: number | null;
  agprCount: number | null;
  sgprCount: number | null;
  ldsBytes: number | null;
  scratchBytes: number | null;
  wavesPerSimd: number | null;
  maxWavesPerSimd: number | null;
  /** `LDS (workgroup 256)`, `VGPRs`, ... or '' when nothing holds it below the maximum. */
  limitedBy: string;
}

export interface IsaView {
  /** `ready`: read; `none`: the trace has no code objects; `remote`: the trace must be downloaded first; `error`. */
  status: 'ready' | 'none' | 'remote' | 'error';
  codeObjects: IsaCodeObjectView[];
  kernels: IsaKernelView[];
  /** Profiled kernels that no code object has. */
  unmatched: string[];
  note?: string;
}

export interface ProfileView {
  key: string;
  summary?: TraceSummary;
  /** The runner's artifact URL (embedded / self-hosted runners). */
  downloadUrl?: string;
  /** A zip saved locally (GPU MODE results carry the trace inline), or the opened trace's path. */
  localPath?: string;
  traceBytes?: number;
  perfetto: PerfettoAvailability;
  /** An Nsight Compute report (GPU MODE's NVIDIA GPUs): no trace summary nor Perfetto, opened with Nsight Compute. */
  nsightCompute?: boolean;
  note?: string;
  /** The "Kernels (ISA)" section: the trace's code objects (src/extension/isa.ts fills it in). */
  isa?: IsaView;
}

/** A run's stdout or stderr as the result carried it (no live output: GPU MODE), profiler noise taken out. */
export interface OutputView {
  key: string;
  stream: 'stdout' | 'stderr';
  secret?: boolean;
  text: string;
  hiddenNoiseLines: number;
}

export interface RankedScoreView {
  /** Seconds (upstream's unit). */
  seconds: number;
  /** "123.457 µs". */
  text: string;
  /** `run`: the service's own score; `computed`: from the ranked run's timings. */
  source: 'run' | 'computed';
  rankingBy: string;
  /** Set when the service does not rank it, saying why ("secret validation failed"). */
  notRanked?: string;
}

export interface ResultView {
  title: string;
  fileName: string;
  leaderboard: string;
  gpu: string;
  mode: string;
  target: string;
  /** ISO time the run started. */
  startedAt: string;
  elapsedS: number;
  outcome: 'success' | 'failure' | 'error' | 'cancelled' | 'trace';
  error?: string;
  system?: Record<string, string>;
  runs: RunSectionView[];
  profiles: ProfileView[];
  /** Plain-text reports (decoded `benchmark.<i>.report` of profile runs): shown preformatted. */
  reports: string[];
  hiddenNoiseLines: number;
  /** The result's markdown `reports` (rendered with raw HTML disabled, then sanitised). */
  markdownReports?: string[];
  rankedScore?: RankedScoreView;
  outputs?: OutputView[];
  /** GPU MODE background submissions: the submission id and the job's final status in words. */
  submissionId?: number;
  jobStatus?: { status: string; label: string; explanation: string };
  /** Short remarks shown under the header (e.g. that GPU MODE keeps no output for background submissions). */
  notes?: string[];
}

// ---------------------------------------------------------------------------------------------------------------
// Messages

export interface MessageDescriptor<M extends string, P> {
  readonly method: M;
  is(msg: unknown): msg is { method: M; params: P };
  make(params: P): { method: M; params: P };
}

/** A message of the host <-> webview protocols (this one and compareProtocol.ts): its method, with params an object. */
export function message<M extends string, P>(method: M): MessageDescriptor<M, P> {
  return {
    method,
    is: (msg: unknown): msg is { method: M; params: P } => {
      const m = msg as { method?: unknown; params?: unknown } | null;
      return (
        typeof m === 'object' && m !== null && m.method === method && typeof m.params === 'object' && m.params !== null
      );
    },
    make: (params: P) => ({ method, params }),
  };
}

// webview -> host (commands)
export const ReadyCommand = message<'ready', Record<string, never>>('ready');
export const DownloadTraceCommand = message<'downloadTrace', { profileKey: string }>('downloadTrace');
export const OpenPerfettoCommand = message<'openPerfetto', { profileKey: string }>('openPerfetto');
export const ShowOutputCommand = message<'showOutput', Record<string, never>>('showOutput');
export const OpenDisassemblyCommand = message<
  'openDisassembly',
  { profileKey: string; codeObject: number; kernel: number }
>('openDisassembly');
export const LoadIsaCommand = message<'loadIsa', { profileKey: string }>('loadIsa');

// host -> webview (notifications)
export const StateNotification = message<'state', { view: ResultView }>('state');
export const NoticeNotification = message<'notice', { text: string; level: 'info' | 'error' }>('notice');

export type WebviewToHost =
  | ReturnType<typeof ReadyCommand.make>
  | ReturnType<typeof DownloadTraceCommand.make>
  | ReturnType<typeof OpenPerfettoCommand.make>
  | ReturnType<typeof ShowOutputCommand.make>
  | ReturnType<typeof OpenDisassemblyCommand.make>
  | ReturnType<typeof LoadIsaCommand.make>;

export type HostToWebview = ReturnType<typeof StateNotification.make> | ReturnType<typeof NoticeNotification.make>;

/** What the webview keeps with setState, so a restored panel (serializer) can redraw at once. */
export interface PersistedState {
  view: ResultView;
}
