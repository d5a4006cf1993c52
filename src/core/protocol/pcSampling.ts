// PC-sampling hot spots: where inside each kernel rocprofv3's PC samples fell (source line, instruction), with the
// stall reasons of stochastic sampling. Produced by src/trace/pcSampling/, printed by `kernel-runner hotspots`,
// carried by TraceSummary.hotspots. Pure: no Node imports (the webview bundles this file).
//
// Units: `samples` are counts of PC samples; `share` is 0..1 of the kernel's samples; `meanActiveLanes` is the mean
// number of set bits of the samples' 64-bit exec masks (0..64), null when no sample had a readable mask. Stall
// reasons and instruction types are rocprofiler-sdk's enum names without their prefix
// (`ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_WAITCNT` -> `WAITCNT`). See docs/pc-sampling.md.
import { z } from './zod';

const pcSamplingMethodSchema = z.enum(['host_trap', 'stochastic']);
const pcSamplingUnitSchema = z.enum(['time', 'cycles', 'instructions']);

function buildSchemas() {
  const count = z.number().int().nonnegative();
  const share = z.number().min(0).max(1);
  /** Samples per name (stall reason or instruction type). */
  const tally = z.record(z.string(), count);

  const hotLineSchema = z.object({
    file: z.string(),
    line: count,
    samples: count,
    share,
    meanActiveLanes: z.number().min(0).max(64).nullable(),
    /** Stochastic only: not-issued samples per stall reason (empty for host-trap). */
    stalls: tally,
    /** Stochastic only: issued samples per instruction type. */
    types: tally,
  });

  const hotInstructionSchema = z.object({
    /** Code object id and byte offset in it, when the samples carry them (the JSON output); else null. */
    codeObject: count.nullable(),
    offset: count.nullable(),
    /** The decoded instruction (`s_waitcnt vmcnt(0)`); empty when the code object was not recognised. */
    text: z.string(),
    file: z.string().nullable(),
    line: count.nullable(),
    samples: count,
    share,
    meanActiveLanes: z.number().min(0).max(64).nullable(),
    stalls: tally,
    types: tally,
  });

  const kernelHotspotsSchema = z.object({
    /** Kernel name from the run's kernel trace by dispatch id, else `dispatch <id>`. */
    name: z.string(),
    /** The name without arguments and templates, for display (src/trace/shortName.ts). */
    shortName: z.string(),
    samples: count,
    /** Share of all samples of the input. */
    share,
    meanActiveLanes: z.number().min(0).max(64).nullable(),
    /** Stochastic only: samples whose wave issued its instruction; null for host-trap. */
    issued: count.nullable(),
    stalls: tally,
    types: tally,
    /** Samples without a `file:line` (code built without line info, or code not recognised). */
    withoutLine: count,
    /** Samples in code the profiler could not map to a code object (blit kernels, self-modifying code). */
    unknownCode: count,
    /** Hottest first; `linesTotal` / `instructionsTotal` say how many there were before any cut. */
    lines: z.array(hotLineSchema),
    linesTotal: count,
    instructions: z.array(hotInstructionSchema),
    instructionsTotal: count,
  });

  const pcSampleSourceSchema = z.object({
    path: z.string(),
    format: z.enum(['rocprofv3-csv', 'rocprofv3-json']),
    method: pcSamplingMethodSchema,
    samples: count,
  });

  /** One process of a multi-process profile (a rank of a multi-GPU job): the hot spots of its own files. */
  const processHotspotsSchema = z.object({
    /** The rank the runner's process manifest gives it; null without a manifest (or for a process without one). */
    rank: count.nullable(),
    pid: count.nullable(),
    host: z.string().nullable(),
    samples: count,
    /** As a one-process read of this process's own files gives them (shares of this process's samples). */
    kernels: z.array(kernelHotspotsSchema),
  });

  const pcHotspotsSchema = z.object({
    /** 'mixed' when host-trap and stochastic samples were both read. */
    method: z.union([pcSamplingMethodSchema, z.literal('mixed')]),
    /** The sampling interval and its unit when known (stochastic samples are always in cycles); else null. */
    intervalUnit: pcSamplingUnitSchema.nullable(),
    interval: count.nullable(),
    samples: count,
    kernels: z.array(kernelHotspotsSchema),
    sources: z.array(pcSampleSourceSchema),
    warnings: z.array(z.string()),
    /** More than one process sampled (a multi-process profile): each one's hot spots, by rank then pid. */
    processes: z.array(processHotspotsSchema).optional(),
  });
  return {
    processHotspotsSchema,
    hotLineSchema,
    hotInstructionSchema,
    kernelHotspotsSchema,
    pcSampleSourceSchema,
    pcHotspotsSchema,
  };
}

type Schemas = ReturnType<typeof buildSchemas>;
let built: Schemas | undefined;

/** The hot spots of one input, as `kernel-runner hotspots --json` prints them and TraceSummary.hotspots holds them. */
export const pcHotspotsSchema = z.lazy(() => (built ??= buildSchemas()).pcHotspotsSchema);

export type PcSamplingMethod = z.infer<typeof pcSamplingMethodSchema>;
export type PcSamplingUnit = z.infer<typeof pcSamplingUnitSchema>;
export type HotLine = z.infer<Schemas['hotLineSchema']>;
export type HotInstruction = z.infer<Schemas['hotInstructionSchema']>;
export type KernelHotspots = z.infer<Schemas['kernelHotspotsSchema']>;
export type PcSampleSource = z.infer<Schemas['pcSampleSourceSchema']>;
export type ProcessHotspots = z.infer<Schemas['processHotspotsSchema']>;
export type PcHotspots = z.infer<Schemas['pcHotspotsSchema']>;
