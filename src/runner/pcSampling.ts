// Profile mode with PC sampling on the runner: the rocprofv3 switches a checked request becomes (the request itself
// is one of the profile options, core/profileOptions.ts), and line info for hipcc. Facts (docs/pc-sampling.md):
// all of method, unit and interval must be given, with --pc-sampling-beta-enabled. Samples carry `file:line` only
// from code built with line info: hipcc is asked for it through HIPCC_COMPILE_FLAGS_APPEND (hipcc appends that
// variable's flags to every compile, torch's inline HIP included).
import { PC_SAMPLING_UNIT, type PcSamplingMethod } from '../core/profileOptions';

export interface PcSamplingRequest {
  method: PcSamplingMethod;
  interval: number;
}

/** rocprofv3's switches for the request (beside the kernel trace, which gives each dispatch its kernel name). */
export function pcSamplingArgs(c: PcSamplingRequest): string[] {
  return [
    '--pc-sampling-beta-enabled',
    '--pc-sampling-method',
    c.method,
    '--pc-sampling-unit',
    PC_SAMPLING_UNIT[c.method],
    '--pc-sampling-interval',
    String(c.interval),
  ];
}

/** The environment that asks hipcc for line tables, so that samples carry `file:line`. */
export function lineInfoEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const append = env.HIPCC_COMPILE_FLAGS_APPEND ?? '';
  if (/(^|\s)-g(line-tables-only)?(\s|$)/.test(append)) return {};
  return { HIPCC_COMPILE_FLAGS_APPEND: `${append} -gline-tables-only`.trim() };
}

/** Said when rocprofv3 wrote no PC samples although asked: the run itself stands. */
export function pcSamplingMissingNote(c: PcSamplingRequest): string {
  return `PC sampling (${c.method}, every ${c.interval} ${PC_SAMPLING_UNIT[c.method] === 'time' ? 'us' : 'cycles'}) gave no samples: this GPU, its driver or firmware may not support ${c.method} sampling (host-trap needs gfx90a or later, stochastic gfx942 and ROCm 7 firmware; \`rocprofv3 -L\` lists what it supports), or no kernel ran long enough to be sampled; the profiler's own message is in its stderr log in the trace zip`;
}
