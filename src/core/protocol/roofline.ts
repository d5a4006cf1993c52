// Roofline and speed-of-light per kernel (and per rocTX range), derived from hardware counters as rocprof-compute
// computes them (spec: shared/docs/roofline.md, read from rocprof-compute @ 1b1610fc). Pure: no Node imports, the
// webview bundles this file.
//
// Units: peaks are GB/s and GFLOP/s (GIOP/s for `mfmaI8`); bytes and FLOPs are counts (means over a kernel's
// dispatches); durations ns; arithmetic intensities (ai*) FLOP/byte. A value that cannot be computed is `null`.
import { z } from './zod';

function buildSchemas() {
  const count = z.number().int().nonnegative();
  const num = z.number().nullable();

  const rooflinePeaksSchema = z.object({
    hbmGBps: num,
    l2GBps: num,
    l1GBps: num,
    ldsGBps: num,
    valuFp32: num,
    valuFp64: num,
    mfmaFp16: num,
    mfmaBf16: num,
    mfmaFp32: num,
    mfmaFp64: num,
    mfmaFp8: num,
    mfmaI8: num,
  });

  /** MFMA operations per type (mean per dispatch, 512 * SQ_INSTS_VALU_MFMA_MOPS_<T>); `i8` counts integer ops. */
  const mfmaByTypeSchema = z.object({
    f6f4: num,
    f8: num,
    f16: num,
    bf16: num,
    f32: num,
    f64: num,
    i8: num,
  });

  /** VALU FLOPs per precision (mean per dispatch, 64 * (ADD + MUL + 2*FMA + TRANS)). */
  const valuByTypeSchema = z.object({ f16: num, f32: num, f64: num });

  const rooflineKernelSchema = z.object({
    /** Full kernel name exactly as the counter file wrote it. */
    name: z.string(),
    dispatches: count,
    /** Mean dispatch duration. */
    durationNs: num,
    /** Mean FLOPs per dispatch: VALU + MFMA (F6F4, F8, F16, BF16, F32, F64; not I8). */
    flops: num,
    valuFlops: num,
    mfmaFlops: num,
    hbmBytes: num,
    l2Bytes: num,
    l1Bytes: num,
    ldsBytes: num,
    aiHbm: num,
    aiL2: num,
    aiL1: num,
    aiLds: num,
    gflopsPerSecond: num,
    /** HBM point against the FP32 ridge (min(VALU FP32, MFMA FP32) / HBM); null when a needed peak is unknown. */
    bound: z.enum(['memory', 'compute']).nullable(),
    /** Extra to the doc's contract: gflopsPerSecond as % of the roof at aiHbm (FP32 ceiling), null without peaks. */
    percentOfRoof: num,
    /** Extra: the FLOPs split by type, so a chart can pick the ceiling of the kernel's data type. */
    valuByType: valuByTypeSchema,
    mfmaByType: mfmaByTypeSchema,
  });

  /** A quantity that could not be computed (it is 0 or null in the output) and the counters it lacked. */
  const missingSchema = z.object({
    /** e.g. `flops`, `hbmBytes`, `mfmaFlops`, `peaks.hbmGBps`, `VALU FLOPs`. */
    quantity: z.string(),
    /** Counter (or sysinfo field) names absent from the input. */
    counters: z.array(z.string()),
  });

  const counterSourceSchema = z.object({
    /** `rocprof-compute-wide`, `rocprof-compute-rocpd`, `counter-collection`, `rocpd-db`. */
    format: z.string(),
    /** Path relative to the summarised path. */
    path: z.string(),
    /** ISA, e.g. `gfx942`, when known. */
    arch: z.string().nullable(),
  });

  /** One benchmark case (rocTX range): the points of the kernels launched inside it. */
  const rooflineRangeSchema = z.object({
    name: z.string(),
    kernels: z.array(rooflineKernelSchema),
  });

  const rooflineSchema = z.object({
    peaks: rooflinePeaksSchema,
    /** `roofline.csv`: AMD's measured microbenchmark; `spec`: computed from clocks and CU counts (sysinfo). */
    peaksFrom: z.enum(['roofline.csv', 'spec']),
    /** Largest total duration first. */
    kernels: z.array(rooflineKernelSchema),
    /** Per rocTX range, when the profile has ranges and kernels were put in them; else empty. */
    ranges: z.array(rooflineRangeSchema),
    missing: z.array(missingSchema),
    source: counterSourceSchema,
  });

  /** A rate or ratio: a number, `"inf"` (a zero-duration dispatch), or null (0/0, or inputs missing). */
  const solValueSchema = z.union([z.number(), z.literal('inf')]).nullable();

  const solMetricSchema = z.object({
    /** rocprof-compute's block-2 metric name, e.g. `VALU FLOPs`, `L2 Cache Hit Rate`, `Wavefront Occupancy`. */
    metric: z.string(),
    /** AVG over dispatches of the per-dispatch value. */
    value: solValueSchema,
    /** `GFLOP/s`, `GIOP/s`, `GB/s`, `Pct`, `Wavefronts`. */
    unit: z.string(),
    /** Peak from sysinfo (spec), null when unknown or the metric has none (hit rates). */
    peak: z.number().nullable(),
    /** 100 * value / peak. */
    percentOfPeak: solValueSchema,
  });

  const solKernelSchema = z.object({
    name: z.string(),
    dispatches: count,
    metrics: z.array(solMetricSchema),
  });

  const speedOfLightSchema = z.object({
    kernels: z.array(solKernelSchema),
    ranges: z.array(z.object({ name: z.string(), kernels: z.array(solKernelSchema) })),
    missing: z.array(missingSchema),
  });

  return {
    rooflinePeaksSchema,
    mfmaByTypeSchema,
    valuByTypeSchema,
    rooflineKernelSchema,
    missingSchema,
    counterSourceSchema,
    rooflineRangeSchema,
    rooflineSchema,
    solValueSchema,
    solMetricSchema,
    solKernelSchema,
    speedOfLightSchema,
  };
}

type Schemas = ReturnType<typeof buildSchemas>;
let built: Schemas | undefined;

/** Built on first use, as traceSummary.ts's schemas. */
export function rooflineSchemas(): Schemas {
  return (built ??= buildSchemas());
}

export const rooflineSchema = z.lazy(() => rooflineSchemas().rooflineSchema);
export const speedOfLightSchema = z.lazy(() => rooflineSchemas().speedOfLightSchema);

export type RooflinePeaks = z.infer<Schemas['rooflinePeaksSchema']>;
export type MfmaByType = z.infer<Schemas['mfmaByTypeSchema']>;
export type RooflineKernel = z.infer<Schemas['rooflineKernelSchema']>;
export type RooflineMissing = z.infer<Schemas['missingSchema']>;
export type CounterSource = z.infer<Schemas['counterSourceSchema']>;
export type Roofline = z.infer<Schemas['rooflineSchema']>;
export type SolValue = z.infer<Schemas['solValueSchema']>;
export type SolMetric = z.infer<Schemas['solMetricSchema']>;
export type SolKernel = z.infer<Schemas['solKernelSchema']>;
export type SpeedOfLight = z.infer<Schemas['speedOfLightSchema']>;

/** The peaks the roof at an intensity needs (GB/s and GFLOP/s; null when unknown): `Roofline['peaks']` fits. */
export interface RoofPeaks {
  hbmGBps: number | null;
  valuFp32: number | null;
  mfmaFp32: number | null;
}

/** A kernel's HBM point: FLOP per HBM byte, and the FLOP rate it reached. */
export interface RoofPoint {
  aiHbm: number | null;
  gflopsPerSecond: number | null;
}

/** The roof above a kernel's point: the lower of the HBM slope at its intensity and the compute peak. */
export interface RoofAtIntensity {
  /** GFLOP/s the roof allows at the kernel's intensity. */
  roofGflops: number;
  /** Which roof that is: the HBM bandwidth slope (memory-bound) or the flat compute peak (compute-bound). */
  limit: 'hbm' | 'compute';
  /** The kernel's GFLOP/s as a share of `roofGflops`, 0..100 (more when the kernel beats the peak it is held to); null with no FLOPs. */
  percent: number | null;
}

const known = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);

/**
 * The compute ceiling of the bound rule: the FP32 peaks as rocprof-compute takes them by default
 * (`min(VALU FP32, MFMA FP32)`, shared/docs/roofline.md "bound"); unknown when either is.
 */
export function computePeak(peaks: RoofPeaks): number | null {
  const { valuFp32: v, mfmaFp32: m } = peaks;
  return known(v) && v > 0 && known(m) && m > 0 ? Math.min(v, m) : null;
}

/**
 * The roof at the kernel's HBM intensity, `min(peak compute, AI × peak HBM)`, and how much of it the kernel
 * reached: the one computation behind the summary's `percentOfRoof`, the lens, the CLI table and the webview.
 * Null when a peak it needs is unknown or the point is not a number. A kernel with no FLOPs (AI 0) is
 * memory-bound, as the bound rule has it, with no share of the roof.
 */
export function roofAtIntensity(point: RoofPoint, peaks: RoofPeaks): RoofAtIntensity | null {
  const compute = computePeak(peaks);
  const hbm = peaks.hbmGBps;
  const ai = point.aiHbm;
  const achieved = point.gflopsPerSecond;
  if (compute === null || !known(hbm) || hbm <= 0 || !known(ai) || ai < 0 || !known(achieved) || achieved < 0)
    return null;
  const slope = ai * hbm;
  // aiHbm < ridge (compute / hbm) is memory-bound: the same test as AI × hbm < compute
  const limit = slope < compute ? 'hbm' : 'compute';
  const roofGflops = Math.min(slope, compute);
  return {
    roofGflops,
    limit,
    percent: roofGflops > 0 && achieved > 0 ? (achieved / roofGflops) * 100 : roofGflops > 0 ? 0 : null,
  };
}
