// A finished profile summarised off the service's thread, in bounded time and memory (issue 27): whatever a job
// wrote (160,000 counters on one dispatch, a million distinct PC samples), `serve` keeps answering meanwhile, and
// past either limit the summary is given up and the job's result says why. The work runs in a worker thread
// (summaryWorker.ts) with a heap limit (resourceLimits) and is terminated at the time limit.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { TraceSummary } from '../core/protocol/traceSummary';
import type { SummaryWorkerAnswer, SummaryWorkerData } from './summaryWorker';

export interface SummaryLimits {
  /** Wall time the summary may take. */
  timeMs: number;
  /** Heap the summary's thread may take (V8's old generation), MiB. */
  memoryMb: number;
}

/** Defaults: a real profile summarises in seconds and well under this memory (bench/summarize.bench.ts). */
export const DEFAULT_SUMMARY_LIMITS: SummaryLimits = { timeMs: 120_000, memoryMb: 1024 };

export type BoundedSummary = { summary: TraceSummary } | { error: string } | { cutShort: string };

/** How to start the worker: the bundle beside this one, or the TypeScript source through tsx (tests). */
function workerScript(): { script: string; eval: boolean } | null {
  const here = fileURLToPath(import.meta.url);
  if (/\.[cm]?js$/.test(here)) {
    const bundled = path.join(path.dirname(here), 'summary-worker.cjs');
    return existsSync(bundled) ? { script: bundled, eval: false } : null;
  }
  const source = path.join(path.dirname(here), 'summaryWorker.ts');
  try {
    const tsx = createRequire(here).resolve('tsx/cjs/api');
    return { script: `require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(source)});`, eval: true };
  } catch {
    return null;
  }
}

/** The summary of `outDir`, or why there is none (a reader's error), or why it was cut short (a limit). */
export function summarizeBounded(outDir: string, limits: SummaryLimits): Promise<BoundedSummary> {
  const entry = workerScript();
  if (!entry) return Promise.resolve({ error: 'the summary worker is missing from this build' });
  return new Promise((resolve) => {
    let done = false;
    const finish = (r: BoundedSummary): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(r);
      void worker.terminate();
    };
    const worker = new Worker(entry.script, {
      eval: entry.eval,
      workerData: { outDir } satisfies SummaryWorkerData,
      resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb, maxYoungGenerationSizeMb: 16 },
      // no trace workers of its own (their heaps would be outside the limit); the service's env is not the job's
      env: { ...process.env, KERNEL_RUNNER_TRACE_THREADS: '0' },
    });
    const timer = setTimeout(
      () => finish({ cutShort: `it took longer than the runner's limit of ${seconds(limits.timeMs)}` }),
      limits.timeMs,
    );
    worker.on('message', (m: SummaryWorkerAnswer) => {
      // (our own code's answer: the summary summarizePath built there)
      finish(m.ok ? { summary: m.summary as TraceSummary } : { error: m.error });
    });
    worker.on('error', (err: Error & { code?: string }) =>
      finish(
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? { cutShort: `it needed more than the runner's limit of ${limits.memoryMb} MiB` }
          : { error: err.message },
      ),
    );
    worker.on('exit', (code) => finish({ error: `the summary worker stopped (exit ${code})` }));
  });
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
