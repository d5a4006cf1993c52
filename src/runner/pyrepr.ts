// Python's str() and repr() of the values a task.yml spec can hold, so that a case line reads exactly as upstream
// writes it: kernelbot's build_test_string joins `f"{k}: {v}"` with "; ", i.e. str() of each value, which is the
// repr of the items inside a list (`m: [96, 128]; flag: True; dtype: fp8; names: ['a', 'b']`).

export interface PyValueOptions {
  /**
   * Whether a JS number is always a Python float (the task file was read with `intAsBigInt`, so integers arrive
   * as bigint and `3.0` stays a float). Otherwise an integral number is an int.
   */
  numbersAreFloats?: boolean;
}

/** repr() of a str: single quotes unless the text holds a single quote and no double quote. */
function pyStrRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || (code >= 0x7f && code < 0xa0)) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + quote;
}

/** repr() of a float: shortest round-trip digits, scientific below 1e-4 and from 1e16 on, `.0` when integral. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  // toExponential() without an argument gives as many digits as needed to tell the value apart (as repr does)
  const m = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(Math.abs(x).toExponential());
  if (!m) return String(x);
  const digits = (m[1] as string) + (m[2] ?? '');
  const exp = Number(m[3]);
  if (exp < -4 || exp >= 16) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp).toString().padStart(2, '0');
    return `${sign}${mantissa}e${exp < 0 ? '-' : '+'}${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const whole = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const frac = digits.slice(exp + 1);
  return `${sign}${whole}.${frac || '0'}`;
}

function pyNumber(x: number, opts: PyValueOptions): string {
  if (!opts.numbersAreFloats && Number.isInteger(x)) return String(x);
  return pyFloatRepr(x);
}

/** Python's repr() of a YAML value. */
export function pyRepr(value: unknown, opts: PyValueOptions = {}): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return pyNumber(value, opts);
  if (typeof value === 'string') return pyStrRepr(value);
  if (value instanceof Date) return pyStrRepr(pyDateStr(value));
  if (Array.isArray(value)) return `[${value.map((v) => pyRepr(v, opts)).join(', ')}]`;
  if (typeof value === 'object') {
    const items = Object.entries(value as Record<string, unknown>).map(
      ([k, v]) => `${pyStrRepr(k)}: ${pyRepr(v, opts)}`,
    );
    return `{${items.join(', ')}}`;
  }
  return pyStrRepr(String(value));
}

/** YAML timestamps: a date as `2025-06-02`, a moment as `2025-06-02 07:00:00+00:00` (str() of date / datetime). */
function pyDateStr(d: Date): string {
  const iso = d.toISOString();
  if (iso.endsWith('T00:00:00.000Z')) return iso.slice(0, 10);
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}+00:00`;
}

/** Python's str() of a value: strings as they are, everything else as repr(). */
function pyStr(value: unknown, opts: PyValueOptions = {}): string {
  if (typeof value === 'string') return value;
  if (value instanceof Date) return pyDateStr(value);
  return pyRepr(value, opts);
}

/** One case line as upstream writes it: `k: v; k: v`. */
export function caseLine(spec: Readonly<Record<string, unknown>>, opts: PyValueOptions = {}): string {
  return Object.entries(spec)
    .map(([k, v]) => `${k}: ${pyStr(v, opts)}`)
    .join('; ');
}
