// Lists of the digest cut to a length: the kept entries, then one `+N more (share x%)` entry for the rest.
import type { DigestList, DigestMore } from '../../core/protocol/profileDigest';
import { roundPercent } from './precision';

/** Shares are rounded to 0.1 %, as every share of the digest (precision.ts). */
export const roundShare = roundPercent;

function moreEntry(count: number, sharePercent: number | null): DigestMore {
  const share = sharePercent === null ? null : roundShare(Math.max(0, sharePercent));
  return { more: count, sharePercent: share, text: `+${count} more${share === null ? '' : ` (share ${share}%)`}` };
}

/**
 * The first `cap` items, then (when some are left out, `total` counting items not even in `items`) a more entry
 * whose share `shareOfRest` tells from the kept items.
 */
export function cutList<T>(
  items: readonly T[],
  cap: number,
  total: number,
  shareOfRest: (kept: readonly T[]) => number | null,
): DigestList<T> {
  const kept = items.slice(0, Math.max(0, cap));
  const left = Math.max(items.length, total) - kept.length;
  return left > 0 ? [...kept, moreEntry(left, shareOfRest(kept))] : [...kept];
}

export function isMore(entry: unknown): entry is DigestMore {
  return typeof entry === 'object' && entry !== null && 'more' in entry;
}

/** Entries a list left out (its more entry's count, 0 when none). */
export function leftOut(list: readonly unknown[] | null | undefined): number {
  const last = list?.[list.length - 1];
  return isMore(last) ? last.more : 0;
}
