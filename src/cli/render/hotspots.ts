// Text for PC-sampling hot spots: per kernel, its hottest source lines and instructions with their share of the
// kernel's samples, active lanes and (stochastic) stall reasons. Used by `hotspots` and by `summarize`.
import type { KernelHotspots, PcHotspots } from '../../core/protocol/pcSampling';
import { tableLines as table } from './table';

export interface HotspotsRenderOptions {
  /** Lines and instructions shown per kernel. */
  top: number;
  /** Kernels shown (hottest first). */
  kernels?: number;
  /** Instructions too (summarize shows lines only). */
  instructions?: boolean;
  bold?: (s: string) => string;
}

const pct = (share: number): string => `${(share * 100).toFixed(1)}%`;
const lanes = (n: number | null): string => (n === null ? '-' : n.toFixed(1));

/** `/very/long/path/file.cpp:44` cut from the left to `width`. */
function where(file: string | null, line: number | null, width = 60): string {
  if (file === null || line === null) return '-';
  const s = `${file}:${line}`;
  return s.length <= width ? s : `…${s.slice(s.length - width + 1)}`;
}

/** `WAITCNT 5, OTHER_WAIT 2` (the three largest). */
function stallText(stalls: Record<string, number>): string {
  const e = Object.entries(stalls);
  return e.length === 0
    ? ''
    : e
        .slice(0, 3)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ') + (e.length > 3 ? ', …' : '');
}

function methodText(hot: PcHotspots): string {
  const interval =
    hot.interval !== null ? `, interval ${hot.interval}${hot.intervalUnit ? ` ${hot.intervalUnit}` : ''}` : '';
  return `${hot.method.replace('_', '-')}${interval}`;
}

function kernelLines(k: KernelHotspots, opts: HotspotsRenderOptions, stochastic: boolean): string[] {
  const out: string[] = [];
  const bold = opts.bold ?? ((s: string) => s);
  const issued = k.issued !== null ? `, ${pct(k.samples > 0 ? k.issued / k.samples : 0)} issued` : '';
  out.push(
    bold(
      `${k.shortName}: ${k.samples} sample${k.samples === 1 ? '' : 's'} (${pct(k.share)} of all), mean active lanes ${lanes(k.meanActiveLanes)}${issued}`,
    ),
  );
  if (stochastic && Object.keys(k.stalls).length > 0) out.push(`  stalls: ${stallText(k.stalls)}`);
  if (k.lines.length > 0) {
    const shown = k.lines.slice(0, opts.top);
    const header = ['share', 'samples', 'lanes', 'line', ...(stochastic ? ['stalls'] : [])];
    const rows = shown.map((l) => [
      pct(l.share),
      String(l.samples),
      lanes(l.meanActiveLanes),
      where(l.file, l.line),
      ...(stochastic ? [stallText(l.stalls)] : []),
    ]);
    out.push(...table(header, rows, ['r', 'r', 'r', 'l', 'l']).map((s) => `  ${s}`));
    if (k.linesTotal > shown.length)
      out.push(`  (${k.linesTotal - shown.length} more line${k.linesTotal - shown.length === 1 ? '' : 's'})`);
  }
  if (k.withoutLine > 0)
    out.push(
      `  ${k.withoutLine} sample${k.withoutLine === 1 ? '' : 's'} without a source line${k.unknownCode > 0 ? ` (${k.unknownCode} in code the profiler could not map)` : ' (build with -g or -gline-tables-only for file:line)'}`,
    );
  if (opts.instructions && k.instructions.length > 0) {
    const shown = k.instructions.slice(0, opts.top);
    const header = ['share', 'samples', 'lanes', 'offset', 'instruction', 'line', ...(stochastic ? ['stalls'] : [])];
    const rows = shown.map((i) => [
      pct(i.share),
      String(i.samples),
      lanes(i.meanActiveLanes),
      i.offset === null ? '-' : `0x${i.offset.toString(16)}`,
      i.text === '' ? '(unknown code)' : i.text.length > 48 ? `${i.text.slice(0, 47)}…` : i.text,
      where(i.file, i.line, 40),
      ...(stochastic ? [stallText(i.stalls)] : []),
    ]);
    out.push(...table(header, rows, ['r', 'r', 'r', 'r', 'l', 'l', 'l']).map((s) => `  ${s}`));
    if (k.instructionsTotal > shown.length)
      out.push(
        `  (${k.instructionsTotal - shown.length} more instruction${k.instructionsTotal - shown.length === 1 ? '' : 's'})`,
      );
  }
  return out;
}

/** The hot spots as text lines (no trailing newline). */
export function renderHotspots(hot: PcHotspots, opts: HotspotsRenderOptions): string[] {
  const bold = opts.bold ?? ((s: string) => s);
  const stochastic = hot.method !== 'host_trap';
  const out: string[] = [
    bold(
      `Hot spots: ${hot.samples} PC sample${hot.samples === 1 ? '' : 's'} (${methodText(hot)}) in ${hot.kernels.length} kernel${hot.kernels.length === 1 ? '' : 's'}`,
    ),
  ];
  const kernels = hot.kernels.slice(0, opts.kernels ?? hot.kernels.length);
  for (const k of kernels) {
    out.push('');
    out.push(...kernelLines(k, opts, stochastic));
  }
  if (hot.kernels.length > kernels.length) out.push('', `(${hot.kernels.length - kernels.length} more kernels)`);
  return out;
}

/** A multi-process profile's hot spots per process (rank): a heading each, then its kernels as above. */
export function renderProcessHotspots(hot: PcHotspots, opts: HotspotsRenderOptions): string[] {
  const bold = opts.bold ?? ((s: string) => s);
  const stochastic = hot.method !== 'host_trap';
  const out: string[] = [];
  for (const p of hot.processes ?? []) {
    const who = [p.pid !== null ? `pid ${p.pid}` : null, p.host].filter((s) => s !== null).join(', ');
    const name = p.rank !== null ? `Rank ${p.rank}${who ? ` (${who})` : ''}` : `Process ${who || '(unnamed)'}`;
    out.push(
      '',
      bold(
        `${name}: ${p.samples} PC sample${p.samples === 1 ? '' : 's'} in ${p.kernels.length} kernel${p.kernels.length === 1 ? '' : 's'}`,
      ),
    );
    for (const k of p.kernels) out.push(...kernelLines(k, opts, stochastic).map((s) => `  ${s}`));
  }
  return out;
}
