// Keeps the first and last part of a long output, and says how much was left out between them.
export interface HeadTail {
  push(text: string): void;
  /** Head, the omission note (when something was dropped), tail. */
  text(): string;
  readonly totalBytes: number;
  readonly omittedBytes: number;
}

export function createHeadTail(limitBytes: number): HeadTail {
  const headLimit = Math.floor(limitBytes / 2);
  const tailLimit = limitBytes - headLimit;
  let head = '';
  let headBytes = 0;
  let headFull = false;
  const tail: string[] = [];
  const tailLens: number[] = [];
  let tailStart = 0;
  let tailBytes = 0;
  let total = 0;
  let omitted = 0;

  function pushTail(piece: string, bytes: number): void {
    tail.push(piece);
    tailLens.push(bytes);
    tailBytes += bytes;
    while (tailBytes > tailLimit && tailStart < tail.length - 1) {
      const droppedBytes = tailLens[tailStart] as number;
      tailBytes -= droppedBytes;
      omitted += droppedBytes;
      tail[tailStart] = '';
      tailStart += 1;
    }
    if (tailBytes > tailLimit) {
      // a single piece larger than the tail: keep its end
      const last = tail[tail.length - 1] as string;
      const buf = Buffer.from(last);
      const keep = buf.subarray(buf.length - tailLimit).toString();
      omitted += buf.length - Buffer.byteLength(keep);
      tail[tail.length - 1] = keep;
      tailBytes = Buffer.byteLength(keep);
      tailLens[tailLens.length - 1] = tailBytes;
    }
    if (tailStart > 1024 && tailStart * 2 > tail.length) {
      tail.splice(0, tailStart);
      tailLens.splice(0, tailStart);
      tailStart = 0;
    }
  }

  return {
    push(text) {
      if (!text) return;
      const bytes = Buffer.byteLength(text);
      total += bytes;
      if (!headFull) {
        if (headBytes + bytes <= headLimit) {
          head += text;
          headBytes += bytes;
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
          if (rest) pushTail(rest, Buffer.byteLength(rest));
          return;
        }
      }
      pushTail(text, bytes);
    },
    text() {
      const tailText = tail.slice(tailStart).join('');
      if (omitted === 0) return head + tailText;
      const sep = head.endsWith('\n') || head === '' ? '' : '\n';
      return `${head}${sep}[... ${omitted} bytes omitted ...]\n${tailText}`;
    },
    get totalBytes() {
      return total;
    },
    get omittedBytes() {
      return omitted;
    },
  };
}
