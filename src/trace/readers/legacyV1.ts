// Legacy rocprof (v1) `results.json`: a Chrome-trace JSON. Process-name metadata events say what each pid
// holds (`COPY`, `CPU HIP API`, `GPU<n>`, ...); complete events (`ph: "X"`) carry exact `BeginNs`/`EndNs` in
// their args. `otherData` holds rocminfo as `Agent<k>.Name`, `Agent<k>.ComputeUnit`, ...
import type { TraceAccumulator } from '../accumulator';
import { addDuration } from '../durationStats';
import { isPseudoKernel } from '../pseudoRows';
import { isMarkerDomain, normalizeDirection, type RunTables } from '../tables';
import { decimalParts, relativeNs } from '../traceClock';
import { KernelRunnerError } from '../../core/errors';

export class NotV1TraceError extends KernelRunnerError {
  override readonly name = 'NotV1TraceError';
  readonly code = 'TRACE_NOT_V1';
}

interface ChromeEvent {
  ph?: unknown;
  name?: unknown;
  pid?: unknown;
  ts?: unknown;
  dur?: unknown;
  args?: Record<string, unknown>;
}

export interface V1JsonResult {
  rows: number;
  /** Complete events without a usable begin/end. */
  skipped: number;
  /** GPU (kernel) events by name, when they were only compared (see `kernelsFromCsv`). */
  kernels: Map<string, { calls: number; totalNs: number }>;
}

/**
 * `kernelsFromCsv`: the run's per-dispatch results.csv was read, so the GPU lane's kernels are not added again
 * (they are the same dispatches); they are returned to be compared instead.
 */
export function readV1Json(
  text: string,
  acc: TraceAccumulator,
  tables: RunTables,
  agentPrefix: string,
  kernelsFromCsv = false,
): V1JsonResult {
  let doc: unknown;
  try {
    doc = JSON.parse(quoteTimestamps(text));
  } catch (err) {
    throw new NotV1TraceError(`invalid JSON (${(err as Error).message})`);
  }
  const events = (doc as { traceEvents?: unknown }).traceEvents;
  if (!Array.isArray(events)) throw new NotV1TraceError('JSON without traceEvents (not a rocprof v1 chrome trace)');

  // rocminfo agents: dev-id n is the n-th HSA agent (0-based), i.e. `Agent<n+1>` here
  const other = ((doc as { otherData?: unknown }).otherData ?? {}) as Record<string, unknown>;
  const describe = (devId: number): void => {
    const k = `Agent${devId + 1}`;
    const name = other[`${k}.Name`];
    if (typeof name !== 'string') return;
    const isGpu = /^gfx/i.test(name);
    const cu = Number(other[`${k}.ComputeUnit`]);
    acc.describeAgent(`${agentPrefix}Agent ${devId}`, {
      type: isGpu ? 'GPU' : 'CPU',
      name,
      productName: typeof other[`${k}.MarketingName`] === 'string' ? (other[`${k}.MarketingName`] as string) : null,
      cuCount: isGpu && cu > 0 ? cu : null,
    });
  };

  // timestamps less the summary's epoch, from their digits (exact past 2^53: traceClock.ts)
  const first = (events as ChromeEvent[]).find((e) => e && e.ph === 'X' && typeof e.args?.BeginNs === 'string');
  acc.clock.settleFrom(first ? decimalParts(String(first.args?.BeginNs).trim()) : null);
  const epoch = acc.clock.use();
  const epochNs = acc.clock.epochNs;
  const toNs = (v: unknown): number => {
    if (typeof v === 'string') {
      const exact = relativeNs(v.trim(), epoch);
      if (exact === exact) return exact;
      return v.trim() === '' ? NaN : Number(v) - epochNs;
    }
    return typeof v === 'number' ? v - epochNs : NaN;
  };

  const processName = new Map<string, string>();
  for (const e of events as ChromeEvent[]) {
    if (e && e.ph === 'M' && e.name === 'process_name' && e.args && typeof e.args.name === 'string') {
      processName.set(String(e.pid), e.args.name);
    }
  }
  const described = new Set<number>();
  const compared = new Map<string, { calls: number; totalNs: number }>();
  let rows = 0;
  let skipped = 0;
  for (const e of events as ChromeEvent[]) {
    if (!e || e.ph !== 'X') continue;
    const args = e.args ?? {};
    let start = toNs(args.BeginNs);
    let end = toNs(args.EndNs);
    if (!Number.isFinite(start) || !Number.isFinite(end)) {
      // fall back to the microsecond fields
      start = Number(e.ts) * 1000 - epochNs;
      end = start + Number(e.dur) * 1000;
    }
    if (!(end >= start)) {
      skipped++;
      continue;
    }
    const name = String(args.Name ?? e.name ?? '');
    const lane = processName.get(String(e.pid)) ?? '';
    const pid = Number(args.pid);
    if (Number.isInteger(pid)) acc.addProcess(pid, null);
    rows++;
    const gpu = /^GPU(\d+)$/.exec(lane);
    if (gpu) {
      const devId = Number(args['dev-id'] ?? gpu[1]);
      if (!described.has(devId)) {
        described.add(devId);
        describe(devId);
      }
      if (kernelsFromCsv && isPseudoKernel(name)) {
        // not in results.csv: listed apart (as pseudo-rows), not counted as GPU work twice either way
        addDuration(tables.kernel(name).stats, end - start);
        continue;
      }
      if (kernelsFromCsv) {
        const c = compared.get(name) ?? { calls: 0, totalNs: 0 };
        c.calls++;
        c.totalNs += end - start;
        compared.set(name, c);
        continue;
      }
      const agent = acc.agent(`${agentPrefix}Agent ${devId}`);
      const k = tables.kernel(name);
      addDuration(k.stats, end - start);
      k.agentIds.add(agent.id);
      acc.addGpuWork(agent, start, end, 'kernel');
    } else if (lane === 'COPY') {
      const devId = Number(args['dev-id']);
      let agent = null;
      if (Number.isInteger(devId)) {
        if (!described.has(devId)) {
          described.add(devId);
          describe(devId);
        }
        agent = acc.agent(`${agentPrefix}Agent ${devId}`);
      }
      tables.addCopy(normalizeDirection(name), end - start, null);
      acc.addGpuWork(agent, start, end, 'copy');
    } else if (/ROCTX|marker/i.test(lane) || isMarkerDomain(lane)) {
      addDuration(tables.marker(name).stats, end - start);
    } else if (/API/i.test(lane)) {
      const domain = /HSA/i.test(lane) ? 'HSA_API' : /KFD/i.test(lane) ? 'KFD_API' : 'HIP_API';
      addDuration(tables.apiCall(name, domain).stats, end - start);
    } else {
      rows--;
    }
  }
  return { rows, skipped, kernels: compared };
}

/**
 * BeginNs / EndNs written as JSON numbers (rocprof writes them as strings) put in quotes before JSON.parse, which
 * would round them to doubles past 2^53: a key in a JSON text follows `{` or `,`, which inside a string would
 * have to be an escaped `\"`, so the pattern never matches a string's contents.
 */
function quoteTimestamps(text: string): string {
  if (!/"(?:BeginNs|EndNs)"\s*:\s*-?\d/.test(text)) return text;
  return text.replace(/([{,]\s*"(?:BeginNs|EndNs)"\s*:\s*)(-?\d+)(?=\s*[,}])/g, '$1"$2"');
}
