// From per-dispatch counters to the summary's `roofline` and `speedOfLight` objects (shared/docs/roofline.md):
// the GPU's arch and peaks from the workload's sysinfo.csv / roofline.csv, the points per kernel, and per rocTX
// range when dispatches were put in ranges.
import type {
  CounterSource,
  Roofline,
  RooflineMissing,
  RooflinePeaks,
  SpeedOfLight,
} from '../../core/protocol/roofline';
import { archFamily, type ArchFamily } from './arch';
import type { CounterTable } from './counterTable';
import { peaksFromRooflineCsv, specPeaks } from './peaks';
import { dispatchQuantities, groupByKernel, rooflineKernels } from './roofline';
import { solKernel, solPerDispatch, sysNumbers } from './speedOfLight';

export interface DeriveInputs {
  table: CounterTable;
  source: Omit<CounterSource, 'arch'>;
  /** ISA from another file of the run (agent info) when sysinfo has none. */
  arch: string | null;
  sysinfo: Record<string, string> | null;
  /** roofline.csv's device-0 row, when the folder has one. */
  rooflineRow: Record<string, string> | null;
  /** Range name of each dispatch (by its key, Dispatch_Id), when the run has ranges. */
  rangeOf?: ReadonlyMap<number, string>;
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
  const kernels = rooflineKernels(table, q, peaks);

  const sys = sysNumbers(inputs.sysinfo ?? {});
  const sol = solPerDispatch(table, formulaFamily, sys);
  const solKernels = [...groupByKernel(table)].map(([name, idx]) => solKernel(name, idx, sol, sys));
  const order = new Map(kernels.map((k, i) => [k.name, i]));
  solKernels.sort((a, b) => (order.get(a.name) ?? 0) - (order.get(b.name) ?? 0));

  const ranges: Roofline['ranges'] = [];
  const solRanges: SpeedOfLight['ranges'] = [];
  if (inputs.rangeOf && inputs.rangeOf.size > 0) {
    const byRange = new Map<string, number[]>();
    table.keys.forEach((key, i) => {
      const r = inputs.rangeOf?.get(key);
      if (r === undefined) return;
      let list = byRange.get(r);
      if (!list) byRange.set(r, (list = []));
      list.push(i);
    });
    for (const [name, idx] of byRange) {
      ranges.push({ name, kernels: rooflineKernels(table, q, peaks, idx) });
      solRanges.push({ name, kernels: [...groupByKernel(table, idx)].map(([k, ks]) => solKernel(k, ks, sol, sys)) });
    }
  }
  return {
    roofline: { peaks, peaksFrom, kernels, ranges, missing, source: { ...inputs.source, arch: arch ?? null } },
    speedOfLight: { kernels: solKernels, ranges: solRanges, missing: sol.missing },
  };
}
