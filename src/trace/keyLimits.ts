// How many distinct keys a summary holds: each distinct kernel name costs a few KB (its aggregate, its row, its
// launches) and each agent a busy tracker, so a hostile or corrupt trace with millions of names or agents would
// take gigabytes. Past the limit, new keys are folded into one row named below, counted there, and the summary
// says so in its warnings: no dispatch is lost, only the names past the limit. The limits are in ./limits.ts.

export const FOLDED_KERNELS = '(other kernels)';
export const FOLDED_AGENTS = '(other agents)';
export const FOLDED_NAMES = '(others)';

/** The key to use for `key` in a map that holds `size` keys and may hold `limit` (the fold key once full). */
export function keyWithin<V>(map: Map<string, V>, key: string, limit: number, fold: string): string {
  return map.size < limit || map.has(key) ? key : fold;
}

/** The warning for a table that folded keys into `fold`. */
export function foldWarning(what: string, limit: number, fold: string, calls: number | null): string {
  const counted = calls === null ? '' : ` (${calls} call${calls === 1 ? '' : 's'})`;
  return `more than ${limit} distinct ${what}: those past the first ${limit} are counted together as "${fold}"${counted}; a real run has far fewer (a corrupt or generated trace?)`;
}
