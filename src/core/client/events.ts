// From a raw SSE message to a typed runner event. Upstream servers send no `id:`; ours always do.
import type { EventSourceMessage } from 'eventsource-parser';
import { parseEventData, sseEventNames, type OutputEvent, type RunnerEvent, type SseEventName } from '../protocol/api';
import { KernelRunnerError, errorMessage } from '../errors';

type WithOptionalId<T> = T extends RunnerEvent ? Omit<T, 'id'> & { id: number | undefined } : never;
/** A runner event as the client sees it: `id` is undefined for upstream servers (no extensions). */
export type ClientEvent = WithOptionalId<RunnerEvent>;

export class EventDecodeError extends KernelRunnerError {
  override readonly name = 'EventDecodeError';
  readonly code = 'CLIENT_EVENT_DECODE';
  readonly type = 'event-decode' as const;
}

const KNOWN_EVENTS: ReadonlySet<string> = new Set(sseEventNames);

function isKnownEvent(name: string): name is SseEventName {
  return KNOWN_EVENTS.has(name);
}

// Live output is one event per line of the program's output (millions for a chatty program), so `output` data in
// the exact form our runner writes is read with one regular expression instead of JSON.parse and the schema:
//   {"stream":"stdout"|"stderr","text":"<no escapes, no control characters>","noise":true|false[,"kind":"<name>"]}
// What it accepts is valid JSON that decodes to the same object. Anything else (escaped characters, another key
// order, extra keys, another server) goes the general way.
const OUTPUT_DATA =
  /^\{"stream":"std(o|e)(?:ut|rr)","text":"([^"\\\x00-\x1f]*)","noise":(t|f)(?:rue|alse)(?:,"kind":"([a-z0-9_-]*)")?\}$/; // eslint-disable-line no-control-regex

/** The output event in our runner's own form, or undefined when `data` needs the general decoder. */
export function decodeOutputFast(data: string): OutputEvent | undefined {
  const m = OUTPUT_DATA.exec(data);
  if (!m) return undefined;
  const stream = m[1] === 'o' ? 'stdout' : 'stderr';
  const text = m[2] as string;
  const noise = m[3] === 't';
  return m[4] === undefined ? { stream, text, noise } : { stream, text, noise, kind: m[4] };
}

/**
 * A batch of output lines (`lines`, `marks`) checked by hand after JSON.parse: the schema's per-mark tuples cost
 * more than the parse. Undefined when it is not a well-formed batch (the schema then says what is wrong).
 */
function decodeOutputBatch(json: unknown): OutputEvent | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const o = json as Record<string, unknown>;
  if ((o.stream !== 'stdout' && o.stream !== 'stderr') || typeof o.text !== 'string' || typeof o.noise !== 'boolean')
    return undefined;
  if (o.kind !== undefined && typeof o.kind !== 'string') return undefined;
  if (o.lines !== undefined && !(Number.isSafeInteger(o.lines) && (o.lines as number) > 0)) return undefined;
  if (o.marks !== undefined) {
    if (!Array.isArray(o.marks)) return undefined;
    for (const m of o.marks as unknown[]) {
      if (
        !Array.isArray(m) ||
        m.length !== 3 ||
        !Number.isSafeInteger(m[0]) ||
        (m[0] as number) < 0 ||
        typeof m[1] !== 'string' ||
        typeof m[2] !== 'boolean'
      )
        return undefined;
    }
  }
  return o as OutputEvent;
}

/** Returns undefined for events this client does not know (forward compatible); throws EventDecodeError on bad data. */
export function decodeEvent(message: EventSourceMessage): ClientEvent | undefined {
  const name = message.event ?? 'message';
  const output = name === 'output';
  if (!output && !isKnownEvent(name)) return undefined;
  let id: number | undefined;
  if (message.id !== undefined && message.id !== '') {
    id = Number(message.id);
    if (!Number.isSafeInteger(id) || id < 0)
      throw new EventDecodeError(`event '${name}' has a bad id ${JSON.stringify(message.id)}`);
  }
  if (output) {
    const data = decodeOutputFast(message.data);
    if (data) return { id, event: 'output', data };
  }
  let json: unknown;
  try {
    json = JSON.parse(message.data);
  } catch {
    throw new EventDecodeError(`event '${name}' carries data that is not JSON: ${message.data.slice(0, 120)}`);
  }
  if (output) {
    const batch = decodeOutputBatch(json);
    if (batch) return { id, event: 'output', data: batch };
  }
  let data: RunnerEvent['data'] | undefined;
  try {
    data = parseEventData(name, json);
  } catch (err) {
    throw new EventDecodeError(`event '${name}' does not have the expected shape: ${describeZodError(err)}`);
  }
  return { id, event: name, data } as ClientEvent;
}

export function isTerminalEvent(event: ClientEvent): boolean {
  return event.event === 'result' || event.event === 'error';
}

/** Short text for a zod error: the first issues with their paths. */
export function describeZodError(err: unknown): string {
  if (err && typeof err === 'object' && 'issues' in err && Array.isArray((err as { issues: unknown }).issues)) {
    const issues = (err as { issues: Array<{ path?: PropertyKey[]; message?: string }> }).issues;
    return issues
      .slice(0, 3)
      .map((i) => `${(i.path ?? []).map(String).join('.') || '(root)'}: ${i.message ?? 'invalid'}`)
      .join('; ');
  }
  return errorMessage(err);
}
