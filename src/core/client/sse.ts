// Server-sent events over a byte stream: bytes -> text (UTF-8, characters split across chunks kept whole) ->
// eventsource-parser -> messages. Chunk boundaries can fall anywhere.
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { createUtf8StreamDecoder } from '../noise/utf8';
import { KernelRunnerError } from '../errors';
import { DEFAULT_MAX_EVENT_SIZE } from '../limits';

export interface SseReaderOptions {
  onMessage: (message: EventSourceMessage) => void;
  /** Called when the server sends `retry: <ms>`. */
  onRetry?: (ms: number) => void;
  /** Largest event (or unterminated line) buffered, in characters; past it `feed` throws. Default 64 Mi. */
  maxEventSize?: number;
}

export interface SseReader {
  feed(chunk: Uint8Array | string): void;
  /** Flushes the decoder at the end of a stream (an unterminated last event is dropped, as the SSE spec says). */
  end(): void;
  /** Forgets any partial event, e.g. before reading a new connection. */
  reset(): void;
}

export class SseLimitError extends KernelRunnerError {
  override readonly name = 'SseLimitError';
  readonly code = 'CLIENT_EVENT_TOO_LARGE';
  readonly type = 'max-event-size' as const;
}

export function createSseReader(options: SseReaderOptions): SseReader {
  const maxEventSize = options.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE;
  let overflow: Error | undefined;
  const parser = createParser({
    onEvent: options.onMessage,
    onRetry: options.onRetry,
    maxBufferSize: maxEventSize,
    onError: (err) => {
      if (err.type === 'max-buffer-size-exceeded')
        overflow = new SseLimitError(`an event exceeded ${maxEventSize} characters`);
    },
  });
  // A leading byte-order mark is kept here and dropped by the parser (once, at the start of the stream).
  let decoder = createUtf8StreamDecoder();

  function feedText(text: string): void {
    if (overflow) throw overflow;
    if (text) parser.feed(text);
    if (overflow) throw overflow;
  }

  return {
    feed(chunk) {
      feedText(typeof chunk === 'string' ? chunk : decoder.write(chunk));
    },
    end() {
      feedText(decoder.end());
    },
    reset() {
      overflow = undefined;
      decoder = createUtf8StreamDecoder();
      parser.reset();
    },
  };
}
