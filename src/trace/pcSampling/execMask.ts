// A sample's 64-bit exec mask (one bit per SIMD lane), kept exact: rocprofv3 writes it in decimal
// (18446744073709551615 does not fit a double), rocpd as hex text. Active lanes are the set bits.

const TWO_32 = 2 ** 32;
const MAX_MASK = (1n << 64n) - 1n;

function popcount32(x: number): number {
  let v = x >>> 0;
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Set bits of a mask below 2^53 (a double holding it exactly): the popcounts of its two 32-bit halves. */
export function lanesOfSafeInteger(v: number): number {
  return popcount32(v % TWO_32) + popcount32(Math.floor(v / TWO_32));
}

/** Set bits of a 64-bit mask. */
export function lanesOfMask(mask: bigint): number {
  return popcount32(Number(mask & 0xffffffffn)) + popcount32(Number((mask >> 32n) & 0xffffffffn));
}

/**
 * The exact mask written as decimal digits, or hex with `0x` (as rocpd stores it) or bare hex of 16 digits;
 * null when the text is none of these or does not fit 64 bits.
 */
export function parseExecMask(text: string): bigint | null {
  const t = text.trim();
  let v: bigint;
  if (/^[0-9]{1,20}$/.test(t)) v = BigInt(t);
  else if (/^0[xX][0-9a-fA-F]{1,16}$/.test(t)) v = BigInt(t);
  else if (/^[0-9a-fA-F]{16}$/.test(t)) v = BigInt(`0x${t}`);
  else return null;
  return v <= MAX_MASK ? v : null;
}

/** The mask of a CSV field scanned as digits of 2^53 or more: `high * 1e9 + low`, both exact (csvScanner). */
export function maskFromWide(high: number, low: number): bigint | null {
  const v = BigInt(high) * 1_000_000_000n + BigInt(low);
  return v <= MAX_MASK ? v : null;
}
