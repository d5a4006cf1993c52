// The profile digest (docs/digest.schema.json): a TraceSummary cut to what an agent acts on, within a byte budget.
export { buildDigest, digestText, DigestBudgetError, type DigestInput } from './build';
export { digestPath, configurationOf, sha256File, sha256Text, traceIdentity, type DigestPathOptions } from './fromPath';
export { DEFAULT_MAX_BYTES, MIN_MAX_BYTES, CAP_LEVELS } from './caps';
export { isMore } from './lists';
export type { BaselineInput } from './baseline';
