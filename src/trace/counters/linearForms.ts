// The roofline's and speed-of-light's formulas as data over per-dispatch counter columns (a Float64Array per
// counter, one cell per dispatch): a formula linear in its counters is a LinearForm, its columns and coefficients,
// evaluated for every dispatch by multiply-add passes of four columns each (addTerms) into a reused column. Every
// formula goes through that one small loop, which V8 optimizes early in a run and keeps: a call per dispatch and
// formula through each formula's own closure was most of the derivation's time, and the CLI derives once, cold.

/**
 * Σ over stages of (Σ over the stage's terms of ks[j] * cols[j]): stage s holds the terms [stageEnds[s-1],
 * stageEnds[s]). A term with a zero coefficient is left out (its column is not read).
 */
export interface LinearForm {
  cols: Float64Array[];
  ks: number[];
  stageEnds: number[];
}

/** A form of these stages, each a list of columns and their coefficients. */
export function linearForm(stages: Array<{ cols: readonly Float64Array[]; ks: readonly number[] }>): LinearForm {
  const form: LinearForm = { cols: [], ks: [], stageEnds: [] };
  for (const s of stages) {
    s.ks.forEach((k, j) => {
      if (k === 0) return;
      form.cols.push(s.cols[j] as Float64Array);
      form.ks.push(k);
    });
    form.stageEnds.push(form.cols.length);
  }
  return form;
}

/**
 * The coefficients of a formula linear in its `count` inputs, read off by calling it with unit vectors. For
 * integer counters (exact below 2^53) the form's value is the formula's, whatever order the formula adds in.
 */
export function coefficients(value: (c: number[]) => number, count: number): number[] {
  const zero = new Array<number>(count).fill(0);
  const base = value(zero);
  return zero.map((_z, j) => value(zero.map((_x, k) => (k === j ? 1 : 0))) - base);
}

/** The one-stage form of a formula linear in its inputs, over these columns (in the order of its inputs). */
export function linearOf(value: (c: number[]) => number, cols: readonly Float64Array[]): LinearForm {
  return linearForm([{ cols, ks: coefficients(value, cols.length) }]);
}

/** A form's values at every dispatch as scale * column. */
export interface ScaledColumn {
  column: Float64Array;
  scale: number;
}

/**
 * A form's values at every dispatch: a one-term form's own column and coefficient (its value k * c, with no pass
 * over the dispatches), else the form evaluated into `out` (see evaluateInto).
 */
export function scaledColumn(f: LinearForm, out: Float64Array, stage: Float64Array): ScaledColumn {
  if (f.stageEnds.length === 1 && f.cols.length === 1)
    return { column: f.cols[0] as Float64Array, scale: f.ks[0] as number };
  return { column: evaluateInto(f, out, stage), scale: 1 };
}

/** A form's values at every dispatch: a one-term form of coefficient 1 is its column, else see evaluateInto. */
export function columnOf(f: LinearForm, out: Float64Array, stage: Float64Array): Float64Array {
  const s = scaledColumn(f, out, stage);
  return s.scale === 1 ? s.column : evaluateInto(f, out, stage);
}

/**
 * The form's value at every dispatch, into `out` (returned); `stage` is scratch of the same length. Each stage is
 * summed from 0 in term order and added to the stages before it, in order: the sums a loop over the formula's
 * stages and terms would make per dispatch.
 */
function evaluateInto(f: LinearForm, out: Float64Array, stage: Float64Array): Float64Array {
  const n = out.length;
  out.fill(0);
  f.stageEnds.forEach((end, s) => {
    const start = s === 0 ? 0 : (f.stageEnds[s - 1] as number);
    // the first stage is summed in place (0 + its sum is its sum)
    const into = s === 0 ? out : stage.fill(0);
    for (let j = start; j < end; j += 4) {
      // four terms a pass; a missing one is 0 * 0, which adds nothing
      const term = (t: number): [Float64Array, number] =>
        j + t < end ? [f.cols[j + t] as Float64Array, f.ks[j + t] as number] : [zeros(n), 0];
      addTerms(into, ...term(0), ...term(1), ...term(2), ...term(3), n);
    }
    if (s > 0) addTerms(out, stage, 1, zeros(n), 0, zeros(n), 0, zeros(n), 0, n);
  });
  return out;
}

let zeroColumn = new Float64Array(0);
/** A column of n zeros (shared: never written). */
function zeros(n: number): Float64Array {
  if (zeroColumn.length < n) zeroColumn = new Float64Array(n);
  return zeroColumn;
}

/**
 * acc[i] += ka * a[i], then += kb * b[i], kc * c[i], kd * d[i], for i < n (see kernelGroups.ts on loops that take
 * only what they read).
 */
function addTerms(
  acc: Float64Array,
  a: Float64Array,
  ka: number,
  b: Float64Array,
  kb: number,
  c: Float64Array,
  kc: number,
  d: Float64Array,
  kd: number,
  n: number,
): void {
  for (let i = 0; i < n; i++)
    acc[i] =
      (acc[i] as number) +
      ka * (a[i] as number) +
      kb * (b[i] as number) +
      kc * (c[i] as number) +
      kd * (d[i] as number);
}
