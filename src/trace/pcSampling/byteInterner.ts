// Field bytes -> one value (a string, an id) per distinct value, without making a string per row: PC-sample files repeat a few
// thousand comments and instructions and a dozen stall reasons over millions of rows. The bytes are hashed (in part) here and
// compared natively (Buffer.compare) against the stored copy; a repeated value costs no allocation, and the string
// handed back is the same object every time (its hash is cached by V8 for the maps it keys).

const RECENT_SLOTS = 4096;

interface Entry<T> {
  bytes: Buffer;
  value: T;
  next: Entry<T> | null;
}

export class ByteInterner<T = string> {
  private readonly table = new Map<number, Entry<T>>();
  private size = 0;

  constructor(
    /** The string stored for new bytes (from the latin1 text of `buf[start, end)`). */
    private readonly make: (buf: Buffer, start: number, end: number) => T,
    /** Distinct values kept; past that, values are made per call (correct, slower). */
    private readonly limit = 100_000,
  ) {}

  /** The last entry found per slot of a small direct-mapped table: most lookups end there, without the Map. */
  private readonly recent: Array<Entry<T> | undefined> = new Array<Entry<T> | undefined>(RECENT_SLOTS);

  get(buf: Buffer, start: number, end: number): T {
    // the hash reads the length, the first 4 and the last 12 bytes (values that differ tell apart there: line
    // numbers, register names, reason suffixes); equal hashes are told apart by the comparison below
    const len = end - start;
    let h = 0x811c9dc5 ^ len;
    const headEnd = len > 4 ? start + 4 : end;
    for (let i = start; i < headEnd; i++) h = Math.imul(h ^ (buf[i] as number), 0x01000193);
    for (let i = end - 12 > headEnd ? end - 12 : headEnd; i < end; i++)
      h = Math.imul(h ^ (buf[i] as number), 0x01000193);
    h &= 0x3fffffff; // a small integer (Smi) key: a larger one would be a heap number, slower to look up
    const slot = h & (RECENT_SLOTS - 1);
    const hit = this.recent[slot];
    if (hit !== undefined && hit.bytes.length === len && hit.bytes.compare(buf, start, end) === 0) return hit.value;
    const head = this.table.get(h);
    for (let e: Entry<T> | null = head ?? null; e; e = e.next) {
      if (e.bytes.length === len && e.bytes.compare(buf, start, end) === 0) {
        this.recent[slot] = e;
        return e.value;
      }
    }
    const value = this.make(buf, start, end);
    if (this.size < this.limit) {
      const bytes = Buffer.allocUnsafe(end - start);
      buf.copy(bytes, 0, start, end);
      const entry = { bytes, value, next: head ?? null };
      this.table.set(h, entry);
      this.recent[slot] = entry;
      this.size++;
    }
    return value;
  }
}
