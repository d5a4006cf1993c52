// A streaming RFC 4180 CSV scanner over bytes. It never builds a string per row: each row is handed to the
// caller as field offsets into a Buffer, plus the integer value of every unquoted all-digit field (parsed
// during the same pass). Measured on this machine, that is what makes a 1,000,000-row rocprofv3 trace as fast
// to summarise as DuckDB (see shared/docs/performance-notes.md and bench/summarize.bench.ts); a general CSV
// library is 6-12x slower there.
//
// Handles quoted fields with commas, doubled quotes (`""`) and newlines inside, CRLF or LF line ends, a UTF-8
// BOM, a last line without a line end, and any chunk boundary. Blank lines are ignored.
import { KernelRunnerError } from '../core/errors';
import {
  REPEATED_INTEGER,
  REPEATED_QUOTED_NAME,
  REPEATED_ROWS_MAX,
  repeatedRows,
  type RepeatedRows,
} from './repeatedRows';

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

export class CsvFormatError extends KernelRunnerError {
  override readonly name = 'CsvFormatError';
  readonly code = 'TRACE_CSV_FORMAT';
  readonly type = 'csv-format' as const;
  constructor(
    /** What is wrong, without the line. */
    readonly reason: string,
    readonly line: number,
    /** Offset of the row's first byte from the first byte fed, when known. */
    readonly offset = -1,
  ) {
    super(`${reason} (line ${line})`);
  }
}

/** The current row. Valid only during the `onRow` call: the arrays and the buffer are reused. */
export interface CsvRow {
  /** Bytes of the current chunk; fields are `buf[starts[i] .. ends[i])` without the surrounding quotes. */
  buf: Buffer;
  fieldCount: number;
  starts: Int32Array;
  ends: Int32Array;
  /** 1 when the field was quoted. */
  quoted: Uint8Array;
  /** 1 when a quoted field contains doubled quotes (`""`), so its raw bytes differ from its text. */
  escaped: Uint8Array;
  /**
   * Integer value of a field made only of digits (optionally a leading `-`), quoted or not, when below 2^53 (so
   * exact), else NaN. A longer one has its exact value in `wide`, `high` and `low`.
   */
  values: Float64Array;
  /** 1 when the field is all digits and at least 2^53: its value is high * 1e9 + low, both exact. */
  wide: Uint8Array;
  high: Float64Array;
  low: Float64Array;
  /** The guessed field (see FieldGuess) held exactly the guessed bytes. */
  guessed: boolean;
  /**
   * The row's first `repeat.head` fields (see CsvScannerOptions) are byte for byte the previous row's, so their
   * entries here are the previous row's (offsets moved to this row) and were not scanned again.
   */
  repeated: boolean;
  /**
   * The fields from `repeat.tail` to the line end are byte for byte the previous row's (and so are their entries
   * here, offsets moved), and the row before was a whole row of as many fields: then they parse the same.
   */
  tailRepeated: boolean;
  /**
   * A field the scanner read as a decimal number (`16384.000000`, `2.48e-02`: the WebAssembly fast path's value
   * field, repeatedRows.ts) and its value, exactly as Number() reads the field's text; -1 when none. `values`
   * stays the integer of an all-digit field only: fieldNumber() gives either.
   */
  decimalField: number;
  decimal: number;
  /** 1-based line number where the row starts. */
  line: number;
  /** Offset of the row's first byte from the first byte fed (a BOM counts). */
  offset: number;
}

/**
 * A guess at the bytes of one quoted field from the row's earlier fields (a kernel name from its Kernel_Id): the
 * scanner compares the guess with the input (one memcmp) instead of searching for the closing quote and line
 * feeds, and the row says whether it held. A wrong guess costs that compare and changes nothing else.
 */
export interface FieldGuess {
  /** The field guessed (the values it reads come before it). */
  field: number;
  /** The field's raw bytes between its quotes, holding no `"` and no line feed; undefined: no guess. */
  bytes(values: Float64Array): Buffer | undefined;
}

export interface CsvScannerOptions {
  onRow: (row: CsvRow) => void;
  /** Most fields a row may have (default 256). */
  maxFields?: number;
  /** Longest row in bytes (default 64 MiB): protects against a file that is one unterminated quote. */
  maxRowBytes?: number;
  /** The input is the start of a file, where a UTF-8 BOM is skipped (default true; false for a part of a file). */
  fileStart?: boolean;
  guess?: FieldGuess;
  /** Rows that start at or after this offset (from the first byte fed) are not scanned: see `stoppedAt`. */
  stopAt?: number;
  repeat?: RepeatedFields;
}

/**
 * Fields that often repeat the previous row's bytes (a long-layout counter file repeats a dispatch's fields and
 * timestamps on each of its counter rows, around the counter's name and value): the scanner compares those bytes
 * with the previous row's (4 at a time) and, when equal, takes its fields over instead of scanning them. Equal
 * bytes parse the same, so this changes no result, only how many bytes are scanned.
 */
export interface RepeatedFields {
  /** The first `head` fields (then the row is `repeated`); 0: none. */
  head: number;
  /** The fields from index `tail` to the row's end, line end included; -1: none. */
  tail: number;
  /**
   * The reader does not need the head and tail fields' offsets of a row the WebAssembly fast path takes
   * (repeatedRows.ts) to be that row's: they may be those of an earlier row of the same chunk, which has the same
   * bytes there (so the fields' texts and values are the same). Then they are moved once after a run of such rows,
   * not at each row.
   */
  offsetsUnread?: boolean;
}

export interface CsvScanner {
  feed(chunk: Uint8Array): void;
  /** Processes a last row without a line end; throws on an unterminated quote. */
  end(): void;
  /** Starts over (line 1, offset 0), with a new `stopAt` when given (else none). */
  reset(stopAt?: number): void;
  /** 1-based line number where the next row starts. */
  readonly line: number;
  /** Offset of the row at `stopAt` where the scan stopped (nothing more is scanned), else -1. */
  readonly stoppedAt: number;
  /**
   * Scans the complete rows at the start of `b` (all of it when `final`) and returns how many bytes they took: the
   * caller keeps the rest and passes it again, followed by more bytes, in one buffer it owns (no copy here). Not
   * to be mixed with `feed`.
   */
  scanRows(b: Buffer, final: boolean): number;
  /** Sets (or clears) the field guess for the rows after this call. */
  setGuess(guess: FieldGuess | undefined): void;
  /** Sets (or clears) the repeated fields for the rows after this call. */
  setRepeat(repeat: RepeatedFields | undefined): void;
}

const TWO_53 = 2 ** 53;

/**
 * The value of `b[s, e)` when it is `-`? digits and below 2^53 in magnitude; NaN otherwise, after putting a
 * non-negative value of 2^53 or more (up to 24 digits) exactly into row.high/low (wide = 1).
 */
function digitsValue(b: Buffer, s: number, e: number, row: CsvRow, f: number): number {
  const neg = b[s] === 0x2d;
  let k = neg ? s + 1 : s;
  if (k === e) return NaN;
  let v = 0;
  for (let i = k; i < e; i++) {
    const d = (b[i] as number) - 0x30;
    if (d < 0 || d > 9) return NaN;
    v = v * 10 + d;
  }
  if (v < TWO_53) return neg ? -v : v;
  if (neg || e - k > 24) return NaN;
  let high = 0;
  let low = 0;
  for (; k < e - 9; k++) high = high * 10 + ((b[k] as number) - 0x30);
  for (; k < e; k++) low = low * 10 + ((b[k] as number) - 0x30);
  row.wide[f] = 1;
  row.high[f] = high;
  row.low[f] = low;
  return NaN;
}

/** `b[a, a + n)` equals `b[c, c + n)`: 4 bytes a load (a byte loop costs as much as scanning them). */
function sameBytes(view: DataView, b: Buffer, a: number, c: number, n: number): boolean {
  let i = 0;
  for (; i + 4 <= n; i += 4) if (view.getInt32(a + i, true) !== view.getInt32(c + i, true)) return false;
  for (; i < n; i++) if (b[a + i] !== b[c + i]) return false;
  return true;
}

/** Moves the offsets of fields [from, to) by `delta`. */
function shiftFields(starts: Int32Array, ends: Int32Array, from: number, to: number, delta: number): void {
  if (delta === 0) return;
  for (let j = from; j < to; j++) {
    starts[j] = (starts[j] as number) + delta;
    ends[j] = (ends[j] as number) + delta;
  }
}

/** Short quoted fields are searched byte by byte; longer ones by Buffer.indexOf (memchr), whose call costs more. */
const PROBE = 16;

export function createCsvScanner(options: CsvScannerOptions): CsvScanner {
  const maxFields = options.maxFields ?? 256;
  const maxRowBytes = options.maxRowBytes ?? 64 * 1024 * 1024;
  const fileStart = options.fileStart ?? true;
  const onRow = options.onRow;
  const row: CsvRow = {
    buf: Buffer.alloc(0),
    fieldCount: 0,
    starts: new Int32Array(maxFields),
    ends: new Int32Array(maxFields),
    quoted: new Uint8Array(maxFields),
    escaped: new Uint8Array(maxFields),
    values: new Float64Array(maxFields),
    wide: new Uint8Array(maxFields),
    high: new Float64Array(maxFields),
    low: new Float64Array(maxFields),
    guessed: false,
    repeated: false,
    tailRepeated: false,
    decimalField: -1,
    decimal: NaN,
    line: 1,
    offset: 0,
  };
  let guessField = options.guess?.field ?? -1;
  let guessBytes = options.guess ? options.guess.bytes.bind(options.guess) : null;
  let stopAt = options.stopAt ?? Infinity;
  let repeatFields = 0;
  let repeatTail = -1;
  /** The last row's start in the buffer being scanned and the length of its first repeatFields fields with their comma; -1: none. */
  let prevStart = -1;
  let prevPrefix = 0;
  let prevGuessed = false;
  /** Where the last row's tail fields started in the buffer being scanned, their length to its line end and count; -1: none. */
  let prevTail = -1;
  let prevTailLength = 0;
  let prevFieldCount = 0;
  let prevTailGuessed = false;
  /** The WebAssembly fast path, for repeated rows that differ in the two fields between head and tail only. */
  let fast: RepeatedRows | null = null;
  /** Bumped by setRepeat and setGuess: rows the fast path took under the earlier settings are read again. */
  let settings = 0;
  /** RepeatedFields.offsetsUnread. */
  let repeatOffsetsUnread = false;
  function setRepeat(repeat: RepeatedFields | undefined): void {
    repeatFields = Math.min(repeat?.head ?? 0, maxFields);
    repeatOffsetsUnread = repeat?.offsetsUnread === true;
    repeatTail = repeat && repeat.tail > 0 && repeat.tail < maxFields ? repeat.tail : -1;
    prevStart = -1;
    prevTail = -1;
    fast = repeatFields > 0 && repeatTail === repeatFields + 2 ? repeatedRows() : null;
    settings++;
  }
  setRepeat(options.repeat);
  let stoppedAt = -1;
  let pending: Buffer | null = null;
  let line = 1;
  let atStart = fileStart;
  /** Stream offset of the buffer being scanned. */
  let base = 0;

  function reset(newStopAt = Infinity): void {
    stopAt = newStopAt;
    stoppedAt = -1;
    pending = null;
    line = 1;
    atStart = fileStart;
    base = 0;
  }

  /**
   * The rows from `p` that the fast path takes (each the row before but for its name and number), handed to
   * onRow as the scanner would have read them; returns where the rows it did not take start (`p`: none taken).
   */
  function takeRepeated(rows: RepeatedRows, b: Buffer, p: number, len: number): number {
    const { starts, ends, quoted, escaped, values, wide } = row;
    const head = repeatFields;
    const fieldCount = prevFieldCount;
    const guessed = guessField >= repeatTail ? prevTailGuessed : prevGuessed;
    const stop = stopAt - base >= len ? len : Math.max(0, stopAt - base);
    const asked = settings;
    const eachRow = !repeatOffsetsUnread;
    // where the head and tail fields' offsets are (when they are not moved with each row)
    let offsetsOf = prevStart;
    let tailOffsetsOf = prevTail;
    rows.busy = true;
    try {
      for (;;) {
        const k = rows.take(p, len, stop, prevStart, prevPrefix, prevTail, prevTailLength);
        const { out, values: digits } = rows;
        for (let i = 0; i < k; i++) {
          const rowStart = out[4 * i] as number;
          const nameEnd = out[4 * i + 1] as number;
          const valueEnd = out[4 * i + 2] as number;
          const flags = out[4 * i + 3] as number;
          const q = flags & REPEATED_QUOTED_NAME;
          const tailStart = valueEnd + 1;
          if (eachRow) {
            shiftFields(starts, ends, 0, head, rowStart - prevStart);
            shiftFields(starts, ends, head + 2, fieldCount, tailStart - prevTail);
            offsetsOf = rowStart;
            tailOffsetsOf = tailStart;
          }
          starts[head] = rowStart + prevPrefix + q;
          ends[head] = nameEnd;
          quoted[head] = q;
          escaped[head] = 0;
          wide[head] = 0;
          values[head] = NaN;
          starts[head + 1] = nameEnd + 1 + q;
          ends[head + 1] = valueEnd;
          quoted[head + 1] = 0;
          escaped[head + 1] = 0;
          wide[head + 1] = 0;
          const number = digits[i] as number;
          if (flags & REPEATED_INTEGER) {
            values[head + 1] = number;
            row.decimalField = -1;
          } else {
            values[head + 1] = NaN;
            row.decimalField = head + 1;
            row.decimal = number;
          }
          prevStart = rowStart;
          prevTail = tailStart;
          p = tailStart + prevTailLength;
          row.line = line;
          line++;
          row.guessed = guessed;
          row.repeated = true;
          row.tailRepeated = true;
          row.buf = b;
          row.fieldCount = fieldCount;
          row.offset = base + rowStart;
          onRow(row);
          // the row's reader changed what repeats or is guessed: the rows after it are read with that
          if (settings !== asked) return p;
        }
        if (k < REPEATED_ROWS_MAX) return p;
      }
    } finally {
      rows.busy = false;
      // the head and tail fields' offsets are the last row's again, as the next row compared with it needs them
      // (none is when a reader's setRepeat forgot the row before)
      if (prevStart >= 0) shiftFields(starts, ends, 0, head, prevStart - offsetsOf);
      if (prevTail >= 0) shiftFields(starts, ends, head + 2, fieldCount, prevTail - tailOffsetsOf);
    }
  }

  /** Scans complete rows of `b`; returns the offset of the first byte not consumed. */
  function scan(b: Buffer, final: boolean): number {
    const len = b.length;
    let p = 0;
    if (stoppedAt >= 0) return len;
    if (atStart) {
      if (len < 3 && !final) return 0;
      if (len >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) p = 3;
      atStart = false;
    }
    const { starts, ends, quoted, escaped, values, wide } = row;
    prevStart = -1;
    prevTail = -1;
    const view = new DataView(b.buffer, b.byteOffset, b.length);
    // First line feed at or after the current quoted field (len: none): a quoted field that closes before it has
    // no newline inside, so one memchr per row counts the lines instead of one per quoted field.
    let nextLf = -1;
    /** The fast path's load of `b` (its memory holds `b` while its stamp is this). */
    let loaded = -1;
    rows: while (p < len) {
      // (the sum is taken on every row: code optimised before the first stop then has what it needs for it)
      const at = base + p;
      if (at >= stopAt) {
        stoppedAt = at;
        return len;
      }
      if (fast !== null && !fast.busy && prevStart >= 0 && prevTail >= 0 && guessField !== repeatFields) {
        if (fast.stamp !== loaded) loaded = fast.load(b);
        const taken = takeRepeated(fast, b, p, len);
        if (taken > p) {
          p = taken;
          continue;
        }
      }
      const rowStart = p;
      let rowLines = 0;
      let f = 0;
      let guessed = false;
      let repeated = false;
      let tailRepeated = false;
      if (prevStart >= 0) {
        // the previous row's first fields, when the same bytes follow here (then they parse the same)
        const n = prevPrefix;
        if (rowStart + n < len && sameBytes(view, b, rowStart, prevStart, n)) {
          const delta = rowStart - prevStart;
          for (let j = 0; j < repeatFields; j++) {
            starts[j] = (starts[j] as number) + delta;
            ends[j] = (ends[j] as number) + delta;
          }
          p = rowStart + n;
          f = repeatFields;
          guessed = prevGuessed;
          repeated = true;
        }
      }
      // a repeated row's fields are where they are now: the next row is compared with this one
      prevStart = repeated ? rowStart : -1;
      const tailFrom = prevTail;
      prevTail = -1;
      let tailAt = -1;
      for (;;) {
        if (f === repeatTail) {
          tailAt = p;
          // the previous row's last fields, when the same bytes follow here up to and with its line end
          const n = prevTailLength;
          if (tailFrom >= 0 && p + n <= len && sameBytes(view, b, p, tailFrom, n)) {
            const delta = p - tailFrom;
            for (let j = f; j < prevFieldCount; j++) {
              starts[j] = (starts[j] as number) + delta;
              ends[j] = (ends[j] as number) + delta;
            }
            f = prevFieldCount;
            p += n;
            if (guessField >= repeatTail) guessed = prevTailGuessed;
            tailRepeated = true;
            break;
          }
        }
        if (f === maxFields) throw new CsvFormatError(`more than ${maxFields} fields in a row`, line, base + rowStart);
        // p is len after a comma that ends the input; no read past the end (optimised code assumes none)
        if (p < len && b[p] === QUOTE) {
          let q = p + 1;
          let esc = 0;
          let close = -1;
          let guessedClose = -1;
          if (f === guessField) {
            // the guess holds when its bytes are there and followed by a quote that ends the field: having no `"`
            // and no line feed, they put the first quote after p there and no line inside
            const g = (guessBytes as FieldGuess['bytes'])(values);
            const at = g === undefined ? -1 : q + g.length;
            if (at >= 0 && at + 1 < len && b[at] === QUOTE) {
              const c = b[at + 1];
              if ((c === COMMA || c === LF || c === CR) && (g as Buffer).compare(b, q, at) === 0) {
                close = guessedClose = at;
                guessed = true;
              }
            }
          }
          while (close < 0) {
            const probeEnd = q + PROBE < len ? q + PROBE : len;
            close = q;
            while (close < probeEnd && b[close] !== QUOTE) close++;
            if (close === probeEnd) close = probeEnd < len ? b.indexOf(QUOTE, probeEnd) : -1;
            if (close < 0) {
              if (final) throw new CsvFormatError('unterminated quoted field', line, base + rowStart);
              return rowStart;
            }
            if (close + 1 < len) {
              if (b[close + 1] === QUOTE) {
                esc = 1;
                q = close + 2;
                close = -1;
                continue;
              }
            } else if (!final) {
              return rowStart; // cannot tell `"` + end of field from `""` yet
            }
            break;
          }
          if (close !== guessedClose) {
            if (nextLf <= p) {
              nextLf = b.indexOf(LF, p + 1);
              if (nextLf < 0) nextLf = len;
            }
            while (nextLf < close) {
              rowLines++;
              nextLf = b.indexOf(LF, nextLf + 1);
              if (nextLf < 0) nextLf = len;
            }
          }
          starts[f] = p + 1;
          ends[f] = close;
          quoted[f] = 1;
          escaped[f] = esc;
          wide[f] = 0;
          // a quoted number (`"1204063"`, as tools that re-save CSVs write every field) reads as an unquoted one
          const c0 = close > p + 1 && esc === 0 ? (b[p + 1] as number) : 0;
          values[f] = (c0 >= 0x30 && c0 <= 0x39) || c0 === 0x2d ? digitsValue(b, p + 1, close, row, f) : NaN;
          p = close + 1;
          if (p < len) {
            const c = b[p];
            if (c !== COMMA && c !== LF && c !== CR)
              throw new CsvFormatError('unexpected character after a closing quote', line, base + rowStart);
          }
        } else {
          // digits first (the common case: timestamps, ids, sizes), then anything else up to the delimiter
          let k = p;
          let v = 0;
          const neg = k < len && b[k] === 0x2d;
          if (neg) k++;
          const digitsStart = k;
          let c = 0;
          while (k < len) {
            c = b[k] as number;
            const d = c - 0x30;
            if (d < 0 || d > 9) break;
            v = v * 10 + d;
            k++;
          }
          let numeric = k > digitsStart;
          if (k < len && c !== COMMA && c !== LF && c !== CR) {
            numeric = false;
            // the three delimiters are all at or below the comma: one compare for most bytes of a name
            for (k++; k < len; k++) {
              c = b[k] as number;
              if (c <= COMMA && (c === COMMA || c === LF || c === CR)) break;
            }
          }
          if (k >= len && !final) return rowStart;
          starts[f] = p;
          ends[f] = k;
          quoted[f] = 0;
          escaped[f] = 0;
          wide[f] = 0;
          // from 2^53 on the sum above may have been rounded: the exact value goes in high/low
          values[f] = !numeric ? NaN : v < TWO_53 ? (neg ? -v : v) : neg ? NaN : digitsValue(b, digitsStart, k, row, f);
          p = k;
        }
        f++;
        if (p >= len) {
          if (!final) return rowStart;
          break; // last row without a line end
        }
        const c = b[p];
        if (c === COMMA) {
          p++;
          if (f === repeatFields && rowLines === 0) {
            prevStart = rowStart;
            prevPrefix = p - rowStart;
            prevGuessed = guessed;
          }
          continue;
        }
        if (c === CR) {
          if (p + 1 >= len && !final) return rowStart;
          p += b[p + 1] === LF ? 2 : 1;
        } else {
          p++; // LF
        }
        break;
      }
      if (tailAt >= 0 && rowLines === 0 && b[p - 1] === LF) {
        prevTail = tailAt;
        prevTailLength = p - tailAt;
        prevFieldCount = f;
        prevTailGuessed = guessed;
      }
      const blank = f === 1 && quoted[0] === 0 && ends[0] === starts[0];
      row.line = line;
      line += 1 + rowLines;
      if (!blank) {
        row.guessed = guessed;
        row.repeated = repeated;
        row.tailRepeated = tailRepeated;
        row.decimalField = -1;
        row.buf = b;
        row.fieldCount = f;
        row.offset = base + rowStart;
        onRow(row);
      }
      if (p >= len) break rows;
    }
    return p;
  }

  function keep(b: Buffer, used: number): void {
    if (used < b.length) {
      if (b.length - used > maxRowBytes)
        throw new CsvFormatError(`row longer than ${maxRowBytes} bytes`, line, base + used);
      pending = b.subarray(used);
    } else {
      pending = null;
    }
    base += used;
  }

  function take(b: Buffer, final: boolean): void {
    keep(b, scan(b, final));
  }

  return {
    feed(chunk: Uint8Array): void {
      if (chunk.length === 0) return;
      let c = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      if (pending) {
        // Finish the row cut by the chunk boundary on a copy of its start plus as little of `c` as it needs, then
        // scan the rest of `c` in place: a copy of every chunk would cost as much as the scan.
        const head = pending;
        for (let k = Math.min(c.length, Math.max(4096, head.length)); ; k = Math.min(c.length, k * 4)) {
          const joined = Buffer.concat([head, c.subarray(0, k)]);
          const used = scan(joined, false);
          if (used > head.length || k === c.length) {
            if (used <= head.length) {
              keep(joined, used);
              return;
            }
            base += used;
            pending = null;
            c = c.subarray(used - head.length);
            break;
          }
          if (joined.length - used > maxRowBytes)
            throw new CsvFormatError(`row longer than ${maxRowBytes} bytes`, line, base + used);
        }
        if (c.length === 0) return;
      }
      take(c, false);
    },
    end(): void {
      if (pending && pending.length > 0) take(pending, true);
      pending = null;
    },
    reset,
    scanRows(b: Buffer, final: boolean): number {
      const used = scan(b, final);
      if (!final && b.length - used > maxRowBytes)
        throw new CsvFormatError(`row longer than ${maxRowBytes} bytes`, line, base + used);
      base += used;
      return used;
    },
    setGuess(guess: FieldGuess | undefined): void {
      guessField = guess?.field ?? -1;
      guessBytes = guess ? guess.bytes.bind(guess) : null;
      settings++;
    },
    setRepeat,
    get line() {
      return line;
    },
    get stoppedAt() {
      return stoppedAt;
    },
  };
}

const utf8 = new TextDecoder('utf-8');

/** The text of field `i` (quotes removed, `""` unescaped). */
export function fieldText(row: CsvRow, i: number): string {
  if (i < 0 || i >= row.fieldCount) return '';
  const s = utf8.decode(row.buf.subarray(row.starts[i], row.ends[i]));
  return row.escaped[i] ? s.replaceAll('""', '"') : s;
}

/** A finite number from field `i`: the pre-parsed integer, or a decimal / scientific value, else NaN. */
export function fieldNumber(row: CsvRow, i: number): number {
  if (i < 0 || i >= row.fieldCount) return NaN;
  const v = row.values[i] as number;
  if (!Number.isNaN(v)) return v;
  if (row.wide[i]) return (row.high[i] as number) * 1e9 + (row.low[i] as number);
  if (i === row.decimalField) return row.decimal;
  const t = fieldText(row, i).trim();
  if (t === '') return NaN;
  const n = Number(t);
  return Number.isFinite(n) ? n : NaN;
}

/** The row as written (its first 160 bytes), for a message naming it. */
export function rowExcerpt(row: CsvRow): string {
  if (row.fieldCount === 0) return '';
  const from = (row.starts[0] as number) - (row.quoted[0] ? 1 : 0);
  const last = row.fieldCount - 1;
  const to = (row.ends[last] as number) + (row.quoted[last] ? 1 : 0);
  const text = row.buf.toString('utf8', from, Math.min(to, from + 160));
  return to - from > 160 ? `${text}...` : text;
}
