// Live output lines become `output` events in batches: one event per line made a chatty program millions of
// events (an SSE frame, a JSON value and a client callback each). A batch holds consecutive lines of one stream,
// joined by "\n"; lines whose class differs from the batch's first line are listed in `marks` (see
// outputEventSchema). A batch is emitted when the stream changes, when it holds BATCH_CHARS, FLUSH_MS after its first
// line, or when the job emits any other event (flush), so events stay in the order the lines came.
import type { OutputStream } from '../core/protocol/api';
import type { ClassifiedLine } from '../core/noise';
import { BATCH_CHARS } from './limits';

export interface OutputBatcher {
  push(stream: OutputStream, line: ClassifiedLine): void;
  /** Emits the pending batch now. */
  flush(): void;
}

export interface OutputBatcherOptions {
  /** One `output` event's data (one line of JSON). */
  emit(json: string): void;
  flushMs?: number;
  batchChars?: number;
}

const FLUSH_MS = 5;

const HEAD: Record<OutputStream, string> = {
  stdout: '{"stream":"stdout","text":"',
  stderr: '{"stream":"stderr","text":"',
};
/** Printable ASCII but `"` and `\\`: the line is its own JSON string body. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const classTails = new Map<string, string>();

/** `,"noise":false}` and the like, built once per class. */
function classJson(noise: boolean, kind: string): string {
  const key = `${noise ? 1 : 0}${kind}`;
  let tail = classTails.get(key);
  if (tail === undefined) {
    tail = `,"noise":${noise}${kind === 'program' ? '' : `,"kind":${JSON.stringify(kind)}`}`;
    classTails.set(key, tail);
  }
  return tail;
}

export function createOutputBatcher(opts: OutputBatcherOptions): OutputBatcher {
  const flushMs = opts.flushMs ?? FLUSH_MS;
  const batchChars = opts.batchChars ?? BATCH_CHARS;
  let stream: OutputStream = 'stdout';
  // lines as JSON string bodies, joined once by an escaped line feed: JSON.stringify of the joined text takes its
  // slow path at every line feed, and most lines need no escaping at all
  let lines: string[] = [];
  let chars = 0;
  let noise = false;
  let kind = 'program';
  let marks: string[] = [];
  let timer: NodeJS.Timeout | null = null;

  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    const count = lines.length;
    if (count === 0) return;
    let json = HEAD[stream] + (count === 1 ? lines[0] : lines.join('\\n')) + '"' + classJson(noise, kind);
    if (count > 1) json += `,"lines":${count}`;
    if (marks.length) json += `,"marks":[${marks.join(',')}]`;
    json += '}';
    lines = [];
    chars = 0;
    if (marks.length) marks = [];
    opts.emit(json);
  };

  return {
    push(lineStream, line) {
      if (lines.length > 0 && (lineStream !== stream || chars >= batchChars)) flush();
      if (lines.length === 0) {
        stream = lineStream;
        noise = line.noise;
        kind = line.kind;
        timer ??= setTimeout(flush, flushMs);
      } else if (line.noise !== noise || line.kind !== kind) {
        marks.push(`[${lines.length},"${line.kind}",${line.noise}]`);
      }
      lines.push(PLAIN.test(line.text) ? line.text : JSON.stringify(line.text).slice(1, -1));
      chars += line.text.length + 1;
    },
    flush,
  };
}
