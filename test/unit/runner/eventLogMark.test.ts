// Event ids are never reused across a crash: before a batch reaches the listener (the clients) the log's
// high-water mark on disk covers it, and recovery numbers its event past the mark even when the file lost frames.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  markPath,
  openEventLog,
  openHighWaterMark,
  readEvents,
  readHighWaterMark,
  type FrameBatch,
} from '../../../src/runner/eventLog';
import { openStore, type StoredJob } from '../../../src/runner/store';
import { seededRandom } from '../../support/random';

function withDir(fn: (dir: string) => Promise<void> | void) {
  return async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kr-mark-'));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

test(
  'every batch is covered by the mark on disk before the listener gets it',
  withDir(async (dir) => {
    const file = path.join(dir, 'events.sse');
    const rnd = seededRandom(9);
    const batches: FrameBatch[] = [];
    const log = openEventLog(file, 0, (b) => {
      assert.ok(readHighWaterMark(file) >= b.last, `batch ${b.first}..${b.last} sent before the mark covered it`);
      batches.push(b);
    });
    for (let i = 1; i <= 5000; i++) {
      log.append(
        'output',
        JSON.stringify({ stream: 'stdout', text: 'x'.repeat(Math.floor(rnd() * 300)), noise: false }),
      );
      if (rnd() < 0.01) await new Promise((r) => setImmediate(r));
    }
    log.append('result', '{}', true);
    await log.close();
    assert.ok(batches.length > 1);
    assert.equal(readHighWaterMark(file), 5001);
    assert.equal(markPath(file), path.join(dir, 'events.hwm'));
    assert.equal(statSync(markPath(file)).size, 20, 'one fixed-width record, rewritten in place');
  }),
);

test(
  'the mark only rises, and unreadable or missing marks read as 0',
  withDir((dir) => {
    const file = path.join(dir, 'events.sse');
    assert.equal(readHighWaterMark(file), 0);
    const mark = openHighWaterMark(file);
    mark.raise(1234);
    mark.raise(99);
    assert.equal(mark.value, 1234);
    mark.close();
    assert.equal(readHighWaterMark(file), 1234);
    assert.equal(openHighWaterMark(file).value, 1234, 'a reopened mark starts from the file');
    writeFileSync(markPath(file), 'garbage');
    assert.equal(readHighWaterMark(file), 0);
  }),
);

test(
  'recovery after a crash that lost sent frames numbers its error past every id a client saw',
  withDir(async (dir) => {
    const store = openStore(dir);
    const id = store.allocateId();
    const record: StoredJob = {
      id,
      leaderboard: 'script',
      gpu: 'CPU',
      mode: 'test',
      file_name: 'p.py',
      state: 'running',
      queue_position: 0,
      created_at: new Date().toISOString(),
      started_at: null,
      finished_at: null,
      last_event_id: 0,
      result: null,
      error: null,
      artifacts: [],
      base_url: 'http://127.0.0.1:1',
      last_heartbeat: null,
      score: null,
      runner: 'CPU',
    };
    await store.createJob(record, Buffer.from('print(1)\n'));
    let seen = 0;
    const log = store.openLog(id, (b) => (seen = b.last));
    for (let i = 0; i < 100; i++) log.append('output', '{"stream":"stdout","text":"x","noise":false}');
    log.flush();
    await log.flushed();
    assert.equal(seen, 100);
    // as if the process died before its last writes reached the file: only the first 60 frames are there, torn after
    const events = store.eventsPath(id);
    const text = readFileSync(events, 'utf8');
    truncateSync(events, Buffer.byteLength(text.slice(0, text.indexOf('\n\nid: 61\n') + 9)));
    store.close();

    const again = openStore(dir);
    try {
      const rec = again.loadJob(id)!;
      again.interruptSync(rec, { status: 'error', detail: 'Interrupted', status_code: 503 });
      assert.equal(rec.last_event_id, 101, 'the next id after the highest a client was given');
      const all = [];
      for await (const ev of readEvents(events)) all.push(ev);
      assert.deepEqual(
        all.map((e) => e.id),
        [...Array.from({ length: 60 }, (_v, i) => i + 1), 101],
      );
      assert.equal(all.at(-1)?.event, 'error');
      assert.equal(again.loadJob(id)?.state, 'interrupted');
    } finally {
      again.close();
    }
  }),
);

test(
  'recovery of a job whose file has everything keeps ids consecutive',
  withDir(async (dir) => {
    const store = openStore(dir);
    const id = store.allocateId();
    const record = {
      id,
      leaderboard: 'script',
      gpu: 'CPU',
      mode: 'test',
      file_name: 'p.py',
      state: 'queued',
      queue_position: 1,
      created_at: new Date().toISOString(),
      started_at: null,
      finished_at: null,
      last_event_id: 0,
      result: null,
      error: null,
      artifacts: [],
      base_url: 'http://127.0.0.1:1',
      last_heartbeat: null,
      score: null,
      runner: '',
    } as StoredJob;
    await store.createJob(record, Buffer.from('x'));
    const log = store.openLog(id);
    log.append('job', '{}');
    log.append('status', '{}');
    await log.flushed();
    store.close();
    const again = openStore(dir);
    try {
      const rec = again.loadJob(id)!;
      again.interruptSync(rec, { status: 'error', detail: 'Interrupted', status_code: 503 });
      assert.equal(rec.last_event_id, 3);
    } finally {
      again.close();
    }
  }),
);
