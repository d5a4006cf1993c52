// A job's events as an append-only log in server-sent-events framing, exactly what an extension client receives:
//   id: <n>\nevent: <name>\ndata: <one-line JSON>\n\n
// One format for the file and the wire means an event is formatted once, encoded once, and written as the same
// bytes to the file and to every following client; a replay after Last-Event-ID sends file bytes as they are.
// Events are batched (one write per turn of the event loop, no fsync per line): live output of 100 MB programs.
//
// Ids are never reused, even across a crash. A batch reaches clients as soon as it is handed to the file stream,
// before the bytes are in the file: a `kill -9` can lose frames clients have seen. So before a batch goes to the
// listener its last id is written (one synchronous pwrite of a fixed-width number, no fsync) to the log's
// high-water mark file beside it (`events.hwm`); recovery numbers its events past max(the file's last id, the
// mark). A process crash cannot lose a completed write, so every id a client saw is at or below the mark. (A power
// loss can lose both, as it can lose the log itself: nothing here is fsynced.)
import {
  closeSync,
  constants,
  createReadStream,
  createWriteStream,
  existsSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readSync,
  writeSync,
  type WriteStream,
} from 'node:fs';
import type { SseEventName } from '../core/protocol/api';
import { sseFrame } from '../core/protocol/sseFrame';
import { LOG_CHUNK_BYTES, LOG_ENCODE_CHARS, LOG_FLUSH_BYTES, LOG_BACKLOG_BYTES, LOG_READ_BYTES } from './limits';

export interface LoggedEvent {
  id: number;
  event: SseEventName;
  /** The event's data: one line of JSON. */
  json: string;
}

/** Consecutive frames as written: `text` holds events `first`..`last`. */
export interface FrameBatch {
  bytes: Buffer;
  first: number;
  last: number;
  /** The batch ends with the job's terminal event (result or error). */
  terminal: boolean;
}

export function formatFrame(id: number, event: SseEventName, json: string): string {
  return sseFrame(event, json, id);
}

const FRAME = /^id: (\d+)\nevent: ([a-z]+)\ndata: (.*)$/s;

/** One frame without its blank-line terminator. */
export function parseFrame(frame: string): LoggedEvent | null {
  const m = FRAME.exec(frame);
  if (!m || (m[3] as string).includes('\n')) return null;
  return { id: Number(m[1]), event: m[2] as SseEventName, json: m[3] as string };
}

const TERMINATOR = Buffer.from('\n\n');

/** The high-water mark file of a log: the highest id ever handed to a client (see the top of this file). */
export function markPath(logPath: string): string {
  return logPath.endsWith('.sse') ? `${logPath.slice(0, -4)}.hwm` : `${logPath}.hwm`;
}

/** The highest id a client may have been given for this log (0 when none was recorded). */
export function readHighWaterMark(logPath: string): number {
  try {
    const n = Number(readFileSync(markPath(logPath), 'utf8').trim());
    return Number.isSafeInteger(n) && n > 0 ? n : 0;
  } catch {
    return 0;
  }
}

const MARK_WIDTH = 20;

/**
 * Keeps a log's high-water mark: `raise(id)` writes `id` in place (fixed width at offset 0, so a write is one
 * syscall that a process crash cannot tear) unless the mark is already at or above it. Synchronous on purpose: it
 * must be done before the ids it covers are sent.
 */
export function openHighWaterMark(
  logPath: string,
  start = 0,
): { raise(id: number): void; readonly value: number; close(): void } {
  let fd: number | null = null;
  let value = Math.max(start, readHighWaterMark(logPath));
  const buf = Buffer.alloc(MARK_WIDTH);
  return {
    raise(id) {
      if (id <= value) return;
      fd ??= openSync(markPath(logPath), constants.O_RDWR | constants.O_CREAT, 0o600);
      buf.fill(0x20);
      buf.write(String(id), 0, 'latin1');
      buf[MARK_WIDTH - 1] = 0x0a;
      writeSync(fd, buf, 0, MARK_WIDTH, 0);
      value = id;
    },
    get value() {
      return value;
    },
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}

/**
 * Makes an existing log safe to append to after a crash (drops a torn last frame) and returns its last event id.
 */
export function repairLog(path: string): number {
  if (!existsSync(path)) return 0;
  const fd = openSync(path, 'r+');
  try {
    const size = fstatSync(fd).size;
    // the tail is enough unless the last frame is longer than it (then read the whole file)
    for (const start of [Math.max(0, size - (1 << 20)), 0]) {
      const buf = Buffer.alloc(size - start);
      readSync(fd, buf, 0, buf.length, start);
      const at = buf.lastIndexOf(TERMINATOR);
      const text = at < 0 ? '' : buf.subarray(0, at).toString('utf8');
      const prev = text.lastIndexOf('\n\n');
      if (start > 0 && prev < 0) continue;
      const keep = at < 0 ? start : start + at + 2;
      if (keep !== size) ftruncateSync(fd, keep);
      if (at < 0) return 0;
      return parseFrame(prev < 0 ? text : text.slice(prev + 2))?.id ?? 0;
    }
    return 0;
  } finally {
    closeSync(fd);
  }
}

export interface EventLog {
  /** Appends one event and returns its id; a terminal event flushes at once. */
  append(event: SseEventName, json: string, terminal?: boolean): number;
  /** Writes what is pending now (to the file and to the batch listener). */
  flush(): void;
  readonly lastId: number;
  /** Resolves once everything appended so far is in the file. */
  flushed(): Promise<void>;
  /**
   * Null while the file keeps up; once more than LOG_BACKLOG_BYTES wait for the disk, a promise that resolves when
   * they are written: the job's output is not read meanwhile (ExecSpec.outputPressure).
   */
  pressure(): Promise<void> | null;
  close(): Promise<void>;
}

export function openEventLog(
  path: string,
  lastId: number,
  onBatch: (batch: FrameBatch) => void = () => undefined,
): EventLog {
  let stream: WriteStream | null = null;
  // Frames are joined into one string and encoded into a chunk buffer every LOG_ENCODE_CHARS characters: encoding each
  // small frame on its own costs several times more (a native call and a flattened copy per frame). A batch is a
  // slice of the chunk, handed to the file and the clients without copying; the next batch continues after it (a
  // full chunk is replaced, never reused).
  let chunk = Buffer.allocUnsafe(LOG_CHUNK_BYTES);
  let start = 0;
  let end = 0;
  let text = ''; // frames after `encodedLast`, not yet encoded
  let encodedLast = lastId; // id of the last frame in chunk[start, end)
  let pendingFirst = lastId + 1;
  let pendingTerminal = false;
  let scheduled = false;
  let last = lastId;
  let lastWrite: Promise<void> = Promise.resolve();
  let error: Error | null = null;
  const mark = openHighWaterMark(path, lastId);
  let caughtUp: Promise<void> | null = null;

  const ensure = () => {
    if (!stream) {
      // the high-water mark is the backlog's: write() says false past it, and 'drain' comes once all is written
      stream = createWriteStream(path, { flags: 'a', mode: 0o600, highWaterMark: LOG_BACKLOG_BYTES });
      stream.on('error', (err) => {
        error = err;
      });
    }
    return stream;
  };

  /** Hands chunk[start, end) (frames pendingFirst..encodedLast) to the file and the listener. */
  const emitEncoded = (terminal: boolean) => {
    if (end === start) return;
    const bytes = chunk.subarray(start, end);
    const batch: FrameBatch = { bytes, first: pendingFirst, last: encodedLast, terminal };
    start = end;
    pendingFirst = encodedLast + 1;
    try {
      mark.raise(batch.last); // before any client sees these ids
    } catch (err) {
      error ??= err as Error;
    }
    const s = ensure();
    lastWrite = new Promise<void>((resolve) => {
      s.write(bytes, () => resolve());
    });
    onBatch(batch);
  };

  const encode = () => {
    if (text === '') return;
    const worst = text.length * 3; // UTF-16 units to UTF-8 bytes
    if (end + worst > chunk.length) {
      emitEncoded(false);
      chunk = Buffer.allocUnsafe(Math.max(LOG_CHUNK_BYTES, worst));
      start = 0;
      end = 0;
    }
    end += chunk.write(text, end, 'utf8');
    text = '';
    encodedLast = last;
  };

  const flush = () => {
    scheduled = false;
    encode();
    const terminal = pendingTerminal;
    pendingTerminal = false;
    emitEncoded(terminal);
  };

  return {
    append(event, json, terminal = false) {
      last += 1;
      text += sseFrame(event, json, last);
      if (terminal) {
        pendingTerminal = true;
        flush();
        return last;
      }
      if (text.length >= LOG_ENCODE_CHARS) {
        encode();
        if (end - start > LOG_FLUSH_BYTES) {
          flush();
          return last;
        }
      }
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
      return last;
    },
    flush,
    get lastId() {
      return last;
    },
    flushed() {
      flush();
      return error ? Promise.reject(error) : lastWrite;
    },
    pressure() {
      const s = stream as WriteStream | null;
      if (!s || !s.writableNeedDrain || error) return null;
      caughtUp ??= new Promise<void>((resolve) => {
        const done = () => {
          s.off('drain', done);
          s.off('close', done);
          s.off('error', done);
          caughtUp = null;
          resolve();
        };
        s.on('drain', done);
        s.on('close', done);
        s.on('error', done);
      });
      return caughtUp;
    },
    async close() {
      flush();
      mark.close();
      await lastWrite;
      const s = stream;
      stream = null;
      if (s) await new Promise<void>((resolve) => s.end(resolve));
    },
  };
}

const FRAME_HEADER = /^id: (\d+)\nevent: ([a-z]+)\n/;

/** A run of whole frames of a log: `bytes` (as in the file) hold events up to `last`, and end at file offset `end`. */
export interface LogChunk {
  bytes: Buffer;
  last: number;
  lastEvent: SseEventName;
  end: number;
}

/**
 * Frames of a log with after < id <= upTo, in order, as raw byte chunks (each a run of whole frames, as they are in
 * the file). Parses only the frame headers; the bytes go to the client as read, never decoded and encoded again,
 * and only the frame that spans two reads is copied. `from` is a file offset at a frame boundary to start at (a
 * chunk's `end`), so that a client that follows a flood from the log does not read it again from the start.
 */
export async function* readEventLog(
  path: string,
  after: number,
  upTo = Number.POSITIVE_INFINITY,
  from = 0,
): AsyncGenerator<LogChunk> {
  if (!existsSync(path)) return;
  let carry: Buffer | null = null;
  let offset = from; // file offset of carry's first byte (or of the next read's, without carry)
  let done = false;
  let lastId = 0;
  let lastEvent: SseEventName = 'status';
  let scanned = 0; // where select() stopped in its buffer: a frame boundary (short of `stop` past upTo)
  /** The selected frames of buf[0, stop) (whole frames, stop just past a terminator), as one chunk or null. */
  const select = (buf: Buffer, stop: number): Buffer | null => {
    const ranges: Array<[number, number]> = []; // one run unless a frame without a header lies between
    let pos = 0;
    while (pos < stop) {
      const next = buf.indexOf(TERMINATOR, pos);
      const frameEnd = next < 0 || next + 2 > stop ? stop - 2 : next;
      const header = FRAME_HEADER.exec(buf.toString('latin1', pos, Math.min(frameEnd, pos + 64)));
      if (header) {
        const id = Number(header[1]);
        if (id > upTo) {
          done = true;
          break;
        }
        if (id > after) {
          const open = ranges[ranges.length - 1];
          if (open && open[1] === pos) open[1] = frameEnd + 2;
          else ranges.push([pos, frameEnd + 2]);
          lastId = id;
          lastEvent = header[2] as SseEventName;
        }
      }
      pos = frameEnd + 2;
    }
    scanned = pos;
    if (ranges.length === 0) return null;
    if (ranges.length === 1) return buf.subarray(...(ranges[0] as [number, number]));
    return Buffer.concat(ranges.map(([a, b]) => buf.subarray(a, b)));
  };
  for await (const read of createReadStream(path, { highWaterMark: LOG_READ_BYTES, start: from })) {
    let buf = read as Buffer;
    if (carry) {
      // the frame begun in the last read, joined with its end alone (a "\n\n" split between the reads ends the
      // next frame too: select() finds both in the joined bytes)
      const at = buf.indexOf(TERMINATOR);
      if (at < 0) {
        carry = Buffer.concat([carry, buf]);
        continue;
      }
      const cut = at + 2;
      const head = Buffer.concat([carry, buf.subarray(0, cut)]);
      const bytes = select(head, head.length);
      offset += scanned;
      if (bytes) yield { bytes, last: lastId, lastEvent, end: offset };
      if (done) return;
      buf = buf.subarray(cut);
    }
    const stop = buf.lastIndexOf(TERMINATOR) + 2;
    if (stop < 2) {
      carry = Buffer.from(buf);
      continue;
    }
    const bytes = select(buf, stop);
    offset += scanned;
    if (bytes) yield { bytes, last: lastId, lastEvent, end: offset };
    if (done) return;
    carry = stop < buf.length ? Buffer.from(buf.subarray(stop)) : null;
  }
}

/** Every event of a log after `after`, parsed (tests and tools; the server streams frames as they are). */
export async function* readEvents(path: string, after = 0): AsyncGenerator<LoggedEvent> {
  for await (const chunk of readEventLog(path, after)) {
    for (const frame of chunk.bytes.toString('utf8').split('\n\n')) {
      const ev = frame ? parseFrame(frame) : null;
      if (ev) yield ev;
    }
  }
}
