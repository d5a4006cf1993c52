// How long each list of the digest may be, from generous (level 0) to bare (the last level): the digest takes the
// first level whose document fits the byte budget.
export interface DigestCaps {
  cases: number;
  caseKernels: number;
  kernels: number;
  api: number;
  copies: number;
  gaps: number;
  counterKernels: number;
  countersPerKernel: number;
  warnings: number;
  /** Full kernel names (up to 240 characters) besides the short ones. */
  fullNames: boolean;
  /** Ranks of a multi-process profile (MI300x8: 8, and its launcher). */
  ranks: number;
  /** The ranks' GPU-to-GPU copy pairs, longest first (MI300x8 all to all: 56). */
  peerCopies: number;
}

const level = (
  cases: number,
  caseKernels: number,
  kernels: number,
  api: number,
  copies: number,
  gaps: number,
  counterKernels: number,
  countersPerKernel: number,
  warnings: number,
  fullNames: boolean,
  ranks: number,
  peerCopies: number,
): DigestCaps => ({
  cases,
  caseKernels,
  kernels,
  api,
  copies,
  gaps,
  counterKernels,
  countersPerKernel,
  warnings,
  fullNames,
  ranks,
  peerCopies,
});

export const CAP_LEVELS: readonly DigestCaps[] = [
  level(64, 10, 25, 10, 8, 5, 10, 12, 30, true, 64, 16),
  level(32, 6, 15, 6, 6, 3, 6, 8, 15, true, 32, 12),
  level(16, 4, 10, 4, 4, 2, 4, 6, 10, true, 16, 8),
  level(8, 3, 6, 3, 2, 1, 2, 4, 6, false, 9, 4),
  level(4, 2, 4, 2, 1, 1, 1, 3, 4, false, 8, 2),
  level(2, 1, 2, 1, 1, 0, 1, 2, 2, false, 4, 1),
  level(1, 1, 1, 1, 0, 0, 0, 0, 1, false, 2, 0),
];

export const DEFAULT_MAX_BYTES = 16 * 1024;
/** Under this the bare level itself may not fit (provenance and totals alone are some hundreds of bytes). */
export const MIN_MAX_BYTES = 2048;
