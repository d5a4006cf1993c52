// SystemInfo of a run (upstream shape), built once per runner.
import { cpus, hostname, machine, release, type } from 'node:os';
import { execa } from 'execa';
import type { SystemInfo } from '../core/protocol/api';
import type { GpuInventory, GpuSlot } from './gpus';
import { SYSTEM_PROBE_DELAY_MS } from './limits';

export interface SystemProbe {
  /** SystemInfo for a job on `slot`. */
  forSlot(slot: GpuSlot): SystemInfo;
}

/**
 * Probes the torch version in the background, a few seconds after start so that it does not compete with a
 * first job (importing torch takes seconds of CPU); never throws. `stop()` ends a probe still running.
 */
export function probeSystem(
  inventory: GpuInventory,
  python: string,
  env: NodeJS.ProcessEnv,
  delayMs = SYSTEM_PROBE_DELAY_MS,
): SystemProbe & { stop(): void } {
  let torch = '';
  let probe: ReturnType<typeof execa> | null = null;
  const timer = setTimeout(() => {
    probe = execa(python, ['-c', 'import torch; print(torch.__version__)'], {
      reject: false,
      timeout: 60_000,
      env,
      stdin: 'ignore',
    });
    probe
      .then((r) => {
        if (r.exitCode === 0 && typeof r.stdout === 'string') torch = r.stdout.trim();
      })
      .catch(() => undefined);
  }, delayMs);
  timer.unref();
  const cpu = cpus()[0]?.model.trim() ?? 'unknown';
  const platform = `${type()}-${release()}-${machine()}`;
  const host = hostname();
  return {
    stop() {
      clearTimeout(timer);
      probe?.kill();
    },
    forSlot(slot) {
      return {
        gpu: slot.product,
        // a multi-device slot sees its devices; a single-device slot reports the machine's devices of its kind (a Slurm
        // runner's slots hold none: Slurm assigns the device, one per job)
        device_count:
          slot.devices.length > 1
            ? slot.devices.length
            : Math.max(1, inventory.slots.filter((s) => s.gpu === slot.gpu && s.devices.length === 1).length),
        cpu,
        runtime: inventory.runtime,
        platform,
        torch,
        hostname: host,
      };
    },
  };
}
