// FIFO queue per GPU name, one job per device slot at a time.
import type { GpuSlot } from './gpus';

export interface Schedulable {
  id: number;
  gpu: string;
}

export interface Scheduler<J extends Schedulable> {
  enqueue(job: J): void;
  /** Takes a waiting job out of its queue; false when it is not waiting. */
  remove(job: J): boolean;
  /** 0 = running; n = n-th in line; null = unknown to the scheduler. */
  position(job: J): number | null;
  counts(gpu: string): { queued: number; running: number; idle: number; slots: number };
  waiting(gpu: string): readonly J[];
}

export function createScheduler<J extends Schedulable>(
  slots: readonly GpuSlot[],
  run: (job: J, slot: GpuSlot) => Promise<void>,
  /** Called after the waiting line of `gpu` changed (positions moved). */
  onLineChange: (gpu: string) => void,
): Scheduler<J> {
  const queues = new Map<string, J[]>();
  const busy = new Map<GpuSlot, J>();

  const dispatch = (gpu: string) => {
    const queue = queues.get(gpu);
    let moved = false;
    for (const slot of slots) {
      if (!queue?.length) break;
      if (slot.gpu !== gpu || busy.has(slot)) continue;
      const job = queue.shift() as J;
      busy.set(slot, job);
      moved = true;
      void run(job, slot).finally(() => {
        busy.delete(slot);
        dispatch(gpu);
      });
    }
    if (moved) onLineChange(gpu);
  };

  return {
    enqueue(job) {
      let queue = queues.get(job.gpu);
      if (!queue) queues.set(job.gpu, (queue = []));
      queue.push(job);
      dispatch(job.gpu);
    },
    remove(job) {
      const queue = queues.get(job.gpu);
      const at = queue?.indexOf(job) ?? -1;
      if (!queue || at < 0) return false;
      queue.splice(at, 1);
      onLineChange(job.gpu);
      return true;
    },
    position(job) {
      for (const j of busy.values()) if (j === job) return 0;
      const at = queues.get(job.gpu)?.indexOf(job) ?? -1;
      return at < 0 ? null : at + 1;
    },
    counts(gpu) {
      const own = slots.filter((s) => s.gpu === gpu);
      const running = own.filter((s) => busy.has(s)).length;
      return { queued: queues.get(gpu)?.length ?? 0, running, idle: own.length - running, slots: own.length };
    },
    waiting(gpu) {
      return queues.get(gpu) ?? [];
    },
  };
}
