// Streaming UTF-8 decoding that is fast on big chunks. TextDecoder.decode(chunk, { stream: true }) goes through a
// slow path in Node (about 1 GB/s against 7 GB/s for a one-shot decode), so each chunk is cut after its last
// complete character, decoded in one shot, and the few bytes of an unfinished character are carried over to the
// next chunk. The text is the same as the streaming decoder's for any split: invalid bytes become U+FFFD and a
// byte-order mark is kept (it was received).

export interface Utf8StreamDecoder {
  /** Text of the complete characters received so far; an unfinished last character waits for the next chunk. */
  write(chunk: Uint8Array): string;
  /** End of input: an unfinished character becomes U+FFFD. */
  end(): string;
  /** Whether bytes of an unfinished character are held. */
  readonly pending: boolean;
}

/** Length of the prefix of `bytes` that ends on a character boundary (an unfinished last sequence left out). */
export function completeUtf8Length(bytes: Uint8Array): number {
  const n = bytes.length;
  // A sequence is at most 4 bytes: its lead byte is within the last 3 if it is unfinished.
  for (let i = n - 1; i >= 0 && i >= n - 3; i--) {
    const b = bytes[i] as number;
    if (b < 0x80) return n; // ASCII: everything before it is complete
    if (b >= 0xc0) {
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      return n - i < need ? i : n;
    }
    // a continuation byte: keep looking for its lead
  }
  return n;
}

export function createUtf8StreamDecoder(): Utf8StreamDecoder {
  const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  let carry: Uint8Array | null = null;
  return {
    write(chunk) {
      let bytes = chunk;
      if (carry) {
        const joined = new Uint8Array(carry.length + chunk.length);
        joined.set(carry, 0);
        joined.set(chunk, carry.length);
        bytes = joined;
        carry = null;
      }
      const cut = completeUtf8Length(bytes);
      if (cut < bytes.length) {
        carry = bytes.slice(cut);
        bytes = bytes.subarray(0, cut);
      }
      return bytes.length === 0 ? '' : decoder.decode(bytes);
    },
    end() {
      const rest = carry;
      carry = null;
      return rest ? decoder.decode(rest) : '';
    },
    get pending() {
      return carry !== null;
    },
  };
}
