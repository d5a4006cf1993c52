// Kernel dispatches of a kernel_trace CSV as columns: the byte scanner's rows become numbers (name and agent as
// interned ids), in batches that a worker thread can transfer without copying. The parse (the costly part) can
// so run on several threads while the aggregation stays on one, in file order: what depends on the order
// (Welford mean/variance, the busy union) gets every dispatch in file order as a single pass would, so every
// figure is bit for bit what a single pass gives. What does not (launch configurations with their calls, in
// order of first appearance; kernel-agent pairs) comes pre-counted per batch. Worker-safe: nothing here
// touches the summary.
import { fieldNumber, type CsvRow, type FieldGuess } from './csvScanner';
import { BytesInterner, LAUNCH_WIDTH } from './tables';

/** Column indexes of the fields a dispatch needs (-1: not in the file). */
export interface KernelColumns {
  name: number;
  start: number;
  end: number;
  agent: number;
  /** Kernel_Id: the scanner's guess of the name (a kernel id names one kernel in a run) when it comes before it. */
  kernelId: number;
  /** In LAUNCH_FIELDS order. */
  launch: number[];
}

export interface KernelBatch {
  /** Dispatches in the arrays, from their start (rows without a name or valid timestamps are only counted in `badRows`). */
  count: number;
  nameId: Int32Array;
  agentId: Int32Array;
  start: Float64Array;
  end: Float64Array;
  /** (name id, launch id, calls) per launch configuration of a kernel, in order of first appearance. */
  launches: Int32Array;
  /** (name id, agent id) for each pair seen in the batch. */
  kernelAgents: Int32Array;
  /** Data rows this batch stands for, bad ones included. */
  rows: number;
  badRows: number;
  /** Line of the first bad row (as the scanner counted it), 0 when none. */
  firstBadLine: number;
  /** Texts of the ids this collector gave out since its previous batch, in id order. */
  newNames: string[];
  newAgents: string[];
  /** LAUNCH_WIDTH values per new launch id. */
  newLaunches: Float64Array;
}

const BATCH_ROWS = 1 << 16;
const LF = 0x0a;
/** Kernel ids below this are looked up by index (rocprofv3 numbers kernels from 1). */
const SMALL_KERNEL_IDS = 1 << 16;

/** Batches are handed over when full and on `flush`; ids stay valid across the batches of one collector. */
export class KernelRowCollector {
  private readonly names = new BytesInterner();
  private readonly agents = new BytesInterner();
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
  /** Name id and raw bytes last seen with each Kernel_Id value: small ids by index, others in the map. */
  private readonly nameOfSmallKernelId: Array<{ id: number; raw: Buffer } | undefined> = [];
  private readonly nameOfKernelId = new Map<number, { id: number; raw: Buffer }>();
  /** The name id the scanner's guess stood for (valid for a row whose `guessed` is set). */
  private guessedName = -1;
  /** For the scanner (the name from the row's Kernel_Id); undefined when the file has no Kernel_Id before the name. */
  readonly guess: FieldGuess | undefined;
  private ids = newRowArrays();
  /** Row arrays handed back by the batches' consumer (see `recycle`). */
  private readonly pool: RowArrays[] = [];
  private count = 0;
  private rows = 0;
  private badRows = 0;
  private firstBadLine = 0;
  private launches: number[] = [];
  private kernelAgents: number[] = [];

  constructor(
    private readonly columns: KernelColumns,
    /** Receives each batch; may be replaced between batches. */
    public onBatch: (batch: KernelBatch) => void,
  ) {
    const by = columns.kernelId;
    if (by >= 0 && by < columns.name) {
      this.guess = {
        field: columns.name,
        bytes: (values) => {
          const k = values[by] as number;
          const known = k >= 0 && k < SMALL_KERNEL_IDS && (k | 0) === k ? this.nameOfSmallKernelId[k] : this.nameOfKernelId.get(k);
          if (known === undefined) return undefined;
          this.guessedName = known.id;
          return known.raw;
        },
      };
    }
  }

  add(row: CsvRow): void {
    const c = this.columns;
    this.rows++;
    const values = row.values;
    const fields = row.fieldCount;
    const start = values[c.start] as number;
    const end = values[c.end] as number;
    if (c.name >= fields || !(end >= start)) {
      this.badRows++;
      if (this.firstBadLine === 0) this.firstBadLine = row.line;
      return;
    }
    const buf = row.buf;
    let nameId = this.guessedName;
    if (!row.guessed) {
      const escaped = row.escaped[c.name] as number;
      nameId = this.names.idFor(buf, row.starts[c.name] as number, row.ends[c.name] as number, escaped);
      const kernelId = this.guess ? (values[c.kernelId] as number) : NaN;
      // a guess's bytes hold no quote (not escaped) and no line feed: the scanner relies on that
      if (kernelId === kernelId && escaped === 0 && this.names.lastRaw.indexOf(LF) < 0) {
        const known = { id: nameId, raw: this.names.lastRaw };
        if (kernelId >= 0 && kernelId < SMALL_KERNEL_IDS && (kernelId | 0) === kernelId) {
          while (this.nameOfSmallKernelId.length < kernelId) this.nameOfSmallKernelId.push(undefined);
          this.nameOfSmallKernelId[kernelId] = known;
        } else {
          this.nameOfKernelId.set(kernelId, known);
        }
      }
    }
    let agentId = -1;
    if (c.agent >= 0 && c.agent < fields) {
      const s = row.starts[c.agent] as number;
      const e = row.ends[c.agent] as number;
      if (!this.sameAgentBytes(buf, s, e)) {
        this.lastAgentId = this.agents.idFor(buf, s, e, row.escaped[c.agent] as number);
        this.lastAgent = Uint8Array.prototype.slice.call(buf, s, e);
      }
      agentId = this.lastAgentId;
      if (this.agentStamp[nameId] !== this.batchNo || this.lastAgentOfName[nameId] !== agentId) {
        this.agentStamp[nameId] = this.batchNo;
        this.lastAgentOfName[nameId] = agentId;
        const pair = nameId * 4294967296 + agentId;
        if (!this.kernelAgentSeen.has(pair)) {
          this.kernelAgentSeen.add(pair);
          this.kernelAgents.push(nameId, agentId);
        }
      }
    }
    const v = this.scratch;
    const launch = c.launch;
    const last = this.lastLaunchOfName[nameId];
    const lastValues = last === undefined ? null : this.launchView[last];
    let same = lastValues !== null && lastValues !== undefined;
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
      if (this.pairStamp[nameId] === this.batchNo) {
        const at = this.lastPairOfName[nameId] as number;
        this.launches[at + 2] = (this.launches[at + 2] as number) + 1;
      } else {
        this.countLaunch(nameId, last as number);
      }
    } else {
      const id = this.launchIdFor(v);
      this.lastLaunchOfName[nameId] = id;
      this.countLaunch(nameId, id);
    }

    const i = this.count++;
    const ids = this.ids;
    ids.nameId[i] = nameId;
    ids.agentId[i] = agentId;
    ids.start[i] = start;
    ids.end[i] = end;
    if (this.count === BATCH_ROWS) this.flush();
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
    for (let i = 0; i < LAUNCH_WIDTH; i++) this.launchValues.push(v[i] as number);
    this.launchView.push(Float64Array.from(v));
    chain.push(id);
    return id;
  }

  /** Hands over the current batch (even an empty one, which still carries row counts and new ids). */
  flush(): void {
    const n = this.count;
    const ids = this.ids;
    // the row arrays go with the batch (BATCH_ROWS long, `count` used) and come back through `recycle`
    this.ids = this.pool.pop() ?? newRowArrays();
    const out: KernelBatch = {
      count: n,
      ...ids,
      launches: Int32Array.from(this.launches),
      kernelAgents: Int32Array.from(this.kernelAgents),
      rows: this.rows,
      badRows: this.badRows,
      firstBadLine: this.firstBadLine,
      newNames: this.names.texts.slice(this.sentNames),
      newAgents: this.agents.texts.slice(this.sentAgents),
      newLaunches: Float64Array.from(this.launchValues.slice(this.sentLaunches)),
    };
    this.sentNames = this.names.texts.length;
    this.sentAgents = this.agents.texts.length;
    this.sentLaunches = this.launchValues.length;
    this.count = 0;
    this.rows = 0;
    this.badRows = 0;
    this.firstBadLine = 0;
    this.launches = [];
    this.kernelAgents = [];
    this.pairIndex.clear();
    this.kernelAgentSeen.clear();
    this.batchNo++;
    this.onBatch(out);
  }

  /** Takes back the row arrays of a batch that has been applied, for a later batch (less garbage to collect). */
  recycle(rows: RowArrays): void {
    if (rows.nameId.length === BATCH_ROWS && this.pool.length < 16) this.pool.push(rows);
  }
}

export interface RowArrays {
  nameId: Int32Array;
  agentId: Int32Array;
  start: Float64Array;
  end: Float64Array;
}

function newRowArrays(): RowArrays {
  return {
    nameId: new Int32Array(BATCH_ROWS),
    agentId: new Int32Array(BATCH_ROWS),
    start: new Float64Array(BATCH_ROWS),
    end: new Float64Array(BATCH_ROWS),
  };
}

/** The row arrays of a batch, to hand them back to its collector's thread. */
export function rowArrays(b: KernelBatch): RowArrays {
  return { nameId: b.nameId, agentId: b.agentId, start: b.start, end: b.end };
}

/** The buffers of a batch, to transfer it to another thread. */
export function batchBuffers(b: KernelBatch): ArrayBuffer[] {
  return [b.nameId, b.agentId, b.start, b.end, b.launches, b.kernelAgents, b.newLaunches].map((a) => a.buffer as ArrayBuffer);
}
