// The store's size budget: jobs go in the order they ended, not by id; a live job never goes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openStore, type StoredJob } from '../../../src/runner/store';

function record(id: number, finishedAt: string | null): StoredJob {
  return {
    id,
    leaderboard: 'vectoradd',
    gpu: 'MI300',
    mode: 'test',
    file_name: 'submission.py',
    state: finishedAt ? 'succeeded' : 'running',
    queue_position: finishedAt ? null : 0,
    created_at: '2026-12-02T00:00:00.000Z',
    started_at: '2026-12-02T00:00:00.000Z',
    finished_at: finishedAt,
    last_event_id: 0,
    result: null,
    error: null,
    artifacts: [],
    base_url: 'http://127.0.0.1:1',
    last_heartbeat: null,
    score: null,
    runner: 'MI300 #0',
  };
}

test('the size budget deletes jobs in the order they ended, never a live one', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kr-retention-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = openStore(dir);
  t.after(() => store.close());
  const recent = (s: number) => new Date(Date.now() - 60_000 + s * 1000).toISOString();
  // ids 1-4 end in the order 4, 2, 1, 3; job 5 is still running
  const ends: Record<number, string | null> = { 1: recent(3), 2: recent(2), 3: recent(4), 4: recent(1), 5: null };
  for (const [id, end] of Object.entries(ends)) {
    await store.createJob(record(Number(id), end), Buffer.from('print(1)\n'));
    writeFileSync(path.join(store.artifactsDir(Number(id)), 'out.bin'), Buffer.alloc(100_000));
  }
  const live = (id: number) => id === 5;

  // five jobs of ~100 kB against room for three: the two that ended first go (4, then 2)
  assert.deepEqual(await store.applyRetention({ maxAgeDays: 30, maxTotalBytes: 350_000 }, live), [4, 2]);
  // no room at all: 1 then 3 go, 5 (live) stays
  assert.deepEqual(await store.applyRetention({ maxAgeDays: 30, maxTotalBytes: 0 }, live), [1, 3]);
  assert.deepEqual(
    [1, 2, 3, 4, 5].map((id) => existsSync(store.jobDir(id))),
    [false, false, false, false, true],
  );
});
