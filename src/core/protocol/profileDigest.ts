// The profile digest: one small JSON document an agent (or a person) acts on, built from a TraceSummary by
// src/trace/digest. Its contract is the JSON Schema docs/digest.schema.json (tests validate every digest they make
// against it); these types are the same shape for TypeScript. Pure types: no runtime code.
//
// Units as in the summary: `...Ns` nanoseconds, `...Bytes` bytes, `...Percent` 0..100. Numbers are as short as
// their precision (src/trace/digest/precision.ts): durations in whole ns, shares to 0.1 %, other fractions to 4
// significant digits; the summary keeps the exact values.

export const PROFILE_DIGEST_SCHEMA_VERSION = 1 as const;

/** What a cut list ends with: the entries left out and their share of the list's total. */
export interface DigestMore {
  more: number;
  /** Share of the whole (kernel time, the case's kernel time, API time ...) the left-out entries had; null when unknown. */
  sharePercent: number | null;
  /** `+N more (share x%)`. */
  text: string;
}

export type DigestList<T> = Array<T | DigestMore>;

export type DigestVerdict = 'faster' | 'slower' | 'no-change' | 'not-enough-runs';

/** A change B - A of one timing, with its confidence interval and what it means (src/trace/significance.ts). */
export interface DigestChange {
  aNs: number | null;
  bNs: number | null;
  /** b / a; null unless both sides exist and a > 0. */
  ratio: number | null;
  /** Confidence interval of b / a - 1 (relative change); null when it cannot be told. */
  interval: [number, number] | null;
  confidence: number;
  verdict: DigestVerdict;
  /** The verdict in words: `faster`, `slower`, `no change detected`, `not enough runs to tell`. */
  text: string;
  /** What the test used: `welch` (evaluator's runs), `dispatch-spread` (per-dispatch durations), or `none`. */
  method: 'welch' | 'dispatch-spread' | 'none';
}

interface DigestGpu {
  agentId: string;
  arch: string | null;
  product: string | null;
  cuCount: number | null;
}

export interface DigestProvenance {
  gpus: DigestGpu[];
  profiler: {
    /** `rocprofv3` (CSV or rocpd outputs), `rocprof` (legacy v1), or null when no file says. */
    tool: string | null;
    formats: string[];
    /** Header layouts detected (`rocm-7.0`, `rocm-6.3`, `rocpd-schema-3` ...). */
    layouts: string[];
    /** The ROCm release the CSV header layout belongs to, when a layout names one (the files carry no version string). */
    rocmFromLayout: string | null;
  };
  /** The summarised file or folder (its base name) and the sha256 of its bytes (null for a folder). */
  trace: { file: string; sha256: string | null };
  /** The submitted file, when given. */
  submission: { file: string; sha256: string } | null;
  /** The run's configuration (leaderboard, GPU, mode, server ...) as canonical JSON, and its sha256, when given. */
  configuration: { sha256: string; values: Record<string, string> } | null;
}

export interface DigestEvaluator {
  tests: { passed: number; failed: number; failures: string[] } | null;
  /** The evaluator's own per-case timings (what ranks), kept apart from the profiler's kernel durations. */
  benchmarks: Array<{
    spec: string;
    runs: number | null;
    meanNs: number | null;
    stdNs: number | null;
    bestNs: number | null;
    worstNs: number | null;
  }>;
}

export interface DigestOccupancy {
  wavesPerSimd: number;
  maxWavesPerSimd: number;
  limitedBy: string[];
  /** `code-object` (its metadata) or `trace` (the registers and LDS the profiler recorded). */
  from: 'code-object' | 'trace';
}

export interface DigestKernel {
  /** `k1`, `k2` ... in order of total time: what cases refer to. */
  id: string;
  shortName: string;
  /** The full name when it differs from shortName and is at most 240 characters (names of templates run to thousands). */
  name: string | null;
  calls: number;
  totalNs: number;
  avgNs: number;
  minNs: number | null;
  maxNs: number | null;
  stddevNs: number | null;
  /** Share of the whole run's kernel time. */
  percent: number;
  /** The most used launch configuration, and how many distinct ones there were. */
  launch: {
    grid: [number, number, number] | null;
    workgroup: [number, number, number] | null;
    calls: number;
    configurations: number;
  } | null;
  resources: {
    vgpr: number | null;
    accumVgpr: number | null;
    sgpr: number | null;
    ldsBytes: number | null;
    scratchBytes: number | null;
    vgprSpills: number | null;
    sgprSpills: number | null;
    from: 'trace' | 'code-object';
  } | null;
  occupancy: DigestOccupancy | null;
  /** Against the baseline (`--baseline`): the change of the mean dispatch duration. */
  change?: DigestChange;
}

export interface DigestCaseKernel {
  /** The DigestKernel id, null when that kernel is not in the (cut) kernel list. */
  kernel: string | null;
  shortName: string;
  calls: number;
  totalNs: number;
  /** totalNs / calls. */
  meanNs: number;
  /** Share of the case's kernel time. */
  sharePercent: number;
  change?: DigestChange;
}

/** One benchmark case: a rocTX range (GPU MODE's evaluators open one per case). */
export interface DigestCase {
  name: string;
  calls: number;
  /** Time the range was open, summed over its calls. */
  rangeNs: number;
  kernelNs: number;
  kernelCalls: number;
  kernels: DigestList<DigestCaseKernel>;
  /** Against the baseline: the change of the case's kernel time (and of the evaluator's timing, when both results are given). */
  change?: DigestChange;
  evaluatorChange?: DigestChange;
}

export interface DigestRun {
  /** First start to last end of GPU work. */
  wallNs: number | null;
  kernels: { calls: number; totalNs: number; distinct: number };
  gpus: Array<{
    agentId: string;
    kernelCalls: number;
    kernelNs: number;
    copyNs: number;
    busyNs: number;
    busyPercent: number | null;
    idleNs: number | null;
    exact: boolean;
  }>;
  /** The busy percent of the GPU with the most kernel time. */
  gpuBusyPercent: number | null;
  /** Idle stretches of that GPU, at the timeline's bucket resolution. */
  idleGaps: {
    bucketNs: number;
    count: number;
    totalNs: number;
    longest: DigestList<{ offsetNs: number; durationNs: number }>;
  } | null;
  copies: DigestList<{
    direction: string;
    calls: number;
    totalNs: number;
    bytes: number | null;
    bandwidthGBps: number | null;
  }>;
  api: {
    calls: number;
    totalNs: number;
    distinct: number;
    top: DigestList<{
      name: string;
      domain: string | null;
      calls: number;
      totalNs: number;
      avgNs: number;
      percent: number;
    }>;
  };
}

export interface DigestCounters {
  kernel: string;
  dispatches: number;
  counters: DigestList<{ name: string; mean: number; min: number; max: number }>;
}

/**
 * The roofline point of a kernel and what bounds it. Filled when the summary carries roofline data (another
 * branch adds it to the summary); null until then.
 */
interface DigestRoofline {
  kernels: Array<{
    kernel: string;
    arithmeticIntensity: number | null;
    achievedTflops: number | null;
    achievedTBps: number | null;
    bound: string | null;
  }>;
}

/**
 * PC-sampling hot spots per sampled kernel (null when the trace has no PC samples): its share of the samples, the
 * stall reasons (stochastic sampling), the hottest source lines and instructions. Percentages are of the kernel's
 * samples except the kernel's own, which is of all samples.
 */
export interface DigestHotspotKernel {
  kernel: string;
  samples: number;
  percent: number;
  /** Stochastic only: samples whose wave issued its instruction; null for host-trap. */
  issuedPercent: number | null;
  stalls: DigestList<{ reason: string; percent: number }>;
  lines: DigestList<{ file: string; line: number; percent: number }>;
  /** Samples without a `file:line` (code built without line info). */
  withoutLinePercent: number;
  instructions: DigestList<{ text: string; line: string | null; percent: number }>;
}

export interface DigestHotspots {
  /** host_trap, stochastic, or mixed. */
  method: string;
  samples: number;
  /** The sampling interval with its unit (`1048576 cycles`), when known. */
  interval: string | null;
  kernels: DigestList<DigestHotspotKernel>;
  /**
   * A multi-process profile: the slowest rank's own hot spots (the rank `ranks.imbalance` names), as a one-process
   * read of its files gives them; kernel percentages are of its samples. Absent otherwise.
   */
  slowestRank?: DigestRankHotspots;
}

export interface DigestRankHotspots {
  rank: number;
  pid: number | null;
  samples: number;
  kernels: DigestList<DigestHotspotKernel>;
}

export interface DigestWarning {
  kind: 'coverage' | 'truncation' | 'skipped' | 'summary' | 'check' | 'digest';
  text: string;
}

export interface DigestLink {
  /** `trace` (the archive), `download` (its URL on the runner), `perfetto`, `summary` ... */
  rel: string;
  href: string;
}

export interface DigestBaseline {
  trace: { file: string; sha256: string | null };
  kernelTime: DigestChange;
  /** Kernels of one side only. */
  onlyInBaseline: string[];
  onlyInThis: string[];
  /**
   * The whole profile's GPU-to-GPU copy pairs on both sides (paired by GPU index), biggest change of time first;
   * absent when neither side copied between GPUs.
   */
  peerCopies?: DigestList<DigestPeerCopyChange>;
}

/** One GPU pair's device-to-device copies in the baseline (`a`) and this profile (`b`); null: none on that side. */
export interface DigestPeerCopyChange {
  /** `GPU 0` (the agent id when it is not a known GPU). */
  from: string;
  to: string;
  a: DigestPeerCopySide | null;
  b: DigestPeerCopySide | null;
  /** b.totalNs - a.totalNs, a missing side counting 0. */
  deltaNs: number;
  /** b.totalNs / a.totalNs; null unless both sides exist and a.totalNs > 0. */
  ratio: number | null;
}

interface DigestPeerCopySide {
  calls: number;
  totalNs: number;
  /** null: the trace records no sizes (CSV). */
  bytes: number | null;
}

/** One rank of a multi-process profile (TraceSummary.ranks, cut to what an agent needs). */
export interface DigestRank {
  /** null: a process without GPU work (a launcher). */
  rank: number | null;
  pid: number | null;
  device: number | null;
  busyNs: number;
  kernelNs: number;
  computeNs: number;
  communicationNs: number;
  communicationPercent: number;
  /** Its kernel with the most time (short name). */
  topKernel: string | null;
  /** Cases in which it computed longest. */
  slowestCases: number;
}

/** One rank's device-to-device copies from one GPU to another (TraceSummary.ranks[].peerCopies). */
export interface DigestPeerCopy {
  rank: number | null;
  /** `GPU 0` (the agent id when it is not a known GPU). */
  from: string;
  to: string;
  calls: number;
  totalNs: number;
  /** null: the trace records no sizes (CSV). */
  bytes: number | null;
}

export interface DigestRanks {
  /** The load-imbalance line, to read first. */
  imbalance: string;
  from: 'manifest' | 'files';
  ranks: DigestList<DigestRank>;
  /** The ranks' GPU-to-GPU copy pairs, longest first; absent when no rank copied between GPUs. */
  peerCopies?: DigestList<DigestPeerCopy>;
}

export interface ProfileDigest {
  schemaVersion: typeof PROFILE_DIGEST_SCHEMA_VERSION;
  kind: 'kernel-runner/profile-digest';
  provenance: DigestProvenance;
  evaluator: DigestEvaluator | null;
  /** Per benchmark case (rocTX range); empty when the trace has no ranges. */
  cases: DigestList<DigestCase>;
  /** The whole run's kernels by total time. */
  kernels: DigestList<DigestKernel>;
  run: DigestRun;
  counters: DigestList<DigestCounters> | null;
  roofline: DigestRoofline | null;
  hotspots: DigestHotspots | null;
  baseline: DigestBaseline | null;
  /** Per rank, for a multi-process profile only. */
  ranks?: DigestRanks;
  warnings: DigestList<DigestWarning>;
  links: DigestLink[];
  budget: { maxBytes: number; level: number; entriesLeftOut: number; exceeded: boolean };
}
