// Profile-mode options (additive to GPU MODE's API; our runner reads them as multipart form fields beside `file`):
// which hardware counters rocprofv3 collects, which kernels a profile run looks at, and PC sampling. One definition, checked the
// same way by the runner (a 400), the CLI (exit 2) and the editor (a setting's message), so that nothing a user
// typed reaches a command line unchecked. Pure module: no Node imports.
import { SHARED_REGEX_SYNTAX, unsupportedRegexConstruct } from './kernelRegex';
import { KernelRunnerError } from './errors';

/** Form field names on `POST /{lb}/{gpu}/profile` (and the background route). */
export const PROFILE_FORM_FIELDS = {
  counters: 'counters',
  kernelRegex: 'kernel_regex',
  caseIndex: 'case',
  launches: 'kernel_iteration_range',
  pcSampling: 'pc_sampling',
  pcSamplingInterval: 'pc_sampling_interval',
  /** Accepted and checked against the method (each method has one unit on MI300); never needed. */
  pcSamplingUnit: 'pc_sampling_unit',
} as const;

/**
 * PC sampling (docs/pc-sampling.md): host-trap samples by time (microseconds), stochastic (gfx942) by cycles with a
 * power-of-two interval from 256 to 2^31; rocprofv3 needs method, unit and interval all given.
 */
export type PcSamplingMethod = 'host_trap' | 'stochastic';
export type PcSamplingUnit = 'time' | 'cycles';
export const PC_SAMPLING_UNIT: Record<PcSamplingMethod, PcSamplingUnit> = { host_trap: 'time', stochastic: 'cycles' };
const DEFAULT_PC_SAMPLING_INTERVAL: Record<PcSamplingMethod, number> = {
  // rocprofiler-sdk's own examples: 1 us for host-trap, 2^20 cycles for stochastic
  host_trap: 1,
  stochastic: 1_048_576,
};
const MIN_STOCHASTIC = 256;
const MAX_STOCHASTIC = 2 ** 31;

const COUNTER_PRESETS = ['roofline', 'speed-of-light'] as const;
type CounterPreset = (typeof COUNTER_PRESETS)[number];

/** What `counters` asks for. */
export type CounterRequest =
  { kind: 'off' } | { kind: 'preset'; preset: CounterPreset } | { kind: 'list'; counters: string[] };

/** Profile options as sent and stored: normalised text, absent when not asked for. */
export interface ProfileOptions {
  /** `off` | `roofline` | `speed-of-light` | a comma-separated list of counter names. */
  counters?: string;
  /** rocprofv3 `--kernel-include-regex`, searched in the demangled kernel name: the syntax of kernelRegex.ts. */
  kernelRegex?: string;
  /** Only this benchmark case (0-based) is run and profiled. */
  caseIndex?: number;
  /** rocprofv3 `--kernel-iteration-range`: which launches of each matching kernel, e.g. `[10-20]`. */
  launches?: string;
  /** PC sampling's method; its unit is the method's (PC_SAMPLING_UNIT). */
  pcSampling?: PcSamplingMethod;
  /** Always set with pcSampling (the method's default when not given). */
  pcSamplingInterval?: number;
}

export class ProfileOptionError extends KernelRunnerError {
  override readonly name = 'ProfileOptionError';
  readonly code = 'PROFILE_OPTION';
  /** The form field / option the problem is about. */
  constructor(
    readonly field: keyof ProfileOptions,
    message: string,
  ) {
    super(message);
  }
}

/** Counter names as rocprofv3 spells them (`SQ_WAVES`, `TCC_HIT[0]`): nothing else may reach its command line. */
const COUNTER_NAME = /^[A-Za-z0-9_[\]]+$/;
const MAX_COUNTERS = 256;
const MAX_COUNTER_NAME = 128;
const MAX_KERNEL_REGEX = 512;
/** rocprofiler-sdk expands a launch range into a set of every index in it: a bound keeps that small. */
const MAX_LAUNCHES = 100_000;

function shown(text: string): string {
  const t = text.length > 60 ? `${text.slice(0, 60)}…` : text;
  return JSON.stringify(t);
}

export function parseCounters(text: string): CounterRequest {
  const t = text.trim();
  if (t === '' || t.toLowerCase() === 'off') return { kind: 'off' };
  const lower = t.toLowerCase();
  if ((COUNTER_PRESETS as readonly string[]).includes(lower)) return { kind: 'preset', preset: lower as CounterPreset };
  const names = t.split(',').map((s) => s.trim());
  // counter names have capitals (SQ_WAVES, GPUBusy); one lower-case word is a preset's name, misspelt
  if (names.length === 1 && /^[a-z0-9_-]+$/.test(t)) {
    throw new ProfileOptionError(
      'counters',
      `unknown counter preset ${shown(t)}: use off, roofline, speed-of-light or a comma-separated list of counter names`,
    );
  }
  if (names.some((n) => n === ''))
    throw new ProfileOptionError(
      'counters',
      `empty counter name in ${shown(t)}: separate counter names with single commas`,
    );
  for (const n of names) {
    if (!COUNTER_NAME.test(n) || n.length > MAX_COUNTER_NAME) {
      throw new ProfileOptionError(
        'counters',
        `counter name ${shown(n)} is not valid: counter names use only letters, digits, _ and [ ] (use off, roofline, speed-of-light or a comma-separated list such as SQ_WAVES,GRBM_GUI_ACTIVE)`,
      );
    }
  }
  const unique = [...new Set(names)];
  if (unique.length > MAX_COUNTERS)
    throw new ProfileOptionError('counters', `${unique.length} counters asked for: at most ${MAX_COUNTERS}`);
  return { kind: 'list', counters: unique };
}

/** The text form of a counter request (what is sent and stored). */
function countersText(req: CounterRequest): string {
  return req.kind === 'off' ? 'off' : req.kind === 'preset' ? req.preset : req.counters.join(',');
}

function checkKernelRegex(text: string): string {
  if (text === '')
    throw new ProfileOptionError('kernelRegex', 'the kernel regex is empty: leave it out to profile every kernel');
  if (text.length > MAX_KERNEL_REGEX)
    throw new ProfileOptionError(
      'kernelRegex',
      `the kernel regex is ${text.length} characters long: at most ${MAX_KERNEL_REGEX}`,
    );
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(text))
    throw new ProfileOptionError('kernelRegex', 'the kernel regex contains a control character (newline, tab, ...)');
  try {
    new RegExp(text);
  } catch (err) {
    throw new ProfileOptionError(
      'kernelRegex',
      `the kernel regex ${shown(text)} is not a valid regular expression: ${(err as Error).message}`,
    );
  }
  const construct = unsupportedRegexConstruct(text);
  if (construct)
    throw new ProfileOptionError(
      'kernelRegex',
      `the kernel regex ${shown(text)} uses ${construct}, which rocprofv3's regex engine does not read as JavaScript does: use ${SHARED_REGEX_SYNTAX}`,
    );
  return text;
}

function parseCaseIndex(text: string | number): number {
  const t = typeof text === 'number' ? String(text) : text.trim();
  if (!/^\d{1,6}$/.test(t))
    throw new ProfileOptionError(
      'caseIndex',
      `the benchmark case must be a case index (0, 1, 2, ...), not ${shown(t)}`,
    );
  return Number(t);
}

/**
 * A launch window in rocprofv3's `--kernel-iteration-range` syntax: indices and `A-B` ranges, each optionally in
 * brackets, separated by commas (`10-20`, `[1-2],[5]`). Normalised to the bracketed form rocprofv3's docs use.
 */
export function parseLaunchWindow(text: string): string {
  const t = text.trim().replace(/\s+/g, '');
  const bad = () =>
    new ProfileOptionError(
      'launches',
      `the launch window ${shown(text)} is not valid: use launch indices and ranges such as 10-20 or [1-2],[5]`,
    );
  if (t === '' || t.length > 200) throw bad();
  const parts = t.split(',');
  let total = 0;
  const out: string[] = [];
  for (const p of parts) {
    const m = /^\[?(\d{1,9})(?:-(\d{1,9}))?\]?$/.exec(p);
    if (!m || p.startsWith('[') !== p.endsWith(']')) throw bad();
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (b < a)
      throw new ProfileOptionError(
        'launches',
        `the launch window ${shown(text)} has a range that ends before it starts (${a}-${b})`,
      );
    total += b - a + 1;
    out.push(m[2] === undefined ? `[${a}]` : `[${a}-${b}]`);
  }
  if (total > MAX_LAUNCHES)
    throw new ProfileOptionError(
      'launches',
      `the launch window ${shown(text)} covers ${total} launches: at most ${MAX_LAUNCHES}`,
    );
  return out.join(',');
}

/** PC sampling's method, interval and (optional) unit -> checked; null for none (`off` or nothing). */
function parsePcSampling(
  methodText: string | undefined,
  intervalText: string | number | undefined,
  unitText?: string,
): { method: PcSamplingMethod; interval: number } | null {
  const method = (methodText ?? '').trim().toLowerCase().replace('-', '_');
  const rawInterval = intervalText === undefined ? '' : String(intervalText).trim();
  const rawUnit = (unitText ?? '').trim().toLowerCase();
  if (method === '' || method === 'off') {
    if (rawInterval || rawUnit)
      throw new ProfileOptionError(
        'pcSamplingInterval',
        'pc_sampling_interval and pc_sampling_unit need pc_sampling=host_trap or stochastic',
      );
    return null;
  }
  if (method !== 'host_trap' && method !== 'stochastic') {
    throw new ProfileOptionError(
      'pcSampling',
      `PC sampling must be off, host_trap or stochastic, not ${shown(methodText ?? '')}`,
    );
  }
  const unit = PC_SAMPLING_UNIT[method];
  if (rawUnit && rawUnit !== unit && !(unit === 'cycles' && rawUnit === 'cycle')) {
    throw new ProfileOptionError(
      'pcSampling',
      `${method} PC sampling counts its interval in ${unit} on MI300 (rocprofv3 -L), not ${shown(rawUnit)}`,
    );
  }
  let interval = DEFAULT_PC_SAMPLING_INTERVAL[method];
  if (rawInterval) {
    if (!/^\d{1,10}$/.test(rawInterval) || Number(rawInterval) < 1) {
      throw new ProfileOptionError(
        'pcSamplingInterval',
        `the PC-sampling interval must be a whole number >= 1, not ${shown(rawInterval)}`,
      );
    }
    interval = Number(rawInterval);
  }
  if (
    method === 'stochastic' &&
    (interval < MIN_STOCHASTIC || interval > MAX_STOCHASTIC || !Number.isInteger(Math.log2(interval)))
  ) {
    throw new ProfileOptionError(
      'pcSamplingInterval',
      `stochastic PC sampling takes a power of two from ${MIN_STOCHASTIC} to ${MAX_STOCHASTIC} cycles as its interval (rocprofv3 -L: "interval pow2"), not ${interval}`,
    );
  }
  return { method, interval };
}

/** Raw values (form fields, flags, settings) -> checked, normalised options; absent and empty values are left out. */
export function checkProfileOptions(raw: {
  counters?: string;
  kernelRegex?: string;
  caseIndex?: string | number;
  launches?: string;
  pcSampling?: string;
  pcSamplingInterval?: string | number;
  pcSamplingUnit?: string;
}): ProfileOptions {
  const out: ProfileOptions = {};
  if (raw.counters !== undefined && raw.counters.trim() !== '') {
    const req = parseCounters(raw.counters);
    if (req.kind !== 'off') out.counters = countersText(req);
  }
  if (raw.kernelRegex !== undefined && raw.kernelRegex !== '') out.kernelRegex = checkKernelRegex(raw.kernelRegex);
  if (raw.caseIndex !== undefined && String(raw.caseIndex).trim() !== '') out.caseIndex = parseCaseIndex(raw.caseIndex);
  if (raw.launches !== undefined && raw.launches.trim() !== '') out.launches = parseLaunchWindow(raw.launches);
  const pcs = parsePcSampling(raw.pcSampling, raw.pcSamplingInterval, raw.pcSamplingUnit);
  if (pcs) {
    out.pcSampling = pcs.method;
    out.pcSamplingInterval = pcs.interval;
  }
  return out;
}

export function hasProfileOptions(o: ProfileOptions | undefined): boolean {
  return !!o && profileFormFields(o).length > 0;
}

/** What the options ask for, in words ("counters and kernel selection", "PC sampling"). */
export function profileOptionsWhat(o: ProfileOptions): string {
  const what: string[] = [];
  if (o.counters !== undefined) what.push('counters');
  if (o.kernelRegex !== undefined || o.caseIndex !== undefined || o.launches !== undefined)
    what.push('kernel selection');
  if (o.pcSampling !== undefined) what.push('PC sampling');
  return what.length > 1 ? `${what.slice(0, -1).join(', ')} and ${what.at(-1)}` : (what[0] ?? 'no profile options');
}

/** The form fields of these options, in a fixed order. */
export function profileFormFields(o: ProfileOptions): Array<[string, string]> {
  const f: Array<[string, string]> = [];
  if (o.counters !== undefined) f.push([PROFILE_FORM_FIELDS.counters, o.counters]);
  if (o.kernelRegex !== undefined) f.push([PROFILE_FORM_FIELDS.kernelRegex, o.kernelRegex]);
  if (o.caseIndex !== undefined) f.push([PROFILE_FORM_FIELDS.caseIndex, String(o.caseIndex)]);
  if (o.launches !== undefined) f.push([PROFILE_FORM_FIELDS.launches, o.launches]);
  if (o.pcSampling !== undefined) {
    f.push([PROFILE_FORM_FIELDS.pcSampling, o.pcSampling]);
    f.push([
      PROFILE_FORM_FIELDS.pcSamplingInterval,
      String(o.pcSamplingInterval ?? DEFAULT_PC_SAMPLING_INTERVAL[o.pcSampling]),
    ]);
  }
  return f;
}

/** Form fields (name -> value) -> checked options. Other fields are not ours to judge: they are left alone. */
export function profileOptionsFromForm(fields: Record<string, string>): ProfileOptions {
  return checkProfileOptions({
    counters: fields[PROFILE_FORM_FIELDS.counters],
    kernelRegex: fields[PROFILE_FORM_FIELDS.kernelRegex],
    caseIndex: fields[PROFILE_FORM_FIELDS.caseIndex],
    launches: fields[PROFILE_FORM_FIELDS.launches],
    pcSampling: fields[PROFILE_FORM_FIELDS.pcSampling],
    pcSamplingInterval: fields[PROFILE_FORM_FIELDS.pcSamplingInterval],
    pcSamplingUnit: fields[PROFILE_FORM_FIELDS.pcSamplingUnit],
  });
}
