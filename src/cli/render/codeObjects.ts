// `kernel-runner isa` as text: per code object a header line and a table of its kernels (registers, LDS,
// scratch, spills, waves a SIMD and what limits them), then the limits the estimate used.
import { formatBytes } from '../../core/format/index';
import {
  limitsFor,
  type CodeObjectInfo,
  type CodeObjectKernel,
  type CodeObjectReport,
  type OccupancyEstimate,
} from '../../trace/codeObjects/index';
import { tableLines } from './table';

const NAME_WIDTH = 60;
const na = (n: number | null): string => (n === null ? '-' : String(n));

function versions(co: CodeObjectInfo): string {
  const parts = [
    co.codeObjectVersion !== null ? `code object v${co.codeObjectVersion}` : null,
    co.metadataVersion ? `metadata v${co.metadataVersion.join('.')}` : null,
  ];
  const text = parts.filter(Boolean).join(', ');
  return text ? ` (${text})` : '';
}

export function renderCodeObjects(report: CodeObjectReport): string {
  const out: string[] = [];
  for (const co of report.codeObjects) {
    out.push(
      `${co.file}${co.bundleEntry ? ` [${co.bundleEntry}]` : ''}: ${co.target ?? 'unknown target'}, ${co.kernels.length} kernel${co.kernels.length === 1 ? '' : 's'}${versions(co)}`,
    );
    const rows = co.kernels.map((k) => [
      shorten(k.name),
      na(k.vgprCount),
      na(k.agprCount),
      na(k.sgprCount),
      bytes(k.ldsBytes),
      bytes(k.scratchBytes),
      `${na(k.vgprSpillCount)}/${na(k.sgprSpillCount)}`,
      waves(k.occupancy),
      limiter(k.occupancy),
    ]);
    const header = ['Kernel', 'VGPRs', 'AGPRs', 'SGPRs', 'LDS', 'Scratch', 'Spills V/S', 'Waves/SIMD', 'Limited by'];
    out.push(...tableLines(header, rows, ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l']).map((l) => `  ${l}`));
    if (co.occupancyNote) out.push(`  (${co.occupancyNote})`);
    out.push('');
  }
  out.push(...limitsLines(report.codeObjects));
  for (const s of report.skipped) out.push(`Skipped ${s.file}: ${s.reason}`);
  return `${out.join('\n').trimEnd()}\n`;
}

/** One line about a kernel, for the header of its disassembly. */
export function kernelSummary(co: CodeObjectInfo, k: CodeObjectKernel): string {
  return (
    `; ${k.name} in ${co.file}${co.bundleEntry ? ` [${co.bundleEntry}]` : ''} (${co.processor ?? 'unknown target'}): ` +
    `VGPRs ${na(k.vgprCount)}, AGPRs ${na(k.agprCount)}, SGPRs ${na(k.sgprCount)}, LDS ${bytes(k.ldsBytes)}, scratch ${bytes(k.scratchBytes)}, ` +
    `waves/SIMD ${waves(k.occupancy)}${k.occupancy && !k.occupancy.limitedBy.includes('waves') ? ` (${limiter(k.occupancy)})` : ''}`
  );
}

function limitsLines(objects: readonly CodeObjectInfo[]): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const co of objects) {
    const limits = co.target ? limitsFor(co.target) : undefined;
    if (!limits || !co.processor || seen.has(co.processor)) continue;
    seen.add(co.processor);
    lines.push(
      `Occupancy on ${co.processor}: at most ${limits.maxWavesPerSimd} waves a SIMD, ${limits.simdsPerCu} SIMDs a CU; ` +
        `${limits.vgprsPerSimd} VGPRs a SIMD lane${limits.vgprsPerSimd === 512 ? ' (ArchVGPRs and AGPRs share them)' : ''}, allocated in ${limits.vgprGranule}s; ` +
        `${limits.sgprsPerSimd} SGPRs a SIMD; ${formatBytes(limits.ldsBytesPerCu)} LDS a CU.`,
    );
  }
  if (lines.length > 0) {
    lines.push(
      "The LDS limit assumes the kernel's reqd_workgroup_size, else its max_flat_workgroup_size (--workgroup-size N to change); dynamic LDS and scratch are not counted.",
      '',
    );
  }
  return lines;
}

function waves(o: OccupancyEstimate | null): string {
  return o ? `${o.wavesPerSimd}/${o.maxWavesPerSimd}` : '-';
}

function limiter(o: OccupancyEstimate | null): string {
  if (!o) return '-';
  if (o.limitedBy.includes('waves')) return '-';
  return o.limitedBy
    .map((l) => (l === 'lds' ? `LDS (workgroup ${o.workgroupSize})` : l.toUpperCase() + 's'))
    .join(', ');
}

function bytes(n: number | null): string {
  return formatBytes(n, { missing: '-' });
}

function shorten(name: string): string {
  return name.length <= NAME_WIDTH ? name : `${name.slice(0, NAME_WIDTH - 1)}…`;
}
