// The GPU name a Slurm runner serves, and its job slots. The name is --gpu-name, else the GPU type in the GRES
// (asked for with --slurm-gres, else configured on the partition's nodes: `gpu:mi300x:8` -> MI300), else the
// partition's name when it names a GPU (`mi300` -> MI300), else CPU. Slurm is the queue: the runner hands it up to
// SLURM_SLOTS jobs at once (one slot each, no device indices: Slurm assigns the GPUs); more wait in the runner's.
import { amdGpuName, inventoryOf, nvidiaGpuName, type GpuInventory, type GpuRuntime } from '../gpus';

export const SLURM_SLOTS = 256;

function fromGpuType(type: string): { name: string; runtime: GpuRuntime } | null {
  if (/mi\s?\d{3}/i.test(type)) return { name: amdGpuName(type), runtime: 'ROCm' };
  const nv = nvidiaGpuName(type);
  if (nv !== 'NVIDIA') return { name: nv, runtime: 'CUDA' };
  return null;
}

/** `gpu:mi300x:8` / `gpu:mi300x` -> `mi300x`; `gpu:1`, `gpu` -> null. */
function gresType(gres: string): string | null {
  const parts = gres.split('(')[0]?.split(':') ?? [];
  const type = parts[1];
  return parts[0] === 'gpu' && type && !/^\d+$/.test(type) ? type : null;
}

export function slurmInventory(opts: {
  gpuName?: string;
  partition?: string;
  gres?: string;
  nodeGres: readonly string[];
}): GpuInventory {
  const types = [opts.gres ?? '', ...opts.nodeGres].map(gresType).filter((t): t is string => t !== null);
  const found = [...types, opts.partition ?? ''].map(fromGpuType).find((x) => x !== null) ?? null;
  const name = opts.gpuName ?? found?.name ?? 'CPU';
  const product = found
    ? `Slurm partition ${opts.partition ?? '(default)'} (${types[0] ?? found.name})`
    : `Slurm partition ${opts.partition ?? '(default)'}`;
  const slots = Array.from({ length: SLURM_SLOTS }, () => ({ gpu: name, devices: [] as number[], product }));
  // inventoryOf adds multi-device slots only for single-device ones: none here
  return inventoryOf(found?.runtime ?? 'CPU', slots);
}
