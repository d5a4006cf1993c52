// Timeouts and cancellation: SIGINT to the whole process group, a grace period, then SIGKILL; no orphans.
// FIFO queue per GPU with positions.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { jobEventSchema, outputEventSchema, resultEventSchema, statusEventSchema, type JobRecord } from '../../../src/core/protocol/api';
import { pidAlive, post, readSse, startTestRunner, terminal, waitFor, type SseEvent, type TestRunner } from './helpers';

// Prints its pid and a grandchild's pid; both ignore SIGINT, so only the SIGKILL after the grace period ends them.
const stubborn = `
import os, signal, subprocess, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
child = subprocess.Popen([sys.executable, "-c", "import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); time.sleep(60)"])
print(f"pids {os.getpid()} {child.pid}", flush=True)
time.sleep(60)
`;

// Finishes its work on SIGINT (as rocprofv3 writes its files), within the grace period.
const graceful = `
import signal, sys, time
def stop(*_):
    print("got SIGINT, writing files", flush=True)
    sys.exit(130)
signal.signal(signal.SIGINT, stop)
print("working", flush=True)
time.sleep(60)
`;

function pidsFrom(events: SseEvent[]): number[] {
  for (const e of events) {
    if (e.event !== 'output') continue;
    const m = /^pids (\d+) (\d+)$/.exec(outputEventSchema.parse(e.data).text);
    if (m) return [Number(m[1]), Number(m[2])];
  }
  throw new Error('no pids line');
}

async function jobRecord(runner: TestRunner, id: number): Promise<JobRecord> {
  return (await (await fetch(`${runner.url}/jobs/${id}`)).json()) as JobRecord;
}

describe('timeouts', () => {
  let runner: TestRunner;
  before(async () => {
    runner = await startTestRunner({ scriptTimeoutSec: 1, killGraceMs: 400 });
  });
  after(() => runner.dispose());

  test('a timed-out job and its grandchild are both gone afterwards (SIGINT ignored -> SIGKILL)', async () => {
    const events = await readSse(await post(`${runner.url}/script/CPU/test`, { fileName: 'stubborn.py', content: stubborn, extensions: true }));
    const [pid, grandchild] = pidsFrom(events);
    const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!.run!;
    assert.equal(run.exit_code, 114);
    assert.equal(run.passed, false);
    assert.match(run.stderr, /timed out after 1 s: sent SIGINT to the process group, SIGKILL after 0\.4 s/);
    await waitFor('both processes to be gone', () => (!pidAlive(pid!) && !pidAlive(grandchild!) ? true : undefined), 5000);
    const job = jobEventSchema.parse(events[0]!.data);
    assert.equal((await jobRecord(runner, job.job_id)).state, 'timed_out');
  });

  test('SIGINT comes first: a program that finishes on SIGINT gets to write its output', async () => {
    const events = await readSse(await post(`${runner.url}/script/CPU/test`, { fileName: 'graceful.py', content: graceful, extensions: true }));
    const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!.run!;
    assert.equal(run.stdout, 'working\ngot SIGINT, writing files\n');
    assert.equal(run.exit_code, 114);
  });
});

describe('cancel and queue', () => {
  let runner: TestRunner;
  before(async () => {
    runner = await startTestRunner({ killGraceMs: 300 });
  });
  after(() => runner.dispose());

  test('FIFO per GPU with queue positions; DELETE /jobs/{id} cancels queued and running jobs', async () => {
    const open = async (name: string) => {
      const res = await post(`${runner.url}/script/CPU/test`, { fileName: name, content: stubborn, extensions: true });
      const reader = readSse(res);
      return reader;
    };
    const aEvents = open('a.py');
    const aId = await waitFor('job a', async () => {
      const list = (await (await fetch(`${runner.url}/user/submissions`)).json()) as Array<{ id: number; file_name: string }>;
      return list.find((s) => s.file_name === 'a.py')?.id;
    });
    await waitFor('a running', async () => ((await jobRecord(runner, aId)).state === 'running' ? true : undefined));
    const bEvents = open('b.py');
    const bId = await waitFor('job b', async () => {
      const list = (await (await fetch(`${runner.url}/user/submissions`)).json()) as Array<{ id: number; file_name: string }>;
      return list.find((s) => s.file_name === 'b.py')?.id;
    });
    const cEvents = open('c.py');
    const cId = await waitFor('job c', async () => {
      const list = (await (await fetch(`${runner.url}/user/submissions`)).json()) as Array<{ id: number; file_name: string }>;
      return list.find((s) => s.file_name === 'c.py')?.id;
    });
    assert.equal((await jobRecord(runner, bId)).queue_position, 1);
    assert.equal((await jobRecord(runner, cId)).queue_position, 2);
    const queue = (await (await fetch(`${runner.url}/runner_queue/CPU`)).json()) as { queued_jobs: number; running_jobs: number; status: string };
    assert.deepEqual([queue.queued_jobs, queue.running_jobs, queue.status], [2, 1, 'available']);

    // cancel the queued b: it ends at once with upstream's cancel error; c moves up
    const cancelB = await fetch(`${runner.url}/jobs/${bId}`, { method: 'DELETE' });
    assert.deepEqual(await cancelB.json(), { status: 'ok', job_id: bId, state: 'cancelled' });
    const b = await bEvents;
    assert.deepEqual(terminal(b).data, { status: 'error', detail: 'Submission cancelled' });
    await waitFor('c to move up', async () => ((await jobRecord(runner, cId)).queue_position === 1 ? true : undefined));

    // cancel the running a once it has started its grandchild: both processes are gone, then c starts
    await readSse(await fetch(`${runner.url}/jobs/${aId}/events`), (ev) => ev.event === 'output' && /^pids /.test((ev.data as { text: string }).text));
    const cancelA = await fetch(`${runner.url}/jobs/${aId}`, { method: 'DELETE' });
    assert.equal(((await cancelA.json()) as { state: string }).state, 'cancelled');
    const a = await aEvents;
    const [pid, grandchild] = pidsFrom(a);
    assert.equal(terminal(a).event, 'error');
    await waitFor('a processes gone', () => (!pidAlive(pid!) && !pidAlive(grandchild!) ? true : undefined), 5000);
    await waitFor('c running', async () => ((await jobRecord(runner, cId)).state === 'running' ? true : undefined));
    await fetch(`${runner.url}/jobs/${cId}`, { method: 'DELETE' });
    const c = await cEvents;
    const cStatus = c.filter((e) => e.event === 'status').map((e) => statusEventSchema.parse(e.data));
    assert.deepEqual([...new Set(cStatus.map((s) => `${s.state}:${s.queue_position}`))].slice(0, 3), ['queued:2', 'queued:1', 'running:0']);

    // cancelling a finished job changes nothing
    const again = await fetch(`${runner.url}/jobs/${aId}`, { method: 'DELETE' });
    assert.equal(((await again.json()) as { state: string }).state, 'cancelled');
  });
});
