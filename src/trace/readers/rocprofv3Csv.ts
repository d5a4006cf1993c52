// rocprofv3 CSV readers (ROCm 6.2, 6.3, 7.0 and `rocpd convert` variants), columns picked by header name.
// Hot paths (kernel and API traces) work on bytes: no string per row.
import type { AgentInfo, AgentState, TraceAccumulator } from '../accumulator';
import { Columns, readCsvHead, streamCsv } from '../csvFile';
import { fieldNumber, fieldText, rowExcerpt, type CsvRow } from '../csvScanner';
import { timestampAt } from '../traceClock';
import { addDuration } from '../durationStats';
import { BatchSource, DispatchLog, KernelTraceTotals, applyBatch } from '../kernelBatches';
import { KernelRowCollector, kernelColumns, runArrays } from '../kernelRows';

import {
  defaultMinBytes,
  defaultThreads,
  readKernelTraceParallel,
  type ParallelOptions,
  type ParallelRun,
} from '../parallelKernelTrace';
import { isProfilerControl } from '../profilerControl';
import type { FileSource } from '../sources';
import {
  BytesInterner,
  isMarkerDomain,
  normalizeDirection,
  type ApiAgg,
  type MarkerAgg,
  type RunTables,
} from '../tables';

/** Per output set: how agent ids in its files map to agents of the summary. */
export class SetAgents {
  private readonly aliases = new Map<string, { id: string; info: AgentInfo }>();
  constructor(
    readonly acc: TraceAccumulator,
    /** `host/` when the summary spans several hosts, else ''. */
    readonly prefix: string,
  ) {}

  /** `"Agent 4"` stays; a bare `4` (ROCm 6.x) becomes `Agent 4`. */
  resolve(raw: string): AgentState | null {
    const t = raw.trim();
    if (t === '') return null;
    const alias = this.aliases.get(t);
    if (alias) return this.acc.agent(alias.id);
    return this.acc.agent(this.prefix + (/^\d+$/.test(t) ? `Agent ${t}` : t));
  }

  typeOf(agent: AgentState | null): AgentInfo['type'] {
    return agent ? agent.info.type : 'unknown';
  }

  /** An agent_info row: known by `Agent <logical id>`, `Agent <node id>` and `<type> <index among its type>`. */
  describe(names: string[], info: AgentInfo): void {
    const id = this.prefix + (names[0] as string);
    this.acc.describeAgent(id, info);
    for (const n of names) if (!this.aliases.has(n)) this.aliases.set(n, { id, info });
  }
}

export interface CsvReadContext {
  acc: TraceAccumulator;
  tables: RunTables;
  agents: SetAgents;
  /** Worker threads for large kernel traces. */
  parallel?: ParallelOptions;
  /** When set, each kernel trace's dispatches are kept here for the rocTX range pass (rangeCsv.ts). */
  dispatchLogs?: Map<FileSource, DispatchLog>;
  onParallelRun?: (run: ParallelRun) => void;
}

export type KernelVariant = 'rocm-7.0' | 'rocm-6.3' | 'rocm-6.2' | 'rocpd-convert' | 'v1' | 'rocprofv2';

export function kernelVariant(c: Columns): KernelVariant {
  if (c.has('Guid')) return 'rocpd-convert';
  if (c.has('BeginNs') && c.has('KernelName')) return 'v1';
  // rocprofv2 (`Dispatch_ID,GPU_ID,Queue_ID,PID,TID,Grid_Size,...`, also rocprof-compute's timestamps.csv)
  if (c.has('GPU_ID') && !c.has('Agent_Id')) return 'rocprofv2';
  if (c.has('Stream_Id', 'LDS_Block_Size', 'VGPR_Count')) return 'rocm-7.0';
  if (c.has('Dispatch_Id', 'Thread_Id')) return 'rocm-6.3';
  return 'rocm-6.2';
}

export function copyVariant(c: Columns): string {
  if (c.has('Guid')) return 'rocpd-convert';
  return c.has('Stream_Id') ? 'rocm-7.0' : 'rocm-6.x';
}

export function apiVariant(c: Columns): string {
  if (c.has('Guid')) return 'rocpd-convert';
  // rocprofv2 spells `Correlation_ID` and has no process column (plugin/file/file.cpp)
  if (c.names.includes('Correlation_ID') && !c.has('Process_Id')) return 'rocprofv2';
  return 'rocprofv3';
}

/** Per-file counters: rows handed to the reader so far, and rows that could not be used. */
export interface RowProblems {
  rowsRead: number;
  badRows: number;
  /** 1-based line of the first row that could not be used. */
  firstBadLine?: number;
  /** That row as written (its start). */
  firstBadText?: string;
}

function noteBadRow(problems: RowProblems, row: CsvRow): void {
  if (problems.badRows++ === 0) {
    problems.firstBadLine = row.line;
    problems.firstBadText = rowExcerpt(row);
  }
}

/**
 * Kernel dispatches: per-kernel stats, launch configurations, agents and busy time. A large file on disk is
 * scanned by worker threads (parallelKernelTrace.ts), anything else in one pass here; both apply the same
 * batches in file order, so the figures are the same.
 */
export async function readKernelTrace(source: FileSource, ctx: CsvReadContext, problems: RowProblems): Promise<number> {
  const parallel = ctx.parallel ?? {};
  const log = ctx.dispatchLogs ? new DispatchLog() : null;
  const totals = new KernelTraceTotals(log);
  const keep = log !== null;
  const epoch = ctx.acc.clock.use();
  try {
    if (
      source.diskPath &&
      source.size >= (parallel.minBytes ?? defaultMinBytes()) &&
      (parallel.threads ?? defaultThreads()) > 0
    ) {
      const head = await readCsvHead(source.diskPath, source.size);
      if (head) {
        const file = { path: source.diskPath, size: source.size, dataStart: head.dataStart, dataLine: head.dataLine };
        return await readKernelTraceParallel(
          file,
          kernelColumns(new Columns(head.names), keep, epoch),
          ctx,
          totals,
          problems,
          parallel,
          ctx.onParallelRun,
        );
      }
    }
    const ids = new BatchSource();
    let collector: KernelRowCollector | null = null;
    try {
      return await streamCsv(
        source,
        (c) => {
          const rows = new KernelRowCollector(kernelColumns(c, keep, epoch), (b) => {
            ids.learn(b);
            applyBatch(ctx, totals, ids, b, problems);
            rows.recycle(runArrays(b));
          });
          collector = rows;
          return Object.assign((row: CsvRow) => rows.add(row), { guess: rows.guess });
        },
        problems,
      );
    } finally {
      // rows collected before a malformed one still count
      (collector as KernelRowCollector | null)?.flush();
    }
  } finally {
    totals.finish();
    if (log) ctx.dispatchLogs?.set(source, log);
  }
}

export async function readMemoryCopyTrace(
  source: FileSource,
  ctx: CsvReadContext,
  problems: RowProblems,
): Promise<number> {
  const { acc, tables, agents } = ctx;
  const directions = new BytesInterner();
  const agentIds = new BytesInterner();
  const agentById: Array<AgentState | null> = [];
  const agentOf = (row: CsvRow, col: number): AgentState | null => {
    if (col < 0 || col >= row.fieldCount) return null;
    const id = agentIds.idFor(row.buf, row.starts[col] as number, row.ends[col] as number, row.escaped[col] as number);
    if (agentById[id] === undefined) agentById[id] = agents.resolve(agentIds.texts[id] as string);
    return agentById[id] ?? null;
  };
  const epoch = acc.clock.use();
  return streamCsv(
    source,
    (c) => {
      const cDir = c.find('Direction', 'Operation');
      const cSrc = c.find('Source_Agent_Id');
      const cDst = c.find('Destination_Agent_Id');
      const cStart = c.find('Start_Timestamp');
      const cEnd = c.find('End_Timestamp');
      const cBytes = c.find('Bytes', 'Size', 'Copy_Bytes');
      return (row) => {
        const start = timestampAt(row, cStart, epoch);
        const end = timestampAt(row, cEnd, epoch);
        if (!(end >= start) || cDir < 0 || cDir >= row.fieldCount) {
          noteBadRow(problems, row);
          return;
        }
        const dirId = directions.idFor(
          row.buf,
          row.starts[cDir] as number,
          row.ends[cDir] as number,
          row.escaped[cDir] as number,
        );
        const direction = normalizeDirection(directions.texts[dirId] as string);
        const bytes = cBytes >= 0 ? fieldNumber(row, cBytes) : NaN;
        const src = agentOf(row, cSrc);
        const dst = agentOf(row, cDst);
        tables.addCopy(direction, end - start, Number.isNaN(bytes) ? null : bytes, src?.id ?? null, dst?.id ?? null);
        acc.addGpuWork(gpuEndOfCopy(direction, src, dst), start, end, 'copy');
      };
    },
    problems,
  );
}

/** The agent a copy keeps busy: its GPU end (the destination when both are GPUs, as rocpd's `busy` view). */
export function gpuEndOfCopy(direction: string, src: AgentState | null, dst: AgentState | null): AgentState | null {
  if (dst && dst.info.type === 'GPU') return dst;
  if (src && src.info.type === 'GPU') return src;
  if (dst && dst.info.type === 'CPU' && src && src.info.type === 'CPU') return null;
  if (direction.endsWith('TO_DEVICE')) return dst;
  if (direction.startsWith('DEVICE_TO')) return src;
  return null;
}

export async function readApiTrace(
  source: FileSource,
  ctx: CsvReadContext,
  problems: RowProblems,
  onProcess: (pid: number) => void,
): Promise<number> {
  const { tables } = ctx;
  const domains = new BytesInterner();
  const functions = new BytesInterner();
  const domainIsMarker: boolean[] = [];
  // one cache per domain id: function id → aggregate
  const apiCache: Array<Array<ApiAgg | undefined>> = [];
  const markerCache: Array<MarkerAgg | undefined | null> = [];
  const controlCall: boolean[] = [];
  let lastPid = NaN;
  const epoch = ctx.acc.clock.use();
  return streamCsv(
    source,
    (c) => {
      const cDomain = c.find('Domain');
      const cFunction = c.find('Function');
      const cPid = c.find('Process_Id');
      const cStart = c.find('Start_Timestamp');
      const cEnd = c.find('End_Timestamp');
      return (row) => {
        const start = timestampAt(row, cStart, epoch);
        const end = timestampAt(row, cEnd, epoch);
        if (!(end >= start) || cFunction < 0 || cFunction >= row.fieldCount) {
          noteBadRow(problems, row);
          return;
        }
        const pid = cPid >= 0 ? fieldNumber(row, cPid) : NaN;
        if (!Number.isNaN(pid) && pid !== lastPid) {
          lastPid = pid;
          onProcess(pid);
        }
        const d =
          cDomain >= 0 && cDomain < row.fieldCount
            ? domains.idFor(
                row.buf,
                row.starts[cDomain] as number,
                row.ends[cDomain] as number,
                row.escaped[cDomain] as number,
              )
            : domains.idForText('');
        const f = functions.idFor(
          row.buf,
          row.starts[cFunction] as number,
          row.ends[cFunction] as number,
          row.escaped[cFunction] as number,
        );
        let marker = domainIsMarker[d];
        if (marker === undefined) {
          marker = isMarkerDomain(domains.texts[d] as string);
          domainIsMarker[d] = marker;
        }
        if (marker) {
          let m = markerCache[f];
          if (m === undefined) {
            const name = functions.texts[f] as string;
            // roctx API entry points (roctxRangePop, ...) are not user ranges; roctxProfilerPause/Resume are listed apart
            m = /^roctx[A-Z]/.test(name) ? null : tables.marker(name);
            markerCache[f] = m;
            controlCall[f] = isProfilerControl(name);
          }
          if (m) addDuration(m.stats, end - start);
          else if (controlCall[f]) tables.control.note(functions.texts[f] as string, start);
          return;
        }
        const perDomain = (apiCache[d] ??= []);
        let a = perDomain[f];
        if (a === undefined) {
          const domain = domains.texts[d] as string;
          a = tables.apiCall(functions.texts[f] as string, domain === '' ? null : domain);
          perDomain[f] = a;
        }
        addDuration(a.stats, end - start);
      };
    },
    problems,
  );
}

export async function readAgentInfo(source: FileSource, agents: SetAgents): Promise<number> {
  const typeCounts = new Map<string, number>();
  return streamCsv(source, (c) => {
    const cNode = c.find('Node_Id');
    const cLogical = c.find('Logical_Node_Id');
    const cType = c.find('Agent_Type');
    const cCu = c.find('Cu_Count');
    const cName = c.find('Name');
    const cProduct = c.find('Product_Name', 'Marketing_Name');
    return (row) => {
      const node = fieldText(row, cNode).trim();
      const logical = cLogical >= 0 ? fieldText(row, cLogical).trim() : node;
      const typeText = fieldText(row, cType).trim().toUpperCase();
      const type: AgentInfo['type'] = typeText === 'GPU' ? 'GPU' : typeText === 'CPU' ? 'CPU' : 'unknown';
      const typeIndex = typeCounts.get(typeText) ?? 0;
      typeCounts.set(typeText, typeIndex + 1);
      const cu = fieldNumber(row, cCu);
      const name = fieldText(row, cName).trim();
      const product = fieldText(row, cProduct).trim();
      agents.describe([`Agent ${logical}`, `Agent ${node}`, logical, `${typeText} ${typeIndex}`], {
        type,
        name: name || null,
        productName: product || null,
        cuCount: type === 'GPU' && cu > 0 ? cu : null,
      });
    };
  });
}

export interface StatsRow {
  name: string;
  calls: number;
  totalNs: number;
  minNs: number | null;
  maxNs: number | null;
  stddevNs: number | null;
}

/**
 * rocprofv3 `*_stats.csv` (with Min/Max/StdDev) or legacy `results.*stats.csv` (count and total only). Legacy
 * files leave names unquoted even when they hold commas (`void f<int, 2>(...),6,...`): a row with more fields
 * than the header takes its numbers from the end of the line and keeps the rest, commas and all, as the name.
 */
export async function readStatsFile(source: FileSource, problems: RowProblems): Promise<StatsRow[]> {
  const out: StatsRow[] = [];
  await streamCsv(
    source,
    (c) => {
      const width = c.names.length;
      const cName = c.find('Name');
      const cCalls = c.find('Calls');
      const cTotal = c.find('TotalDurationNs');
      const cMin = c.find('MinNs');
      const cMax = c.find('MaxNs');
      const cStd = c.find('StdDev');
      return (row) => {
        const extra = row.fieldCount - width;
        // only a first-column name can have swallowed the extra fields
        const shift = extra > 0 && cName === 0 && row.quoted[0] === 0 ? extra : 0;
        const at = (col: number): number => (col > cName ? col + shift : col);
        const calls = fieldNumber(row, at(cCalls));
        const total = fieldNumber(row, at(cTotal));
        if ((extra > 0 && shift === 0) || !(calls >= 0) || !(total >= 0)) {
          noteBadRow(problems, row);
          return;
        }
        const num = (col: number): number | null => {
          const v = col >= 0 ? fieldNumber(row, at(col)) : NaN;
          return Number.isNaN(v) ? null : v;
        };
        const name =
          shift > 0
            ? row.buf.toString('utf8', row.starts[0] as number, row.ends[shift] as number)
            : fieldText(row, cName);
        out.push({ name, calls, totalNs: total, minNs: num(cMin), maxNs: num(cMax), stddevNs: num(cStd) });
      };
    },
    problems,
  );
  return out;
}
