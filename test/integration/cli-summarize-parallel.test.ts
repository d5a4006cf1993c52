// The BUILT CLI reads a kernel trace with its bundled worker (dist/trace-worker.cjs, found beside the bundle):
// the summary equals the single-threaded one, and the worker really ran (KERNEL_RUNNER_TRACE_DEBUG says so); the
// launcher starts the workers of a large trace (a file or a folder holding one) before the bundle loads.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureKernelTrace } from '../../bench/kernelTraceData';
import { ensureBuiltWith } from './submit/helpers';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(repoRoot, 'dist/cli.cjs');
const dir = mkdtempSync(path.join(tmpdir(), 'kr-cli-parallel-'));

before(() => {
  ensureBuiltWith('dist/trace-worker.cjs');
});
after(() => rmSync(dir, { recursive: true, force: true }));

function summarize(file: string, env: Record<string, string>) {
  const r = spawnSync(process.execPath, [cli, 'summarize', file, '--json'], {
    cwd: tmpdir(),
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: { ...process.env, NO_COLOR: '1', KERNEL_RUNNER_TRACE_DEBUG: '1', ...env },
  });
  assert.equal(r.status, 0, r.stderr);
  return r;
}

test('summarize --json of a kernel trace: the bundled worker reads it, the summary equals the one-thread read', async () => {
  const file = await ensureKernelTrace(dir, { rows: 3000, kernels: 60, seed: 4 });
  const many = summarize(file, { KERNEL_RUNNER_TRACE_MIN_BYTES: '0', KERNEL_RUNNER_TRACE_THREADS: '2' });
  // the launcher started the workers, and they had scanned their first parts before being asked
  assert.match(
    many.stderr,
    /kernel_trace\.csv: \d+ part\(s\), [12] worker thread\(s\), 0 rescanned, 0 on the main thread.*, [12] started by the launcher \([12] part\(s\) scanned before they were asked for\)/,
  );
  const one = summarize(file, { KERNEL_RUNNER_TRACE_THREADS: '0' });
  assert.equal(one.stderr, '', 'no parallel read');
  assert.equal(many.stdout, one.stdout);
  assert.equal(JSON.parse(many.stdout).kernelTotals.calls, 3000);
});

test('the launcher starts the workers of a large kernel trace, in a folder too, and none below the size or with no threads', async () => {
  const file = await ensureKernelTrace(dir, { rows: 3000, kernels: 60, seed: 4 });
  const folder = summarize(path.dirname(file), {
    KERNEL_RUNNER_TRACE_MIN_BYTES: '0',
    KERNEL_RUNNER_TRACE_THREADS: '2',
  });
  // (a folder's files may change the columns or the clock: its workers start with nothing to guess)
  assert.match(
    folder.stderr,
    /kernel_trace\.csv: .*, [12] worker thread\(s\), .*, [12] started by the launcher \(0 part\(s\) scanned before they were asked for\)\n/,
  );
  // below the size: no parallel read (nothing to say) and so nothing started for it
  const small = summarize(file, { KERNEL_RUNNER_TRACE_MIN_BYTES: String(1 << 30), KERNEL_RUNNER_TRACE_THREADS: '2' });
  assert.equal(small.stderr, '');
  assert.equal(JSON.parse(folder.stdout).kernelTotals.calls, 3000);
});
