// From a raw SSE message to a typed runner event. Upstream servers send no `id:`; ours always do.
import type { EventSourceMessage } from 'eventsource-parser';
import { parseEventData, sseEventNames, type RunnerEvent, type SseEventName } from '../protocol/api';

type WithOptionalId<T> = T extends RunnerEvent ? Omit<T, 'id'> & { id: number | undefined } : never;
/** A runner event as the client sees it: `id` is undefined for upstream servers (no extensions). */
export type ClientEvent = WithOptionalId<RunnerEvent>;

export class EventDecodeError extends Error {
  readonly type = 'event-decode' as const;
}

const KNOWN_EVENTS: ReadonlySet<string> = new Set(sseEventNames);

function isKnownEvent(name: string): name is SseEventName {
  return KNOWN_EVENTS.has(name);
}

/** Returns undefined for events this client does not know (forward compatible); throws EventDecodeError on bad data. */
export function decodeEvent(message: EventSourceMessage): ClientEvent | undefined {
  const name = message.event ?? 'message';
  if (!isKnownEvent(name)) return undefined;
  let id: number | undefined;
  if (message.id !== undefined && message.id !== '') {
    id = Number(message.id);
    if (!Number.isSafeInteger(id) || id < 0) throw new EventDecodeError(`event '${name}' has a bad id ${JSON.stringify(message.id)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(message.data);
  } catch {
    throw new EventDecodeError(`event '${name}' carries data that is not JSON: ${message.data.slice(0, 120)}`);
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
  return err instanceof Error ? err.message : String(err);
}
