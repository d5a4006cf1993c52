// The rows of a CSV file on disk through a CsvScanner, read into one buffer that the unfinished row at the end of
// each read moves to the start of (scanRows): no buffer per chunk to collect, no copy of a chunk to finish a row.
// Used by the worker threads' parts and by every CSV read from disk on the calling thread.
import { readSync } from 'node:fs';
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
