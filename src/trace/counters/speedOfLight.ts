// rocprof-compute's System Speed-of-Light (block 2.1, analysis_configs/<arch>/0200_system_speed_of_light.yaml
// @ 1b1610fc) per kernel: each value is AVG over dispatches of a per-dispatch value (NaN cells left out, as
// pandas' mean); x/0 is `inf`, 0/0 empty (null). Only the rates, hit rates and occupancy the roofline view uses.
import type { RooflineMissing, SolKernel, SolMetric, SolValue } from '../../core/protocol/roofline';
import { hasF6F4, hasF8, isMi200, l1LineBytes, LDS_BANKS_PER_CU, type ArchFamily } from './arch';
import type { CounterTable } from './counterTable';
import { fractionMeansByKernel, type Fraction, type KernelGroups } from './kernelGroups';
import { columnOf, linearOf, scaledColumn, type LinearForm } from './linearForms';

/**
 * A metric's value at a dispatch from its counters (as over c[], in the order of MetricSpec.counters): offset +
 * sign * (scale * num) / (den / divisor), num and den linear in the counters (see kernelGroups.ts' Fraction).
 */
interface PerDispatch {
  num: (c: number[]) => number;
  /** The dispatch's duration (ns) when absent. */
  den?: (c: number[]) => number;
  scale?: number;
  divisor?: (s: SysNumbers) => number;
  offset?: number;
  sign?: number;
  /** NaN where den is 0 (a hit rate of no accesses), not x/0. */
  nanWhereZero?: boolean;
}

interface MetricSpec {
  metric: string;
  unit: string;
  counters: string[];
  /** A counter read under another name when absent (rocpd profiles have SQ_LEVEL_WAVES_ACCUM for SQ_ACCUM_PREV_HIRES). */
  fallback?: Record<string, string>;
  perDispatch: PerDispatch;
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

/** A rate: num per ns of the dispatch. */
const perNs = (num: (c: number[]) => number): PerDispatch => ({ num });
/** 100 * part / whole, NaN where whole is 0. */
const percent = (part: (c: number[]) => number, whole: (c: number[]) => number): PerDispatch => ({
  num: part,
  scale: 100,
  den: whole,
  nanWhereZero: true,
});
/** 100 - p. */
const hundredMinus = (p: PerDispatch): PerDispatch => ({ ...p, offset: 100, sign: -1 });

function specs(f: ArchFamily): MetricSpec[] {
  const compute = (s: SysNumbers): number => s.maxSclk * s.cuPerGpu;
  const mfma = (t: string, label: string, unit = 'GFLOP/s'): MetricSpec => ({
    metric: label,
    unit,
    counters: [`SQ_INSTS_VALU_MFMA_MOPS_${t}`],
    perDispatch: perNs((c) => (c[0] as number) * 512),
    peak: (s) => (compute(s) * (mfmaPeakPerCu[f][t] ?? NaN)) / 1000,
  });
  const line = l1LineBytes(f);
  const ea = isMi200(f) ? 'TCC_EA' : 'TCC_EA0';
  const out: MetricSpec[] = [
    {
      metric: 'VALU FLOPs',
      unit: 'GFLOP/s',
      counters: VALU,
      perDispatch: perNs((c) => {
        let v = 0;
        for (let o = 0; o < 12; o += 4)
          v += 64 * ((c[o] as number) + (c[o + 1] as number) + (c[o + 2] as number) + 2 * (c[o + 3] as number));
        return v;
      }),
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
      // accumulated waves / (GUI-active cycles / XCDs)
      perDispatch: { num: (c) => c[0] as number, den: (c) => c[1] as number, divisor: (s) => s.numXcd },
      peak: (s) => s.maxWavesPerCu * s.cuPerGpu,
    },
    {
      metric: 'Theoretical LDS Bandwidth',
      unit: 'GB/s',
      counters: ['SQ_LDS_IDX_ACTIVE', 'SQ_LDS_BANK_CONFLICT'],
      perDispatch: perNs((c) => ((c[0] as number) - (c[1] as number)) * 4 * LDS_BANKS_PER_CU),
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
      // 100 - 100 * (requests to L2) / accesses
      perDispatch: hundredMinus(
        percent(
          (c) => (c[0] as number) + (c[1] as number) + (c[2] as number) + (c[3] as number),
          (c) => c[4] as number,
        ),
      ),
      peak: () => 100,
    },
    {
      metric: 'vL1D Cache BW',
      unit: 'GB/s',
      counters: ['TCP_TOTAL_CACHE_ACCESSES_sum'],
      perDispatch: perNs((c) => (c[0] as number) * line),
      peak: (s) => (s.maxSclk / 1000) * line * s.cuPerGpu,
    },
    {
      metric: 'L2 Cache Hit Rate',
      unit: 'Pct',
      counters: ['TCC_HIT_sum', 'TCC_MISS_sum'],
      perDispatch: percent(
        (c) => c[0] as number,
        (c) => (c[0] as number) + (c[1] as number),
      ),
      peak: () => 100,
    },
    {
      metric: 'L2 Cache BW',
      unit: 'GB/s',
      counters: ['TCC_REQ_sum'],
      perDispatch: perNs((c) => (c[0] as number) * 128),
      peak: (s) => (s.maxSclk / 1000) * line * s.totalL2Chan,
    },
    isMi200(f)
      ? {
          metric: 'L2-Fabric Read BW',
          unit: 'GB/s',
          counters: ['TCC_EA_RDREQ_32B_sum', 'TCC_EA_RDREQ_sum'],
          perDispatch: perNs((c) => (c[0] as number) * 32 + ((c[1] as number) - (c[0] as number)) * 64),
          peak: (s) => s.hbmBandwidth,
        }
      : {
          metric: 'L2-Fabric Read BW',
          unit: 'GB/s',
          counters: ['TCC_BUBBLE_sum', 'TCC_EA0_RDREQ_sum', 'TCC_EA0_RDREQ_32B_sum'],
          perDispatch: perNs(
            (c) =>
              128 * (c[0] as number) +
              64 * ((c[1] as number) - (c[0] as number) - (c[2] as number)) +
              32 * (c[2] as number),
          ),
          peak: (s) => s.hbmBandwidth,
        },
    {
      metric: 'L2-Fabric Write BW',
      unit: 'GB/s',
      counters: [`${ea}_WRREQ_64B_sum`, `${ea}_WRREQ_sum`],
      perDispatch: perNs((c) => (c[0] as number) * 64 + ((c[1] as number) - (c[0] as number)) * 32),
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

/** A metric over a table's columns: num and den per dispatch (den: the durations when null) and how they combine. */
interface ResolvedMetric {
  num: LinearForm;
  den: LinearForm | null;
  fraction: Fraction;
}

export interface SolEvaluated {
  specs: MetricSpec[];
  /** Per metric: null when a counter column is absent. */
  perDispatch: Array<ResolvedMetric | null>;
  missing: RooflineMissing[];
}

/** Every metric over the columns of `t`, for the means of any set of its dispatches (solKernels). */
export function solPerDispatch(t: CounterTable, f: ArchFamily, sys: SysNumbers): SolEvaluated {
  const list = specs(f);
  const missing: RooflineMissing[] = [];
  const perDispatch = list.map((m): ResolvedMetric | null => {
    const cols = m.counters.map(
      (c) => t.columns.get(c) ?? (m.fallback?.[c] ? t.columns.get(m.fallback[c] as string) : undefined),
    );
    const absent = m.counters.filter((_, i) => cols[i] === undefined);
    if (absent.length > 0) {
      missing.push({ quantity: m.metric, counters: absent });
      return null;
    }
    const p = m.perDispatch;
    return {
      num: linearOf(p.num, cols as Float64Array[]),
      den: p.den ? linearOf(p.den, cols as Float64Array[]) : null,
      fraction: {
        scale: p.scale ?? 1,
        divisor: p.divisor?.(sys) ?? 1,
        offset: p.offset ?? 0,
        sign: p.sign ?? 1,
        nanWhereZero: p.nanWhereZero ?? false,
        skipNaN: true,
      },
    };
  });
  return { specs: list, perDispatch, missing };
}

/**
 * Each metric's per-kernel means in every set of `sets` (by metric, then set): a metric's num and den per dispatch
 * once, into columns reused by every metric, then a pass per set. NaN for every kernel when it lacks a counter.
 */
export function solMeans(t: CounterTable, e: SolEvaluated, sets: readonly KernelGroups[]): Float64Array[][] {
  const n = t.names.length;
  const numColumn = new Float64Array(n);
  const denColumn = new Float64Array(n);
  const stage = new Float64Array(n);
  return e.perDispatch.map((m) => {
    if (m === null) return sets.map((g) => new Float64Array(g.names.length).fill(NaN));
    // a one-term num's coefficient becomes the fraction's scale when that is 1 (their product is then exact)
    const num =
      m.fraction.scale === 1
        ? scaledColumn(m.num, numColumn, stage)
        : { column: columnOf(m.num, numColumn, stage), scale: 1 };
    const den = m.den ? columnOf(m.den, denColumn, stage) : t.durations;
    const fraction = { ...m.fraction, scale: m.fraction.scale * num.scale };
    return sets.map((g) => fractionMeansByKernel(num.column, den, fraction, g));
  });
}

/** Every set's kernels (indices in its groups' names, in the order listed), from solMeans of the same sets. */
export function solKernels(
  e: SolEvaluated,
  means: Float64Array[][],
  sets: ReadonlyArray<{ groups: KernelGroups; order: readonly number[] }>,
  sys: SysNumbers,
): SolKernel[][] {
  const peaks = e.specs.map((m) => {
    const p = m.peak(sys);
    return Number.isFinite(p) && p !== 0 ? p : null;
  });
  return sets.map(({ groups: g, order }, s) =>
    order.map((k) => ({
      name: g.names[k] as string,
      dispatches: g.counts[k] as number,
      metrics: e.specs.map((m, j): SolMetric => {
        const v = (means[j]?.[s] as Float64Array)[k] as number;
        const peak = peaks[j] as number | null;
        return {
          metric: m.metric,
          value: solValue(v),
          unit: m.unit,
          peak,
          percentOfPeak: peak === null ? null : solValue((100 * v) / peak),
        };
      }),
    })),
  );
}

/** The counters block 2's metrics read on `f`. */
export function solCounters(f: ArchFamily): string[] {
  return specs(f).flatMap((m) => [...m.counters, ...Object.values(m.fallback ?? {})]);
}
