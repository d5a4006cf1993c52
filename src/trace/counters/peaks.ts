// Peaks of the roofline: AMD's measured ones (roofline.csv, device 0) or the spec ones rocprof-compute computes
// from sysinfo.csv for block 2.1 (analysis_configs/<arch>/0200_system_speed_of_light.yaml; see
// shared/docs/roofline.md for the table).
import type { RooflineMissing, RooflinePeaks } from '../../core/protocol/roofline';
import type { ArchFamily } from './arch';

/** roofline.csv column of each peak. */
const ROOFLINE_CSV_COLUMNS: Record<keyof RooflinePeaks, string> = {
  hbmGBps: 'HBMBw',
  l2GBps: 'L2Bw',
  l1GBps: 'L1Bw',
  ldsGBps: 'LDSBw',
  valuFp32: 'FP32Flops',
  valuFp64: 'FP64Flops',
  mfmaFp16: 'MFMAF16Flops',
  mfmaBf16: 'MFMABF16Flops',
  mfmaFp32: 'MFMAF32Flops',
  mfmaFp64: 'MFMAF64Flops',
  mfmaFp8: 'MFMAF8Flops',
  mfmaI8: 'MFMAI8Ops',
};

const num = (s: string | undefined): number => {
  if (s === undefined || s.trim() === '') return NaN;
  const n = Number(s);
  return Number.isFinite(n) ? n : NaN;
};
const orNull = (n: number): number | null => (Number.isFinite(n) && n !== 0 ? n : null);

/** The device-0 row of roofline.csv (column -> text) to peaks; an absent or empty column is null. */
export function peaksFromRooflineCsv(row: Record<string, string>): RooflinePeaks {
  const out = {} as RooflinePeaks;
  for (const [key, col] of Object.entries(ROOFLINE_CSV_COLUMNS) as Array<[keyof RooflinePeaks, string]>) {
    const n = num(row[col]);
    out[key] = Number.isFinite(n) ? n : null;
  }
  return out;
}

/** MFMA ops per CU per clock (x max_sclk x cu_per_gpu / 1000 gives GFLOP/s) per arch family. */
const MFMA_PER_CU: Record<
  Exclude<ArchFamily, 'other'>,
  { f8: number | null; f16: number; f32: number; f64: number; i8: number }
> = {
  gfx942: { f8: 4096, f16: 2048, f32: 256, f64: 256, i8: 4096 },
  gfx950: { f8: 8192, f16: 4096, f32: 256, f64: 128, i8: 8192 },
  gfx90a: { f8: null, f16: 1024, f32: 256, f64: 256, i8: 1024 },
};

/** Spec peaks from sysinfo.csv's first row; `missing` lists peaks that could not be computed and why. */
export function specPeaks(
  sysinfo: Record<string, string>,
  family: ArchFamily,
): { peaks: RooflinePeaks; missing: RooflineMissing[] } {
  const sclk = num(sysinfo.max_sclk);
  const mclk = num(sysinfo.max_mclk);
  const cu = num(sysinfo.cu_per_gpu);
  const l2chan = Math.trunc(num(sysinfo.total_l2_chan));
  const hbmChan = num(sysinfo.num_hbm_channels);
  const line = family === 'gfx90a' ? 64 : 128;
  const m = family === 'other' ? null : MFMA_PER_CU[family];
  const mfma = (per: number | null | undefined): number => (per == null ? NaN : (sclk * cu * per) / 1000);
  const values: Record<keyof RooflinePeaks, number> = {
    hbmGBps: (mclk / 1000) * 32 * hbmChan,
    l2GBps: (sclk / 1000) * 128 * l2chan * (line / 128),
    l1GBps: (sclk / 1000) * line * cu,
    ldsGBps: sclk * cu * 0.128,
    valuFp32: (sclk * cu * 64 * 2) / 1000,
    valuFp64: (sclk * cu * 64 * 2) / 1000,
    mfmaFp16: mfma(m?.f16),
    mfmaBf16: mfma(m?.f16),
    mfmaFp32: mfma(m?.f32),
    mfmaFp64: mfma(m?.f64),
    mfmaFp8: mfma(m?.f8),
    mfmaI8: mfma(m?.i8),
  };
  const inputs: Record<keyof RooflinePeaks, string[]> = {
    hbmGBps: ['max_mclk', 'num_hbm_channels'],
    l2GBps: ['max_sclk', 'total_l2_chan'],
    l1GBps: ['max_sclk', 'cu_per_gpu'],
    ldsGBps: ['max_sclk', 'cu_per_gpu'],
    valuFp32: ['max_sclk', 'cu_per_gpu'],
    valuFp64: ['max_sclk', 'cu_per_gpu'],
    mfmaFp16: ['max_sclk', 'cu_per_gpu'],
    mfmaBf16: ['max_sclk', 'cu_per_gpu'],
    mfmaFp32: ['max_sclk', 'cu_per_gpu'],
    mfmaFp64: ['max_sclk', 'cu_per_gpu'],
    mfmaFp8: ['max_sclk', 'cu_per_gpu'],
    mfmaI8: ['max_sclk', 'cu_per_gpu'],
  };
  const peaks = {} as RooflinePeaks;
  const missing: RooflineMissing[] = [];
  for (const key of Object.keys(values) as Array<keyof RooflinePeaks>) {
    peaks[key] = orNull(values[key]);
    if (peaks[key] !== null) continue;
    const absent = inputs[key].filter((k) => !Number.isFinite(num(sysinfo[k])) || num(sysinfo[k]) === 0);
    if (absent.length > 0) missing.push({ quantity: `peaks.${key}`, counters: absent.map((k) => `sysinfo.${k}`) });
    else if (m === null || (key === 'mfmaFp8' && m.f8 === null)) {
      missing.push({ quantity: `peaks.${key}`, counters: [] });
    }
  }
  return { peaks, missing };
}
