// The rows of a CSV file on disk through a CsvScanner (scanRows): no buffer per chunk to collect, no copy of a chunk
// to finish a row. FileRows reads synchronously into one buffer that the unfinished row at the end of each read moves
// to the start of (a part of a large file, scanned by a worker thread or here); readAheadRows reads a whole file
// with the next chunk read on libuv's thread pool while this one is scanned (every other CSV read from disk).
import { read, readSync } from 'node:fs';
import type { CsvScanner } from './csvScanner';
import { READ_BYTES } from './limits';

export class FileRows {
  private pos: number;
  private kept = 0;

  constructor(
    private readonly fd: number,
    start: number,
    private readonly scanner: CsvScanner,
    /** The read buffer (grown for a longer row): keep it for the next file on the same thread. */
    public buffer: Buffer = Buffer.allocUnsafeSlow(READ_BYTES),
  ) {
    this.pos = start;
  }

  /** Reads and scans the next chunk; returns its bytes, or 0 once the file is done or the scanner has stopped. */
  next(): number {
    const scanner = this.scanner;
    if (scanner.stoppedAt >= 0) return 0;
    let buf = this.buffer;
    if (this.kept === buf.length) {
      const bigger = Buffer.allocUnsafeSlow(buf.length * 2);
      buf.copy(bigger, 0, 0, this.kept);
      buf = this.buffer = bigger;
    }
    const n = readSync(this.fd, buf, this.kept, buf.length - this.kept, this.pos);
    if (n <= 0) {
      scanner.scanRows(buf.subarray(0, this.kept), true);
      this.kept = 0;
      return 0;
    }
    this.pos += n;
    const have = this.kept + n;
    const used = scanner.scanRows(buf.subarray(0, have), false);
    buf.copy(buf, 0, used, have);
    this.kept = have - used;
    return scanner.stoppedAt >= 0 ? 0 : n;
  }
}

/** Reads up to `length` bytes at `position` of the file into `buffer` at `offset`; resolves to the bytes read. */
export type ChunkReader = (
  fd: number,
  buffer: Buffer,
  offset: number,
  length: number,
  position: number,
) => Promise<number>;

const readFromFile: ChunkReader = (fd, buffer, offset, length, position) =>
  new Promise((resolve, reject) =>
    read(fd, buffer, offset, length, position, (err, n) => (err ? reject(err) : resolve(n))),
  );

/** Bytes per read of readAheadRows, and the room before them for the row the last read cut. */
const AHEAD_BYTES = 1 << 20;
const CARRY_ROOM = 64 * 1024;

/**
 * The rows of the file from `start` through `scanner`, the next chunk read (on libuv's thread pool, beside this
 * thread) while this one is scanned: the copy out of the page cache is off the scanning thread. Two buffers take
 * turns; the unfinished row at the end of one is moved into the room before the other's bytes (a row longer than
 * that room is joined into a buffer of its own). Resolves once the file is done or the scanner has stopped.
 */
export async function readAheadRows(
  fd: number,
  start: number,
  scanner: CsvScanner,
  readChunk: ChunkReader = readFromFile,
): Promise<void> {
  const buffers = [Buffer.allocUnsafeSlow(CARRY_ROOM + AHEAD_BYTES), Buffer.allocUnsafeSlow(CARRY_ROOM + AHEAD_BYTES)];
  const readInto = (b: Buffer, at: number): Promise<number> => readChunk(fd, b, CARRY_ROOM, AHEAD_BYTES, at);
  let pos = start;
  let turn = 0;
  let next = readInto(buffers[0] as Buffer, pos);
  /** The unfinished row: its bytes in the buffer read before. */
  let carry: Buffer = Buffer.alloc(0);
  /** Reads after a carry longer than the room, not scanned yet (see below). */
  let pieces: Buffer[] = [];
  let piecesBytes = 0;
  try {
    for (;;) {
      const n = await next;
      const b = buffers[turn] as Buffer;
      let chunk: Buffer;
      if (carry.length <= CARRY_ROOM) {
        carry.copy(b, CARRY_ROOM - carry.length);
        chunk = b.subarray(CARRY_ROOM - carry.length, CARRY_ROOM + n);
      } else {
        // A long row is scanned again from its start once what was read after it doubles it, not at every read:
        // a re-scan per read of a 50 MB field was quadratic (19 s).
        pieces.push(Buffer.from(b.subarray(CARRY_ROOM, CARRY_ROOM + Math.max(n, 0))));
        piecesBytes += Math.max(n, 0);
        if (n > 0 && piecesBytes < carry.length) {
          pos += n;
          turn = 1 - turn;
          next = readInto(buffers[turn] as Buffer, pos);
          continue;
        }
        chunk = Buffer.concat([carry, ...pieces]);
        pieces = [];
        piecesBytes = 0;
      }
      if (n <= 0) {
        scanner.scanRows(chunk, true);
        return;
      }
      pos += n;
      // the other buffer's carry was copied out above: it takes the next read while this one is scanned
      turn = 1 - turn;
      next = readInto(buffers[turn] as Buffer, pos);
      const used = scanner.scanRows(chunk, false);
      if (scanner.stoppedAt >= 0) return;
      carry = chunk.subarray(used);
    }
  } finally {
    // however the scan ended (a row handler may throw), no read is left running on a file the caller then closes
    await next.catch(() => 0);
  }
}
