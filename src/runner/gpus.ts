// Which GPUs this machine has, named the way GPU MODE names them (MI300X -> MI300): one job slot per device, and
// for a GPU with n > 1 devices one more slot holding all of them, named as GPU MODE names its multi-GPU runners
// (`MI300x8`, `L4x4`). A multi-device slot and the single slots of its devices exclude each other (scheduler.ts).
import { execa } from 'execa';
import { findOnPath } from './profilers';

export type GpuRuntime = 'ROCm' | 'CUDA' | 'CPU';

export interface GpuSlot {
  /** GPU MODE name, e.g. `MI300`, `H100`, `CPU`. */
  gpu: string;
  /** Device indices for HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES: one, all of a GPU's (`MI300x8`), or none (CPU). */
  devices: number[];
  /** Marketing name as the driver reports it. */
  product: string;
}

export interface GpuInventory {
  runtime: GpuRuntime;
  slots: GpuSlot[];
  /** Distinct GPU names, in slot order (single-device names first, then the multi-device ones). */
  names: string[];
}

/** Whether a slot holds several devices (a multi-GPU runner such as `MI300x8`). */
export function isMultiDevice(slot: GpuSlot): boolean {
  return slot.devices.length > 1;
}

/**
 * How many devices a job of this slot gets: its device indices, else (a Slurm slot: Slurm assigns the devices) the
 * count its name says (`MI300x8` -> 8), else 1.
 */
export function deviceCount(slot: GpuSlot): number {
  if (slot.devices.length > 0) return slot.devices.length;
  const m = /x(\d+)$/.exec(slot.gpu);
  return m ? Number(m[1]) : 1;
}

/** The inventory of these slots: a slot per device, plus one `<name>x<n>` slot for every name with n > 1 devices. */
export function inventoryOf(runtime: GpuRuntime, deviceSlots: GpuSlot[]): GpuInventory {
  const slots = [...deviceSlots];
  const byName = new Map<string, GpuSlot[]>();
  for (const s of deviceSlots) if (s.devices.length === 1) byName.set(s.gpu, [...(byName.get(s.gpu) ?? []), s]);
  for (const [name, own] of byName) {
    if (own.length < 2) continue;
    slots.push({
      gpu: `${name}x${own.length}`,
      devices: own.flatMap((s) => s.devices),
      product: own[0]?.product ?? name,
    });
  }
  return { runtime, slots, names: [...new Set(slots.map((s) => s.gpu))] };
}

/** `rocminfo` output -> marketing names of GPU agents, in agent order. */
export function parseRocminfo(text: string): string[] {
  const names: string[] = [];
  let agent: { type?: string; name?: string } | undefined;
  const close = () => {
    if (agent?.type === 'GPU' && agent.name) names.push(agent.name);
  };
  for (const line of text.split('\n')) {
    if (/^\s*Agent \d+\s*$/.test(line)) {
      close();
      agent = {};
      continue;
    }
    if (!agent) continue;
    const m = /^\s*(Marketing Name|Device Type):\s*(.*?)\s*$/.exec(line);
    if (m?.[1] === 'Device Type' && agent.type === undefined) agent.type = m[2];
    else if (m?.[1] === 'Marketing Name' && agent.name === undefined) agent.name = m[2];
  }
  close();
  return names;
}

/** `rocm-smi --showproductname` output -> card names, in card order. */
export function parseRocmSmi(text: string): string[] {
  const cards = new Map<string, string>();
  for (const m of text.matchAll(/^GPU\[(\d+)\]\s*:\s*Card (?:Series|series|SKU|Model):\s*(.+)$/gm)) {
    const [, index, value] = m;
    if (index !== undefined && value && !cards.has(index)) cards.set(index, value.trim());
  }
  return [...cards.values()];
}

/** `AMD Instinct MI300X` -> `MI300`; other AMD Instinct parts keep their model (`MI355X`, `MI250`). */
export function amdGpuName(product: string): string {
  const m = /MI\s?(\d{3})([A-Z]?)/i.exec(product);
  if (!m) return product.replace(/^AMD\s+/i, '').trim() || 'AMD';
  const num = m[1] as string;
  const suffix = (m[2] ?? '').toUpperCase();
  if (num === '300' && (suffix === 'X' || suffix === '')) return 'MI300';
  if (num === '250') return 'MI250';
  return `MI${num}${suffix}`;
}

/** `NVIDIA H100 80GB HBM3` -> `H100`; unknown parts -> `NVIDIA`. */
export function nvidiaGpuName(product: string): string {
  const m = /\b(B300|B200|GB200|H200|H100|A100|A10G|L40S|L40|L4|T4|V100)\b/i.exec(product);
  return m ? (m[1] as string).toUpperCase() : 'NVIDIA';
}

async function tryRun(command: string, args: string[], pathValue: string | undefined): Promise<string | null> {
  // Most machines have none of these tools: looking on PATH first saves starting a process that cannot exist.
  const found = process.platform === 'win32' ? command : findOnPath(command, pathValue);
  if (!found) return null;
  const r = await execa(found, args, { reject: false, timeout: 10_000, stdin: 'ignore' });
  return r.exitCode === 0 && typeof r.stdout === 'string' ? r.stdout : null;
}

export async function detectGpus(
  override?: string,
  pathValue: string | undefined = process.env.PATH,
): Promise<GpuInventory> {
  let runtime: GpuRuntime = 'CPU';
  let products: string[] = [];
  let name = (p: string) => p;

  const rocminfo = await tryRun('rocminfo', [], pathValue);
  if (rocminfo) products = parseRocminfo(rocminfo);
  if (products.length === 0) {
    const smi = await tryRun('rocm-smi', ['--showproductname'], pathValue);
    if (smi) products = parseRocmSmi(smi);
  }
  if (products.length) {
    runtime = 'ROCm';
    name = amdGpuName;
  } else {
    const nv = await tryRun('nvidia-smi', ['--query-gpu=name', '--format=csv,noheader'], pathValue);
    if (nv)
      products = nv
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
    if (products.length) {
      runtime = 'CUDA';
      name = nvidiaGpuName;
    }
  }

  if (products.length === 0) return inventoryOf(runtime, [{ gpu: override ?? 'CPU', devices: [], product: 'CPU' }]);
  return inventoryOf(
    runtime,
    products.map((product, device) => ({ gpu: override ?? name(product), devices: [device], product })),
  );
}
