// CSV text fields are keyed by their bytes as a latin1 string (one byte per char: cheap to make, exact to compare);
// their text is decoded as UTF-8 once per distinct key.

/** A latin1 key back to its text. */
export function keyText(key: string): string {
  // eslint-disable-next-line no-control-regex
  return /[^\x00-\x7f]/.test(key) ? Buffer.from(key, 'latin1').toString('utf8') : key;
}
