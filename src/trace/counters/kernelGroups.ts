// Sets of dispatches grouped by kernel name (all of a run's, or a range's), and per-kernel sums and means over them
// of per-dispatch columns, each in one pass over the set in dispatch order (so each kernel's sum adds its
// dispatches in the order a loop over that kernel's dispatches would).
//
// Every sum goes through one pass, addFractions: each distinct loop runs uncompiled for a while the first time (the
// CLI derives once, cold), so there are as few as can be. Such a pass takes what its loop reads as arguments and
// ends with its loop. Its first call runs long enough for V8 to compile the loop while it runs (on-stack
// replacement) and the whole function soon after, but code before the loop ran before V8 kept type feedback for the
// function and code after it has not run yet: a property access or a call there has no feedback, and reaching it
// throws the compiled code away.
import type { CounterTable } from './counterTable';

export interface KernelGroups {
  /** Kernel names in first-seen order. */
  names: string[];
  /** The dispatches grouped (ordinals in the table, ascending); null: every dispatch of the table. */
  dispatches: Int32Array | null;
  /** Kernel of each entry of `dispatches` (an index in names). */
  kernelOf: Int32Array;
  /** Dispatches per kernel. */
  counts: Int32Array;
}

/** The dispatches `only` (default: all, by the table's own kernel index) by kernel name. */
export function groupByKernel(t: CounterTable, only?: readonly number[]): KernelGroups {
  if (!only) return { names: t.kernels, dispatches: null, kernelOf: t.kernelOf, counts: t.kernelCounts };
  const kernelOf = new Int32Array(only.length);
  const tableKernels: number[] = [];
  const counts: number[] = [];
  renumberKernels(t.kernelOf, only, kernelOf, tableKernels, counts);
  return {
    names: tableKernels.map((k) => t.kernels[k] as string),
    dispatches: Int32Array.from(only),
    kernelOf,
    counts: Int32Array.from(counts),
  };
}

/**
 * The kernels of the dispatches `only`, numbered in first-seen order: kernelOf[j] is the number of only[j]'s,
 * tableKernels[k] the table's number of kernel k, counts[k] its dispatches in `only`.
 */
function renumberKernels(
  tableKernelOf: Int32Array,
  only: readonly number[],
  kernelOf: Int32Array,
  tableKernels: number[],
  counts: number[],
): void {
  const ids = new Map<number, number>();
  for (let j = 0; j < only.length; j++) {
    const tk = tableKernelOf[only[j] as number] as number;
    let k = ids.get(tk);
    if (k === undefined) {
      ids.set(tk, (k = tableKernels.push(tk) - 1));
      counts.push(0);
    }
    kernelOf[j] = k;
    (counts[k] as number)++;
  }
}

/**
 * A value per dispatch from the columns num and den: offset + sign * (scale * num) / (den / divisor). Where den is
 * 0 it is NaN when nanWhereZero (a hit rate of no accesses), else x/0 (inf); NaN values are left out of sums and
 * counts when skipNaN (pandas' mean), else they make the sum NaN.
 */
export interface Fraction {
  scale: number;
  divisor: number;
  offset: number;
  sign: number;
  nanWhereZero: boolean;
  skipNaN: boolean;
}

/** The value itself (0 + 1 * (1 * x) / (1 / 1) is x), NaN included. */
const VALUE: Fraction = { scale: 1, divisor: 1, offset: 0, sign: 1, nanWhereZero: false, skipNaN: false };

/** Per kernel: the sum of scale * `values` over its dispatches (a NaN cell makes it NaN). */
export function sumsByKernel(values: Float64Array, g: KernelGroups, scale = 1): Float64Array {
  return fractionSums(values, ones(values.length), { ...VALUE, scale }, g).sums;
}

/** Per kernel: sums / its dispatch count. */
export function meansOfSums(sums: Float64Array, g: KernelGroups): Float64Array {
  return dividedBy(sums, g.counts);
}

/** Per kernel: the mean over its dispatches of a Fraction of the columns num and den (see Fraction.skipNaN). */
export function fractionMeansByKernel(
  num: Float64Array,
  den: Float64Array,
  f: Fraction,
  g: KernelGroups,
): Float64Array {
  const { sums, counts } = fractionSums(num, den, f, g);
  return dividedBy(sums, counts);
}

function fractionSums(
  num: Float64Array,
  den: Float64Array,
  f: Fraction,
  g: KernelGroups,
): { sums: Float64Array; counts: Int32Array } {
  const sums = new Float64Array(g.names.length);
  const counts = new Int32Array(g.names.length);
  const { scale, divisor, offset, sign, nanWhereZero, skipNaN } = f;
  const plain = scale === 1 && divisor === 1 && offset === 0 && sign === 1 && !nanWhereZero && !skipNaN;
  const { dispatches, kernelOf } = g;
  addFractions(
    num,
    den,
    scale,
    divisor,
    offset,
    sign,
    nanWhereZero,
    skipNaN,
    plain,
    dispatches,
    kernelOf,
    sums,
    counts,
  );
  return { sums, counts };
}

/** The one pass every per-kernel sum goes through (each distinct loop runs uncompiled for a while at first). */
function addFractions(
  num: Float64Array,
  den: Float64Array,
  scale: number,
  divisor: number,
  offset: number,
  sign: number,
  nanWhereZero: boolean,
  skipNaN: boolean,
  /** The fraction is the value itself (VALUE): no divisions, which would give the same number. */
  plain: boolean,
  dispatches: Int32Array | null,
  kernelOf: Int32Array,
  sums: Float64Array,
  counts: Int32Array,
): void {
  for (let j = 0; j < kernelOf.length; j++) {
    const i = dispatches === null ? j : (dispatches[j] as number);
    const d = den[i] as number;
    const x = num[i] as number;
    const v = plain ? x : offset + sign * ((scale * x) / (d / divisor));
    // (each comparison first: it runs, and has type feedback, whatever the fraction)
    if ((v !== v && skipNaN) || (d === 0 && nanWhereZero)) continue;
    const k = kernelOf[j] as number;
    sums[k] = (sums[k] as number) + v;
    (counts[k] as number)++;
  }
}

let onesColumn = new Float64Array(0);
/** A column of n ones (shared: never written). */
function ones(n: number): Float64Array {
  if (onesColumn.length < n) onesColumn = new Float64Array(n).fill(1);
  return onesColumn;
}

/** sums[k] / counts[k], NaN where counts[k] is 0. */
function dividedBy(sums: Float64Array, counts: Int32Array): Float64Array {
  const out = new Float64Array(sums.length);
  for (let k = 0; k < sums.length; k++) out[k] = counts[k] === 0 ? NaN : (sums[k] as number) / (counts[k] as number);
  return out;
}
