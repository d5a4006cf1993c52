// From per-dispatch counters to the summary's `roofline` and `speedOfLight` objects (shared/docs/roofline.md):
// the GPU's arch and peaks from the workload's sysinfo.csv / roofline.csv, the points per kernel, and per rocTX
// range when dispatches were put in ranges.
import type {
  CounterSource,
  Roofline,
  RooflineKernel,
  RooflineMissing,
  RooflinePeaks,
  SolKernel,
  SpeedOfLight,
} from '../../core/protocol/roofline';
import { archFamily, type ArchFamily } from './arch';
import type { CounterTable } from './counterTable';
import { peaksFromRooflineCsv, specPeaks } from './peaks';
import { groupByKernel, sumsByKernel } from './kernelGroups';
import { dispatchQuantities, kernelOrder, rooflineKernels, type KernelSet } from './roofline';
import { solKernels, solMeans, solPerDispatch, sysNumbers } from './speedOfLight';

export interface DeriveInputs {
  table: CounterTable;
  source: Omit<CounterSource, 'arch'>;
  /** ISA from another file of the run (agent info) when sysinfo has none. */
  arch: string | null;
  sysinfo: Record<string, string> | null;
  /** roofline.csv's device-0 row, when the folder has one. */
  rooflineRow: Record<string, string> | null;
  /** Range name of each dispatch by its scope (the table's scopes: its process) and key (Dispatch_Id). */
  rangeOf?: RangesByScope;
}

const PEAK_KEYS: Array<keyof RooflinePeaks> = [
  'hbmGBps',
  'l2GBps',
  'l1GBps',
  'ldsGBps',
  'valuFp32',
  'valuFp64',
  'mfmaFp16',
  'mfmaBf16',
  'mfmaFp32',
  'mfmaFp64',
  'mfmaFp8',
  'mfmaI8',
];

export function deriveRoofline(inputs: DeriveInputs): { roofline: Roofline; speedOfLight: SpeedOfLight } {
  const { table } = inputs;
  const arch = inputs.sysinfo?.gpu_arch?.trim() || inputs.arch;
  const family = archFamily(arch);
  const missing: RooflineMissing[] = [];
  if (!arch) missing.push({ quantity: 'arch', counters: ['sysinfo.gpu_arch'] });
  else if (family === 'other')
    missing.push({
      quantity: `formulas for ${arch} (rocprof-compute's are for gfx90a, gfx94x, gfx950; those of gfx942 were used)`,
      counters: [],
    });

  let peaks: RooflinePeaks;
  let peaksFrom: Roofline['peaksFrom'];
  if (inputs.rooflineRow) {
    peaks = peaksFromRooflineCsv(inputs.rooflineRow);
    peaksFrom = 'roofline.csv';
    for (const k of PEAK_KEYS)
      if (peaks[k] === null) missing.push({ quantity: `peaks.${k}`, counters: ['roofline.csv column'] });
  } else {
    peaksFrom = 'spec';
    const spec = specPeaks(inputs.sysinfo ?? {}, family);
    peaks = spec.peaks;
    if (!inputs.sysinfo) missing.push({ quantity: 'peaks', counters: ['sysinfo.csv'] });
    else missing.push(...spec.missing);
  }

  const formulaFamily: ArchFamily = family === 'other' ? 'gfx942' : family;
  const q = dispatchQuantities(table, formulaFamily);
  missing.push(...q.missing);
  const sys = sysNumbers(inputs.sysinfo ?? {});
  const sol = solPerDispatch(table, formulaFamily, sys);
  const rangeDispatches = [...dispatchesByRange(table, inputs.rangeOf)];
  const groups = [undefined, ...rangeDispatches.map(([, idx]) => idx)].map((only) => groupByKernel(table, only));
  // speed-of-light first: its rates are fractions, so V8 compiles the one per-kernel pass (kernelGroups.ts) for
  // doubles; integer sums first would have it compiled for small integers, and thrown away at the first fraction
  const solMeansOf = solMeans(table, sol, groups);
  const sets: KernelSet[] = groups.map((g) => {
    const durationSums = sumsByKernel(table.durations, g);
    return { groups: g, durationSums, order: kernelOrder(g, durationSums) };
  });
  const roofKernels = rooflineKernels(table, q, peaks, sets);
  // a range's speed-of-light kernels are in first-seen order, the whole run's in the roofline's
  const solSets = sets.map((s, i) => ({
    groups: s.groups,
    order: i === 0 ? s.order : s.groups.names.map((_, k) => k),
  }));
  const solKernelsOf = solKernels(sol, solMeansOf, solSets, sys);
  const ranges: Roofline['ranges'] = rangeDispatches.map(([name], i) => ({
    name,
    kernels: roofKernels[i + 1] as RooflineKernel[],
  }));
  const solRanges: SpeedOfLight['ranges'] = rangeDispatches.map(([name], i) => ({
    name,
    kernels: solKernelsOf[i + 1] as SolKernel[],
  }));
  return {
    roofline: {
      peaks,
      peaksFrom,
      kernels: roofKernels[0] as RooflineKernel[],
      ranges,
      missing,
      source: { ...inputs.source, arch: arch ?? null },
    },
    speedOfLight: { kernels: solKernelsOf[0] as SolKernel[], ranges: solRanges, missing: sol.missing },
  };
}

/** Range name by scope (CounterTable.scopes) and Dispatch_Id: each process numbers its dispatches from 1. */
type RangesByScope = ReadonlyMap<number, ReadonlyMap<number, string>>;

/** The dispatches (ordinals) of each range, ranges in first-seen order. */
function dispatchesByRange(table: CounterTable, rangeOf?: RangesByScope): Map<string, number[]> {
  const byRange = new Map<string, number[]>();
  if (!rangeOf || rangeOf.size === 0) return byRange;
  let scope = -1;
  let ranges: ReadonlyMap<number, string> | undefined;
  table.keys.forEach((key, i) => {
    if (table.scopes[i] !== scope) ranges = rangeOf.get((scope = table.scopes[i] as number));
    const r = ranges?.get(key);
    if (r === undefined) return;
    let list = byRange.get(r);
    if (!list) byRange.set(r, (list = []));
    list.push(i);
  });
  return byRange;
}
