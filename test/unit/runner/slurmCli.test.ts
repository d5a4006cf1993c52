// The Slurm executor's pure parts: parsers of sinfo/squeue `-o` output, the --time limit, the GPU name a Slurm
// runner serves, the wait for a job's final state, and the POPCORN_FD file read back with its cap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  parseSinfo,
  parseSqueueJobs,
  parseSqueueStates,
  settledJob,
  slurmError,
  slurmTimeLimit,
  type SlurmCall,
} from '../../../src/runner/executors/slurmCli';
import { slurmInventory, SLURM_SLOTS } from '../../../src/runner/executors/slurmInventory';
import { readPopcornFile } from '../../../src/runner/executors/output';

test('sinfo: idle and mixed nodes can take a job, idle* (not responding), down and allocated cannot; GRES collected', () => {
  const r = parseSinfo(
    'idle|2|gpu:mi300x:8\nmixed|1|gpu:mi300x:8\nidle*|1|gpu:mi300x:8\ndown|3|(null)\nallocated|4|gpu:mi300x:8(S:0-1)\n',
  );
  assert.deepEqual(r, { idle: 3, nodes: 11, gres: ['gpu:mi300x:8', 'gpu:mi300x:8(S:0-1)'] });
  assert.deepEqual(parseSinfo(''), { idle: 0, nodes: 0, gres: [] });
});

test('squeue: pending and configuring are queued, running and completing run; other states are not counted', () => {
  assert.deepEqual(parseSqueueStates('PENDING\nRUNNING\nCONFIGURING\nCOMPLETING\nPENDING\nCOMPLETED\n'), {
    queued: 3,
    running: 2,
  });
});

test('squeue jobs: fields split on |, lines without a numeric id dropped (array tasks 12_3 too)', () => {
  const jobs = parseSqueueJobs(
    '12|kernel-runner-ab-3|RUNNING|None|n1|2:05\n12_3|x|PENDING|Priority||1:00\n\nnot a line\n13|kernel-runner-ab-4|NODE_FAIL|NodeDown|n2|2:05\n',
  );
  assert.deepEqual(jobs, [
    { id: 12, name: 'kernel-runner-ab-3', state: 'RUNNING', reason: 'None', nodes: 'n1', timeLimit: '2:05' },
    { id: 13, name: 'kernel-runner-ab-4', state: 'NODE_FAIL', reason: 'NodeDown', nodes: 'n2', timeLimit: '2:05' },
  ]);
});

test('the Slurm time limit is the timeout plus the grace period plus a minute, as hours:minutes:seconds', () => {
  assert.equal(slurmTimeLimit(180_000, 10_000), '0:04:10');
  assert.equal(slurmTimeLimit(1_000, 500), '0:01:02');
  assert.equal(slurmTimeLimit(1_800_000, 10_000), '0:31:10');
  assert.equal(slurmTimeLimit(7_200_000, 0, 0), '2:00:00');
});

test('an error names Slurm and the command as typed; a missing command says to install the client commands', () => {
  assert.equal(
    slurmError('sinfo', ['-h', '-o', '%T|%D'], {
      exitCode: 1,
      stderr: 'slurm_load_partitions: Unable to contact slurm controller (connect failure)\n',
    }),
    "Slurm: `sinfo -h -o '%T|%D'` failed (exit 1): slurm_load_partitions: Unable to contact slurm controller (connect failure)",
  );
  assert.match(
    slurmError('srun', ['--job-name=x'], { code: 'ENOENT' }),
    /^Slurm: `srun --job-name=x` failed: srun is not installed or not on PATH/,
  );
  assert.match(slurmError('squeue', [], { timedOut: true }), /did not answer within 30 s \(is slurmctld reachable\?\)/);
});

test('GPU name: --gpu-name wins, then the GRES type, then a partition named after a GPU, else CPU', () => {
  assert.equal(slurmInventory({ gpuName: 'H100', partition: 'mi300', nodeGres: ['gpu:mi300x:8'] }).names[0], 'H100');
  const fromGres = slurmInventory({ partition: 'gpu', nodeGres: ['gpu:mi300x:8(S:0-1)'] });
  assert.deepEqual(fromGres.names, ['MI300']);
  assert.equal(fromGres.runtime, 'ROCm');
  assert.equal(slurmInventory({ partition: 'batch', gres: 'gpu:h100:1', nodeGres: [] }).names[0], 'H100');
  assert.equal(slurmInventory({ partition: 'mi300', nodeGres: ['gpu:8'] }).names[0], 'MI300');
  assert.equal(slurmInventory({ partition: 'batch', nodeGres: [] }).names[0], 'CPU');
  const inv = slurmInventory({ partition: 'mi300', nodeGres: [] });
  assert.equal(
    inv.slots.length,
    SLURM_SLOTS,
    'Slurm is the queue: no multi-device slot is added, no device index given',
  );
  assert.ok(inv.slots.every((s) => s.devices.length === 0));
});

test('the POPCORN_FD file is read up to its cap in whole lines; the rest is counted', async () => {
  const file = path.join(tmpdir(), `kr-popcorn-${process.pid}`);
  try {
    writeFileSync(file, 'check: pass\nduration: 1.5\nlong: xxxxxxxxxx\n');
    assert.deepEqual(await readPopcornFile(file), {
      popcorn: 'check: pass\nduration: 1.5\nlong: xxxxxxxxxx\n',
      popcornOmitted: 0,
    });
    assert.deepEqual(await readPopcornFile(file, 30), { popcorn: 'check: pass\nduration: 1.5\n', popcornOmitted: 17 });
    assert.deepEqual(await readPopcornFile(`${file}-missing`), { popcorn: '', popcornOmitted: 0 });
  } finally {
    rmSync(file, { force: true });
  }
});

/** squeue answers in turn (a string: its stdout; null: a failed squeue), on a clock that only the pauses move. */
function scriptedSqueue(answers: (string | null)[]) {
  let clock = 0;
  const asked: number[] = [];
  const pauses: number[] = [];
  return {
    asked,
    pauses,
    now: () => clock,
    sleep: async (ms: number) => {
      pauses.push(ms);
      clock += ms;
    },
    ask: async (): Promise<SlurmCall> => {
      asked.push(clock);
      const a = answers.length > 1 ? answers.shift()! : answers[0]!;
      return a === null
        ? { ok: false, stdout: '', error: 'Slurm: `squeue` failed (exit 1): Socket timed out on send/recv operation' }
        : { ok: true, stdout: a, error: '' };
    },
  };
}

const line = (id: number, state: string, reason = 'None') => `${id}|kernel-runner-ab-3|${state}|${reason}|n1|2:05\n`;

test("a job's final state is waited for through failed squeues and unsettled states, pausing longer each time", async () => {
  const q = scriptedSqueue([
    null,
    line(12, 'RUNNING'),
    null,
    line(12, 'COMPLETING'),
    line(12, 'NODE_FAIL', 'NodeDown'),
  ]);
  const job = await settledJob(q.ask, { deadline: 60_000, now: q.now, sleep: q.sleep, firstDelayMs: 100 });
  assert.equal(job?.state, 'NODE_FAIL');
  assert.equal(job?.reason, 'NodeDown');
  assert.deepEqual(q.pauses, [100, 200, 400, 800], 'back-off: each pause twice the last');
  assert.equal(q.asked.length, 5);
});

test("the wait for a job's final state goes on past 5 s, up to the deadline, with pauses capped", async () => {
  const q = scriptedSqueue([...Array<string>(30).fill(line(7, 'COMPLETING')), line(7, 'TIMEOUT', 'TimeLimit')]);
  const job = await settledJob(q.ask, { deadline: 600_000, now: q.now, sleep: q.sleep, maxDelayMs: 2000 });
  assert.equal(job?.state, 'TIMEOUT');
  assert.ok(q.now() > 20_000, `waited ${q.now()} ms of the clock`);
  assert.equal(Math.max(...q.pauses), 2000);
  assert.equal(q.asked.length, 31);
});

test('the newest job of the name is the one waited for; an older settled one does not end the wait', async () => {
  const q = scriptedSqueue([
    line(3, 'COMPLETED') + line(9, 'COMPLETING'),
    line(3, 'COMPLETED') + line(9, 'CANCELLED', 'None'),
  ]);
  const job = await settledJob(q.ask, { deadline: 10_000, now: q.now, sleep: q.sleep });
  assert.deepEqual([job?.id, job?.state], [9, 'CANCELLED']);
});

test('at the deadline the last job seen is the answer, settled or not; never answered or unknown: null', async () => {
  const stuck = scriptedSqueue([line(4, 'COMPLETING')]);
  const job = await settledJob(stuck.ask, { deadline: 10_000, now: stuck.now, sleep: stuck.sleep });
  assert.equal(job?.state, 'COMPLETING');
  assert.equal(stuck.now(), 10_000, 'the last pause ends at the deadline, not past it');
  const down = scriptedSqueue([null]);
  assert.equal(await settledJob(down.ask, { deadline: 10_000, now: down.now, sleep: down.sleep }), null);
  assert.ok(down.asked.length > 3, 'a failed squeue is asked again');
  const unknown = scriptedSqueue(['']);
  assert.equal(await settledJob(unknown.ask, { deadline: 10_000, now: unknown.now, sleep: unknown.sleep }), null);
  assert.equal(unknown.asked.length, 1, 'a job squeue does not list is not waited for');
});

test("an aborted run stops the wait for the job's final state", async () => {
  const stop = new AbortController();
  const q = scriptedSqueue([line(5, 'RUNNING')]);
  const sleep = async (ms: number) => {
    await q.sleep(ms);
    if (q.pauses.length === 2) stop.abort();
  };
  const job = await settledJob(q.ask, { deadline: 600_000, now: q.now, sleep, signal: stop.signal });
  assert.equal(job?.state, 'RUNNING');
  assert.equal(q.asked.length, 3);
});
