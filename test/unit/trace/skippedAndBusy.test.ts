// Files skipped are named for what they are (layouts in test/fixtures/trace-layouts, see its README): ROCm 6.0's
// broken rocprof v1 results.json fragments, ROCm 7's scratch memory trace (Alloc_Flags and Allocation_Size),
// rocprof-compute's analysis database; and a run whose kernels come from kernel_stats alone says its busy time
// is copies only (the kernel part is unknown) instead of showing it as the union of kernel and copy time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { summarizePath } from '../../../src/trace/index';
import { renderTraceTables } from '../../../src/cli/render/traceTables';
import { fixture, repoRoot } from './helpers';
import { tempDirsRemovedAfter } from '../../support/tempDirs';

const tempDir = tempDirsRemovedAfter('kr-trace-skips-');
const layouts = path.join(repoRoot, 'test/fixtures/trace-layouts');

test('skipped files are named for what they are', async () => {
  const dir = tempDir('skips');
  copyFileSync(path.join(layouts, 'results.json'), path.join(dir, 'results.json'));
  copyFileSync(path.join(layouts, 'results-two-labels.json'), path.join(dir, 'run2.json'));
  copyFileSync(path.join(layouts, '9_scratch_memory_trace.csv'), path.join(dir, '9_scratch_memory_trace.csv'));
  copyFileSync(
    fixture('rocm-systems__sdkdocs__scratch_memory_trace.csv'),
    path.join(dir, '8_scratch_memory_trace.csv'),
  );
  copyFileSync(
    fixture('rocm-systems__sdkdocs__memory_allocation_trace.csv'),
    path.join(dir, '8_memory_allocation_trace.csv'),
  );
  copyFileSync(fixture('rocm-systems__sdkdocs__kernel_trace.csv'), path.join(dir, '8_kernel_trace.csv'));
  // rocprof-compute analyze's results database: an SQLite file of metric tables, no rocpd views
  const db = new Database(path.join(dir, 'rocprof_compute_3f2a91c0.db'));
  db.exec(
    "CREATE TABLE metric (id INTEGER PRIMARY KEY, name TEXT, value REAL); INSERT INTO metric (name, value) VALUES ('VALU Utilization', 41.5)",
  );
  db.close();
  const s = await summarizePath(dir);
  const reasons = new Map(s.skipped.map((x) => [x.path, x.reason]));
  assert.equal(
    reasons.get('results.json'),
    'broken rocprof v1 results.json (80 bytes: 1 process label line(s), without the "traceEvents" start or any event; ROCm 6.0\'s rocprof leaves these): not read; the run\'s results.csv and stats files hold its data',
  );
  assert.match(
    reasons.get('run2.json') ?? '',
    /^broken rocprof v1 results\.json \(160 bytes: 2 process label line\(s\)/,
  );
  assert.equal(reasons.get('9_scratch_memory_trace.csv'), 'scratch memory trace (Alloc_Flags): not summarised');
  assert.equal(reasons.get('8_scratch_memory_trace.csv'), 'scratch memory trace (Alloc_Flags): not summarised');
  assert.equal(reasons.get('8_memory_allocation_trace.csv'), 'memory allocation trace: not summarised');
  assert.match(
    reasons.get('rocprof_compute_3f2a91c0.db') ?? '',
    /^rocprof-compute's analysis database \(rocprof_compute_<hash>\.db, written by rocprof-compute analyze\): metrics, not a trace; not read$/,
  );
  assert.equal(s.kernelTotals.calls, 9, 'the kernel trace beside them is read');
});

test('kernels from kernel_stats alone: busy time is copies only and says the kernel part is unknown', async () => {
  const dir = tempDir('stats-busy');
  copyFileSync(path.join(layouts, '9_kernel_stats.csv'), path.join(dir, '9_kernel_stats.csv'));
  copyFileSync(fixture('rocm-systems__sdkdocs__memory_copy_trace.csv'), path.join(dir, '9_memory_copy_trace.csv'));
  const s = await summarizePath(dir);
  assert.equal(s.kernelTotals.totalNs, 1094400000 + 221780660);
  assert.equal(s.busyCovers, 'copies-only');
  const gpu = s.agents.find((a) => a.id === 'Agent 4');
  assert.ok(gpu && gpu.busyNs > 0 && gpu.busyNs === gpu.copyNs, JSON.stringify(s.agents));
  const text = renderTraceTables(s);
  assert.match(
    text,
    /GPU busy: copies only \(kernel times come from kernel_stats, which has no intervals: the kernel part is unknown\)/,
  );
  assert.match(text, /Agent +Device +Copy busy +of wall/);
  assert.doesNotMatch(text, /union of kernel and copy time/);

  // with the kernel trace of a run, the heading is the union as before (and no busyCovers)
  const traced = tempDir('traced-busy');
  copyFileSync(fixture('rocm-systems__sdkdocs__kernel_trace.csv'), path.join(traced, '9_kernel_trace.csv'));
  const t = await summarizePath(traced);
  assert.equal(t.busyCovers, undefined);
  assert.match(renderTraceTables(t), /GPU busy \(union of kernel and copy time\)/);
});
