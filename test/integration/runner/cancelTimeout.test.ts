// Timeouts and cancellation: SIGINT to the whole process group, a grace period, then SIGKILL; no orphans.
// FIFO queue per GPU with positions.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { jobEventSchema, resultEventSchema, statusEventSchema, type JobRecord } from '../../../src/core/protocol/api';
import { holdTimers } from '../../support/heldClock';
import {
  graceful,
  jobIdOf,
  marker,
  pidAlive,
  post,
  problemsDir,
  readSse,
  startTestRunner,
  tempDir,
  terminal,
  untilPrinted,
  waitFor,
  withMarker,
  type SseEvent,
  type TestRunner,
} from './helpers';

// The jobs' timeouts are the test's to fire (once the program is where the test wants it), however slow the machine.
const clock = holdTimers();
after(() => clock.release());

/** The two marked processes of a job, once both are there (the program and its grandchild). */
async function markedPair(mark: string, timeoutMs = 10_000, everyMs = 50): Promise<number[]> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const found = withMarker(mark);
    if (found.length >= 2) return found;
    if (Date.now() > end)
      throw new Error(`timed out waiting for the two processes marked ${mark}: ${found.join(', ')}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

function killLeftovers(mark: string): void {
  // only if an assertion failed: do not leave the test's own processes behind
  for (const pid of withMarker(mark)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

// The program (re-executed with the marker as its argument, same pid) and a grandchild carrying it too; both ignore
// SIGINT, so only the SIGKILL after the grace period ends them.
const stubborn = (mark: string) => `
import os, signal, subprocess, sys, time
if "${mark}" not in sys.argv:
    os.execv(sys.executable, [sys.executable, os.path.abspath(__file__), "${mark}"])
signal.signal(signal.SIGINT, signal.SIG_IGN)
child = subprocess.Popen([sys.executable, "-c", "import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); time.sleep(60)", "${mark}"])
print("started", flush=True)
time.sleep(60)
`;

async function jobRecord(runner: TestRunner, id: number): Promise<JobRecord> {
  return (await (await fetch(`${runner.url}/jobs/${id}`)).json()) as JobRecord;
}

/** Once the program of the job sent as `fileName` has printed `line`. */
async function printed(runner: TestRunner, fileName: string, line: string): Promise<void> {
  await untilPrinted(runner.url, await jobIdOf(runner.url, fileName), line);
}

describe('timeouts', () => {
  let runner: TestRunner;
  // a program that finishes on SIGINT ends the grace period itself: give it all the time a loaded machine needs
  let patient: TestRunner;
  before(async () => {
    runner = await startTestRunner({ scriptTimeoutSec: clock.seconds, killGraceMs: 400 });
    patient = await startTestRunner({ scriptTimeoutSec: clock.seconds, killGraceMs: 120_000 });
  });
  after(async () => {
    await runner.dispose();
    await patient.dispose();
  });

  test('a timed-out job and its grandchild are both gone afterwards (SIGINT ignored -> SIGKILL)', async () => {
    const mark = marker();
    try {
      const reading = readSse(
        await post(`${runner.url}/script/CPU/test`, {
          fileName: 'stubborn.py',
          content: stubborn(mark),
          extensions: true,
        }),
      );
      const [pid, grandchild] = await markedPair(mark, 60_000);
      await printed(runner, 'stubborn.py', 'started');
      assert.equal(clock.fire(), 1, 'the job timed out now');
      const events = await reading;
      const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!.run!;
      assert.equal(run.exit_code, 114);
      assert.equal(run.passed, false);
      assert.equal(run.stdout, 'started\n');
      assert.match(
        run.stderr,
        new RegExp(`timed out after ${clock.seconds} s: sent SIGINT to the process group, SIGKILL after 0\\.4 s`),
      );
      await waitFor(
        'both processes to be gone',
        () => (!pidAlive(pid!) && !pidAlive(grandchild!) ? true : undefined),
        5000,
      );
      assert.deepEqual(withMarker(mark), []);
      const job = jobEventSchema.parse(events[0]!.data);
      assert.equal((await jobRecord(runner, job.job_id)).state, 'timed_out');
    } finally {
      killLeftovers(mark);
    }
  });

  test('SIGINT comes first: a program that finishes on SIGINT gets to write its output', async () => {
    const reading = readSse(
      await post(`${patient.url}/script/CPU/test`, { fileName: 'graceful.py', content: graceful, extensions: true }),
    );
    await printed(patient, 'graceful.py', 'working');
    assert.equal(clock.fire(), 1);
    const events = await reading;
    const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!.run!;
    assert.equal(run.stdout, 'working\ngot SIGINT, writing files\n');
    assert.equal(run.exit_code, 114);
  });
});

describe('per-mode timeouts from task.yml', () => {
  let runner: TestRunner;
  let problems: string;
  before(async () => {
    // the example problem with its own test_timeout (the runner's default would be 180 s)
    problems = tempDir('kr-problems-');
    for (const f of ['eval.py', 'utils.py']) copyFileSync(path.join(problemsDir, f), path.join(problems, f));
    const dir = path.join(problems, 'vectoradd_py');
    cpSync(path.join(problemsDir, 'vectoradd_py'), dir, { recursive: true });
    const yml = readFileSync(path.join(dir, 'task.yml'), 'utf8');
    writeFileSync(path.join(dir, 'task.yml'), yml.replace(/^test_timeout: \d+$/m, `test_timeout: ${clock.seconds}`));
    runner = await startTestRunner({ problemsDir: problems, killGraceMs: 300 });
  });
  after(async () => {
    await runner.dispose();
    rmSync(problems, { recursive: true, force: true });
  });

  test("a submission that hangs in test mode is stopped after the task's test_timeout", async () => {
    const hang = readFileSync(path.join(problemsDir, 'vectoradd_py/solutions/slow/hang.py'), 'utf8');
    const reading = readSse(
      await post(`${runner.url}/vectoradd_py/CPU/test`, { fileName: 'hang.py', content: hang, extensions: true }),
    );
    await printed(runner, 'hang.py', 'hang: sleeping forever');
    assert.equal(clock.fire(), 1);
    const events = await reading;
    const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!.run!;
    assert.equal(run.exit_code, 114);
    assert.equal(run.passed, false);
    assert.match(
      run.stderr,
      new RegExp(`timed out after ${clock.seconds} s: sent SIGINT to the process group, SIGKILL after 0\\.3 s`),
    );
    assert.match(run.stdout, /hang: sleeping forever/);
    const job = jobEventSchema.parse(events[0]!.data);
    assert.equal((await jobRecord(runner, job.job_id)).state, 'timed_out');
  });
});

describe('cancel and queue', () => {
  let runner: TestRunner;
  before(async () => {
    runner = await startTestRunner({ killGraceMs: 300 });
  });
  after(() => runner.dispose());

  test('FIFO per GPU with queue positions; DELETE /jobs/{id} cancels queued and running jobs', async () => {
    const marks = { a: marker(), b: marker(), c: marker() };
    const open = async (name: 'a.py' | 'b.py' | 'c.py') => {
      const res = await post(`${runner.url}/script/CPU/test`, {
        fileName: name,
        content: stubborn(marks[name[0] as 'a' | 'b' | 'c']),
        extensions: true,
      });
      const reader = readSse(res);
      return reader;
    };
    const aEvents = open('a.py');
    const aId = await waitFor('job a', async () => {
      const list = (await (await fetch(`${runner.url}/user/submissions`)).json()) as Array<{
        id: number;
        file_name: string;
      }>;
      return list.find((s) => s.file_name === 'a.py')?.id;
    });
    await waitFor('a running', async () => ((await jobRecord(runner, aId)).state === 'running' ? true : undefined));
    const bEvents = open('b.py');
    const bId = await waitFor('job b', async () => {
      const list = (await (await fetch(`${runner.url}/user/submissions`)).json()) as Array<{
        id: number;
        file_name: string;
      }>;
      return list.find((s) => s.file_name === 'b.py')?.id;
    });
    const cEvents = open('c.py');
    const cId = await waitFor('job c', async () => {
      const list = (await (await fetch(`${runner.url}/user/submissions`)).json()) as Array<{
        id: number;
        file_name: string;
      }>;
      return list.find((s) => s.file_name === 'c.py')?.id;
    });
    assert.equal((await jobRecord(runner, bId)).queue_position, 1);
    assert.equal((await jobRecord(runner, cId)).queue_position, 2);
    const queue = (await (await fetch(`${runner.url}/runner_queue/CPU`)).json()) as {
      queued_jobs: number;
      running_jobs: number;
      status: string;
    };
    assert.deepEqual([queue.queued_jobs, queue.running_jobs, queue.status], [2, 1, 'available']);

    // cancel the queued b: it ends at once with upstream's cancel error; c moves up
    const cancelB = await fetch(`${runner.url}/jobs/${bId}`, { method: 'DELETE' });
    assert.deepEqual(await cancelB.json(), { status: 'ok', job_id: bId, state: 'cancelled' });
    const b = await bEvents;
    assert.deepEqual(terminal(b).data, { status: 'error', detail: 'Submission cancelled' });
    await waitFor('c to move up', async () => ((await jobRecord(runner, cId)).queue_position === 1 ? true : undefined));

    // cancel the running a once it has started its grandchild: both processes are gone, then c starts
    await readSse(
      await fetch(`${runner.url}/jobs/${aId}/events`),
      (ev) => ev.event === 'output' && (ev.data as { text: string }).text === 'started',
    );
    const [pid, grandchild] = await markedPair(marks.a);
    const cancelA = await fetch(`${runner.url}/jobs/${aId}`, { method: 'DELETE' });
    assert.equal(((await cancelA.json()) as { state: string }).state, 'cancelled');
    const a = await aEvents;
    assert.equal(terminal(a).event, 'error');
    await waitFor('a processes gone', () => (!pidAlive(pid!) && !pidAlive(grandchild!) ? true : undefined), 5000);
    assert.deepEqual(withMarker(marks.a), []);
    assert.deepEqual(withMarker(marks.b), [], 'the cancelled queued job never ran');
    await waitFor('c running', async () => ((await jobRecord(runner, cId)).state === 'running' ? true : undefined));
    await fetch(`${runner.url}/jobs/${cId}`, { method: 'DELETE' });
    const c = await cEvents;
    const cStatus = c.filter((e) => e.event === 'status').map((e) => statusEventSchema.parse(e.data));
    assert.deepEqual([...new Set(cStatus.map((s) => `${s.state}:${s.queue_position}`))].slice(0, 3), [
      'queued:2',
      'queued:1',
      'running:0',
    ]);

    // cancelling a finished job changes nothing
    const again = await fetch(`${runner.url}/jobs/${aId}`, { method: 'DELETE' });
    assert.equal(((await again.json()) as { state: string }).state, 'cancelled');
  });
});

describe('queue positions', () => {
  let runner: TestRunner;
  before(async () => {
    runner = await startTestRunner({ killGraceMs: 300 });
  });
  after(() => runner.dispose());

  test('0 = running or about to run, n = n-th in line: the same in job and status events and /runner_queue', async () => {
    const positions = (events: SseEvent[]) =>
      events
        .filter((e) => e.event === 'job' || e.event === 'status')
        .map((e) => {
          const d = e.data as { state?: string; queue_position?: number };
          return `${e.event === 'job' ? 'job' : d.state}:${d.queue_position}`;
        });
    const queue = async () => {
      const q = (await (await fetch(`${runner.url}/runner_queue/CPU`)).json()) as {
        queued_jobs: number;
        running_jobs: number;
        available_runners: number;
      };
      return [q.queued_jobs, q.running_jobs, q.available_runners];
    };
    assert.deepEqual(await queue(), [0, 0, 1]);

    // first job on the idle GPU: 0 from its very first event
    const first = readSse(
      await post(`${runner.url}/script/CPU/test`, {
        fileName: 'first.py',
        content: 'import time\nprint("started", flush=True)\ntime.sleep(60)\n',
        extensions: true,
      }),
    );
    const firstId = await waitFor('first running', async () => {
      const list = (await (await fetch(`${runner.url}/user/submissions`)).json()) as Array<{
        id: number;
        file_name: string;
      }>;
      const id = list.find((s) => s.file_name === 'first.py')?.id;
      return id !== undefined && (await jobRecord(runner, id)).state === 'running' ? id : undefined;
    });
    assert.equal((await jobRecord(runner, firstId)).queue_position, 0);

    // second job: 1st in line behind the running one
    const second = readSse(
      await post(`${runner.url}/script/CPU/test`, {
        fileName: 'second.py',
        content: 'print("second ran")\n',
        extensions: true,
      }),
    );
    const secondId = await waitFor('second queued', async () => {
      const list = (await (await fetch(`${runner.url}/user/submissions`)).json()) as Array<{
        id: number;
        file_name: string;
      }>;
      return list.find((s) => s.file_name === 'second.py')?.id;
    });
    assert.equal((await jobRecord(runner, secondId)).queue_position, 1);
    assert.deepEqual(await queue(), [1, 1, 0], 'queued_jobs = jobs at n >= 1, running_jobs = jobs at 0');

    // the first ends: the second starts and says 0
    await fetch(`${runner.url}/jobs/${firstId}`, { method: 'DELETE' });
    const [a, b] = await Promise.all([first, second]);
    const aPos = positions(a);
    assert.equal(aPos[0], 'job:0', 'a job that runs at once reports 0 in its job event');
    assert.ok(
      aPos.slice(1).every((p) => p.endsWith(':0')),
      aPos.join(' '),
    );
    const bPos = [...new Set(positions(b))];
    assert.deepEqual(bPos.slice(0, 3), ['job:1', 'queued:1', 'running:0']);
    assert.ok(b.some((e) => e.event === 'output' && (e.data as { text: string }).text === 'second ran'));
    assert.equal(terminal(b).event, 'result');
  });
});
