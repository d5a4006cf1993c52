// What rocprof-compute (@ 1b1610fc) does differently per GPU architecture (shared/docs/roofline.md).

export type ArchFamily = 'gfx90a' | 'gfx942' | 'gfx950' | 'other';

export function archFamily(arch: string | null): ArchFamily {
  if (!arch) return 'other';
  const a = arch.toLowerCase().split(':')[0] as string;
  if (a === 'gfx90a') return 'gfx90a';
  if (a === 'gfx940' || a === 'gfx941' || a === 'gfx942') return 'gfx942';
  if (a === 'gfx950') return 'gfx950';
  return 'other';
}

/** MFMA F8 is counted on gfx94x and gfx950 (rocprof-compute's SUPPORTED_DATATYPES has FP8 there). */
export const hasF8 = (f: ArchFamily): boolean => f === 'gfx942' || f === 'gfx950';
/** MFMA F6/F4 on gfx950 only. */
export const hasF6F4 = (f: ArchFamily): boolean => f === 'gfx950';
/** MI200 (gfx90a) reads HBM traffic from TCC_EA_*; every other series from TCC_EA0_* and TCC_BUBBLE. */
export const isMi200 = (f: ArchFamily): boolean => f === 'gfx90a';
/** Bytes per cache line in block 2's vL1D bandwidth (the roofline uses 64 everywhere at this commit). */
export const l1LineBytes = (f: ArchFamily): number => (f === 'gfx90a' ? 64 : 128);
/** LDS banks per CU (rocprof-compute's soc_gfx90a/942/950.py). */
export const LDS_BANKS_PER_CU = 32;
