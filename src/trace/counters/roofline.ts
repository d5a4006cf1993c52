// Roofline points per kernel from a CounterTable, as rocprof-compute's calc_ai computes them (means over a
// kernel's dispatches), with the memory/compute rule of rocprof-compute 3.3.1 (shared/docs/roofline.md).
import {
  roofAtIntensity,
  type MfmaByType,
  type RooflineKernel,
  type RooflineMissing,
  type RooflinePeaks,
} from '../../core/protocol/roofline';
import type { ArchFamily } from './arch';
import type { CounterTable } from './counterTable';
import { scaledColumn, type LinearForm } from './linearForms';
import { meansOfSums, sumsByKernel, type KernelGroups } from './kernelGroups';
import { formulasFor, resolve, resolveMfma, type MfmaType, type Stage } from './formulas';

/** The quantities of a table as linear forms over its columns, resolved once and averaged over any set of dispatches. */
export interface DispatchQuantities {
  flops: LinearForm;
  valuFlops: LinearForm;
  valuF16: LinearForm;
  valuF32: LinearForm;
  valuF64: LinearForm;
  mfma: Map<MfmaType, LinearForm>;
  hbmBytes: LinearForm;
  l2Bytes: LinearForm;
  l1Bytes: LinearForm;
  ldsBytes: LinearForm;
  missing: RooflineMissing[];
}

export function dispatchQuantities(t: CounterTable, family: ArchFamily): DispatchQuantities {
  const f = formulasFor(family);
  const missing: RooflineMissing[] = [];
  const run = (quantity: string, stages: Stage[]): LinearForm => {
    const r = resolve(t, stages);
    if (r.missing.length > 0) missing.push({ quantity, counters: r.missing });
    return r.form;
  };
  const flops = run('flops', f.flops);
  const valuFlops = run('valuFlops', f.valuFlops);
  const mfma = resolveMfma(t, family);
  if (mfma.missing.length > 0) missing.push({ quantity: 'mfmaFlops', counters: mfma.missing });
  const q: DispatchQuantities = {
    flops,
    valuFlops,
    valuF16: resolve(t, f.valuByType.f16).form,
    valuF32: resolve(t, f.valuByType.f32).form,
    valuF64: resolve(t, f.valuByType.f64).form,
    mfma: mfma.byType,
    hbmBytes: run('hbmBytes', f.hbmBytes),
    l2Bytes: run('l2Bytes', f.l2Bytes),
    l1Bytes: run('l1Bytes', f.l1Bytes),
    ldsBytes: run('ldsBytes', f.ldsBytes),
    missing,
  };
  if (t.names.length > 0 && t.durations.every((d) => Number.isNaN(d)))
    missing.push({ quantity: 'durationNs', counters: ['Start_Timestamp', 'End_Timestamp'] });
  return q;
}

const nn = (x: number): number | null => (Number.isFinite(x) ? x : null);
/** calc_ai's points: x / y, 0 when y is 0. */
const ratio = (x: number, y: number): number => (y === 0 ? 0 : x / y);

/** The FP32 ridge (FLOP/byte) of rocprof-compute 3.3.1's bound rule, null when a needed peak is unknown. */
function fp32Ridge(peaks: RooflinePeaks): number | null {
  const { valuFp32, mfmaFp32, hbmGBps } = peaks;
  if (valuFp32 === null || mfmaFp32 === null || hbmGBps === null || hbmGBps === 0) return null;
  return Math.min(valuFp32, mfmaFp32) / hbmGBps;
}

function boundOf(aiHbm: number | null, peaks: RooflinePeaks): 'memory' | 'compute' | null {
  const ridge = fp32Ridge(peaks);
  if (ridge === null || aiHbm === null) return null;
  return aiHbm < ridge ? 'memory' : 'compute';
}

/** gflopsPerSecond as % of the FP32 roof at aiHbm: min(HBM x AI, min(VALU FP32, MFMA FP32)). */
export function percentOfRoof(aiHbm: number | null, gflops: number | null, peaks: RooflinePeaks): number | null {
  return roofAtIntensity({ aiHbm, gflopsPerSecond: gflops }, peaks)?.percent ?? null;
}

const MFMA_TYPES: MfmaType[] = ['f6f4', 'f8', 'f16', 'bf16', 'f32', 'f64', 'i8'];
/** The types whose MFMA FLOPs calc_ai adds into the kernel's mfmaFlops, in its order (not i8: IOPs). */
const MFMA_FLOP_TYPES: MfmaType[] = ['f6f4', 'f8', 'f16', 'bf16', 'f32', 'f64'];

/** Each dispatch quantity's mean per kernel of a KernelGroups (an array indexed by kernel). */
interface KernelMeans {
  durationNs: Float64Array;
  flops: Float64Array;
  valuFlops: Float64Array;
  valuF16: Float64Array;
  valuF32: Float64Array;
  valuF64: Float64Array;
  mfma: Map<MfmaType, Float64Array>;
  hbmBytes: Float64Array;
  l2Bytes: Float64Array;
  l1Bytes: Float64Array;
  ldsBytes: Float64Array;
}

/**
 * Each quantity's per-kernel means in every set of `sets` (durationSums: each set's per-kernel total durations):
 * a quantity's per-dispatch values once, into a column reused by every quantity, then a pass per set.
 */
function kernelMeans(
  t: CounterTable,
  q: DispatchQuantities,
  sets: readonly KernelGroups[],
  durationSums: readonly Float64Array[],
): KernelMeans[] {
  const values = new Float64Array(t.names.length);
  const stage = new Float64Array(t.names.length);
  const perSet = (f: LinearForm): Float64Array[] => {
    const { column, scale } = scaledColumn(f, values, stage);
    return sets.map((g) => meansOfSums(sumsByKernel(column, g, scale), g));
  };
  const flops = perSet(q.flops);
  const valuFlops = perSet(q.valuFlops);
  const valuF16 = perSet(q.valuF16);
  const valuF32 = perSet(q.valuF32);
  const valuF64 = perSet(q.valuF64);
  const mfma = [...q.mfma].map(([type, f]) => ({ type, means: perSet(f) }));
  const hbmBytes = perSet(q.hbmBytes);
  const l2Bytes = perSet(q.l2Bytes);
  const l1Bytes = perSet(q.l1Bytes);
  const ldsBytes = perSet(q.ldsBytes);
  return sets.map((g, s) => ({
    durationNs: meansOfSums(durationSums[s] as Float64Array, g),
    flops: flops[s] as Float64Array,
    valuFlops: valuFlops[s] as Float64Array,
    valuF16: valuF16[s] as Float64Array,
    valuF32: valuF32[s] as Float64Array,
    valuF64: valuF64[s] as Float64Array,
    mfma: new Map(mfma.map((m) => [m.type, m.means[s] as Float64Array])),
    hbmBytes: hbmBytes[s] as Float64Array,
    l2Bytes: l2Bytes[s] as Float64Array,
    l1Bytes: l1Bytes[s] as Float64Array,
    ldsBytes: ldsBytes[s] as Float64Array,
  }));
}

/** Kernel k's point from the means of its dispatches. */
function rooflineKernel(k: number, g: KernelGroups, m: KernelMeans, peaks: RooflinePeaks): RooflineKernel {
  const at = (v: Float64Array): number => v[k] as number;
  const flops = at(m.flops);
  const hbm = at(m.hbmBytes);
  const l2 = at(m.l2Bytes);
  const l1 = at(m.l1Bytes);
  const lds = at(m.ldsBytes);
  const dur = at(m.durationNs);
  const mfmaMean = (type: MfmaType): number | null => {
    const v = m.mfma.get(type);
    return v ? nn(at(v)) : null;
  };
  const mfmaByType = Object.fromEntries(MFMA_TYPES.map((type) => [type, mfmaMean(type)])) as MfmaByType;
  let mfmaFlops = 0;
  for (const type of MFMA_FLOP_TYPES) {
    const v = m.mfma.get(type);
    if (v) mfmaFlops += at(v);
  }
  const aiHbm = nn(ratio(flops, hbm));
  const gflops = nn(ratio(flops, dur));
  return {
    name: g.names[k] as string,
    dispatches: g.counts[k] as number,
    durationNs: nn(dur),
    flops: nn(flops),
    valuFlops: nn(at(m.valuFlops)),
    mfmaFlops: nn(mfmaFlops),
    hbmBytes: nn(hbm),
    l2Bytes: nn(l2),
    l1Bytes: nn(l1),
    ldsBytes: nn(lds),
    aiHbm,
    aiL2: nn(ratio(flops, l2)),
    aiL1: nn(ratio(flops, l1)),
    aiLds: nn(ratio(flops, lds)),
    gflopsPerSecond: gflops,
    bound: boundOf(aiHbm, peaks),
    percentOfRoof: percentOfRoof(aiHbm, gflops, peaks),
    valuByType: { f16: nn(at(m.valuF16)), f32: nn(at(m.valuF32)), f64: nn(at(m.valuF64)) },
    mfmaByType,
  };
}

/** The kernels of `g` (indices in g.names), largest total duration first, then by name. */
export function kernelOrder(g: KernelGroups, durationSums: Float64Array): number[] {
  const name = (k: number): string => g.names[k] as string;
  const order = g.names.map((_, k) => k);
  order.sort(
    (a, b) =>
      ((durationSums[b] as number) || 0) - ((durationSums[a] as number) || 0) ||
      (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0),
  );
  return order;
}

/** The kernels of dispatches grouped by kernel, with their total durations and their order in the summary. */
export interface KernelSet {
  groups: KernelGroups;
  /** Per kernel: the sum of its dispatches' durations. */
  durationSums: Float64Array;
  /** Kernel indices (in groups.names) in the order listed. */
  order: number[];
}

/** Every set's kernels, in its order (see kernelOrder). */
export function rooflineKernels(
  t: CounterTable,
  q: DispatchQuantities,
  peaks: RooflinePeaks,
  sets: readonly KernelSet[],
): RooflineKernel[][] {
  const means = kernelMeans(
    t,
    q,
    sets.map((s) => s.groups),
    sets.map((s) => s.durationSums),
  );
  return sets.map((s, i) => s.order.map((k) => rooflineKernel(k, s.groups, means[i] as KernelMeans, peaks)));
}
