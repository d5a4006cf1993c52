// The job limits' helpers (runner/jobLimits.ts): the default memory, what serve's start line says, the process-group
// fallback's prlimit arguments, and the notes a failed run gets from its stderr.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultJobMemoryLimit, describeLimits, limitNotes, prlimitArgs } from '../../../src/runner/jobLimits';

test('the default memory per process is 3/4 of the machine, in whole MiB', () => {
  assert.equal(defaultJobMemoryLimit(16 * 1024 ** 3), 12 * 1024 ** 3);
  assert.equal(defaultJobMemoryLimit(1000 * 1024 ** 2 + 3) % 1024 ** 2, 0);
});

test('the start line says what is bounded, and plainly what is not', () => {
  assert.equal(
    describeLimits({ memory: 256 * 1024 ** 2, processes: 64, processesCounted: 'job' }),
    'memory 256 MiB per process, 64 processes and threads per job',
  );
  assert.match(
    describeLimits({ memory: 0, processes: 64, processesCounted: 'user' }),
    /^memory NOT bounded, 64 processes and threads of the job user, its jobs together$/,
  );
  assert.match(
    describeLimits({ memory: 1024 ** 3, processes: 64, processesCounted: 'exempt' }),
    /processes NOT bounded \(the job runs as uid 0/,
  );
  assert.match(describeLimits({ memory: 1024 ** 3, processes: 0, processesCounted: 'job' }), /processes NOT bounded$/);
});

test('prlimit: the memory limit always, processes beyond what the user runs, none for uid 0', () => {
  assert.deepEqual(prlimitArgs({ memory: 1024, processes: 64 }, 0), ['--data=1024:1024', '--']);
  assert.deepEqual(prlimitArgs({ memory: 0, processes: 0 }, 1000), []);
  const mine = prlimitArgs({ memory: 0, processes: 64 }, process.getuid?.() ?? 1000);
  const n = Number(/^--nproc=(\d+):\1$/.exec(mine[0] ?? '')?.[1]);
  assert.equal(mine.length, process.getuid?.() === 0 ? 0 : 2);
  assert.ok(process.getuid?.() === 0 || n > 64, `the user's own processes counted in: ${mine.join(' ')}`);
});

test("a failed run's stderr: MemoryError and a refused fork get a note naming the flag; other failures none", () => {
  const limits = { memory: 256 * 1024 ** 2, processes: 64 };
  assert.deepEqual(limitNotes('Traceback ...\nMemoryError\n', limits), [
    "[kernel-runner] the program ran out of memory: a job's process may allocate 256 MiB (serve --max-job-memory)",
  ]);
  assert.deepEqual(limitNotes("terminate called after throwing an instance of 'std::bad_alloc'", limits).length, 1);
  assert.deepEqual(limitNotes('BlockingIOError: [Errno 11] Resource temporarily unavailable', limits), [
    '[kernel-runner] the program could not start a process or thread: a job may run 64 (serve --max-job-processes)',
  ]);
  assert.deepEqual(limitNotes("RuntimeError: can't start new thread", limits).length, 1);
  assert.deepEqual(limitNotes('AssertionError: wrong answer', limits), []);
  assert.deepEqual(limitNotes('MemoryError', { memory: 0, processes: 0 }), [], 'no limit, no note');
});
