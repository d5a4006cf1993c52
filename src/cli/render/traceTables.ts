// Readable text tables for a TraceSummary (the `kernel-runner summarize` output).
import {
  formatBandwidth,
  formatBytes as formatBytesCore,
  formatCounterValue,
  formatNs as formatNsCore,
  formatPercent,
} from '../../core/format/index';
import type { KernelRow, LaunchConfig, TraceSummary } from '../../core/protocol/traceSummary';
import { renderHotspots } from './hotspots';
import { tableLines as table } from './table';
import { counterPassesText } from '../../core/format/roofline';
import { rankOfAgent } from '../../core/format/ranks';
import { renderRoofline } from './rooflineTable';
import { imbalanceHeading, renderPeerMatrix, renderRanks } from './rankTable';

export interface RenderOptions {
  /** Kernel and API rows shown (default 15). */
  top?: number;
  /** Bold headings (ANSI). */
  color?: boolean;
  /** Widest kernel-name column (default 56). */
  nameWidth?: number;
}

/** CLI tables: fixed decimals per unit, so that columns line up; '-' for a missing value. */
const CLI = { align: true, missing: '-' } as const;
/** The kernel table's columns: #, name, the numbers, launch. */
const KERNEL_ALIGN = ['r', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'l'] as const;

/** 1234 → `1.23 µs`; picks ns, µs, ms or s (core's formatNs in the aligned CLI form). */
export function formatNs(ns: number | null): string {
  return formatNsCore(ns, CLI);
}

/** 65536 → `64.0 KiB` (core's formatBytes in the aligned CLI form). */
export function formatBytes(bytes: number | null): string {
  return formatBytesCore(bytes, CLI);
}

function cut(s: string, width: number): string {
  return s.length <= width ? s : `${s.slice(0, width - 1)}…`;
}

function launchText(l: LaunchConfig): string {
  const parts: string[] = [];
  if (l.grid) parts.push(`grid ${l.grid.join('x')}`);
  if (l.workgroup) parts.push(`wg ${l.workgroup.join('x')}`);
  if (l.vgpr !== null) parts.push(`vgpr ${l.vgpr}${l.accumVgpr ? `+${l.accumVgpr}a` : ''}`);
  if (l.sgpr !== null) parts.push(`sgpr ${l.sgpr}`);
  if (l.ldsBytes) parts.push(`lds ${formatBytes(l.ldsBytes)}`);
  if (l.scratchBytes) parts.push(`scratch ${formatBytes(l.scratchBytes)}`);
  return parts.join(' ');
}

function kernelLaunch(k: KernelRow): string {
  const first = k.launches[0];
  if (!first) return '';
  const more = k.launches.length - 1 + (k.launchesTruncated ? 1 : 0);
  return launchText(first) + (more > 0 ? ` (+${more}${k.launchesTruncated ? '+' : ''} more)` : '');
}

const BARS = ' ▁▂▃▄▅▆▇█';

/** Busy fractions as a one-line bar chart of at most `width` characters. */
export function sparkline(fractions: number[], width = 50): string {
  if (fractions.length === 0) return '';
  const n = Math.min(width, fractions.length);
  let out = '';
  for (let i = 0; i < n; i++) {
    const from = Math.floor((i * fractions.length) / n);
    const to = Math.max(from + 1, Math.floor(((i + 1) * fractions.length) / n));
    let sum = 0;
    for (let j = from; j < to; j++) sum += fractions[j] as number;
    const v = sum / (to - from);
    out += BARS[v <= 0 ? 0 : Math.max(1, Math.round(v * (BARS.length - 1)))];
  }
  return out;
}

const pct = (v: number | null): string => formatPercent(v, CLI);

export function renderTraceTables(summary: TraceSummary, opts: RenderOptions = {}): string {
  const top = opts.top ?? 15;
  const nameWidth = opts.nameWidth ?? 56;
  const h = (s: string): string => (opts.color ? `\x1b[1m${s}\x1b[22m` : s);
  const out: string[] = [];
  const kt = summary.kernelTotals;

  // a multi-process profile: who everyone waits for is the first thing read
  if (summary.ranks) out.push(h(imbalanceHeading(summary.ranks)), '');
  const wallText = summary.wall ? `; GPU wall span ${formatNs(summary.wall.spanNs)}` : '';
  out.push(
    h(
      `Trace summary: ${kt.calls} kernel dispatch${kt.calls === 1 ? '' : 'es'} of ${kt.distinct} kernel${kt.distinct === 1 ? '' : 's'}, ${formatNs(kt.totalNs)} kernel time${wallText}`,
    ),
  );
  if (summary.passes) out.push(`  ${counterPassesText(summary.passes)}`);
  if (summary.ranks) out.push('', ...renderRanks(summary.ranks, summary.peerCopies ?? [], h));

  const active = summary.agents.filter((a) => a.kernelCalls > 0 || a.copyNs > 0);
  const idle = summary.agents.length - active.length;
  if (active.length > 0) {
    out.push('');
    const copiesOnly = summary.busyCovers === 'copies-only';
    out.push(
      h(
        copiesOnly
          ? 'GPU busy: copies only (kernel times come from kernel_stats, which has no intervals: the kernel part is unknown)'
          : 'GPU busy (union of kernel and copy time)',
      ),
    );
    const lanes = new Map((summary.timeline?.agents ?? []).map((t) => [t.agentId, t.busyFraction]));
    const rankOf = rankOfAgent(summary.ranks?.processes ?? []);
    const rows = active.slice(0, top).map((a) => {
      const what = [a.name, a.productName, a.cuCount !== null ? `${a.cuCount} CUs` : null].filter(Boolean).join(', ');
      return [
        rankOf.has(a.id) ? `${a.id} · ${rankOf.get(a.id)}` : a.id,
        what || a.type,
        formatNs(a.busyNs) + (a.busyExact ? '' : ' (≥)'),
        pct(a.busyPercent),
        sparkline(lanes.get(a.id) ?? []),
      ];
    });
    out.push(
      ...table(['Agent', 'Device', copiesOnly ? 'Copy busy' : 'Busy', 'of wall', 'Timeline'], rows, [
        'l',
        'l',
        'r',
        'r',
        'l',
      ]).map((l) => `  ${l}`),
    );
    const more = active.length - rows.length;
    if (more > 0) out.push(`  (+${more} more busy agent${more === 1 ? '' : 's'}: --json lists them all)`);
    if (idle > 0) out.push(`  (+${idle} idle agent${idle === 1 ? '' : 's'} listed in the files)`);
  }

  if (summary.kernels.length > 0) {
    out.push('');
    out.push(h(`Top kernels${summary.kernels.length > top ? ` (${top} of ${summary.kernels.length})` : ''}`));
    // a counter collection without timestamps gives calls only: no times to show
    const timed = (k: KernelRow, ns: number): number | null =>
      k.totalNs === 0 && k.minNs === null && k.calls > 0 ? null : ns;
    const rows = summary.kernels
      .slice(0, top)
      .map((k, i) => [
        String(i + 1),
        cut(k.shortName, nameWidth),
        String(k.calls),
        formatNs(timed(k, k.totalNs)),
        formatNs(timed(k, k.avgNs)),
        formatNs(k.minNs),
        formatNs(k.maxNs),
        pct(k.percent),
        kernelLaunch(k),
      ]);
    out.push(
      ...table(['#', 'Kernel', 'Calls', 'Total', 'Avg', 'Min', 'Max', '%', 'Launch'], rows, KERNEL_ALIGN).map(
        (l) => `  ${l}`,
      ),
    );
  }

  if (summary.pseudoRows?.length) {
    const rows = summary.pseudoRows.map(
      (p) => `${p.name} (${p.calls} call${p.calls === 1 ? '' : 's'}, ${formatNs(p.totalNs)})`,
    );
    out.push(`  Not kernels, not counted above: ${rows.join(', ')}`);
  }

  if (summary.counters?.length) {
    out.push('');
    const shown = summary.counters.slice(0, top);
    out.push(
      h(
        `Hardware counters per kernel${summary.counters.length > shown.length ? ` (${shown.length} of ${summary.counters.length} kernels)` : ''}`,
      ),
    );
    const v = (x: number): string => formatCounterValue(x, CLI);
    const rows = shown.flatMap((k) =>
      k.counters.map((c, i) => [
        i === 0 ? cut(k.shortName, nameWidth) : '',
        i === 0 ? String(k.dispatches) : '',
        c.name,
        String(c.dispatches),
        v(c.mean),
        v(c.min),
        v(c.max),
      ]),
    );
    out.push(
      ...table(['Kernel', 'Dispatches', 'Counter', 'Values', 'Mean', 'Min', 'Max'], rows, [
        'l',
        'r',
        'l',
        'r',
        'r',
        'r',
        'r',
      ]).map((l) => `  ${l}`),
    );
  }

  if (summary.roofline) {
    out.push('');
    const short = new Map(summary.kernels.map((k) => [k.name, k.shortName]));
    out.push(
      ...renderRoofline(summary.roofline, {
        top,
        heading: h,
        label: (name) => cut(short.get(name) ?? name, nameWidth),
      }),
    );
  }

  if (summary.memoryCopies.length > 0) {
    out.push('');
    out.push(h('Memory copies'));
    const rows = summary.memoryCopies.map((c) => [
      c.direction,
      String(c.calls),
      formatNs(c.totalNs),
      formatNs(c.avgNs),
      formatBytes(c.bytes),
      formatBandwidth(c.bandwidthGBps, CLI),
    ]);
    out.push(
      ...table(['Direction', 'Calls', 'Total', 'Avg', 'Bytes', 'Bandwidth'], rows, ['l', 'r', 'r', 'r', 'r', 'r']).map(
        (l) => `  ${l}`,
      ),
    );
  }

  if (summary.peerCopies) out.push('', ...renderPeerMatrix(summary.peerCopies, summary.ranks, h));

  if (summary.api.length > 0) {
    out.push('');
    const shown = summary.api.slice(0, top);
    out.push(
      h(
        `API calls${summary.apiTotals.distinct > shown.length ? ` (${shown.length} of ${summary.apiTotals.distinct})` : ''}`,
      ),
    );
    const rows = shown.map((a) => [
      cut(a.name, nameWidth),
      a.domain ?? '',
      String(a.calls),
      formatNs(a.totalNs),
      formatNs(a.avgNs),
      pct(a.percent),
    ]);
    out.push(
      ...table(['Function', 'Domain', 'Calls', 'Total', 'Avg', '% of family'], rows, [
        'l',
        'l',
        'r',
        'r',
        'r',
        'r',
      ]).map((l) => `  ${l}`),
    );
  }

  if (summary.markers.length > 0) {
    out.push('');
    out.push(h('rocTX ranges'));
    const shownMarkers = summary.markers.slice(0, top);
    const withKernels = summary.rangeAttribution !== null;
    const rows = shownMarkers.map((m) => [
      cut(m.name, nameWidth),
      String(m.calls),
      formatNs(m.totalNs),
      formatNs(m.avgNs),
      ...(withKernels
        ? [String(m.kernels.reduce((n, k) => n + k.calls, 0)), formatNs(m.kernels.reduce((n, k) => n + k.totalNs, 0))]
        : []),
    ]);
    const header = ['Range', 'Calls', 'Total', 'Avg', ...(withKernels ? ['Kernels', 'Kernel time'] : [])];
    out.push(...table(header, rows, ['l', 'r', 'r', 'r', 'r', 'r']).map((l) => `  ${l}`));
    const ra = summary.rangeAttribution;
    if (ra) {
      const other = ra.otherThread
        ? `, ${ra.otherThread} of them in a range of another thread (none open on their own)`
        : '';
      const how =
        ra.by === 'correlation'
          ? 'by their launch call (Correlation_Id)'
          : `by GPU time within the process${other} (no API trace to correlate: kernels that ran after their range closed are missed)`;
      out.push(`  ${ra.inRanges} of ${ra.dispatches} dispatches were launched inside a range, put there ${how}.`);
    }
    const shortNames = new Map(summary.kernels.map((k) => [k.name, k.shortName]));
    for (const m of shownMarkers) {
      if (m.kernels.length === 0) continue;
      const rangeNs = m.kernels.reduce((n, k) => n + k.totalNs, 0);
      out.push('');
      out.push(
        `  ${h(`Kernels in ${cut(m.name, 100)}`)}${m.kernelAttribution === 'gpu-overlap' ? ' (by GPU time)' : ''}`,
      );
      const krows = m.kernels
        .slice(0, top)
        .map((k) => [
          cut(shortNames.get(k.name) ?? k.name, nameWidth),
          String(k.calls),
          formatNs(k.totalNs),
          formatNs(k.calls > 0 ? k.totalNs / k.calls : null),
          pct(rangeNs > 0 ? (k.totalNs / rangeNs) * 100 : null),
        ]);
      out.push(
        ...table(['Kernel', 'Calls', 'Total', 'Avg', '% of range'], krows, ['l', 'r', 'r', 'r', 'r']).map(
          (l) => `    ${l}`,
        ),
      );
      if (m.kernels.length > top) out.push(`    (+${m.kernels.length - top} more)`);
    }
  }

  const pc = summary.profilerControl;
  if (pc) {
    out.push('');
    out.push(h(`Profiler control: ${pc.calls.map((c) => `${c.name} ×${c.calls}`).join(', ')} (not ranges)`));
    for (const w of pc.pausedWindows) {
      const calls = w.kernels.reduce((n, k) => n + k.calls, 0);
      const at = summary.wall ? `+${formatNs(Math.max(0, w.startNs - summary.wall.startNs))}` : formatNs(w.startNs);
      const kernels = w.kernels
        .slice(0, 5)
        .map((k) => `${cut(k.name, nameWidth)} ×${k.calls}`)
        .join(', ');
      out.push(
        `  paused at ${at} for ${w.endNs === null ? 'the rest of the run' : formatNs(w.endNs - w.startNs)}: ${calls} dispatch${calls === 1 ? '' : 'es'} of ${w.kernels.length} kernel${w.kernels.length === 1 ? '' : 's'} started on the GPU meanwhile${kernels ? ` (${kernels}${w.kernels.length > 5 ? ', ...' : ''})` : ''}`,
      );
    }
  }

  if (summary.hotspots) {
    out.push('');
    out.push(...renderHotspots(summary.hotspots, { top: 5, kernels: Math.min(top, 5), bold: h }));
  }

  out.push('');
  const variants = [...new Set(summary.sources.map((s) => `${s.format} ${s.variant}`))].join(', ');
  out.push(
    `Read ${summary.sources.length} file${summary.sources.length === 1 ? '' : 's'} (${variants}); skipped ${summary.skipped.length}.`,
  );
  for (const c of summary.checks) {
    out.push(
      c.mismatches.length === 0
        ? `Check: ${c.what}: ${c.compared === 1 ? '1 row agrees' : `${c.compared} rows agree`}.`
        : `Check: ${c.what}: ${c.mismatches.length} mismatch${c.mismatches.length === 1 ? '' : 'es'}, e.g. ${c.mismatches[0]}`,
    );
  }
  for (const w of summary.warnings) out.push(`Warning: ${w}`);
  return `${out.join('\n')}\n`;
}
