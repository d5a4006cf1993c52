// Per-dispatch quantities of rocprof-compute's roofline (src/utils/roofline_calc.py calc_ai @ 1b1610fc), over a
// CounterTable. Each quantity is a list of stages run in order, as the Python runs its statements inside one
// `try`: a stage whose counter column is absent (KeyError) stops the quantity there, keeping what earlier stages
// added (so a quantity with a missing first stage is 0, not null). A NaN cell propagates.
import { hasF6F4, hasF8, isMi200, LDS_BANKS_PER_CU, type ArchFamily } from './arch';
import { coefficients, linearForm, type LinearForm } from './linearForms';
import type { CounterTable } from './counterTable';

/** One stage: the counters it reads and its value from them (in the same order). */
export interface Stage {
  counters: string[];
  value: (c: number[]) => number;
}

const valu = (p: string): string[] => [
  `SQ_INSTS_VALU_ADD_${p}`,
  `SQ_INSTS_VALU_MUL_${p}`,
  `SQ_INSTS_VALU_FMA_${p}`,
  `SQ_INSTS_VALU_TRANS_${p}`,
];
/** 64 * (ADD + MUL + 2*FMA + TRANS) for the four counters at c[o..o+3]. */
const valuOf = (c: number[], o: number): number =>
  64 * ((c[o] as number) + (c[o + 1] as number) + 2 * (c[o + 2] as number) + (c[o + 3] as number));
const VALU_COUNTERS = [...valu('F16'), ...valu('F32'), ...valu('F64')];
const valuAll = (c: number[]): number => valuOf(c, 0) + valuOf(c, 4) + valuOf(c, 8);
const mops = (t: string): string => `SQ_INSTS_VALU_MFMA_MOPS_${t}`;
const mfmaStage = (t: string): Stage => ({ counters: [mops(t)], value: (c) => 512 * (c[0] as number) });

export type MfmaType = 'f6f4' | 'f8' | 'f16' | 'bf16' | 'f32' | 'f64' | 'i8';
const MFMA_COUNTER: Record<MfmaType, string> = {
  f6f4: 'F6F4',
  f8: 'F8',
  f16: 'F16',
  bf16: 'BF16',
  f32: 'F32',
  f64: 'F64',
  i8: 'I8',
};

export interface Formulas {
  flops: Stage[];
  valuFlops: Stage[];
  /** One stage per MFMA type, in the order calc_ai adds them (it stops at the first missing counter). */
  mfma: Array<{ type: MfmaType; stage: Stage }>;
  valuByType: Record<'f16' | 'f32' | 'f64', Stage[]>;
  ldsBytes: Stage[];
  l1Bytes: Stage[];
  l2Bytes: Stage[];
  hbmBytes: Stage[];
}

export function formulasFor(f: ArchFamily): Formulas {
  const flops: Stage[] = [
    {
      counters: [...VALU_COUNTERS, mops('F16'), mops('BF16'), mops('F32'), mops('F64')],
      value: (c) => valuAll(c) + 512 * ((c[12] as number) + (c[13] as number) + (c[14] as number) + (c[15] as number)),
    },
  ];
  if (hasF8(f)) flops.push(mfmaStage('F8'));
  if (hasF6F4(f)) flops.push(mfmaStage('F6F4'));
  const mfmaOrder: MfmaType[] = [
    ...(hasF8(f) ? ['f8' as const] : []),
    ...(hasF6F4(f) ? ['f6f4' as const] : []),
    'f16',
    'bf16',
    'f32',
    'f64',
    'i8',
  ];
  const hbm: Stage = isMi200(f)
    ? {
        counters: ['TCC_EA_RDREQ_32B_sum', 'TCC_EA_RDREQ_sum', 'TCC_EA_WRREQ_64B_sum', 'TCC_EA_WRREQ_sum'],
        value: ([r32, r, w64, w]) =>
          (r32 as number) * 32 +
          ((r as number) - (r32 as number)) * 64 +
          (w64 as number) * 64 +
          ((w as number) - (w64 as number)) * 32,
      }
    : {
        counters: [
          'TCC_BUBBLE_sum',
          'TCC_EA0_RDREQ_32B_sum',
          'TCC_EA0_RDREQ_sum',
          'TCC_EA0_WRREQ_sum',
          'TCC_EA0_WRREQ_64B_sum',
        ],
        value: ([b, r32, r, w, w64]) =>
          (b as number) * 128 +
          (r32 as number) * 32 +
          ((r as number) - (b as number) - (r32 as number)) * 64 +
          ((w as number) - (w64 as number)) * 32 +
          (w64 as number) * 64,
      };
  return {
    flops,
    valuFlops: [{ counters: VALU_COUNTERS, value: valuAll }],
    mfma: mfmaOrder.map((type) => ({ type, stage: mfmaStage(MFMA_COUNTER[type]) })),
    valuByType: {
      f16: [{ counters: valu('F16'), value: (c) => valuOf(c, 0) }],
      f32: [{ counters: valu('F32'), value: (c) => valuOf(c, 0) }],
      f64: [{ counters: valu('F64'), value: (c) => valuOf(c, 0) }],
    },
    ldsBytes: [
      {
        counters: ['SQ_LDS_IDX_ACTIVE', 'SQ_LDS_BANK_CONFLICT'],
        value: ([a, b]) => ((a as number) - (b as number)) * 4 * LDS_BANKS_PER_CU,
      },
    ],
    l1Bytes: [{ counters: ['TCP_TOTAL_CACHE_ACCESSES_sum'], value: ([a]) => (a as number) * 64 }],
    l2Bytes: [
      {
        counters: [
          'TCP_TCC_WRITE_REQ_sum',
          'TCP_TCC_ATOMIC_WITH_RET_REQ_sum',
          'TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum',
          'TCP_TCC_READ_REQ_sum',
        ],
        value: ([w, ar, an, r]) => (w as number) * 64 + (ar as number) * 64 + (an as number) * 64 + (r as number) * 64,
      },
    ],
    hbmBytes: [hbm],
  };
}

/** Counters every formula of `f` reads (what a reader needs to keep). */
export function countersRead(f: ArchFamily): Set<string> {
  const fs = formulasFor(f);
  const out = new Set<string>();
  const add = (stages: Stage[]): void => stages.forEach((s) => s.counters.forEach((c) => out.add(c)));
  add(fs.flops);
  add(fs.valuFlops);
  add(fs.ldsBytes);
  add(fs.l1Bytes);
  add(fs.l2Bytes);
  add(fs.hbmBytes);
  fs.mfma.forEach((m) => add([m.stage]));
  return out;
}

/** A quantity over a table: its form (the stages that ran) and the counters it lacked (empty when every stage ran). */
export interface Resolved {
  form: LinearForm;
  missing: string[];
}

/**
 * `stages` over the columns of `t`, up to the first stage with an absent column. Every stage is linear in its
 * counters: its coefficients are read off its value (coefficients), so it runs as multiply-adds per dispatch.
 */
export function resolve(t: CounterTable, stages: Stage[]): Resolved {
  const ran: Array<{ cols: Float64Array[]; ks: number[] }> = [];
  for (const s of stages) {
    const cols = s.counters.map((c) => t.columns.get(c));
    const absent = s.counters.filter((_, i) => cols[i] === undefined);
    if (absent.length > 0) return { form: linearForm(ran), missing: absent };
    ran.push({ cols: cols as Float64Array[], ks: coefficients(s.value, s.counters.length) });
  }
  return { form: linearForm(ran), missing: [] };
}

/** The MFMA types in calc_ai's order: each type's form; after the first absent counter every type is 0. */
export function resolveMfma(t: CounterTable, f: ArchFamily): { byType: Map<MfmaType, LinearForm>; missing: string[] } {
  const byType = new Map<MfmaType, LinearForm>();
  let missing: string[] = [];
  for (const { type, stage } of formulasFor(f).mfma) {
    if (missing.length > 0) {
      byType.set(type, linearForm([]));
      continue;
    }
    const r = resolve(t, [stage]);
    missing = r.missing;
    byType.set(type, r.form);
  }
  return { byType, missing };
}
