// The profile digest (docs/digest.schema.json): a TraceSummary cut to what an agent acts on, within a byte budget.
export { buildDigest, digestText, DigestBudgetError } from './build';
export { digestPath, configurationOf, sha256Text } from './fromPath';
export { MIN_MAX_BYTES } from './caps';
export { isMore } from './lists';
