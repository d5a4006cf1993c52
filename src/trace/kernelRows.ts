// Kernel dispatches of a kernel_trace CSV reduced per batch on the thread that scans them (a worker, or the one
// thread of a small file): per kernel the exact moments of its durations (exactMoments.ts), per agent its
// dispatches and GPU time, the busy intervals merged into runs (BusyRuns), launch configurations with their
// calls in order of first appearance, kernel-agent pairs. Names and agents are interned ids. The thread that
// owns the summary applies the batches in file order (kernelBatches.ts): what depends on the order (the busy
// union) gets the runs in file order, what does not is summed exactly, so every figure is what a single pass
// over the rows gives, whatever the batches. Worker-safe: nothing here touches the summary.
import type { Columns } from './csvFile';
import { fieldNumber, rowExcerpt, type CsvRow, type FieldGuess } from './csvScanner';
import { timestampAt } from './traceClock';
import { BusyRuns } from './busy';
import { BatchMoments } from './exactMoments';
import { KernelNameGuess } from './kernelNameGuess';
import { FOLDED_AGENTS, FOLDED_KERNELS } from './keyLimits';
import { BytesInterner, LAUNCH_WIDTH } from './tables';
import { MAX_AGENTS, MAX_BATCH_DISPATCHES, MAX_DISTINCT_NAMES, MAX_LAUNCH_IDS } from './limits';

/** Column indexes of the fields a dispatch needs (-1: not in the file). */
export interface KernelColumns {
  name: number;
  start: number;
  end: number;
  agent: number;
  /** Kernel_Id: the scanner's guess of the name (a kernel id names one kernel in a run) when it comes before it. */
  kernelId: number;
  /** Correlation_Id (-1: none). */
  corr: number;
  /** Keep each dispatch's correlation id, name and duration in the batches (for the rocTX range pass). */
  keepDispatches: boolean;
  /** In LAUNCH_FIELDS order. */
  launch: number[];
  /** The summary's epoch (traceClock.ts): timestamps are taken less epochSeconds * 1e9. */
  epochSeconds: number;
}

/** The kernel trace's columns, by header name. */
export function kernelColumns(c: Columns, keepDispatches = false, epochSeconds = 0): KernelColumns {
  return {
    epochSeconds,
    corr: c.find('Correlation_Id'),
    keepDispatches,
    name: c.find('Kernel_Name', 'KernelName'),
    start: c.find('Start_Timestamp', 'BeginNs'),
    end: c.find('End_Timestamp', 'EndNs'),
    agent: c.find('Agent_Id', 'gpu-id'),
    kernelId: c.find('Kernel_Id'),
    launch: [
      c.find('Grid_Size_X', 'grd'),
      c.find('Grid_Size_Y'),
      c.find('Grid_Size_Z'),
      c.find('Workgroup_Size_X', 'wgr'),
      c.find('Workgroup_Size_Y'),
      c.find('Workgroup_Size_Z'),
      c.find('VGPR_Count', 'arch_vgpr', 'vgpr'),
      c.find('Accum_VGPR_Count', 'accum_vgpr'),
      c.find('SGPR_Count', 'sgpr'),
      c.find('LDS_Block_Size', 'Group_Segment_Size', 'lds'),
      c.find('Scratch_Size', 'Private_Segment_Size', 'scr'),
    ],
  };
}

export interface KernelBatch {
  /** Dispatches in the batch (rows without a name or valid timestamps are only counted in `badRows`). */
  count: number;
  /** Earliest start and latest end of the batch's dispatches (Infinity, -Infinity: none). */
  wallStart: number;
  wallEnd: number;
  /** Busy runs (see BusyRuns), `runCount` of them: agent id (-1: none), start, end. */
  runCount: number;
  runAgent: Int32Array;
  runStart: Float64Array;
  runEnd: Float64Array;
  /** Per kernel, MOMENT_WIDTH values (exactMoments.ts), keyed by name id. */
  moments: Float64Array;
  /** (name id, duration) of dispatches too long to square in `moments`. */
  longDurations: Float64Array;
  /** (agent id, dispatches, GPU ns) per agent of the batch. */
  agentTotals: Float64Array;
  /** With KernelColumns.keepDispatches: per dispatch its correlation id (NaN: none), name id, duration (`count` long). */
  dispatches: { corr: Float64Array; name: Int32Array; duration: Float64Array } | null;
  /** (name id, launch id, calls) per launch configuration of a kernel, in order of first appearance (-1: past MAX_LAUNCH_IDS). */
  launches: Int32Array;
  /** (name id, agent id) for each pair seen in the batch. */
  kernelAgents: Int32Array;
  /** Data rows this batch stands for, bad ones included. */
  rows: number;
  badRows: number;
  /** Line of the first bad row (as the scanner counted it), 0 when none. */
  firstBadLine: number;
  /** Its text (the start of it), '' when none. */
  firstBadText: string;
  /** Texts of the ids this collector gave out since its previous batch, in id order. */
  newNames: string[];
  newAgents: string[];
  /** LAUNCH_WIDTH values per new launch id. */
  newLaunches: Float64Array;
}

const BATCH_ROWS = MAX_BATCH_DISPATCHES;

/** Batches are handed over when full and on `flush`; ids stay valid across the batches of one collector. */
export class KernelRowCollector {
  private readonly names = new BytesInterner(MAX_DISTINCT_NAMES, FOLDED_KERNELS);
  private readonly agents = new BytesInterner(MAX_AGENTS, FOLDED_AGENTS);
  private sentNames = 0;
  private sentAgents = 0;
  private readonly launchValues: number[] = [];
  /** The same values per launch id, for the per-dispatch comparison. */
  private readonly launchView: Float64Array[] = [];
  private sentLaunches = 0;
  private readonly launchChains = new Map<number, number[]>();
  /** Launch id of the previous dispatch of each name: consecutive dispatches of a kernel mostly share one. */
  private readonly lastLaunchOfName: number[] = [];
  /** Index in `launches` of that (name, launch) pair in the current batch, valid when its stamp is `batchNo`. */
  private readonly lastPairOfName: number[] = [];
  private readonly pairStamp: number[] = [];
  private readonly pairIndex = new Map<number, number>();
  private readonly kernelAgentSeen = new Set<number>();
  /** Agent of the previous dispatch of each name in the current batch (stamp = `batchNo`): skips the set. */
  private readonly lastAgentOfName: number[] = [];
  private readonly agentStamp: number[] = [];
  private batchNo = 1;
  private readonly scratch = new Float64Array(LAUNCH_WIDTH);
  /** Raw bytes of the previous agent field (a file mostly has one or a few agents, in runs). */
  private lastAgent = new Uint8Array(0);
  private lastAgentId = -1;
  private readonly nameGuess: KernelNameGuess;
  /** The launch columns, and the last of them (Infinity when one is missing: no fast comparison). */
  private readonly launchColumns: Int32Array;
  private readonly lastLaunchColumn: number;
  /** For the scanner (the name from the row's Kernel_Id); undefined when the file has no Kernel_Id before the name. */
  readonly guess: FieldGuess | undefined;
  private runs = newRuns();
  /** Run arrays handed back by the batches' consumer (see `recycle`). */
  private readonly pool: BusyRuns[] = [];
  private readonly moments = new BatchMoments();
  /** Per agent id in this batch: dispatches and GPU ns (stamp = `batchNo`). */
  private agentCalls: number[] = [];
  private agentNs: number[] = [];
  private readonly agentTotalStamp: number[] = [];
  private batchAgents: number[] = [];
  private wallStart = Infinity;
  private wallEnd = -Infinity;
  private dispatches: KernelBatch['dispatches'] = null;
  private count = 0;
  private rows = 0;
  private badRows = 0;
  private firstBadLine = 0;
  private firstBadText = '';
  private launches: number[] = [];
  private kernelAgents: number[] = [];

  constructor(
    private readonly columns: KernelColumns,
    /** Receives each batch; may be replaced between batches. */
    public onBatch: (batch: KernelBatch) => void,
  ) {
    this.launchColumns = Int32Array.from(columns.launch);
    this.lastLaunchColumn = columns.launch.some((col) => col < 0) ? Infinity : Math.max(...columns.launch);
    this.nameGuess = new KernelNameGuess(columns.kernelId, columns.name, this.names);
    this.guess = this.nameGuess.guess;
  }

  add(row: CsvRow): void {
    // the hot path is kept small (V8 optimises it better); what rows rarely need is in the methods below
    const c = this.columns;
    this.rows++;
    const values = row.values;
    const fields = row.fieldCount;
    let start = values[c.start] as number;
    let end = values[c.end] as number;
    if (start !== start || end !== end || c.epochSeconds !== 0) {
      start = timestampAt(row, c.start, c.epochSeconds);
      end = timestampAt(row, c.end, c.epochSeconds);
    }
    if (c.name >= fields || !(end >= start)) {
      this.badRow(row);
      return;
    }
    const nameId = this.nameGuess.nameId(row);
    const agentId = c.agent >= 0 && c.agent < fields ? this.agentOf(row, nameId) : -1;
    const last = this.lastLaunchOfName[nameId];
    const lastValues = last === undefined ? undefined : this.launchView[last];
    // the common case: every launch field an integer equal to the kernel's previous dispatch
    if (
      lastValues !== undefined &&
      fields > this.lastLaunchColumn &&
      sameIntegers(values, this.launchColumns, lastValues)
    ) {
      if (this.pairStamp[nameId] === this.batchNo) {
        const at = this.lastPairOfName[nameId] as number;
        this.launches[at + 2] = (this.launches[at + 2] as number) + 1;
      } else {
        this.countLaunch(nameId, last as number);
      }
    } else {
      this.launchOf(row, nameId, lastValues);
    }
    const d = end - start;
    if (c.keepDispatches) this.keepDispatch(row, nameId, d);
    if (start < this.wallStart) this.wallStart = start;
    if (end > this.wallEnd) this.wallEnd = end;
    this.moments.add(nameId, d);
    this.runs.add(agentId, start, end);
    if (agentId >= 0) {
      if (this.agentTotalStamp[agentId] !== this.batchNo) {
        this.agentTotalStamp[agentId] = this.batchNo;
        this.agentCalls[agentId] = 0;
        this.agentNs[agentId] = 0;
        this.batchAgents.push(agentId);
      }
      this.agentCalls[agentId] = (this.agentCalls[agentId] as number) + 1;
      this.agentNs[agentId] = (this.agentNs[agentId] as number) + d;
    }
    if (++this.count === BATCH_ROWS) this.flush();
  }

  private badRow(row: CsvRow): void {
    this.badRows++;
    if (this.firstBadLine === 0) {
      this.firstBadLine = row.line;
      this.firstBadText = rowExcerpt(row);
    }
  }

  private keepDispatch(row: CsvRow, nameId: number, duration: number): void {
    const col = this.columns.corr;
    const at = this.count;
    const kept = (this.dispatches ??= {
      corr: new Float64Array(BATCH_ROWS),
      name: new Int32Array(BATCH_ROWS),
      duration: new Float64Array(BATCH_ROWS),
    });
    kept.corr[at] = col >= 0 && col < row.fieldCount ? (row.values[col] as number) : NaN;
    kept.name[at] = nameId;
    kept.duration[at] = duration;
  }

  /** The agent id of a row (the previous row's when the bytes are the same), noting the kernel-agent pair. */
  private agentOf(row: CsvRow, nameId: number): number {
    const col = this.columns.agent;
    const buf = row.buf;
    const s = row.starts[col] as number;
    const e = row.ends[col] as number;
    if (!this.sameAgentBytes(buf, s, e)) {
      this.lastAgentId = this.agents.idFor(buf, s, e, row.escaped[col] as number);
      this.lastAgent = Uint8Array.prototype.slice.call(buf, s, e);
    }
    const agentId = this.lastAgentId;
    if (this.agentStamp[nameId] !== this.batchNo || this.lastAgentOfName[nameId] !== agentId) {
      this.agentStamp[nameId] = this.batchNo;
      this.lastAgentOfName[nameId] = agentId;
      const pair = nameId * 4294967296 + agentId;
      if (!this.kernelAgentSeen.has(pair)) {
        this.kernelAgentSeen.add(pair);
        this.kernelAgents.push(nameId, agentId);
      }
    }
    return agentId;
  }

  /** Counts the launch of a row whose launch fields are not the integers of the kernel's previous dispatch. */
  private launchOf(row: CsvRow, nameId: number, lastValues: Float64Array | undefined): void {
    const v = this.scratch;
    const launch = this.columns.launch;
    const values = row.values;
    const fields = row.fieldCount;
    let same = lastValues !== undefined;
    for (let i = 0; i < LAUNCH_WIDTH; i++) {
      const col = launch[i] as number;
      let x = col >= 0 && col < fields ? (values[col] as number) : NaN;
      // not a plain integer: decimal, quoted or empty, parsed from its text
      if (x !== x && col >= 0) x = fieldNumber(row, col);
      v[i] = x;
      if (same) {
        const y = (lastValues as Float64Array)[i] as number;
        if (x !== y && !(x !== x && y !== y)) same = false;
      }
    }
    if (same) {
      this.countLaunch(nameId, this.lastLaunchOfName[nameId] as number);
    } else {
      const id = this.launchIdFor(v);
      this.lastLaunchOfName[nameId] = id;
      this.countLaunch(nameId, id);
    }
  }

  private countLaunch(nameId: number, launchId: number): void {
    const key = nameId * 4294967296 + launchId;
    let at = this.pairIndex.get(key);
    if (at === undefined) {
      at = this.launches.length;
      this.launches.push(nameId, launchId, 1);
      this.pairIndex.set(key, at);
    } else {
      this.launches[at + 2] = (this.launches[at + 2] as number) + 1;
    }
    this.lastPairOfName[nameId] = at;
    this.pairStamp[nameId] = this.batchNo;
  }

  private sameAgentBytes(buf: Buffer, s: number, e: number): boolean {
    const ref = this.lastAgent;
    const n = ref.length;
    if (e - s !== n || n === 0) return false;
    for (let i = n - 1; i >= 0; i--) if (buf[s + i] !== ref[i]) return false;
    return true;
  }

  private launchEquals(id: number, v: Float64Array): boolean {
    const at = id * LAUNCH_WIDTH;
    const values = this.launchValues;
    for (let i = 0; i < LAUNCH_WIDTH; i++) {
      const x = values[at + i] as number;
      const y = v[i] as number;
      if (x !== y && !(x !== x && y !== y)) return false;
    }
    return true;
  }

  private launchIdFor(v: Float64Array): number {
    let h = 0;
    for (let i = 0; i < LAUNCH_WIDTH; i++) {
      const x = v[i] as number;
      h = Math.imul(h ^ (x | 0) ^ ((x / 4294967296) | 0), 0x01000193);
    }
    let chain = this.launchChains.get(h);
    if (chain) {
      for (const id of chain) if (this.launchEquals(id, v)) return id;
    } else {
      chain = [];
      this.launchChains.set(h, chain);
    }
    const id = this.launchValues.length / LAUNCH_WIDTH;
    if (id >= MAX_LAUNCH_IDS) return -1;
    for (let i = 0; i < LAUNCH_WIDTH; i++) this.launchValues.push(v[i] as number);
    this.launchView.push(Float64Array.from(v));
    chain.push(id);
    return id;
  }

  /** Hands over the current batch (even an empty one, which still carries row counts and new ids). */
  flush(): void {
    const runs = this.runs;
    runs.close();
    // the run arrays go with the batch (BATCH_ROWS long, `runCount` used) and come back through `recycle`
    this.runs = this.pool.pop() ?? newRuns();
    const { moments, long } = this.moments.take();
    const agentTotals = new Float64Array(this.batchAgents.length * 3);
    this.batchAgents.forEach((a, i) => {
      agentTotals[i * 3] = a;
      agentTotals[i * 3 + 1] = this.agentCalls[a] as number;
      agentTotals[i * 3 + 2] = this.agentNs[a] as number;
    });
    const out: KernelBatch = {
      count: this.count,
      wallStart: this.wallStart,
      wallEnd: this.wallEnd,
      runCount: runs.count,
      runAgent: runs.keys,
      runStart: runs.starts,
      runEnd: runs.ends,
      moments,
      longDurations: long,
      agentTotals,
      // copies of what the batch holds: the arrays stay for the next batch (no garbage per batch)
      dispatches: this.dispatches && {
        corr: this.dispatches.corr.slice(0, this.count),
        name: this.dispatches.name.slice(0, this.count),
        duration: this.dispatches.duration.slice(0, this.count),
      },
      launches: Int32Array.from(this.launches),
      kernelAgents: Int32Array.from(this.kernelAgents),
      rows: this.rows,
      badRows: this.badRows,
      firstBadLine: this.firstBadLine,
      firstBadText: this.firstBadText,
      newNames: this.names.texts.slice(this.sentNames),
      newAgents: this.agents.texts.slice(this.sentAgents),
      newLaunches: Float64Array.from(this.launchValues.slice(this.sentLaunches)),
    };
    this.sentNames = this.names.texts.length;
    this.sentAgents = this.agents.texts.length;
    this.sentLaunches = this.launchValues.length;
    this.count = 0;
    this.wallStart = Infinity;
    this.wallEnd = -Infinity;
    this.rows = 0;
    this.badRows = 0;
    this.firstBadLine = 0;
    this.firstBadText = '';
    this.launches = [];
    this.kernelAgents = [];
    this.batchAgents = [];
    this.pairIndex.clear();
    this.kernelAgentSeen.clear();
    this.batchNo++;
    this.onBatch(out);
  }

  /** Takes the spare run arrays of the collector of a file read before (a worker's next file: less garbage). */
  adoptSpares(before: KernelRowCollector): void {
    this.pool.push(...before.pool.splice(0, 16 - this.pool.length));
  }

  /** Takes back the run arrays of a batch that has been applied, for a later batch (less garbage to collect). */
  recycle(arrays: RunArrays): void {
    if (arrays.runAgent.length !== BATCH_ROWS || this.pool.length >= 16) return;
    this.pool.push(new BusyRuns(arrays.runAgent, arrays.runStart, arrays.runEnd));
  }
}

/** values[cols[i]] === last[i] for every i (false for a NaN). */
function sameIntegers(values: Float64Array, cols: Int32Array, last: Float64Array): boolean {
  for (let i = 0; i < cols.length; i++) if (values[cols[i] as number] !== last[i]) return false;
  return true;
}

export interface RunArrays {
  runAgent: Int32Array;
  runStart: Float64Array;
  runEnd: Float64Array;
}

function newRuns(): BusyRuns {
  return BusyRuns.withCapacity(BATCH_ROWS);
}

/** The run arrays of a batch, to hand them back to its collector's thread. */
export function runArrays(b: KernelBatch): RunArrays {
  return { runAgent: b.runAgent, runStart: b.runStart, runEnd: b.runEnd };
}

/** The buffers of a batch, to transfer it to another thread. */
export function batchBuffers(b: KernelBatch): ArrayBuffer[] {
  const kept = b.dispatches ? [b.dispatches.corr, b.dispatches.name, b.dispatches.duration] : [];
  return [
    b.runAgent,
    b.runStart,
    b.runEnd,
    b.moments,
    b.longDurations,
    b.agentTotals,
    b.launches,
    b.kernelAgents,
    b.newLaunches,
    ...kept,
  ].map((a) => a.buffer as ArrayBuffer);
}
