// A client that reads more slowly than the program prints is not cut off and loses nothing: past its backlog limit
// it is relayed from the job's log once its socket drains, on the same connection (no reconnect), in id order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { createParser } from 'eventsource-parser';
import { EXTENSIONS_HEADER, expandOutput, outputEventSchema, type JobRecord } from '../../../src/core/protocol/api';
import { form, startTestRunner, waitFor, type TestRunner } from './helpers';

const program = `
import sys
for i in range(400000):
    sys.stdout.write(f"line {i} " + "x" * 40 + "\\n")
print("the end")
`;

/**
 * Once the runner has moved a reader to the job's log (logged), or else the job has ended (its program printed all of
 * its ~20 MB meanwhile): however long a busy machine takes for either.
 */
async function movedOrEnded(runner: TestRunner, logs: string[], fileName: string): Promise<void> {
  await waitFor(
    `a reader moved to the log or the job of ${fileName} ended`,
    async () => {
      if (logs.some((l) => / a client is /.test(l))) return true;
      const list = (await (await fetch(`${runner.url}/user/submissions`)).json()) as Array<{
        id: number;
        file_name: string;
      }>;
      const id = list.find((s) => s.file_name === fileName)?.id;
      if (id === undefined) return undefined;
      const rec = (await (await fetch(`${runner.url}/jobs/${id}`)).json()) as JobRecord;
      return rec.state === 'running' || rec.state === 'queued' ? undefined : true;
    },
    300_000,
  );
}

async function readSlowly(
  res: Response,
  holdBack: Promise<void>,
): Promise<Array<{ id: number; event: string; data: string }>> {
  const events: Array<{ id: number; event: string; data: string }> = [];
  const parser = createParser({
    onEvent: (m) => events.push({ id: Number(m.id), event: m.event ?? 'message', data: m.data }),
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  await holdBack; // reads nothing until then: the program prints ~20 MB meanwhile, far past the backlog limits
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
    if (events.length % 50 === 0) await sleep(1);
  }
  return events;
}

/** Every event once, in id order, ending with the result; every line of the program in order. */
function assertEveryEventOnce(events: Array<{ id: number; event: string; data: string }>): void {
  assert.deepEqual(
    events.map((e) => e.id),
    events.map((_e, i) => i + 1),
    'ids from 1, none missing or doubled',
  );
  assert.equal(events.at(-1)?.event, 'result');
  const lines = events
    .filter((e) => e.event === 'output')
    .flatMap((e) => expandOutput(outputEventSchema.parse(JSON.parse(e.data))));
  assert.equal(lines.length, 400001);
  assert.equal(lines[123456]?.text, `line 123456 ${'x'.repeat(40)}`);
  assert.equal(lines.at(-1)?.text, 'the end');
}

for (const route of ['the streaming POST', 'GET /jobs/{id}/events'] as const) {
  test(`${route}: a slow reader gets every event once, in order, on one connection`, async () => {
    const logs: string[] = [];
    const runner = await startTestRunner({ maxClientBacklogBytes: 256 * 1024, log: (line) => logs.push(line) });
    try {
      let res: Response;
      if (route === 'the streaming POST') {
        res = await fetch(`${runner.url}/script/CPU/test`, {
          method: 'POST',
          body: form('slow.py', program),
          headers: { [EXTENSIONS_HEADER]: '1' },
        });
      } else {
        const accepted = (await (
          await fetch(`${runner.url}/submission/script/CPU/test`, { method: 'POST', body: form('slow.py', program) })
        ).json()) as { details: { id: number } };
        res = await fetch(`${runner.url}/jobs/${accepted.details.id}/events`);
      }
      assert.equal(res.status, 200);
      assertEveryEventOnce(await readSlowly(res, movedOrEnded(runner, logs, 'slow.py')));
    } finally {
      await runner.dispose();
    }
  });
}

test("readers that hold back together past the runner's budget continue from the log (each under its own cap), and lose nothing", async () => {
  const logs: string[] = [];
  // each reader's own cap (16 MiB) is never reached here; the runner's budget (2 MiB for all of them) is
  const runner = await startTestRunner({ maxTotalBacklogBytes: 2 * 1024 * 1024, log: (line) => logs.push(line) });
  try {
    const accepted = (await (
      await fetch(`${runner.url}/submission/script/CPU/test`, { method: 'POST', body: form('slow.py', program) })
    ).json()) as { details: { id: number } };
    const id = accepted.details.id;
    const readers = await Promise.all([0, 1, 2, 3].map(() => fetch(`${runner.url}/jobs/${id}/events`)));
    const heldBack = movedOrEnded(runner, logs, 'slow.py');
    const streams = await Promise.all(readers.map((res) => readSlowly(res, heldBack)));
    for (const events of streams) assertEveryEventOnce(events);
    const moved = logs.filter((l) => l.startsWith(`job ${id}: a client is `));
    assert.ok(moved.length >= 1, `a reader was moved to the log: ${logs.join(' | ')}`);
    assert.ok(
      moved.every((l) => /over the runner's budget/.test(l)),
      `for the runner's budget, not a reader's own cap: ${moved.join(' | ')}`,
    );
    // what was held at the move: about the budget, never the 20 MB the program printed meanwhile
    for (const line of moved) {
      const total = Number(/all clients together ([\d.]+) MiB/.exec(line)?.[1]);
      assert.ok(total < 8, `held ${total} MiB when moved`);
    }
  } finally {
    await runner.dispose();
  }
});
