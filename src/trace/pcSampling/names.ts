// rocprofiler-sdk's names for stochastic samples' stall reasons and instruction types (pc_sampling.h:
// rocprofiler_pc_sampling_instruction_not_issued_reason_t, rocprofiler_pc_sampling_instruction_type_t), as the
// CSV and JSON outputs write them; we show them without their common prefix.

export const STALL_PREFIX = 'ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_';
export const TYPE_PREFIX = 'ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_';

export const KNOWN_STALL_REASONS: ReadonlySet<string> = new Set([
  'NONE',
  'NO_INSTRUCTION_AVAILABLE',
  'ALU_DEPENDENCY',
  'WAITCNT',
  'INTERNAL_INSTRUCTION',
  'BARRIER_WAIT',
  'ARBITER_NOT_WIN',
  'ARBITER_WIN_EX_STALL',
  'OTHER_WAIT',
  'SLEEP_WAIT',
]);

export const KNOWN_INSTRUCTION_TYPES: ReadonlySet<string> = new Set([
  'NONE',
  'VALU',
  'MATRIX',
  'SCALAR',
  'TEX',
  'LDS',
  'LDS_DIRECT',
  'FLAT',
  'EXPORT',
  'MESSAGE',
  'BARRIER',
  'BRANCH_NOT_TAKEN',
  'BRANCH_TAKEN',
  'JUMP',
  'OTHER',
  'NO_INST',
  'DUAL_VALU',
]);

/** `ROCPROFILER_..._WAITCNT` -> `WAITCNT`; a name without the prefix is kept as written. */
export function shortName(full: string, prefix: string): string {
  const t = full.trim();
  return t.startsWith(prefix) ? t.slice(prefix.length) : t;
}

/** Most distinct names (reasons, types) kept; more means a corrupt file: the rest are counted as one. */
export const MAX_TALLY_NAMES = 64;
export const FOLDED_TALLY = '(other)';
