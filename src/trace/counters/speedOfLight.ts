// rocprof-compute's System Speed-of-Light (block 2.1, analysis_configs/<arch>/0200_system_speed_of_light.yaml
// @ 1b1610fc) per kernel: each value is AVG over dispatches of a per-dispatch value (NaN cells left out, as
// pandas' mean); x/0 is `inf`, 0/0 empty (null). Only the rates, hit rates and occupancy the roofline view uses.
import type { RooflineMissing, SolKernel, SolMetric, SolValue } from '../../core/protocol/roofline';
import { hasF6F4, hasF8, isMi200, l1LineBytes, LDS_BANKS_PER_CU, type ArchFamily } from './arch';
import type { CounterTable } from './counterTable';

interface MetricSpec {
  metric: string;
  unit: string;
  counters: string[];
  /** A counter read under another name when absent (rocpd profiles have SQ_LEVEL_WAVES_ACCUM for SQ_ACCUM_PREV_HIRES). */
  fallback?: Record<string, string>;
  /** Per-dispatch value from the counters (same order) and the duration. */
  value: (c: number[], durationNs: number, sys: SysNumbers) => number;
  peak: (sys: SysNumbers) => number;
}

export interface SysNumbers {
  maxSclk: number;
  cuPerGpu: number;
  totalL2Chan: number;
  hbmBandwidth: number;
  numXcd: number;
  maxWavesPerCu: number;
}

export function sysNumbers(sysinfo: Record<string, string>): SysNumbers {
  const n = (k: string): number => {
    const s = sysinfo[k];
    if (s === undefined || s.trim() === '') return NaN;
    const v = Number(s);
    return Number.isFinite(v) ? v : NaN;
  };
  return {
    maxSclk: n('max_sclk'),
    cuPerGpu: n('cu_per_gpu'),
    totalL2Chan: Math.trunc(n('total_l2_chan')),
    hbmBandwidth: (n('max_mclk') / 1000) * 32 * n('num_hbm_channels'),
    numXcd: n('num_xcd'),
    maxWavesPerCu: n('max_waves_per_cu'),
  };
}

const VALU = ['F16', 'F32', 'F64'].flatMap((p) => [
  `SQ_INSTS_VALU_ADD_${p}`,
  `SQ_INSTS_VALU_MUL_${p}`,
  `SQ_INSTS_VALU_TRANS_${p}`,
  `SQ_INSTS_VALU_FMA_${p}`,
]);
const mfmaPeakPerCu: Record<ArchFamily, Record<string, number>> = {
  gfx942: { F8: 4096, BF16: 2048, F16: 2048, F32: 256, F64: 256, I8: 4096 },
  gfx950: { F8: 8192, BF16: 4096, F16: 4096, F32: 256, F64: 128, F6F4: 16834, I8: 8192 },
  gfx90a: { BF16: 1024, F16: 1024, F32: 256, F64: 256, I8: 1024 },
  other: {},
};

function specs(f: ArchFamily): MetricSpec[] {
  const compute = (s: SysNumbers): number => s.maxSclk * s.cuPerGpu;
  const mfma = (t: string, label: string, unit = 'GFLOP/s'): MetricSpec => ({
    metric: label,
    unit,
    counters: [`SQ_INSTS_VALU_MFMA_MOPS_${t}`],
    value: (c, d) => ((c[0] as number) * 512) / d,
    peak: (s) => (compute(s) * (mfmaPeakPerCu[f][t] ?? NaN)) / 1000,
  });
  const line = l1LineBytes(f);
  const ea = isMi200(f) ? 'TCC_EA' : 'TCC_EA0';
  const out: MetricSpec[] = [
    {
      metric: 'VALU FLOPs',
      unit: 'GFLOP/s',
      counters: VALU,
      value: (c, d) => {
        let v = 0;
        for (let o = 0; o < 12; o += 4)
          v += 64 * ((c[o] as number) + (c[o + 1] as number) + (c[o + 2] as number) + 2 * (c[o + 3] as number));
        return v / d;
      },
      peak: (s) => (compute(s) * 64 * 2) / 1000,
    },
    ...(hasF8(f) ? [mfma('F8', 'MFMA FLOPs (F8)')] : []),
    mfma('BF16', 'MFMA FLOPs (BF16)'),
    mfma('F16', 'MFMA FLOPs (F16)'),
    mfma('F32', 'MFMA FLOPs (F32)'),
    mfma('F64', 'MFMA FLOPs (F64)'),
    ...(hasF6F4(f) ? [mfma('F6F4', 'MFMA FLOPs (F6F4)')] : []),
    mfma('I8', 'MFMA IOPs (Int8)', 'GIOP/s'),
    {
      metric: 'Wavefront Occupancy',
      unit: 'Wavefronts',
      counters: ['SQ_ACCUM_PREV_HIRES', 'GRBM_GUI_ACTIVE'],
      fallback: { SQ_ACCUM_PREV_HIRES: 'SQ_LEVEL_WAVES_ACCUM' },
      value: (c, _d, s) => (c[0] as number) / ((c[1] as number) / s.numXcd),
      peak: (s) => s.maxWavesPerCu * s.cuPerGpu,
    },
    {
      metric: 'Theoretical LDS Bandwidth',
      unit: 'GB/s',
      counters: ['SQ_LDS_IDX_ACTIVE', 'SQ_LDS_BANK_CONFLICT'],
      value: (c, d) => (((c[0] as number) - (c[1] as number)) * 4 * LDS_BANKS_PER_CU) / d,
      peak: (s) => compute(s) * 0.128,
    },
    {
      metric: 'vL1D Cache Hit Rate',
      unit: 'Pct',
      counters: [
        'TCP_TCC_READ_REQ_sum',
        'TCP_TCC_WRITE_REQ_sum',
        'TCP_TCC_ATOMIC_WITH_RET_REQ_sum',
        'TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum',
        'TCP_TOTAL_CACHE_ACCESSES_sum',
      ],
      value: (c) =>
        c[4] === 0
          ? NaN
          : 100 -
            (100 * ((c[0] as number) + (c[1] as number) + (c[2] as number) + (c[3] as number))) / (c[4] as number),
      peak: () => 100,
    },
    {
      metric: 'vL1D Cache BW',
      unit: 'GB/s',
      counters: ['TCP_TOTAL_CACHE_ACCESSES_sum'],
      value: (c, d) => ((c[0] as number) * line) / d,
      peak: (s) => (s.maxSclk / 1000) * line * s.cuPerGpu,
    },
    {
      metric: 'L2 Cache Hit Rate',
      unit: 'Pct',
      counters: ['TCC_HIT_sum', 'TCC_MISS_sum'],
      value: (c) =>
        (c[0] as number) + (c[1] as number) === 0
          ? NaN
          : (100 * (c[0] as number)) / ((c[0] as number) + (c[1] as number)),
      peak: () => 100,
    },
    {
      metric: 'L2 Cache BW',
      unit: 'GB/s',
      counters: ['TCC_REQ_sum'],
      value: (c, d) => ((c[0] as number) * 128) / d,
      peak: (s) => (s.maxSclk / 1000) * line * s.totalL2Chan,
    },
    isMi200(f)
      ? {
          metric: 'L2-Fabric Read BW',
          unit: 'GB/s',
          counters: ['TCC_EA_RDREQ_32B_sum', 'TCC_EA_RDREQ_sum'],
          value: (c, d) => ((c[0] as number) * 32 + ((c[1] as number) - (c[0] as number)) * 64) / d,
          peak: (s) => s.hbmBandwidth,
        }
      : {
          metric: 'L2-Fabric Read BW',
          unit: 'GB/s',
          counters: ['TCC_BUBBLE_sum', 'TCC_EA0_RDREQ_sum', 'TCC_EA0_RDREQ_32B_sum'],
          value: (c, d) =>
            (128 * (c[0] as number) +
              64 * ((c[1] as number) - (c[0] as number) - (c[2] as number)) +
              32 * (c[2] as number)) /
            d,
          peak: (s) => s.hbmBandwidth,
        },
    {
      metric: 'L2-Fabric Write BW',
      unit: 'GB/s',
      counters: [`${ea}_WRREQ_64B_sum`, `${ea}_WRREQ_sum`],
      value: (c, d) => ((c[0] as number) * 64 + ((c[1] as number) - (c[0] as number)) * 32) / d,
      peak: (s) => s.hbmBandwidth,
    },
  ];
  return out;
}

/** A number for the contract: `inf` as a string, NaN (or -inf) as null. */
function solValue(x: number): SolValue {
  if (x === Infinity) return 'inf';
  return Number.isFinite(x) ? x : null;
}

/** nanmean: NaN cells left out; NaN when every cell is NaN. */
function nanMean(values: Float64Array, idx: readonly number[]): number {
  let s = 0;
  let n = 0;
  for (const i of idx) {
    const v = values[i] as number;
    if (Number.isNaN(v)) continue;
    s += v;
    n++;
  }
  return n === 0 ? NaN : s / n;
}

export interface SolEvaluated {
  specs: MetricSpec[];
  perDispatch: Array<Float64Array | null>;
  missing: RooflineMissing[];
}

/** Every metric's per-dispatch values (null when a counter column is absent). */
export function solPerDispatch(t: CounterTable, f: ArchFamily, sys: SysNumbers): SolEvaluated {
  const list = specs(f);
  const missing: RooflineMissing[] = [];
  const perDispatch = list.map((m) => {
    const cols = m.counters.map(
      (c) => t.columns.get(c) ?? (m.fallback?.[c] ? t.columns.get(m.fallback[c] as string) : undefined),
    );
    const absent = m.counters.filter((_, i) => cols[i] === undefined);
    if (absent.length > 0) {
      missing.push({ quantity: m.metric, counters: absent });
      return null;
    }
    const n = t.names.length;
    const out = new Float64Array(n);
    const args = new Array<number>(cols.length);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < cols.length; j++) args[j] = (cols[j] as Float64Array)[i] as number;
      out[i] = m.value(args, t.durations[i] as number, sys);
    }
    return out;
  });
  return { specs: list, perDispatch, missing };
}

export function solKernel(name: string, idx: readonly number[], e: SolEvaluated, sys: SysNumbers): SolKernel {
  const metrics: SolMetric[] = e.specs.map((m, k) => {
    const values = e.perDispatch[k];
    const v = values ? nanMean(values, idx) : NaN;
    const p = m.peak(sys);
    const peak = Number.isFinite(p) && p !== 0 ? p : null;
    return {
      metric: m.metric,
      value: solValue(v),
      unit: m.unit,
      peak,
      percentOfPeak: peak === null ? null : solValue((100 * v) / peak),
    };
  });
  return { name, dispatches: idx.length, metrics };
}

/** The counters block 2's metrics read on `f`. */
export function solCounters(f: ArchFamily): string[] {
  return specs(f).flatMap((m) => [...m.counters, ...Object.values(m.fallback ?? {})]);
}
