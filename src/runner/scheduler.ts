// FIFO queue per GPU name, one job per slot at a time. A slot holding several devices (`MI300x8`) and the slots of
// those devices exclude each other: a slot is free when no running job holds any of its devices. Jobs start in the
// order they arrived across all names that share devices: a job that cannot start yet keeps the devices of its
// GPU's slots for itself, so a multi-GPU job is not overtaken forever by single-device jobs (nor the other way).
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
  const arrival = new Map<J, number>();
  let arrivals = 0;

  const held = (): Set<number> => {
    const devices = new Set<number>();
    for (const slot of busy.keys()) for (const d of slot.devices) devices.add(d);
    return devices;
  };
  const isFree = (slot: GpuSlot, taken: ReadonlySet<number>) =>
    !busy.has(slot) && !slot.devices.some((d) => taken.has(d));

  const dispatch = () => {
    const waiting = [...queues.values()].flat().sort((a, b) => (arrival.get(a) ?? 0) - (arrival.get(b) ?? 0));
    if (waiting.length === 0) return;
    const taken = held();
    const reserved = new Set<number>();
    const moved = new Set<string>();
    for (const job of waiting) {
      const own = slots.filter((s) => s.gpu === job.gpu);
      const slot = own.find((s) => isFree(s, taken) && !s.devices.some((d) => reserved.has(d)));
      if (!slot) {
        for (const s of own) for (const d of s.devices) reserved.add(d);
        continue;
      }
      const queue = queues.get(job.gpu) as J[];
      queue.splice(queue.indexOf(job), 1);
      arrival.delete(job);
      busy.set(slot, job);
      for (const d of slot.devices) taken.add(d);
      moved.add(job.gpu);
      void run(job, slot).finally(() => {
        busy.delete(slot);
        dispatch();
      });
    }
    for (const gpu of moved) onLineChange(gpu);
  };

  return {
    enqueue(job) {
      let queue = queues.get(job.gpu);
      if (!queue) queues.set(job.gpu, (queue = []));
      queue.push(job);
      arrival.set(job, arrivals++);
      dispatch();
    },
    remove(job) {
      const queue = queues.get(job.gpu);
      const at = queue?.indexOf(job) ?? -1;
      if (!queue || at < 0) return false;
      queue.splice(at, 1);
      arrival.delete(job);
      onLineChange(job.gpu);
      // a job that waited for devices no longer keeps them; after the caller's synchronous work (taking several
      // jobs out at once must not start the ones behind them)
      queueMicrotask(dispatch);
      return true;
    },
    position(job) {
      for (const j of busy.values()) if (j === job) return 0;
      const at = queues.get(job.gpu)?.indexOf(job) ?? -1;
      return at < 0 ? null : at + 1;
    },
    counts(gpu) {
      const own = slots.filter((s) => s.gpu === gpu);
      const taken = held();
      const running = own.filter((s) => busy.has(s)).length;
      const idle = own.filter((s) => isFree(s, taken)).length;
      return { queued: queues.get(gpu)?.length ?? 0, running, idle, slots: own.length };
    },
    waiting(gpu) {
      return queues.get(gpu) ?? [];
    },
  };
}
