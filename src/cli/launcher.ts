// The `kernel-runner` executable (dist/cli.cjs): a few lines that load the CLI bundle (dist/cli-main.cjs, built
// from main.ts) through V8's code cache (see compileCache.ts).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadWithCompileCache } from './compileCache';

loadWithCompileCache(path.join(path.dirname(fileURLToPath(import.meta.url)), 'cli-main.cjs'));
