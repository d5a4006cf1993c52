// --max-data during a burst: eight floods sent at once, each past an eighth of the budget, never take the data dir
// much past it. A job whose end leaves the jobs over their budget has the oldest finished ones deleted before its end
// is sent (and a job's output checks the budget as it grows), whatever the sweep gap (a minute here, longer than
// the burst) says: measured by each job's completion event, as its client receives it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { post, readSse, startTestRunner, terminal } from './helpers';

const MiB = 1024 * 1024;

/** Bytes of the files under dir; a file or folder a sweep removes while it is counted counts nothing. */
function dirBytes(dir: string): number {
  let total = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch (err) {
    // a folder went while it was listed: count again
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && existsSync(dir)) return dirBytes(dir);
    throw err;
  }
  for (const entry of entries) {
    if (entry.isFile())
      total += statSync(path.join(entry.parentPath, entry.name), { throwIfNoEntry: false })?.size ?? 0;
  }
  return total;
}

/** 2 MB of output: stored as ~2.4 MB of events. */
const flood = `
import sys
line = "x" * 999 + "\\n"
sys.stdout.write(line * 2000)
print("flood done")
`;

test('a burst of eight floods keeps the data dir within 1.1x --max-data at every job end, within the sweep gap', async (t) => {
  const logged: string[] = [];
  const budget = 8 * MiB;
  const runner = await startTestRunner({
    retention: { maxTotalBytes: budget },
    retentionGapMs: 60_000,
    log: (l) => logged.push(l),
  });
  try {
    const jobs = path.join(runner.dataDir, 'jobs');
    const ends = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const res = await post(`${runner.url}/script/CPU/test`, {
          fileName: `flood${i}.py`,
          content: flood,
          extensions: true,
        });
        assert.equal(res.status, 200);
        let atEnd = -1;
        // the data dir measured as the completion event arrives, before anything else runs here
        const events = await readSse(res, (ev) => {
          if (ev.event === 'result' || ev.event === 'error') atEnd = dirBytes(jobs);
          return false;
        });
        assert.equal(terminal(events).event, 'result');
        return { id: (events[0]!.data as { job_id: number }).job_id, atEnd };
      }),
    );
    const detail = () =>
      `data dir at each job end (MiB): ${ends.map((e) => (e.atEnd / MiB).toFixed(2)).join(', ')}; runner log:\n${logged.join('\n')}`;
    t.diagnostic(`data dir at each job end (MiB, budget 8): ${ends.map((e) => (e.atEnd / MiB).toFixed(2)).join(', ')}`);
    for (const end of ends) assert.ok(end.atEnd <= 1.1 * budget, `job ${end.id}: ${detail()}`);
    // the floods together are twice the budget: jobs were deleted during the burst, the sweep gap notwithstanding
    const deleted = logged.flatMap(
      (l) => /^retention: deleted \d+ old job\(s\): (.*)$/.exec(l)?.[1]?.split(', ') ?? [],
    );
    assert.ok(deleted.length >= 4, detail());
    const ids = ends.map((e) => e.id);
    const kept = ids.filter((id) => existsSync(path.join(jobs, String(id))));
    assert.ok(kept.length >= 1, 'a job stays');
    assert.deepEqual(
      [...deleted.map(Number), ...kept].sort((a, b) => a - b),
      [...ids].sort((a, b) => a - b),
      'every job is either kept or named as deleted',
    );
  } finally {
    await runner.dispose();
  }
});
