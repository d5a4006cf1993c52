// Server-sent events: framing for the two audiences and a batching writer.
//   extension clients: every event, with `id:` lines;
//   plain GPU MODE clients: exactly upstream's events (status/result/error, upstream fields only, no ids).
import type { ServerResponse } from 'node:http';
import type { LoggedEvent } from '../eventLog';
import { sseFrame } from '../../core/protocol/sseFrame';

function stripProfileExtras(json: string): string {
  const data = JSON.parse(json) as {
    results?: Array<{ runs?: Record<string, { profile?: Record<string, unknown> | null }> }>;
  };
  for (const result of data.results ?? []) {
    for (const run of Object.values(result.runs ?? {})) {
      if (run.profile) {
        delete run.profile.summary;
        delete run.profile.artifact;
      }
    }
  }
  return JSON.stringify(data);
}

/**
 * Upstream framing for one connection, or null for what upstream would not send: the job and output events, and
 * status events closer together than the heartbeat (upstream sends one at once, then one per heartbeat; our job
 * also reports state changes, which only extension clients see).
 */
export function createPlainFramer(heartbeatMs: number): (ev: LoggedEvent) => string | null {
  let lastStatus = -Infinity;
  const minGap = (heartbeatMs * 0.9) / 1000;
  return (ev) => {
    if (ev.event !== 'status') return plainFrame(ev);
    const s = JSON.parse(ev.json) as { status: string; elapsed_time: number };
    if (s.elapsed_time - lastStatus < minGap) return null;
    lastStatus = s.elapsed_time;
    return sseFrame('status', JSON.stringify({ status: s.status, elapsed_time: s.elapsed_time }));
  };
}

/** Upstream framing of one event, or null for events upstream does not have. */
export function plainFrame(ev: LoggedEvent): string | null {
  switch (ev.event) {
    case 'status': {
      const s = JSON.parse(ev.json) as { status: string; elapsed_time: number };
      return sseFrame('status', JSON.stringify({ status: s.status, elapsed_time: s.elapsed_time }));
    }
    case 'result':
      return sseFrame('result', stripProfileExtras(ev.json));
    case 'error':
      return sseFrame('error', ev.json);
    default:
      return null;
  }
}

export interface SseWriter {
  write(chunk: string | Buffer): void;
  end(): void;
  readonly closed: boolean;
  /** Bytes accepted but not yet sent to the client. */
  readonly backlog: number;
  /** Resolves when the socket buffer is below its high-water mark (or the client is gone). */
  drain(): Promise<void>;
}

/** Starts an event stream; `onClose` runs if the client goes away before `end()`. */
export function openSse(res: ServerResponse, onClose: () => void): SseWriter {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.socket?.setNoDelay(true);
  res.flushHeaders();
  let closed = false;
  let ended = false;
  res.on('close', () => {
    if (closed) return;
    closed = true;
    if (!ended) onClose();
  });
  return {
    write(chunk) {
      if (!closed && !ended) res.write(chunk);
    },
    end() {
      if (ended) return;
      ended = true;
      if (!closed) res.end();
    },
    get closed() {
      return closed;
    },
    get backlog() {
      return res.writableLength;
    },
    drain() {
      if (closed || !res.writableNeedDrain) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    },
  };
}
