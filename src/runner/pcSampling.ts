// Profile mode with PC sampling: the submission's form fields (`pc_sampling`, `pc_sampling_interval`,
// `pc_sampling_unit`) checked against what rocprofv3 and the MI300 accept, and the rocprofv3 switches they become.
// Facts (docs/pc-sampling.md): all of method, unit and interval must be given, with --pc-sampling-beta-enabled;
// host-trap samples by time (microseconds), stochastic (gfx942) by cycles with a power-of-two interval from 256 to
// 2^31. Samples carry `file:line` only from code built with line info: hipcc is asked for it through
// HIPCC_COMPILE_FLAGS_APPEND (hipcc appends that variable's flags to every compile, torch's inline HIP included).

export type PcSamplingMethod = 'host_trap' | 'stochastic';
export type PcSamplingUnit = 'time' | 'cycles';

export interface PcSamplingConfig {
  method: PcSamplingMethod;
  unit: PcSamplingUnit;
  interval: number;
}

/** The form fields of a submission that ask for PC sampling. */
export const PC_SAMPLING_FIELDS = ['pc_sampling', 'pc_sampling_interval', 'pc_sampling_unit'] as const;

export const DEFAULT_INTERVAL: Record<PcSamplingMethod, number> = {
  // rocprofiler-sdk's own examples: 1 us for host-trap, 2^20 cycles for stochastic
  host_trap: 1,
  stochastic: 1_048_576,
};

const UNIT_OF: Record<PcSamplingMethod, PcSamplingUnit> = { host_trap: 'time', stochastic: 'cycles' };
const MIN_STOCHASTIC = 256;
const MAX_STOCHASTIC = 2 ** 31;

export class PcSamplingConfigError extends Error {
  readonly type = 'pc-sampling-config' as const;
}

/**
 * The PC-sampling request in `fields` (null: none, or `off`). Throws PcSamplingConfigError with what to send instead.
 */
export function parsePcSampling(fields: Readonly<Record<string, string>>): PcSamplingConfig | null {
  const method = (fields.pc_sampling ?? '').trim().toLowerCase().replace('-', '_');
  const rawInterval = fields.pc_sampling_interval?.trim();
  const rawUnit = fields.pc_sampling_unit?.trim().toLowerCase();
  if (method === '' || method === 'off') {
    if (rawInterval || rawUnit) throw new PcSamplingConfigError('pc_sampling_interval and pc_sampling_unit need pc_sampling=host_trap or stochastic');
    return null;
  }
  if (method !== 'host_trap' && method !== 'stochastic') {
    throw new PcSamplingConfigError(`pc_sampling must be off, host_trap or stochastic, not "${fields.pc_sampling}"`);
  }
  const unit = UNIT_OF[method];
  if (rawUnit && rawUnit !== unit && !(unit === 'cycles' && rawUnit === 'cycle')) {
    throw new PcSamplingConfigError(`${method} PC sampling counts its interval in ${unit} on MI300 (rocprofv3 -L), not ${rawUnit}`);
  }
  let interval = DEFAULT_INTERVAL[method];
  if (rawInterval) {
    if (!/^\d{1,10}$/.test(rawInterval) || Number(rawInterval) < 1) {
      throw new PcSamplingConfigError(`pc_sampling_interval must be a whole number >= 1, not "${rawInterval}"`);
    }
    interval = Number(rawInterval);
  }
  if (method === 'stochastic') {
    const pow2 = Number.isInteger(Math.log2(interval));
    if (interval < MIN_STOCHASTIC || interval > MAX_STOCHASTIC || !pow2) {
      throw new PcSamplingConfigError(`stochastic PC sampling takes a power of two from ${MIN_STOCHASTIC} to ${MAX_STOCHASTIC} cycles as its interval (rocprofv3 -L: "interval pow2"), not ${interval}`);
    }
  }
  return { method, unit, interval };
}

/** rocprofv3's switches for the request (beside the kernel trace, which gives each dispatch its kernel name). */
export function pcSamplingArgs(c: PcSamplingConfig): string[] {
  return ['--pc-sampling-beta-enabled', '--pc-sampling-method', c.method, '--pc-sampling-unit', c.unit, '--pc-sampling-interval', String(c.interval)];
}

/** The environment that asks hipcc for line tables, so that samples carry `file:line`. */
export function lineInfoEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const append = env.HIPCC_COMPILE_FLAGS_APPEND ?? '';
  if (/(^|\s)-g(line-tables-only)?(\s|$)/.test(append)) return {};
  return { HIPCC_COMPILE_FLAGS_APPEND: `${append} -gline-tables-only`.trim() };
}

/** Said when rocprofv3 wrote no PC samples although asked: the run itself stands. */
export function pcSamplingMissingNote(c: PcSamplingConfig): string {
  return `PC sampling (${c.method}, every ${c.interval} ${c.unit === 'time' ? 'us' : 'cycles'}) gave no samples: this GPU, its driver or firmware may not support ${c.method} sampling (host-trap needs gfx90a or later, stochastic gfx942 and ROCm 7 firmware; \`rocprofv3 -L\` lists what it supports), or no kernel ran long enough to be sampled; the profiler's own message is in its stderr log in the trace zip`;
}
