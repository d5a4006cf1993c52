// Two trace summaries side by side (`kernel-runner compare A B`, the editor's compare panel): per kernel, per
// rocTX range, busy time. Pure: no Node imports. `a` is the baseline; `ratio` is b / a (above 1: B took longer);
// a kernel or range on one side only has `null` on the other.
import { z } from './zod';
import { markerAttributionSchema } from './traceSummary';

const ns = z.number().nonnegative();
const count = z.number().int().nonnegative();

/** A change judged for noise (src/trace/significance.ts): interval of b / a - 1 and a verdict; as the digest's DigestChange. */
const changeSchema = z.object({
  aNs: z.number().nullable(),
  bNs: z.number().nullable(),
  ratio: z.number().nullable(),
  interval: z.tuple([z.number(), z.number()]).nullable(),
  confidence: z.number(),
  verdict: z.enum(['faster', 'slower', 'no-change', 'not-enough-runs']),
  text: z.string(),
  method: z.enum(['welch', 'dispatch-spread', 'none']),
});

const kernelSideSchema = z.object({ calls: count, totalNs: ns, avgNs: ns });

const kernelDeltaSchema = z.object({
  /** B's name when the kernel is in B, else A's. */
  name: z.string(),
  shortName: z.string(),
  /**
   * `exact`: the same full name on both sides; `short-name`: different full names (template arguments changed)
   * paired because each was the only unpaired kernel of that base name on its side; `a-only` vanished;
   * `b-only` is new.
   */
  match: z.enum(['exact', 'short-name', 'a-only', 'b-only']),
  /** A's full name when it differs from `name` (short-name pairs). */
  aName: z.string().nullable(),
  a: kernelSideSchema.nullable(),
  b: kernelSideSchema.nullable(),
  /** b.totalNs - a.totalNs, a missing side counting 0. */
  deltaTotalNs: z.number(),
  /** b.avgNs - a.avgNs; null unless both sides exist. */
  deltaAvgNs: z.number().nullable(),
  /** b.totalNs / a.totalNs; null unless both sides exist and a.totalNs > 0. */
  ratio: z.number().nullable(),
  /** The mean dispatch duration's change, judged from the per-dispatch spread (absent for a kernel of one side). */
  change: changeSchema.optional(),
});

const amountDeltaSchema = z.object({
  a: ns.nullable(),
  b: ns.nullable(),
  deltaNs: z.number().nullable(),
  ratio: z.number().nullable(),
});

const rangeSideSchema = z.object({
  calls: count,
  /** Time the range was open, summed over its calls. */
  totalNs: ns,
  /** GPU time of the kernels launched inside it. */
  kernelNs: ns,
  kernelCalls: count,
});

const rangeDeltaSchema = z.object({
  name: z.string(),
  a: rangeSideSchema.nullable(),
  b: rangeSideSchema.nullable(),
  deltaKernelNs: z.number(),
  /** b.kernelNs / a.kernelNs, null unless both exist and a.kernelNs > 0. */
  kernelRatio: z.number().nullable(),
  deltaTotalNs: z.number(),
  kernels: z.array(kernelDeltaSchema),
  /** The change of the range's kernel time, judged from its kernels' per-dispatch spread (both sides only). */
  change: changeSchema.optional(),
});

/** One side's roofline point of a kernel (see roofline.ts; HBM intensity against the FP32 roof). */
const rooflinePointSchema = z.object({
  dispatches: count,
  durationNs: z.number().nullable(),
  aiHbm: z.number().nullable(),
  gflopsPerSecond: z.number().nullable(),
  bound: z.enum(['memory', 'compute']).nullable(),
  percentOfRoof: z.number().nullable(),
});

const rooflineDeltaSchema = z.object({
  /** B's name when the kernel is in B, else A's; paired as `kernels` are (exact name, then a one-to-one base name). */
  name: z.string(),
  shortName: z.string(),
  /** A's full name when it differs from `name`. */
  aName: z.string().nullable(),
  a: rooflinePointSchema.nullable(),
  b: rooflinePointSchema.nullable(),
});

/** One rank of a multi-process profile on both sides, paired by rank number (TraceSummary.ranks). */
const rankDeltaSchema = z.object({
  rank: count,
  aPid: z.number().int().nullable(),
  bPid: z.number().int().nullable(),
  /** Each side's GPU index; null on a side without this rank. */
  aDevice: count.nullable(),
  bDevice: count.nullable(),
  kernel: amountDeltaSchema,
  compute: amountDeltaSchema,
  communication: amountDeltaSchema,
  busy: amountDeltaSchema,
  /** Whether the rank computed longest on each side (the whole run's slowest). */
  slowest: z.object({ a: z.boolean(), b: z.boolean() }),
});

/** One side's device-to-device copies of a GPU pair (TraceSummary.peerCopies). */
const peerCopySideSchema = z.object({
  calls: count,
  totalNs: ns,
  /** null: the trace records no sizes (CSV). */
  bytes: count.nullable(),
});

/**
 * One (source GPU, destination GPU) pair of the whole profile on both sides, paired by GPU index (by agent id when
 * an end is not a known GPU); a pair on one side only has `null` on the other.
 */
const peerCopyDeltaSchema = z.object({
  /** B's agents when the pair is in B, else A's. */
  srcAgentId: z.string(),
  dstAgentId: z.string(),
  srcGpu: count.nullable(),
  dstGpu: count.nullable(),
  a: peerCopySideSchema.nullable(),
  b: peerCopySideSchema.nullable(),
  /** b.totalNs - a.totalNs, a missing side counting 0 (as a kernel's). */
  deltaTotalNs: z.number(),
  /** b.totalNs / a.totalNs; null unless both sides exist and a.totalNs > 0. */
  ratio: z.number().nullable(),
});

export const traceComparisonSchema = z.object({
  a: z.object({ label: z.string(), calls: count, totalNs: ns, distinct: count }),
  b: z.object({ label: z.string(), calls: count, totalNs: ns, distinct: count }),
  /** Per kernel, biggest absolute change of total time first. */
  kernels: z.array(kernelDeltaSchema),
  kernelTime: amountDeltaSchema,
  /** The change of the whole kernel time, judged from the per-dispatch spread. */
  kernelTimeChange: changeSchema.optional(),
  /** Sum over GPU agents of busy time (union of kernel and copy intervals). */
  busy: amountDeltaSchema,
  wall: amountDeltaSchema,
  /** Per rocTX range when both sides have ranges, else null. */
  ranges: z.array(rangeDeltaSchema).nullable(),
  rangeAttribution: z.object({ a: markerAttributionSchema.nullable(), b: markerAttributionSchema.nullable() }),
  /** Per kernel, both sides' roofline points, when either side has counters (summary.roofline). */
  roofline: z.array(rooflineDeltaSchema).optional(),
  /** Per rank, when either side is a multi-process profile; then each side's imbalance line. */
  ranks: z.array(rankDeltaSchema).optional(),
  imbalance: z.object({ a: z.string().nullable(), b: z.string().nullable() }).optional(),
  /** Per GPU pair of device-to-device copies, biggest absolute change of time first, when either side has any. */
  peerCopies: z.array(peerCopyDeltaSchema).optional(),
});

export type KernelSide = z.infer<typeof kernelSideSchema>;
export type KernelDelta = z.infer<typeof kernelDeltaSchema>;
export type AmountDelta = z.infer<typeof amountDeltaSchema>;
export type RangeDelta = z.infer<typeof rangeDeltaSchema>;
export type RankDelta = z.infer<typeof rankDeltaSchema>;
export type PeerCopyDelta = z.infer<typeof peerCopyDeltaSchema>;
export type TraceComparison = z.infer<typeof traceComparisonSchema>;
export type RooflinePoint = z.infer<typeof rooflinePointSchema>;
export type RooflineDelta = z.infer<typeof rooflineDeltaSchema>;
