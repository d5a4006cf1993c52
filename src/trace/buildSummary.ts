// From accumulated state to the TraceSummary object (sorted, percentages, timeline).
import {
  TRACE_SUMMARY_VERSION,
  type ApiRow,
  type KernelCounters,
  type KernelRow,
  type LaunchConfig,
  type MarkerKernel,
  type MarkerRow,
  type MemoryCopyRow,
  type ProfilerControl,
  type PseudoRow,
  type TraceAgent,
  type TraceSummary,
  type TraceTimeline,
} from '../core/protocol/traceSummary';
import type { TraceAccumulator } from './accumulator';
import { statsOut } from './durationStats';
import { FOLDED_AGENTS, FOLDED_KERNELS, FOLDED_NAMES, foldWarning } from './keyLimits';
import { isPseudoKernel } from './pseudoRows';
import { shortKernelName } from './shortName';
import { exactNsText } from './traceClock';
import { FOLDED_PAIR, type KernelAgg, type RunTables } from './tables';
import { MAX_AGENTS, MAX_COPY_DIRECTIONS, MAX_DISTINCT_NAMES, MAX_PEER_PAIRS } from './limits';
import { gpuIndexer, peerCopyRows } from './peerCopies';

export interface BuildOptions {
  /** Timeline buckets (default 100). */
  buckets?: number;
  /** API rows kept (default 50; `apiTotals` covers all). */
  topApi?: number;
  /** Marker rows kept (default 100). */
  topMarkers?: number;
}

const num = (v: number): number | null => (Number.isFinite(v) ? v : null);

function launchOut(values: Float64Array, calls: number): LaunchConfig {
  const v = (i: number): number | null => num(values[i] as number);
  const triple = (a: number): [number, number, number] | null => {
    const x = v(a);
    if (x === null) return null;
    return [x, v(a + 1) ?? 1, v(a + 2) ?? 1];
  };
  return {
    grid: triple(0),
    workgroup: triple(3),
    vgpr: v(6),
    accumVgpr: v(7),
    sgpr: v(8),
    ldsBytes: v(9),
    scratchBytes: v(10),
    calls,
  };
}

function kernelRow(k: KernelAgg, total: number): KernelRow {
  const s = statsOut(k.stats);
  const launches = [...k.launches].sort((a, b) => b.calls - a.calls).map((l) => launchOut(l.values, l.calls));
  return {
    name: k.name,
    shortName: shortKernelName(k.name),
    ...s,
    percent: total > 0 ? (s.totalNs / total) * 100 : 0,
    agentIds: [...k.agentIds].sort(naturalCompare),
    launches,
    launchesTruncated: k.launchesTruncated,
  };
}

function naturalCompare(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}

export function buildSummary(acc: TraceAccumulator, options: BuildOptions = {}): TraceSummary {
  const buckets = Math.max(1, Math.floor(options.buckets ?? 100));
  const t = acc.tables;

  const kernelAggs = [...t.kernels.values()].filter((k) => !isPseudoKernel(k.name));
  const pseudoRows: PseudoRow[] = [...t.kernels.values()]
    .filter((k) => isPseudoKernel(k.name))
    .map((k) => ({ name: k.name, calls: k.stats.count, totalNs: k.stats.sum }))
    .sort((a, b) => b.totalNs - a.totalNs || a.name.localeCompare(b.name));
  const kernelTotal = kernelAggs.reduce((s, k) => s + k.stats.sum, 0);
  const kernels = kernelAggs
    .map((k) => kernelRow(k, kernelTotal))
    .sort((a, b) => b.totalNs - a.totalNs || b.calls - a.calls || a.name.localeCompare(b.name));

  const memoryCopies: MemoryCopyRow[] = [...t.copies.values()]
    .map((c) => {
      const s = statsOut(c.stats);
      const bytes = c.bytesCalls === c.stats.count && c.stats.count > 0 ? c.bytes : null;
      return {
        direction: c.direction,
        calls: s.calls,
        totalNs: s.totalNs,
        avgNs: s.avgNs,
        minNs: s.minNs,
        maxNs: s.maxNs,
        bytes,
        bandwidthGBps: bytes !== null && s.totalNs > 0 ? bytes / s.totalNs : null,
      };
    })
    .sort((a, b) => b.totalNs - a.totalNs);

  const familyTotals = new Map<string, number>();
  for (const a of t.api.values()) familyTotals.set(a.family, (familyTotals.get(a.family) ?? 0) + a.stats.sum);
  const apiAll: ApiRow[] = [...t.api.values()]
    .map((a) => {
      const s = statsOut(a.stats);
      const ft = familyTotals.get(a.family) ?? 0;
      return {
        name: a.name,
        domain: a.domain,
        calls: s.calls,
        totalNs: s.totalNs,
        avgNs: s.avgNs,
        minNs: s.minNs,
        maxNs: s.maxNs,
        percent: ft > 0 ? (s.totalNs / ft) * 100 : 0,
      };
    })
    .sort((a, b) => b.totalNs - a.totalNs || a.name.localeCompare(b.name));

  const markers: MarkerRow[] = [...t.markers.values()]
    .map((m) => {
      const s = statsOut(m.stats);
      const kernels: MarkerKernel[] = [...m.kernels]
        .map(([name, k]) => ({ name, calls: k.calls, totalNs: k.totalNs }))
        .sort((a, b) => b.totalNs - a.totalNs || a.name.localeCompare(b.name));
      return {
        name: m.name,
        calls: s.calls,
        totalNs: s.totalNs,
        avgNs: s.avgNs,
        minNs: s.minNs,
        maxNs: s.maxNs,
        kernels,
        kernelAttribution: kernels.length ? m.attribution : null,
      };
    })
    .sort((a, b) => b.totalNs - a.totalNs || a.name.localeCompare(b.name))
    .slice(0, options.topMarkers ?? 100);

  // times within the summary are relative to the clock's epoch (traceClock.ts); shown as written
  const epochNs = acc.clock.epochNs;
  const ranges = t.rangeAttribution;
  if (ranges?.by === 'gpu-overlap') {
    acc.warnings.push(
      `rocTX ranges: no API trace to correlate, so kernels were put in ranges by GPU time within the process (the innermost range open when each kernel started on the GPU: ${ranges.inRanges} of ${ranges.dispatches} dispatches; ` +
        `${ranges.inRanges - ranges.otherThread} in a range of the dispatch's own Thread_Id, ${ranges.otherThread} with none open there in a range of another thread, as rocprofv3 gives a dispatch the thread that enqueued it); ` +
        'kernels that ran after their range closed are missed: profile with --hip-trace (or -r) for exact attribution',
    );
  }

  const wall =
    Number.isFinite(acc.wallStart) && acc.wallEnd >= acc.wallStart
      ? { startNs: acc.wallStart, endNs: acc.wallEnd, spanNs: acc.wallEnd - acc.wallStart }
      : null;

  // pseudo-rows keep their busy time (the packets did occupy the queue) but are not kernel dispatches
  for (const k of t.kernels.values()) {
    if (!isPseudoKernel(k.name) || k.agentIds.size !== 1) continue;
    const a = acc.agents.get([...k.agentIds][0] as string);
    if (a) {
      a.kernelCalls = Math.max(0, a.kernelCalls - k.stats.count);
      a.kernelNs = Math.max(0, a.kernelNs - k.stats.sum);
    }
  }
  const states = [...acc.agents.values()].filter(
    (a) => a.kernelCalls > 0 || a.copyNs > 0 || (a.described && a.info.type === 'GPU'),
  );
  const agents: TraceAgent[] = states
    .map((a) => {
      const busyNs = a.busy.busyNs;
      if (!a.busy.exact) {
        acc.warnings.push(
          `${a.id}: busy time is a lower bound: ${a.busy.lateNs} ns of intervals arrived further out of order than the interval window holds`,
        );
      }
      return {
        id: a.id,
        type: a.info.type,
        name: a.info.name,
        productName: a.info.productName,
        cuCount: a.info.cuCount,
        kernelCalls: a.kernelCalls,
        kernelNs: a.kernelNs,
        copyNs: a.copyNs,
        busyNs,
        busyPercent: wall && wall.spanNs > 0 ? (busyNs / wall.spanNs) * 100 : null,
        busyExact: a.busy.exact,
      };
    })
    .sort((a, b) => b.busyNs - a.busyNs || naturalCompare(a.id, b.id));

  let timeline: TraceTimeline | null = null;
  if (wall && wall.spanNs > 0) {
    const active = states.filter((a) => a.busy.busyNs > 0).sort((a, b) => naturalCompare(a.id, b.id));
    const bucketNs = wall.spanNs / buckets;
    timeline = {
      startNs: wall.startNs + epochNs,
      endNs: wall.endNs + epochNs,
      bucketNs,
      buckets,
      agents: active.map((a) => ({
        agentId: a.id,
        busyFraction: Array.from(
          a.busy.coverage(wall.startNs, wall.endNs, buckets),
          (ns) => Math.round(Math.min(1, Math.max(0, ns / bucketNs)) * 1e6) / 1e6,
        ),
      })),
      exact: active.every((a) => a.busy.timelineExact),
    };
  }

  acc.warnings.push(...foldWarnings(acc));

  return {
    version: TRACE_SUMMARY_VERSION,
    kernels,
    kernelTotals: { calls: kernels.reduce((s, k) => s + k.calls, 0), totalNs: kernelTotal, distinct: kernels.length },
    memoryCopies,
    ...(t.peerCopies.size > 0 ? { peerCopies: peerCopyRows(t, gpuIndexer(acc)) } : {}),
    api: apiAll.slice(0, options.topApi ?? 50),
    apiTotals: {
      calls: apiAll.reduce((s, a) => s + a.calls, 0),
      totalNs: apiAll.reduce((s, a) => s + a.totalNs, 0),
      distinct: apiAll.length,
    },
    markers,
    rangeAttribution: ranges
      ? {
          by: ranges.by,
          dispatches: ranges.dispatches,
          inRanges: ranges.inRanges,
          ...(ranges.by === 'gpu-overlap' ? { otherThread: ranges.otherThread } : {}),
        }
      : null,
    agents,
    processes: [...acc.processes.values()].sort((a, b) => (a.host ?? '').localeCompare(b.host ?? '') || a.pid - b.pid),
    wall: wall && {
      startNs: wall.startNs + epochNs,
      endNs: wall.endNs + epochNs,
      spanNs: wall.spanNs,
      ...exactWall(acc.clock.epochSeconds, wall),
    },
    timeline,
    sources: acc.sources,
    skipped: acc.skipped,
    checks: acc.checks,
    warnings: acc.warnings,
    ...(t.counters.size > 0 ? { counters: countersOut(t, kernels) } : {}),
    ...(pseudoRows.length > 0 ? { pseudoRows } : {}),
    ...(acc.kernelTimesFromStats ? { busyCovers: 'copies-only' as const } : {}),
    ...(t.control.calls.size > 0 ? { profilerControl: profilerControlOut(t, epochNs) } : {}),
  };
}

/** The wall's ends as exact digits when either is past 2^53 (see the schema's `wall`). */
function exactWall(
  epochSeconds: number,
  wall: { startNs: number; endNs: number },
): { startNsExact?: string; endNsExact?: string } {
  if (exactNsText(epochSeconds, wall.startNs) === undefined && exactNsText(epochSeconds, wall.endNs) === undefined)
    return {};
  const startNsExact = exactNsText(epochSeconds, wall.startNs, true);
  const endNsExact = exactNsText(epochSeconds, wall.endNs, true);
  return startNsExact !== undefined && endNsExact !== undefined ? { startNsExact, endNsExact } : {};
}

/** Per kernel (in the kernel table's order), each counter's mean/min/max over the dispatches that reported it. */
function countersOut(t: RunTables, kernels: KernelRow[]): KernelCounters[] {
  const rank = new Map(kernels.map((k, i) => [k.name, i]));
  const order = (name: string): number => rank.get(name) ?? kernels.length;
  return [...t.counters.values()]
    .filter((k) => !isPseudoKernel(k.kernel))
    .map((k) => ({
      kernel: k.kernel,
      shortName: shortKernelName(k.kernel),
      dispatches: k.dispatches,
      counters: [...k.counters]
        .map(([name, c]) => ({ name, dispatches: c.samples, mean: c.sum / c.samples, min: c.min, max: c.max }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    }))
    .sort(
      (a, b) => order(a.kernel) - order(b.kernel) || b.dispatches - a.dispatches || a.kernel.localeCompare(b.kernel),
    );
}

/** roctxProfilerPause / Resume counts, and each paused window with the kernels that started in it. */
function profilerControlOut(t: RunTables, epochNs: number): ProfilerControl {
  return {
    calls: [...t.control.calls].map(([name, calls]) => ({ name, calls })).sort((a, b) => a.name.localeCompare(b.name)),
    pausedWindows: t.control
      .allWindows()
      .sort((a, b) => a.start - b.start)
      .map((w) => ({
        startNs: w.start + epochNs,
        endNs: Number.isFinite(w.end) ? w.end + epochNs : null,
        kernels: [...w.kernels]
          .map(([name, k]) => ({ name, calls: k.calls, totalNs: k.totalNs }))
          .sort((a, b) => b.totalNs - a.totalNs || a.name.localeCompare(b.name)),
      })),
  };
}

/** A warning per table that folded keys past its limit (keyLimits.ts). */
function foldWarnings(acc: TraceAccumulator): string[] {
  const t = acc.tables;
  const out: string[] = [];
  const kernels = t.kernels.get(FOLDED_KERNELS);
  if (kernels) out.push(foldWarning('kernel names', MAX_DISTINCT_NAMES, FOLDED_KERNELS, kernels.stats.count));
  const agents = acc.agents.get(FOLDED_AGENTS);
  if (agents) out.push(foldWarning('agents', MAX_AGENTS, FOLDED_AGENTS, agents.kernelCalls));
  const markers = t.markers.get(FOLDED_NAMES);
  if (markers) out.push(foldWarning('rocTX range names', MAX_DISTINCT_NAMES, FOLDED_NAMES, markers.stats.count));
  const api = [...t.api.values()].filter((a) => a.name === FOLDED_NAMES);
  if (api.length > 0)
    out.push(
      foldWarning(
        'API call names',
        MAX_DISTINCT_NAMES,
        FOLDED_NAMES,
        api.reduce((n, a) => n + a.stats.count, 0),
      ),
    );
  const copies = t.copies.get(FOLDED_NAMES);
  if (copies) out.push(foldWarning('copy directions', MAX_COPY_DIRECTIONS, FOLDED_NAMES, copies.stats.count));
  const pairs = t.peerCopies.get(FOLDED_PAIR);
  if (pairs) out.push(foldWarning('GPU-to-GPU copy pairs', MAX_PEER_PAIRS, FOLDED_AGENTS, pairs.stats.count));
  if (t.counters.has(FOLDED_KERNELS))
    out.push(foldWarning('kernel names with counters', MAX_DISTINCT_NAMES, FOLDED_KERNELS, null));
  if ([...t.counters.values()].some((k) => k.counters.has(FOLDED_NAMES)))
    out.push(foldWarning('counter names', MAX_DISTINCT_NAMES, FOLDED_NAMES, null));
  return out;
}
