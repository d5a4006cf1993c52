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
import { evaluate, evaluateMfma, formulasFor, type MfmaType } from './formulas';

/** Per-dispatch quantities of a table, computed once and then averaged over any subset of dispatches. */
export interface DispatchQuantities {
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
  missing: RooflineMissing[];
}

export function dispatchQuantities(t: CounterTable, family: ArchFamily): DispatchQuantities {
  const f = formulasFor(family);
  const missing: RooflineMissing[] = [];
  const run = (quantity: string, stages: Parameters<typeof evaluate>[1]): Float64Array => {
    const e = evaluate(t, stages);
    if (e.missing.length > 0) missing.push({ quantity, counters: e.missing });
    return e.values;
  };
  const flops = run('flops', f.flops);
  const valuFlops = run('valuFlops', f.valuFlops);
  const mfma = evaluateMfma(t, family);
  if (mfma.missing.length > 0) missing.push({ quantity: 'mfmaFlops', counters: mfma.missing });
  const q: DispatchQuantities = {
    flops,
    valuFlops,
    valuF16: evaluate(t, f.valuByType.f16).values,
    valuF32: evaluate(t, f.valuByType.f32).values,
    valuF64: evaluate(t, f.valuByType.f64).values,
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

const mean = (v: Float64Array, idx: readonly number[]): number => {
  let s = 0;
  for (const i of idx) s += v[i] as number;
  return s / idx.length;
};
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

/** Dispatch ordinals per kernel name, in first-seen order. */
export function groupByKernel(t: CounterTable, only?: Iterable<number>): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const idx = only ?? t.names.keys();
  for (const i of idx) {
    const name = t.names[i] as string;
    let list = out.get(name);
    if (!list) out.set(name, (list = []));
    list.push(i);
  }
  return out;
}

/** One kernel's point from its dispatches `idx`. */
function rooflineKernel(
  name: string,
  idx: readonly number[],
  t: CounterTable,
  q: DispatchQuantities,
  peaks: RooflinePeaks,
): RooflineKernel {
  const flops = mean(q.flops, idx);
  const hbm = mean(q.hbmBytes, idx);
  const l2 = mean(q.l2Bytes, idx);
  const l1 = mean(q.l1Bytes, idx);
  const lds = mean(q.ldsBytes, idx);
  const dur = mean(t.durations, idx);
  const mfmaMean = (type: MfmaType): number | null => {
    const v = q.mfma.get(type);
    return v ? nn(mean(v, idx)) : null;
  };
  const mfmaByType: MfmaByType = {
    f6f4: mfmaMean('f6f4'),
    f8: mfmaMean('f8'),
    f16: mfmaMean('f16'),
    bf16: mfmaMean('bf16'),
    f32: mfmaMean('f32'),
    f64: mfmaMean('f64'),
    i8: mfmaMean('i8'),
  };
  let mfmaFlops = 0;
  for (const type of ['f6f4', 'f8', 'f16', 'bf16', 'f32', 'f64'] as const) {
    const v = q.mfma.get(type);
    if (v) mfmaFlops += mean(v, idx);
  }
  const aiHbm = nn(ratio(flops, hbm));
  const gflops = nn(ratio(flops, dur));
  return {
    name,
    dispatches: idx.length,
    durationNs: nn(dur),
    flops: nn(flops),
    valuFlops: nn(mean(q.valuFlops, idx)),
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
    valuByType: { f16: nn(mean(q.valuF16, idx)), f32: nn(mean(q.valuF32, idx)), f64: nn(mean(q.valuF64, idx)) },
    mfmaByType,
  };
}

/** Every kernel of `only` (default: all dispatches), largest total duration first. */
export function rooflineKernels(
  t: CounterTable,
  q: DispatchQuantities,
  peaks: RooflinePeaks,
  only?: Iterable<number>,
): RooflineKernel[] {
  const groups = [...groupByKernel(t, only)];
  const total = (idx: number[]): number => idx.reduce((s, i) => s + (t.durations[i] as number), 0);
  const withTotals = groups.map(([name, idx]) => ({ name, idx, total: total(idx) }));
  withTotals.sort((a, b) => (b.total || 0) - (a.total || 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return withTotals.map((g) => rooflineKernel(g.name, g.idx, t, q, peaks));
}
