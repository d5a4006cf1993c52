// The trace summary shared by the trace toolkit (producer), the runner (ships it in ProfileResult.summary),
// the CLI (`summarize`) and the webview (renders it). Pure: no Node imports, the webview bundles this file.
//
// Units: every `...Ns` field is nanoseconds (rocprof's own unit); `...Bytes` are bytes; `percent` fields are
// 0..100; `busyFraction` values are 0..1. Timestamps (`startNs`, `endNs`) are the profiler's clock as written in
// the files (rocprofv3: CLOCK_BOOTTIME-like ns), not Unix time. A value the input does not carry is `null`.
import { pcHotspotsSchema } from './pcSampling';
import { z } from './zod';
import { rooflineSchemas } from './roofline';

export const TRACE_SUMMARY_VERSION = 1 as const;

export const markerAttributionSchema = z.enum(['correlation', 'gpu-overlap']);

// Built on first use (z.lazy below): the schemas are only needed to check a summary read from disk or the wire, and
// building them is a few ms of every start of the CLI and the extension that loads this module for its types.
function buildSchemas() {
  const ns = z.number().nonnegative();
  const nsOrNull = ns.nullable();
  const count = z.number().int().nonnegative();

  /** One distinct launch configuration of a kernel, with how many dispatches used it. */
  const launchConfigSchema = z.object({
    /** Grid size in work-items (rocprofv3 convention), [x, y, z]. */
    grid: z.tuple([count, count, count]).nullable(),
    /** Workgroup size in work-items, [x, y, z]. */
    workgroup: z.tuple([count, count, count]).nullable(),
    vgpr: count.nullable(),
    accumVgpr: count.nullable(),
    sgpr: count.nullable(),
    /** LDS (group segment) bytes per workgroup. */
    ldsBytes: count.nullable(),
    /** Scratch (private segment) bytes per work-item. */
    scratchBytes: count.nullable(),
    /** Dispatches that used exactly this configuration. */
    calls: count,
  });

  const kernelRowSchema = z.object({
    /** Full kernel name as the profiler wrote it (can be thousands of characters of templates). */
    name: z.string(),
    /** Readable base name: templates, arguments, return type and ` [clone .kd]` stripped. */
    shortName: z.string(),
    calls: count,
    totalNs: ns,
    avgNs: ns,
    minNs: nsOrNull,
    maxNs: nsOrNull,
    /** Sample standard deviation (n - 1; 0 for one call) of the dispatch durations, as rocprofv3's stats files. */
    stddevNs: nsOrNull,
    /** Share of total kernel time, 0..100. */
    percent: z.number().nonnegative(),
    /** Agents (see `agents[].id`) the kernel ran on. */
    agentIds: z.array(z.string()),
    /** Distinct launch configurations seen, most used first (capped; see `launchesTruncated`). */
    launches: z.array(launchConfigSchema),
    launchesTruncated: z.boolean(),
  });

  const memoryCopyRowSchema = z.object({
    /** `HOST_TO_DEVICE`, `DEVICE_TO_HOST`, `DEVICE_TO_DEVICE`, `HOST_TO_HOST` or the tool's own label. */
    direction: z.string(),
    calls: count,
    totalNs: ns,
    avgNs: ns,
    minNs: nsOrNull,
    maxNs: nsOrNull,
    /** Bytes moved, when the format records them (rocpd, legacy JSON args); CSV traces do not. */
    bytes: count.nullable(),
    /** bytes / totalNs in GB/s (1e9 bytes per second), when bytes are known. */
    bandwidthGBps: z.number().nonnegative().nullable(),
  });

  /**
   * Device-to-device copies from one GPU to another (source = destination: copies within one GPU), as the trace
   * names their two ends (rocprofv3's Source_Agent_Id / Destination_Agent_Id; rocpd's src/dst agent).
   */
  const peerCopySchema = z.object({
    /** Source and destination agents (`agents[].id`). */
    srcAgentId: z.string(),
    dstAgentId: z.string(),
    /** GPU indices: each agent's place among its host's GPU agents (as `ranks[].device`); null when not a known GPU. */
    srcGpu: z.number().int().nonnegative().nullable(),
    dstGpu: z.number().int().nonnegative().nullable(),
    calls: count,
    totalNs: ns,
    /** Bytes moved, when every copy's size is recorded (rocpd); CSV traces do not record them. */
    bytes: count.nullable(),
  });

  /** One API function (HIP runtime/compiler, HSA, RCCL ...) aggregated over its calls. */
  const apiRowSchema = z.object({
    name: z.string(),
    /** e.g. `HIP_RUNTIME_API_EXT`, `HSA_CORE_API`, `RCCL_API`; null when the source does not say. */
    domain: z.string().nullable(),
    calls: count,
    totalNs: ns,
    avgNs: ns,
    minNs: nsOrNull,
    maxNs: nsOrNull,
    /** Share of the total time of its API family (HIP, HSA, RCCL, ...), 0..100, as rocprofv3's per-domain stats. */
    percent: z.number().nonnegative(),
  });

  /** Kernels put in one rocTX range (see `markerRowSchema.kernels`), by full kernel name. */
  const markerKernelSchema = z.object({
    name: z.string(),
    calls: count,
    totalNs: ns,
  });

  /**
   * How dispatches were put in ranges: `correlation` follows each dispatch's Correlation_Id to the API call that
   * launched it and takes the innermost range open on that call's thread at that time; `gpu-overlap` (no API
   * trace) takes the innermost range open when the kernel started on the GPU, which misses kernels that ran after
   * their range closed (the usual case: launches are asynchronous).
   */

  /** A rocTX range (or instant marker, totalNs 0) aggregated by its message. */
  const markerRowSchema = z.object({
    name: z.string(),
    calls: count,
    totalNs: ns,
    avgNs: ns,
    minNs: nsOrNull,
    maxNs: nsOrNull,
    /** Kernels launched inside this range (innermost range only: a nested range keeps its own), by total time. */
    kernels: z.array(markerKernelSchema).default([]),
    /** How `kernels` were found; null when no kernel was put in any range (no kernel trace, or no ranges). */
    kernelAttribution: markerAttributionSchema.nullable().default(null),
  });

  /** Dispatches against ranges over the whole summary: how many landed in some range, and how they were put there. */
  const rangeAttributionSchema = z.object({
    by: markerAttributionSchema,
    dispatches: count,
    inRanges: count,
    /**
     * gpu-overlap only: of `inRanges`, the dispatches put in a range of another thread of the process because none
     * was open on their own Thread_Id (rocprofv3 gives a dispatch the thread that enqueued it, e.g. the HIP runtime's).
     */
    otherThread: count.optional(),
  });

  /** A window from a roctxProfilerPause to the next roctxProfilerResume (endNs null: never resumed). */
  const pausedWindowSchema = z.object({
    startNs: ns,
    endNs: ns.nullable(),
    /** Kernel dispatches that started on the GPU inside the window, per kernel, by total time. */
    kernels: z.array(markerKernelSchema),
  });

  const profilerControlSchema = z.object({
    calls: z.array(z.object({ name: z.string(), calls: count })),
    pausedWindows: z.array(pausedWindowSchema),
  });

  const agentSchema = z.object({
    /** Stable id used by kernels and timeline: `Agent <n>` with the number the profiler uses. */
    id: z.string(),
    type: z.enum(['GPU', 'CPU', 'unknown']),
    /** ISA name, e.g. `gfx942`, when a file says so. */
    name: z.string().nullable(),
    /** Marketing name, e.g. `AMD Instinct MI300X`. */
    productName: z.string().nullable(),
    cuCount: count.nullable(),
    /** Kernel dispatches on this agent. */
    kernelCalls: count,
    /** Sum of kernel durations on this agent (overlaps counted twice). */
    kernelNs: ns,
    /** Sum of copy durations attributed to this agent (the GPU end of the copy). */
    copyNs: ns,
    /** Union of kernel and copy intervals on this agent: time with at least one operation in flight. */
    busyNs: ns,
    /** busyNs / wall.spanNs, 0..100; null without a wall span. */
    busyPercent: z.number().nonnegative().nullable(),
    /** False when the bounded-memory interval merge had to estimate (see src/trace/busy.ts). */
    busyExact: z.boolean(),
  });

  const timelineSchema = z.object({
    startNs: ns,
    endNs: ns,
    bucketNs: ns,
    buckets: count,
    /** Per agent, the busy fraction (0..1) of each bucket; `busyFraction.length === buckets`. */
    agents: z.array(z.object({ agentId: z.string(), busyFraction: z.array(z.number().min(0).max(1)) })),
    /** False when some fractions were resampled from the bounded-memory histogram (very large traces). */
    exact: z.boolean(),
  });

  const traceSourceSchema = z.object({
    /** Path relative to the summarised path (inside the zip for zips); the file name for a single file. */
    path: z.string(),
    /** `rocprofv3-csv`, `rocpd`, `rocprof-v1-stats`, `rocprof-v1-json`, ... */
    format: z.string(),
    /** What the file holds: `kernel_trace`, `memory_copy_trace`, `hip_api_trace`, `kernel_stats`, `database` ... */
    kind: z.string(),
    /** Header variant detected: `rocm-7.0`, `rocm-6.3`, `rocm-6.2`, `rocpd-convert`, `rocpd-schema-3`, `v1` ... */
    variant: z.string(),
    /** Data rows read from it. */
    rows: count,
    /** Process id from a `<pid>_` prefix or the file itself, when known. */
    pid: z.number().int().nullable(),
    /** Host from a `<hostname>/` folder or the file itself, when known. */
    host: z.string().nullable(),
  });

  const skippedSourceSchema = z.object({
    path: z.string(),
    reason: z.string(),
  });

  /** A comparison of our aggregate against the tool's own (stats CSV, rocpd view) for the same run. */
  const traceProcessSchema = z.object({
    pid: z.number().int(),
    host: z.string().nullable(),
    /** Command line, when the format records it (rocpd). */
    command: z.string().nullable(),
  });

  const crossCheckSchema = z.object({
    /** What was compared, e.g. `kernel totals vs results.stats.csv`. */
    what: z.string(),
    compared: count,
    mismatches: z.array(z.string()),
  });

  /** One hardware counter of one kernel over its dispatches (rocprofv3 `--pmc`, counter_collection.csv). */
  const counterValueSchema = z.object({
    /** Counter name as collected, e.g. `SQ_WAVES`, `GRBM_GUI_ACTIVE`. */
    name: z.string(),
    /** Values of it that were read: one a dispatch (rocprofv3 writes one row per dispatch and counter). */
    dispatches: count,
    mean: z.number(),
    min: z.number(),
    max: z.number(),
  });

  const kernelCountersSchema = z.object({
    /** Full kernel name (as `kernels[].name`). */
    kernel: z.string(),
    shortName: z.string(),
    /** Dispatches of the kernel seen in the counter file. */
    dispatches: count,
    counters: z.array(counterValueSchema),
  });

  /** A row that a profiler lists with the kernels but is not one (`<barrier packet>`, `Unknown command type`). */
  const pseudoRowSchema = z.object({
    name: z.string(),
    calls: count,
    totalNs: ns,
  });

  /**
   * What a kernel does for a multi-process job: `communication` (collectives and point-to-point: RCCL's
   * `ncclDevKernel_*` / `ncclKernel_*`, rocSHMEM's, a submission's own all-to-all or all-reduce, by name; see
   * src/trace/kernelRole.ts) or `compute` (every other kernel).
   */
  const kernelRoleSchema = z.enum(['compute', 'communication']);

  /** One kernel of one rank, by total time. */
  const rankKernelSchema = z.object({
    name: z.string(),
    shortName: z.string(),
    role: kernelRoleSchema,
    calls: count,
    totalNs: ns,
    /** Share of the rank's kernel time, 0..100. */
    percent: z.number().nonnegative(),
  });

  /** Copies of one rank in one direction (`DEVICE_TO_DEVICE` is peer-to-peer or on-device). */
  const rankCopySchema = z.object({
    direction: z.string(),
    calls: count,
    totalNs: ns,
    bytes: count.nullable(),
  });

  /** One benchmark case (a rocTX range, by its message) of one rank: its kernels' time, compute and communication. */
  const rankCaseSchema = z.object({
    name: z.string(),
    /** Times the range was entered. */
    calls: count,
    /** Sum of the range's host durations. */
    rangeNs: ns,
    /** Kernels put in the range (see `markers[].kernels`): all, compute, communication. */
    kernelNs: ns,
    computeNs: ns,
    communicationNs: ns,
  });

  /**
   * One profiled process of a multi-process job (a rank: one process and the GPU it used). Its numbers are those a
   * one-process read of its own files gives (busy time is its GPU's: two processes on one GPU share it, see warnings).
   */
  const rankSchema = z.object({
    /** The rank (the runner's manifest, else the order of the GPUs the processes used); null: no GPU work (a launcher). */
    rank: z.number().int().nonnegative().nullable(),
    pid: z.number().int().nullable(),
    /** Parent pid, from the runner's manifest. */
    ppid: z.number().int().nullable(),
    host: z.string().nullable(),
    /** Agents (`agents[].id`) its kernels ran on. */
    agentIds: z.array(z.string()),
    /** GPU index (the manifest's, else the agent's place among the GPU agents); null without GPU work. */
    device: z.number().int().nonnegative().nullable(),
    /** Its files (`sources[].path`). */
    outputs: z.array(z.string()),
    kernelCalls: count,
    kernelNs: ns,
    computeNs: ns,
    communicationNs: ns,
    /** communicationNs / kernelNs, 0..100 (0 without kernels). */
    communicationPercent: z.number().nonnegative(),
    copyNs: ns,
    /** Union of kernel and copy intervals on its GPU(s). */
    busyNs: ns,
    /**
     * busyNs / the whole profile's wall span (`wall.spanNs`: one clock for every rank) times its GPUs (`agentIds`),
     * 0..100.
     */
    busyPercent: z.number().nonnegative().nullable(),
    /** Kernels by total time (the top few; `kernelCalls` / `kernelNs` cover all). */
    topKernels: z.array(rankKernelSchema),
    copies: z.array(rankCopySchema),
    /** Its device-to-device copies per (source GPU, destination GPU), in source then destination order; absent: none. */
    peerCopies: z.array(peerCopySchema).optional(),
    /**
     * Its GPU-to-GPU copies out: those of `peerCopies` from one of its GPUs (`agentIds`) to another GPU, together
     * (bytes when every one has them); absent: none.
     */
    peerCopiesOut: z.object({ calls: count, totalNs: ns, bytes: count.nullable() }).optional(),
    cases: z.array(rankCaseSchema),
    /**
     * When counters were collected: this rank's roofline points (per kernel and rocTX range), as a one-process read
     * of its own files (every pass's) gives them: its process's dispatches as the counters of every pass joined it
     * (the manifest's rank, else its devices, else pid order with a warning); a merged rocpd database's per pid.
     * The summary's `roofline` is over all processes.
     */
    roofline: rooflineSchemas().rooflineSchema.optional(),
  });

  /** The slowest rank of one benchmark case (or of the whole run: `name` null), by its compute time. */
  const imbalanceCaseSchema = z.object({
    name: z.string().nullable(),
    slowestRank: z.number().int().nonnegative(),
    slowestNs: ns,
    fastestRank: z.number().int().nonnegative(),
    fastestNs: ns,
    medianNs: ns,
    /** (slowest - median) / median, 0..100+; 0 when the median is 0. */
    overMedianPercent: z.number().nonnegative(),
  });

  /**
   * A multi-process profile read per rank. Imbalance is measured on compute time (kernels less communication): a
   * rank that computes longer makes the others wait inside the collectives, which lengthens their communication.
   */
  const ranksSchema = z.object({
    /** The one line a person reads first, e.g. `rank 3 (GPU 3) is the slowest in 4 of 5 cases: ...`. */
    imbalanceLine: z.string(),
    /** Where the ranks came from: the runner's `kernel-runner-processes.json`, or file names and agents. */
    from: z.enum(['manifest', 'files']),
    /** Ranks in rank order, then the processes without GPU work. */
    processes: z.array(rankSchema),
    /** The whole run first (`name` null), then each case in which more than one rank ran kernels. */
    imbalance: z.array(imbalanceCaseSchema),
  });

  const traceSummarySchema = z.object({
    version: z.literal(TRACE_SUMMARY_VERSION),
    kernels: z.array(kernelRowSchema),
    kernelTotals: z.object({ calls: count, totalNs: ns, distinct: count }),
    memoryCopies: z.array(memoryCopyRowSchema),
    /**
     * The GPU-to-GPU matrix: `DEVICE_TO_DEVICE` copies per (source, destination) agent pair, in source then
     * destination order, when the trace names both ends of any (absent: none).
     */
    peerCopies: z.array(peerCopySchema).optional(),
    /** Top API functions by total time (capped, see `apiTotals` for the whole). */
    api: z.array(apiRowSchema),
    apiTotals: z.object({ calls: count, totalNs: ns, distinct: count }),
    markers: z.array(markerRowSchema),
    /** Null when no kernel was put in a range (no ranges, or no kernel trace). */
    rangeAttribution: rangeAttributionSchema.nullable().default(null),
    agents: z.array(agentSchema),
    processes: z.array(traceProcessSchema),
    /**
     * First start to last end of GPU work (kernels and copies); null when there is no timed GPU work. The numbers
     * are doubles: past 2^53 ns (a host up ~104 days) one may be off by a few ns, so then `startNsExact` /
     * `endNsExact` give the exact value as decimal digits (absent: the number is exact). `spanNs` is always exact.
     */
    wall: z
      .object({
        startNs: ns,
        endNs: ns,
        spanNs: ns,
        startNsExact: z
          .string()
          .regex(/^-?\d+$/)
          .optional(),
        endNsExact: z
          .string()
          .regex(/^-?\d+$/)
          .optional(),
      })
      .nullable(),
    timeline: timelineSchema.nullable(),
    sources: z.array(traceSourceSchema),
    skipped: z.array(skippedSourceSchema),
    checks: z.array(crossCheckSchema),
    /** Human-readable notes: approximations, inconsistencies, fallbacks taken, rows skipped. */
    warnings: z.array(z.string()),
    /** Per kernel, its hardware counters (mean/min/max over dispatches), when a counter collection was read. */
    counters: z.array(kernelCountersSchema).optional(),
    /** Rows listed as kernels by the profiler that are not kernels; not in `kernels` or `kernelTotals`. */
    pseudoRows: z.array(pseudoRowSchema).optional(),
    /**
     * 'copies-only' when kernel times come from kernel_stats files alone (totals, no intervals): the agents'
     * busyNs then counts copies only and the kernel part is unknown. Absent when busy time covers the kernels.
     */
    busyCovers: z.literal('copies-only').optional(),
    /** roctxProfilerPause / roctxProfilerResume calls (profiler control, not ranges) and the paused windows. */
    profilerControl: profilerControlSchema.optional(),
    /** Where inside each kernel its PC samples fell, when the profile has PC samples (docs/pc-sampling.md). */
    hotspots: pcHotspotsSchema.optional(),
    /**
     * A multi-pass counter run (rocprofv3's pass_1/, pass_2/, ...: the program once per counter group): kernels,
     * copies, API calls and ranges are from `timingsFrom`, counters from the passes in `counters`, joined per dispatch.
     */
    passes: z.object({ count, timingsFrom: z.string(), counters: z.array(z.string()) }).optional(),
    /** Roofline points per kernel and per rocTX range, when hardware counters were read (see roofline.ts). */
    roofline: rooflineSchemas().rooflineSchema.optional(),
    /** rocprof-compute's System Speed-of-Light (block 2) per kernel and per rocTX range, from the same counters. */
    speedOfLight: rooflineSchemas().speedOfLightSchema.optional(),
    /** Per rank (process and GPU), when the profile holds more than one profiled process (docs: profiling). */
    ranks: ranksSchema.optional(),
  });
  return {
    pausedWindowSchema,
    profilerControlSchema,
    launchConfigSchema,
    kernelRowSchema,
    memoryCopyRowSchema,
    peerCopySchema,
    apiRowSchema,
    markerKernelSchema,
    markerRowSchema,
    rangeAttributionSchema,
    agentSchema,
    timelineSchema,
    traceSourceSchema,
    skippedSourceSchema,
    traceProcessSchema,
    crossCheckSchema,
    counterValueSchema,
    kernelCountersSchema,
    pseudoRowSchema,
    kernelRoleSchema,
    rankKernelSchema,
    rankCopySchema,
    rankCaseSchema,
    rankSchema,
    imbalanceCaseSchema,
    ranksSchema,
    traceSummarySchema,
  };
}

type Schemas = ReturnType<typeof buildSchemas>;
let built: Schemas | undefined;

/** A whole summary, as `kernel-runner summarize --json` prints it and ProfileResult.summary carries it. */
export const traceSummarySchema = z.lazy(() => (built ??= buildSchemas()).traceSummarySchema);

export type LaunchConfig = z.infer<Schemas['launchConfigSchema']>;
export type KernelRow = z.infer<Schemas['kernelRowSchema']>;
export type MemoryCopyRow = z.infer<Schemas['memoryCopyRowSchema']>;
export type PeerCopy = z.infer<Schemas['peerCopySchema']>;
export type ApiRow = z.infer<Schemas['apiRowSchema']>;
export type MarkerRow = z.infer<Schemas['markerRowSchema']>;
export type MarkerKernel = z.infer<Schemas['markerKernelSchema']>;
export type MarkerAttribution = z.infer<typeof markerAttributionSchema>;
export type TraceAgent = z.infer<Schemas['agentSchema']>;
export type TraceTimeline = z.infer<Schemas['timelineSchema']>;
export type TraceSource = z.infer<Schemas['traceSourceSchema']>;
export type SkippedSource = z.infer<Schemas['skippedSourceSchema']>;
export type TraceProcess = z.infer<Schemas['traceProcessSchema']>;
export type CrossCheck = z.infer<Schemas['crossCheckSchema']>;
export type KernelCounters = z.infer<Schemas['kernelCountersSchema']>;
export type PseudoRow = z.infer<Schemas['pseudoRowSchema']>;
export type ProfilerControl = z.infer<Schemas['profilerControlSchema']>;
export type TraceSummary = z.infer<Schemas['traceSummarySchema']>;
export type KernelRole = z.infer<Schemas['kernelRoleSchema']>;
export type RankKernel = z.infer<Schemas['rankKernelSchema']>;
export type RankCase = z.infer<Schemas['rankCaseSchema']>;
export type TraceRank = z.infer<Schemas['rankSchema']>;
export type ImbalanceCase = z.infer<Schemas['imbalanceCaseSchema']>;
export type TraceRanks = z.infer<Schemas['ranksSchema']>;
