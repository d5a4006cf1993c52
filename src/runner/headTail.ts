// Keeps the first and last part of a long output, and says how much was left out between them.
export interface HeadTail {
  push(text: string): void;
  /** Head, the omission note (when something was dropped), tail. */
  text(): string;
  readonly totalBytes: number;
  readonly omittedBytes: number;
}

/**
 * The tail is the longest run of last pieces that fits in its half of the limit (at least the last piece, cut to
 * its end when it alone is too long). A piece is pushed per line of output, so the tail is not measured per push:
 * pieces are collected and trimmed in batches (one byte count for everything dropped at once), which gives the
 * same result as trimming at every push, since a piece once too far from the end stays too far.
 */
export function createHeadTail(limitBytes: number): HeadTail {
  const headLimit = Math.floor(limitBytes / 2);
  const tailLimit = limitBytes - headLimit;
  // Trim once the collected pieces are this long (UTF-16 units; a unit is at least one byte).
  const trimUnits = Math.max(4 * tailLimit, 64 * 1024);
  let head = '';
  let headBytes = 0;
  let headPushed = 0; // bytes pushed while the head was filling, less what went on to the tail
  let headFull = false;
  let tail: string[] = [];
  let tailUnits = 0;
  let trimmed = true; // `tail` is as short as it can be (and its last piece cut to fit)
  let omitted = 0;

  /** Drops the pieces before the longest fitting run of last pieces; `final` also cuts a lone last piece to fit. */
  function trim(final: boolean): void {
    let keepFrom = tail.length;
    let bytes = 0;
    while (keepFrom > 0) {
      const b = Buffer.byteLength(tail[keepFrom - 1] as string);
      if (bytes + b > tailLimit && keepFrom < tail.length) break;
      bytes += b;
      keepFrom -= 1;
      if (bytes > tailLimit) break; // the last piece alone is too long
    }
    if (keepFrom > 0) {
      omitted += Buffer.byteLength(tail.slice(0, keepFrom).join(''));
      tail = tail.slice(keepFrom);
      tailUnits = tail.reduce((n, p) => n + p.length, 0);
    }
    if (final && bytes > tailLimit) {
      // a single piece larger than the tail: keep its end
      const buf = Buffer.from(tail[0] as string);
      const keep = buf.subarray(buf.length - tailLimit).toString();
      omitted += buf.length - Buffer.byteLength(keep);
      tail = [keep];
      tailUnits = keep.length;
    }
    trimmed = final;
  }

  function pushTail(piece: string): void {
    tail.push(piece);
    tailUnits += piece.length;
    trimmed = false;
    if (tailUnits > trimUnits) trim(false);
  }

  function settled(): string[] {
    if (!trimmed) trim(true);
    return tail;
  }

  return {
    push(text) {
      if (!text) return;
      if (!headFull) {
        const bytes = Buffer.byteLength(text);
        if (headBytes + bytes <= headLimit) {
          head += text;
          headBytes += bytes;
          headPushed += bytes;
          return;
        }
        headFull = true;
        if (headBytes === 0) {
          // first piece alone overflows the head: split it
          const buf = Buffer.from(text);
          const first = buf.subarray(0, headLimit).toString();
          head = first;
          headBytes = Buffer.byteLength(first);
          const rest = buf.subarray(headBytes).toString();
          headPushed += bytes - Buffer.byteLength(rest);
          if (rest) pushTail(rest);
          return;
        }
      }
      pushTail(text);
    },
    text() {
      const tailText = settled().join('');
      if (omitted === 0) return head + tailText;
      const sep = head.endsWith('\n') || head === '' ? '' : '\n';
      return `${head}${sep}[... ${omitted} bytes omitted ...]\n${tailText}`;
    },
    get totalBytes() {
      return headPushed + omitted + Buffer.byteLength(settled().join(''));
    },
    get omittedBytes() {
      settled();
      return omitted;
    },
  };
}
