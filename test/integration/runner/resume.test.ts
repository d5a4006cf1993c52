// Resumable streams: an extension client cut off mid-stream resumes with Last-Event-ID and gets every line
// exactly once, in order; the job keeps running meanwhile. A plain client that goes away cancels (as upstream).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EXTENSIONS_HEADER, expandOutput, outputEventSchema, type JobRecord } from '../../../src/core/protocol/api';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { post, readSse, startTestRunner, tempDir, terminal, waitFor, type SseEvent, type TestRunner } from './helpers';

/** Lines 1..count, odd ones on stdout, even ones on stderr; with `hold`, it waits after line `after` for `flag`. */
const numbered = (count: number, delayMs: number, hold?: { after: number; flag: string }) =>
  `import os, sys, time\nfor n in range(1, ${count + 1}):\n    (sys.stdout if n % 2 else sys.stderr).write(f"line {n}\\n")\n` +
  (hold
    ? `    if n == ${hold.after}:\n        sys.stdout.flush(); sys.stderr.flush()\n        while not os.path.exists(${JSON.stringify(hold.flag)}):\n            time.sleep(0.05)\n`
    : '') +
  `    time.sleep(${delayMs / 1000})\nprint("done")\n`;

const outputLines = (events: SseEvent[]) =>
  events
    .filter((e) => e.event === 'output')
    .reduce((n, e) => n + expandOutput(outputEventSchema.parse(e.data)).length, 0);

describe('resume after a cut connection', () => {
  let runner: TestRunner;
  before(async () => {
    runner = await startTestRunner();
  });
  after(() => runner.dispose());

  test('Last-Event-ID replays what was missed and continues live: every line once, in order', async (t) => {
    const count = 300;
    // the job stops after line 40 until the client has been cut off (the release flag, outside the data dir, which a
    // job cannot see, open to the job's user): on a busy machine it could otherwise end before the cut
    const flagDir = tempDir('kr-flag-');
    t.after(() => rmSync(flagDir, { recursive: true, force: true }));
    chmodSync(flagDir, 0o755);
    const flag = path.join(flagDir, 'release');
    const controller = new AbortController();
    const res = await post(`${runner.url}/script/CPU/test`, {
      fileName: 'numbered.py',
      content: numbered(count, 4, { after: 40, flag }),
      extensions: true,
      signal: controller.signal,
    });
    const first = await readSse(res, (_ev, all) => outputLines(all) >= 40);
    controller.abort();
    writeFileSync(flag, '');
    const jobId = (first[0]!.data as { job_id: number }).job_id;
    const lastId = Number(first[first.length - 1]!.id);

    // the job goes on without a client
    await new Promise((r) => setTimeout(r, 150));
    const mid = (await (await fetch(`${runner.url}/jobs/${jobId}`)).json()) as JobRecord;
    assert.ok(mid.state === 'running' || mid.state === 'succeeded', mid.state);

    const resumed = await fetch(`${runner.url}/jobs/${jobId}/events`, { headers: { 'Last-Event-ID': String(lastId) } });
    assert.equal(resumed.status, 200);
    const rest = await readSse(resumed);
    assert.equal(terminal(rest).event, 'result');
    const all: SseEvent[] = [...first, ...rest];
    const ids = all.map((e) => Number(e.id));
    assert.deepEqual(
      ids,
      ids.map((_, i) => i + 1),
      'ids contiguous from 1: nothing lost, nothing doubled',
    );
    const lines = all
      .filter((e) => e.event === 'output')
      .map((e) => outputEventSchema.parse(e.data))
      .flatMap((d) => expandOutput(d).map((l) => l.text));
    const expected = [...Array.from({ length: count }, (_, i) => `line ${i + 1}`), 'done'];
    // stdout and stderr are separate pipes: order is guaranteed within each
    assert.deepEqual(
      lines.filter((l) => /[13579]$|done/.test(l)),
      expected.filter((l) => /[13579]$|done/.test(l)),
    );
    assert.deepEqual(
      lines.filter((l) => /[02468]$/.test(l)),
      expected.filter((l) => /[02468]$/.test(l)),
    );
    assert.equal(lines.length, expected.length);

    // a finished job replays from its log: ?after= works like the header
    const replay = await readSse(await fetch(`${runner.url}/jobs/${jobId}/events?after=0`));
    assert.deepEqual(
      replay.map((e) => e.raw),
      all.map((e) => e.raw),
    );
    const tail = await readSse(
      await fetch(`${runner.url}/jobs/${jobId}/events`, { headers: { 'Last-Event-ID': String(ids.length - 1) } }),
    );
    assert.deepEqual(
      tail.map((e) => e.event),
      ['result'],
    );
  });

  test('several clients follow one job at once, each from its own point', async () => {
    const res = await post(`${runner.url}/submission/script/CPU/test`, { fileName: 'n.py', content: numbered(60, 5) });
    const id = ((await res.json()) as { details: { id: number } }).details.id;
    // one from the start, one from an id the job may not have reached yet, one from the middle of a batch
    const [a, b, c] = await Promise.all([
      readSse(await fetch(`${runner.url}/jobs/${id}/events`)),
      readSse(await fetch(`${runner.url}/jobs/${id}/events?after=3`)),
      (async () => {
        await new Promise((r) => setTimeout(r, 100));
        return readSse(await fetch(`${runner.url}/jobs/${id}/events`, { headers: { 'Last-Event-ID': '17' } }));
      })(),
    ]);
    assert.equal(Number(a[0]!.id), 1);
    assert.equal(Number(b[0]!.id), 4);
    assert.equal(Number(c[0]!.id), 18);
    assert.deepEqual(
      a.slice(3).map((e) => e.raw),
      b.map((e) => e.raw),
    );
    assert.deepEqual(
      a.slice(17).map((e) => e.raw),
      c.map((e) => e.raw),
    );
  });

  test(
    'a client that resumes from the end event right as the job ends gets the end of the stream, not a wait',
    {
      timeout: 120_000,
    },
    async () => {
      // the job is still listed as live while its record is saved: a resume from its last id then came in after the
      // last batch and waited for one that never came (until the client's own timeout)
      for (let i = 0; i < 3; i++) {
        const all = await readSse(
          await post(`${runner.url}/script/CPU/test`, { fileName: 'q.py', content: 'print("x")\n', extensions: true }),
        );
        assert.equal(terminal(all).event, 'result');
        const id = (all[0]!.data as { job_id: number }).job_id;
        const resumed = await fetch(`${runner.url}/jobs/${id}/events`, {
          headers: { 'Last-Event-ID': String(all.at(-1)!.id) },
        });
        assert.equal(resumed.status, 200);
        assert.deepEqual(await readSse(resumed), [], 'nothing after the end: the stream ends');
      }
    },
  );

  test('bad Last-Event-ID and unknown job answer with {detail}', async () => {
    const bad = await fetch(`${runner.url}/jobs/1/events`, { headers: { 'Last-Event-ID': 'abc' } });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { detail: string }).detail, /Last-Event-ID/);
    const missing = await fetch(`${runner.url}/jobs/999999/events`);
    assert.equal(missing.status, 404);
  });

  test('a plain client that disconnects cancels its streaming submission, as upstream does', async () => {
    const controller = new AbortController();
    const res = await fetch(`${runner.url}/script/CPU/test`, {
      method: 'POST',
      body: (() => {
        const fd = new FormData();
        fd.append('file', new Blob(['import time\ntime.sleep(30)\n']), 'sleepy.py');
        return fd;
      })(),
      signal: controller.signal,
    });
    await readSse(res, (ev) => ev.event === 'status');
    const list = (await (await fetch(`${runner.url}/user/submissions?limit=1`)).json()) as Array<{ id: number }>;
    const id = list[0]!.id;
    controller.abort();
    const rec = await waitFor('cancellation', async () => {
      const r = (await (
        await fetch(`${runner.url}/jobs/${id}`, { headers: { [EXTENSIONS_HEADER]: '1' } })
      ).json()) as JobRecord;
      return r.state === 'cancelled' ? r : undefined;
    });
    assert.equal(rec.error?.detail, 'Submission cancelled');
  });
});
