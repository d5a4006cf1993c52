// How much unsent live output the runner holds for its event-stream clients: each may hold up to its own cap, and
// all of them together up to the runner's budget. A client past either leaves the live batches and continues from
// the job's log as its socket drains (routes.ts, relayJobEvents), which holds one chunk at a time: so a crowd of
// clients that do not read (each with the token, up to the connection cap) cannot hold 256 x the per-client cap.
import type { SseWriter } from './sse';
import { MIN_SHARE_BYTES } from '../limits';

type BacklogVerdict =
  { over: false } | { over: true; reason: 'client' | 'runner'; clientBytes: number; totalBytes: number };

export interface BacklogBudget {
  /** Counts this stream's backlog in the runner's total while it is open. */
  track(writer: SseWriter): void;
  /** Whether `writer` should leave the live batches for the log relay, and why. */
  check(writer: SseWriter): BacklogVerdict;
}

export function createBacklogBudget(perClientBytes: number, totalBytes: number): BacklogBudget {
  const writers = new Set<SseWriter>();
  return {
    track(writer) {
      writers.add(writer);
    },
    check(writer) {
      const clientBytes = writer.backlog;
      if (clientBytes > perClientBytes) return { over: true, reason: 'client', clientBytes, totalBytes: clientBytes };
      if (clientBytes < Math.min(MIN_SHARE_BYTES, perClientBytes)) return { over: false };
      let total = 0;
      for (const w of writers) {
        if (w.closed) writers.delete(w);
        else total += w.backlog;
      }
      return total > totalBytes ? { over: true, reason: 'runner', clientBytes, totalBytes: total } : { over: false };
    },
  };
}
