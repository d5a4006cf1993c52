// The scheduler with a multi-device slot (MI300x2) beside its devices' own slots: they exclude each other, and jobs
// start in arrival order across them. Runs are promises the test settles itself: no timing involved.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GpuSlot } from '../../../src/runner/gpus';
import { createScheduler } from '../../../src/runner/scheduler';

const slots: GpuSlot[] = [
  { gpu: 'MI300', devices: [0], product: 'MI300X' },
  { gpu: 'MI300', devices: [1], product: 'MI300X' },
  { gpu: 'MI300x2', devices: [0, 1], product: 'MI300X' },
];

interface Job {
  id: number;
  gpu: string;
}

function harness() {
  const running = new Map<number, { slot: GpuSlot; end: () => void }>();
  const scheduler = createScheduler<Job>(
    slots,
    (job, slot) =>
      new Promise<void>((resolve) => {
        running.set(job.id, { slot, end: resolve });
      }),
    () => undefined,
  );
  const end = async (id: number) => {
    const r = running.get(id);
    assert.ok(r, `job ${id} is not running`);
    running.delete(id);
    r.end();
    // the scheduler dispatches when the run's promise has settled
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { scheduler, running, end };
}

test('a multi-device job waits for every device; single-device jobs that came later wait for it', async () => {
  const { scheduler, running, end } = harness();
  const third = { id: 3, gpu: 'MI300' };
  scheduler.enqueue({ id: 1, gpu: 'MI300' });
  scheduler.enqueue({ id: 2, gpu: 'MI300x2' });
  scheduler.enqueue(third);
  // job 1 holds device 0; job 2 needs both; job 3 came after job 2 and must not take device 1 before it
  assert.deepEqual([...running.keys()], [1]);
  assert.deepEqual(scheduler.counts('MI300'), { queued: 1, running: 1, idle: 1, slots: 2 });
  assert.deepEqual(scheduler.counts('MI300x2'), { queued: 1, running: 0, idle: 0, slots: 1 });
  await end(1);
  assert.deepEqual([...running.keys()], [2]);
  assert.deepEqual(running.get(2)?.slot.devices, [0, 1]);
  assert.equal(scheduler.position(third), 1);
  assert.deepEqual(scheduler.counts('MI300'), { queued: 1, running: 0, idle: 0, slots: 2 });
  await end(2);
  assert.deepEqual([...running.keys()], [3]);
});

test('single-device jobs share the devices; a waiting multi-device job taken out frees what it held back', async () => {
  const { scheduler, running, end } = harness();
  const jobs = [1, 2, 3, 4].map((id) => ({ id, gpu: id === 2 ? 'MI300x2' : 'MI300' }));
  for (const job of jobs) scheduler.enqueue(job);
  assert.deepEqual([...running.keys()], [1]);
  assert.equal(scheduler.remove(jobs[1]!), true);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual([...running.keys()].sort(), [1, 3]);
  assert.equal(scheduler.position(jobs[3]!), 1);
  await end(1);
  assert.deepEqual([...running.keys()].sort(), [3, 4]);
  assert.deepEqual(new Set([...running.values()].map((r) => r.slot.devices[0])), new Set([0, 1]));
});
