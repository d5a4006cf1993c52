// Two trace summaries side by side (`kernel-runner compare A B`, the editor's compare panel): per kernel, per
// rocTX range, busy time. Pure: no Node imports. `a` is the baseline; `ratio` is b / a (above 1: B took longer);
// a kernel or range on one side only has `null` on the other.
import { z } from './zod';
import { markerAttributionSchema } from './traceSummary';

const ns = z.number().nonnegative();
const count = z.number().int().nonnegative();

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
});

export const traceComparisonSchema = z.object({
  a: z.object({ label: z.string(), calls: count, totalNs: ns, distinct: count }),
  b: z.object({ label: z.string(), calls: count, totalNs: ns, distinct: count }),
  /** Per kernel, biggest absolute change of total time first. */
  kernels: z.array(kernelDeltaSchema),
  kernelTime: amountDeltaSchema,
  /** Sum over GPU agents of busy time (union of kernel and copy intervals). */
  busy: amountDeltaSchema,
  wall: amountDeltaSchema,
  /** Per rocTX range when both sides have ranges, else null. */
  ranges: z.array(rangeDeltaSchema).nullable(),
  rangeAttribution: z.object({ a: markerAttributionSchema.nullable(), b: markerAttributionSchema.nullable() }),
});

export type KernelSide = z.infer<typeof kernelSideSchema>;
export type KernelDelta = z.infer<typeof kernelDeltaSchema>;
export type AmountDelta = z.infer<typeof amountDeltaSchema>;
export type RangeDelta = z.infer<typeof rangeDeltaSchema>;
export type TraceComparison = z.infer<typeof traceComparisonSchema>;
