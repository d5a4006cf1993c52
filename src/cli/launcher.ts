// The `kernel-runner` executable (dist/cli.cjs): a few lines that load the CLI bundle (dist/cli-main.cjs, built
// from main.ts) through V8's code cache (see compileCache.ts).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { loadWithCompileCache } from './compileCache';
import { prestartTraceWorkers } from '../trace/traceWorkerPool';

// summarize and compare scan a large trace in worker threads that run hot loops for well under a second: there,
// optimising on the thread that needs the code beats queueing it for a background compiler that competes with
// them for the cores (measured by bench/summarize.bench.ts: 1.0 instead of 1.2 CPU s on the 1M-row trace). V8
// reads the flag when it creates an isolate: it applies to the workers started after this line.
if (process.argv[2] === 'summarize' || process.argv[2] === 'compare' || process.argv[2] === 'hotspots')
  setFlagsFromString('--no-concurrent-recompilation');

const dist = path.dirname(fileURLToPath(import.meta.url));
// a large kernel trace's (or PC-sample file's) worker threads boot while the bundle loads (traceWorkerPool.ts)
if (process.argv[2] === 'summarize')
  prestartTraceWorkers(
    path.join(dist, 'trace-worker.cjs'),
    process.argv.slice(3).filter((a) => !a.startsWith('-')),
  );
else if (process.argv[2] === 'hotspots')
  prestartTraceWorkers(
    path.join(dist, 'trace-worker.cjs'),
    process.argv.slice(3).filter((a) => !a.startsWith('-')),
    'pc samples',
  );

loadWithCompileCache(path.join(dist, 'cli-main.cjs'));
