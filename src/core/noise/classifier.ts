import { stripAnsi } from './ansi';
import { classifyLine, createLegacyBlockTracker } from './patterns';
import type { ClassifiedLine, LineEnding, LineKind } from './types';
import { createUtf8StreamDecoder } from './utf8';
import { DEFAULT_MAX_LINE_BYTES } from '../limits';

export interface LineClassifierOptions {
  /** Called once per line (or per piece of an over-long line), in input order. */
  onLine: (line: ClassifiedLine) => void;
  /**
   * Longest line delivered whole, in UTF-8 bytes of the decoded text (default 1 MiB, minimum 16). A longer line
   * is delivered in pieces: every piece but the last has `eol: ''`, each is at most this long, cut on a character
   * boundary (and not inside an ANSI sequence), and all pieces share the first piece's kind. Nothing is dropped
   * and at most about this much (plus one chunk) is ever held.
   */
  maxLineBytes?: number;
}

export interface LineClassifier {
  /** Bytes (any split: multi-byte characters may straddle chunks) or already-decoded text. */
  feed(chunk: Uint8Array | string): void;
  /** End of input: delivers the last line even without a terminator, then starts afresh. */
  flush(): void;
  /** Forgets everything buffered, without delivering it. */
  reset(): void;
}

const MIN_MAX_LINE_BYTES = 16;

/**
 * Streaming classifier for a program's mixed stdout/stderr under rocprof: splits lines at LF, CRLF or a lone CR,
 * decodes UTF-8 without ever throwing (invalid bytes become U+FFFD), strips ANSI codes for `text`, and marks
 * profiler chatter as noise. Output does not depend on how the input was chunked.
 */
export function createLineClassifier(options: LineClassifierOptions): LineClassifier {
  const { onLine } = options;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < MIN_MAX_LINE_BYTES) {
    throw new RangeError(`maxLineBytes must be an integer >= ${MIN_MAX_LINE_BYTES}, got ${String(maxLineBytes)}`);
  }
  // A line this short in UTF-16 units cannot exceed maxLineBytes in UTF-8 (at most 3 bytes per unit).
  const surelyFits = Math.floor(maxLineBytes / 3);

  let decoder = createUtf8StreamDecoder(); // a character split across chunks is completed by the next one
  let pending = ''; // the current line so far, terminator not yet seen
  let pendingCR = false; // `pending` ended with CR at the end of a chunk: an LF opening the next one is its CRLF
  let continued: LineKind | null = null; // kind of the over-long line whose pieces are being delivered
  const legacy = createLegacyBlockTracker();

  function emit(raw: string, eol: LineEnding): void {
    const text = stripAnsi(raw);
    const kind = continued ?? legacy.next(text, classifyLine(text));
    continued = eol === '' ? kind : null;
    onLine({ text, raw, noise: kind !== 'program' && kind !== 'fatal', kind, eol });
  }

  /** Delivers leading pieces while `s` is over the limit; returns the rest (within the limit). */
  function emitPieces(s: string): string {
    if (s.length <= surelyFits) return s;
    for (;;) {
      const cut = cutIndex(s, maxLineBytes);
      if (cut < 0) return s;
      emit(s.slice(0, cut), '');
      s = s.slice(cut);
    }
  }

  function finish(s: string, eol: LineEnding): void {
    emit(emitPieces(s), eol);
  }

  function push(chunk: string): void {
    const len = chunk.length;
    if (len === 0) return;
    let pos = 0;
    if (pendingCR) {
      pendingCR = false;
      const crlf = chunk.charCodeAt(0) === 10;
      finish(pending, crlf ? '\r\n' : '\r');
      pending = '';
      if (crlf) pos = 1;
    }
    // Next LF / CR positions, searched again only once passed (-1: none left in this chunk).
    let lf = -2;
    let cr = -2;
    while (pos < len) {
      if (lf !== -1 && lf < pos) lf = chunk.indexOf('\n', pos);
      if (cr !== -1 && cr < pos) cr = chunk.indexOf('\r', pos);
      let end: number;
      let eol: LineEnding;
      if (lf !== -1 && (cr === -1 || lf < cr)) {
        end = lf;
        eol = '\n';
      } else if (cr !== -1) {
        end = cr;
        if (cr + 1 === len) {
          pending = emitPieces(pending + chunk.slice(pos, cr));
          pendingCR = true;
          return;
        }
        eol = chunk.charCodeAt(cr + 1) === 10 ? '\r\n' : '\r';
      } else {
        break;
      }
      let line = chunk.slice(pos, end);
      if (pending !== '') {
        line = pending + line;
        pending = '';
      }
      finish(line, eol);
      pos = end + eol.length;
    }
    if (pos < len) pending = emitPieces(pending + chunk.slice(pos));
  }

  return {
    feed(chunk) {
      if (typeof chunk === 'string') {
        if (decoder.pending) push(decoder.end()); // an unfinished character becomes U+FFFD
        push(chunk);
      } else {
        push(decoder.write(chunk));
      }
    },
    flush() {
      push(decoder.end());
      if (pendingCR) finish(pending, '\r');
      else if (pending !== '' || continued !== null) finish(pending, '');
      pending = '';
      pendingCR = false;
      continued = null;
      legacy.reset();
    },
    reset() {
      decoder = createUtf8StreamDecoder();
      pending = '';
      pendingCR = false;
      continued = null;
      legacy.reset();
    },
  };
}

const ANSI_CSI_AT = /\x1b\[[0-?]*[ -/]*[@-~]/y; // eslint-disable-line no-control-regex
const ANSI_LOOKBACK = 64;

/**
 * Code-unit index of the longest prefix of `s` whose UTF-8 encoding fits in `maxBytes` without splitting a
 * surrogate pair or an ANSI CSI sequence; -1 when all of `s` fits.
 */
function cutIndex(s: string, maxBytes: number): number {
  let bytes = 0;
  let i = 0;
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    let units = 1;
    let size: number;
    if (c < 0x80) size = 1;
    else if (c < 0x800) size = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      size = 4;
      units = 2;
    } else size = 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    i += units;
  }
  if (i >= n) return -1;
  const esc = s.lastIndexOf('\x1b', i - 1);
  if (esc > 0 && esc >= i - ANSI_LOOKBACK) {
    ANSI_CSI_AT.lastIndex = esc;
    if (!ANSI_CSI_AT.test(s) || ANSI_CSI_AT.lastIndex > i) return esc;
  }
  return i;
}
