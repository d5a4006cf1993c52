// Worker thread entry (bundled as dist/summary-worker.cjs): summarises one finished profile's output folder for
// the runner (boundedSummary.ts), so that what a job wrote cannot stall the service's thread or take its memory:
// the thread runs under the heap limit it was started with and is terminated at the time limit. One read on this
// thread (no trace workers of its own: their heaps would be outside the limit).
import { parentPort, workerData } from 'node:worker_threads';
import { summarizePath } from '../trace/summarize';
import { errorMessage } from '../core/errors';

export interface SummaryWorkerData {
  outDir: string;
}

export type SummaryWorkerAnswer = { ok: true; summary: unknown } | { ok: false; error: string };

const { outDir } = workerData as SummaryWorkerData;
summarizePath(outDir, { parallel: { threads: 0 } }).then(
  (summary) => parentPort?.postMessage({ ok: true, summary } satisfies SummaryWorkerAnswer),
  (err: unknown) => parentPort?.postMessage({ ok: false, error: errorMessage(err) } satisfies SummaryWorkerAnswer),
);
