// --max-data after a burst: five floods that end within the sweep gap of each other leave the data dir over its
// budget only until the gap is over (a deferred sweep), not until some later job happens to end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { startTestRunner, submitAndRead, terminal, waitFor } from './helpers';

const MiB = 1024 * 1024;

function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return total;
}

const flood = `
import sys
line = "x" * 999 + "\\n"
sys.stdout.write(line * 1000)
print("flood done")
`;

test('a burst of floods is swept back under --max-data when the sweep gap is over, with no further job', async () => {
  const logged: string[] = [];
  const budget = 4 * MiB;
  // a gap longer than the burst takes: the jobs' ends fall inside it, and only the deferred sweep can run
  const runner = await startTestRunner({
    retention: { maxTotalBytes: budget },
    retentionGapMs: 5000,
    log: (l) => logged.push(l),
  });
  try {
    const jobs = path.join(runner.dataDir, 'jobs');
    const ids = await Promise.all(
      Array.from({ length: 5 }, async (_, i) => {
        const events = await submitAndRead(`${runner.url}/script/CPU/test`, {
          fileName: `flood${i}.py`,
          content: flood,
          extensions: true,
        });
        assert.equal(terminal(events).event, 'result');
        return (events[0]!.data as { job_id: number }).job_id;
      }),
    );
    // the five together are well over the budget (5 x 1 MB of output, each stored at ~1.2x); a sweep may already be
    // deleting while the last result arrives, so only its outcome is asserted
    await waitFor(
      'the deferred sweep to bring the data dir under its budget',
      () => (dirBytes(jobs) <= budget ? true : undefined),
      60_000,
    );
    assert.ok(
      logged.some((l) => /^retention: deleted \d+ old job/.test(l)),
      logged.join('\n'),
    );
    // the jobs end in any order: the one that stays for sure is the one that ended last, and the sweep deleted
    // jobs in the order they ended (store.test.ts holds the order)
    const deleted = logged.flatMap(
      (l) => /^retention: deleted \d+ old job\(s\): (.*)$/.exec(l)?.[1]?.split(', ') ?? [],
    );
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
