// PC-sample CSV rows -> tallies per (kernel, site, names), handed to the aggregator in batches: a million samples
// fall on a few thousand distinct (kernel, instruction + comment, issued + type + stall reason) triples, so a row
// costs two byte lookups and three additions here, and the aggregator's maps see each triple once per batch.
// The same code runs on the calling thread (one file) and in the trace worker threads (one part of a file each,
// pcSampleParts.ts). A batch lists the kernels, sites and names first seen in it and its tallies in the order
// they were first seen, so applying batches in file order creates every line, instruction and name, and meets
// every cap, in the order `HotspotAggregator.add` one sample at a time would: the result is the same.
import type { Columns } from '../csvFile';
import type { CsvRow } from '../csvScanner';
import { FOLDED_SITE_KEY, UNKNOWN_CODE } from './aggregate';
import { ByteInterner } from './byteInterner';
import { lanesOfMask, lanesOfSafeInteger, maskFromWide, parseExecMask } from './execMask';
import { keyText } from './latin1Keys';
import { isUnrecognisedCode } from './sourceLine';
import { FOLDED_TALLY } from './names';
import type { PcSamplingMethod } from '../../core/protocol/pcSampling';

/** Where a PC-sample CSV keeps what is read (-1: absent). */
export interface PcColumns {
  method: PcSamplingMethod;
  mask: number;
  dispatch: number;
  inst: number;
  comment: number;
  issued: number;
  type: number;
  reason: number;
}

/** The PC-sampling method of a CSV by its columns; null when it is not a PC-sample file. */
export function pcSamplingMethodOf(c: Columns): PcSamplingMethod | null {
  if (!(c.has('Exec_Mask') && c.has('Dispatch_Id') && c.has('Instruction') && c.has('Instruction_Comment')))
    return null;
  return c.has('Stall_Reason') || c.has('Wave_Issued_Instruction') ? 'stochastic' : 'host_trap';
}

/** The columns of a PC-sample CSV's header; throws when it lacks the needed ones. */
export function pcColumnsOf(c: Columns): PcColumns {
  const method = pcSamplingMethodOf(c);
  if (method === null)
    throw new Error(
      `not a PC-sample CSV: it needs Exec_Mask, Dispatch_Id, Instruction and Instruction_Comment columns (has ${c.names.slice(0, 6).join(', ')})`,
    );
  return {
    method,
    mask: c.find('Exec_Mask'),
    dispatch: c.find('Dispatch_Id'),
    inst: c.find('Instruction'),
    comment: c.find('Instruction_Comment'),
    issued: c.find('Wave_Issued_Instruction'),
    type: c.find('Instruction_Type'),
    reason: c.find('Stall_Reason'),
  };
}

export interface PcCsvProblems {
  rowsRead: number;
  /** Rows without a dispatch id or with too few fields: not counted. */
  badRows: number;
  firstBadLine?: number;
  /** Samples whose Exec_Mask is not a 64-bit number: counted, without active lanes. */
  badMasks: number;
  firstBadMask?: { line: number; text: string };
  /** Stochastic samples whose Wave_Issued_Instruction is neither 0 nor 1: counted, with no stall or type. */
  badIssued: number;
  /** Text fields longer than MAX_PC_TEXT_BYTES: their first bytes kept. */
  longFields: number;
  /** Samples counted under the folded site or names (past MAX_SCAN_SITES / MAX_SCAN_NAMES distinct in a scan). */
  foldedSites: number;
  foldedNames: number;
}

export function newPcCsvProblems(): PcCsvProblems {
  return { rowsRead: 0, badRows: 0, badMasks: 0, badIssued: 0, longFields: 0, foldedSites: 0, foldedNames: 0 };
}

/** Dispatch id -> kernel, as an index into `names` (the run's kernel trace), to send to a worker. */
export interface DispatchKernels {
  ids: Float64Array;
  kernels: Int32Array;
  names: string[];
}

/** DispatchKernels as a map, for a SampleTally. */
export function dispatchKernelMap(d: DispatchKernels): Map<number, number> {
  const map = new Map<number, number>();
  for (let i = 0; i < d.ids.length; i++) map.set(d.ids[i] as number, d.kernels[i] as number);
  return map;
}

export function dispatchKernelsOf(map: ReadonlyMap<number, string> | null): DispatchKernels {
  const names: string[] = [];
  const index = new Map<string, number>();
  const ids = new Float64Array(map?.size ?? 0);
  const kernels = new Int32Array(ids.length);
  let i = 0;
  for (const [id, name] of map ?? []) {
    let k = index.get(name);
    if (k === undefined) {
      k = names.length;
      names.push(name);
      index.set(name, k);
    }
    ids[i] = id;
    kernels[i++] = k;
  }
  return { ids, kernels, names };
}

/** What a batch adds: its new kernels, sites and names, and its tallies (ids count from the scan's start). */
export interface SampleBatch {
  /** Per new kernel: its index in DispatchKernels.names, or -1 - dispatch id for a dispatch without a name. */
  kernels: number[];
  insts: string[];
  /** Latin1 keys of the comments' bytes, or UNKNOWN_CODE. */
  lineKeys: string[];
  issued: number[];
  /** Type and stall reason texts as written; null without the column. */
  types: Array<string | null>;
  reasons: Array<string | null>;
  /** Per tally: kernel, site and names ids. */
  kernel: Int32Array;
  site: Int32Array;
  names: Int32Array;
  /** Per tally: samples, active lanes summed, samples with a readable mask. */
  samples: Float64Array;
  lanes: Float64Array;
  laneSamples: Float64Array;
}

/** The buffers of a batch, to transfer it to another thread. */
export function sampleBatchBuffers(b: SampleBatch): ArrayBuffer[] {
  return [b.kernel, b.site, b.names, b.samples, b.lanes, b.laneSamples].map((a) => a.buffer as ArrayBuffer);
}

/** Tallies kept before a batch is handed over (memory stays bounded whatever the file holds). */
const BATCH_TALLIES = 1 << 15;

const SMALL_DISPATCHES = 1 << 14;

/**
 * Distinct sites (instruction + comment) and names (issued + type + stall reason) one scan numbers: a real file has
 * a few thousand and a few dozen. Past them a hostile file's every row would be a new one (held here, in the
 * batches and by their applier), so the rest are counted under one folded site / names entry each.
 */
export const MAX_SCAN_SITES = 1 << 15;
export const MAX_SCAN_NAMES = 1 << 12;

/** Bytes of a text field kept (an instruction is tens of bytes, a comment's path hundreds); the rest cut off. */
export const MAX_PC_TEXT_BYTES = 4096;

class Site {
  /** Tallies by counted names (see Names) for `kernel`, valid in batch `gen`. */
  gen = -1;
  kernel = -1;
  tallies: number[] = [];
  constructor(
    readonly id: number,
    readonly inst: string,
    readonly lineKey: string,
  ) {}
}

interface Names {
  id: number;
  issued: number;
  /**
   * What counting a sample reads of its names: the type of an issued one, the stall reason of another (the rest
   * only has its names registered, once per names entry). Samples are tallied by this, not by `id`.
   */
  counted: number;
}

/**
 * Field `i` as a latin1 string of its bytes, `""` unescaped: a cheap exact key for its text; at most
 * MAX_PC_TEXT_BYTES of them (`problems` counts the fields cut).
 */
function rawKey(row: CsvRow, i: number, problems?: PcCsvProblems): string {
  const start = row.starts[i] as number;
  const end = row.ends[i] as number;
  const long = end - start > MAX_PC_TEXT_BYTES;
  if (long && problems) problems.longFields++;
  const s = row.buf.toString('latin1', start, long ? start + MAX_PC_TEXT_BYTES : end);
  const text = row.escaped[i] ? s.replaceAll('""', '"') : s;
  return long ? `${text}\u2026` : text;
}

/** Rows of one scan (a file, or a part of one) into batches; `onBatch` gets each as it is complete. */
export class SampleTally {
  readonly problems = newPcCsvProblems();
  private row: CsvRow = undefined as unknown as CsvRow;
  private readonly needed: number;
  private readonly siteSpan: boolean;
  private readonly namesSpan: boolean;
  private readonly sites: ByteInterner<Site>;
  private readonly nameSpans: ByteInterner<Names>;
  private siteCount = 0;
  private nameCount = 0;
  private readonly kernelByDispatch = new Map<number, number>();
  /** Kernel id + 1 by dispatch id below SMALL_DISPATCHES (0: not seen yet). */
  private readonly smallKernels = new Int32Array(SMALL_DISPATCHES);
  private readonly kernelByCode = new Map<number, number>();
  private kernelCount = 0;
  private lastDispatch = NaN;
  private lastKernel = -1;
  private lastHigh = -1;
  private lastLow = -1;
  private lastWideLanes = -1;
  /** The names of a host-trap sample (none). */
  private readonly noNames: Names;
  private gen = 0;
  private batch!: SampleBatch;
  private tallies = 0;
  /** Tallies by `kernel:site` for a site whose memo holds another kernel. */
  private readonly otherKernels = new Map<string, number[]>();

  constructor(
    private readonly c: PcColumns,
    /** Dispatch id -> index of its kernel's name (dispatchKernelMap). */
    private readonly dispatchKernel: ReadonlyMap<number, number>,
    private readonly onBatch: (b: SampleBatch) => void,
  ) {
    this.needed = Math.max(c.mask, c.dispatch, c.inst, c.comment, c.issued, c.type, c.reason) + 1;
    // Instruction and Instruction_Comment are side by side in rocprofv3's files, and so are Wave_Issued_Instruction,
    // Instruction_Type and Stall_Reason: one lookup of each span's bytes gives all its fields
    this.siteSpan = c.comment === c.inst + 1;
    this.namesSpan = c.issued >= 0 && c.type === c.issued + 1 && c.reason === c.type + 1;
    this.sites = new ByteInterner<Site>(() => this.makeSite(), MAX_SCAN_SITES);
    this.nameSpans = new ByteInterner<Names>(() => this.makeNames(), MAX_SCAN_NAMES);
    this.newBatch();
    this.noNames = { id: this.nameCount++, issued: -1, counted: this.countedOf(-1, null, null) };
    this.pushNames(-1, null, null);
  }

  private newBatch(): void {
    this.batch = {
      kernels: [],
      insts: [],
      lineKeys: [],
      issued: [],
      types: [],
      reasons: [],
      kernel: new Int32Array(BATCH_TALLIES),
      site: new Int32Array(BATCH_TALLIES),
      names: new Int32Array(BATCH_TALLIES),
      samples: new Float64Array(BATCH_TALLIES),
      lanes: new Float64Array(BATCH_TALLIES),
      laneSamples: new Float64Array(BATCH_TALLIES),
    };
    this.tallies = 0;
    this.gen++;
    this.otherKernels.clear();
  }

  /** Hands over the tallies so far (none: nothing). */
  flush(): void {
    const b = this.batch;
    const n = this.tallies;
    if (n === 0 && b.kernels.length === 0 && b.insts.length === 0 && b.issued.length === 0) return;
    this.newBatch();
    this.onBatch({
      ...b,
      kernel: b.kernel.slice(0, n),
      site: b.site.slice(0, n),
      names: b.names.slice(0, n),
      samples: b.samples.slice(0, n),
      lanes: b.lanes.slice(0, n),
      laneSamples: b.laneSamples.slice(0, n),
    });
  }

  /** The instruction (its text) and line key (the comment's bytes; the aggregator decodes each distinct one). */
  private makeSite(): Site {
    if (this.siteCount >= MAX_SCAN_SITES) {
      this.problems.foldedSites++;
      return (this.foldedSite ??= this.newSite('', FOLDED_SITE_KEY));
    }
    const row = this.row;
    const inst = keyText(rawKey(row, this.c.inst, this.problems));
    const comment = rawKey(row, this.c.comment, this.problems);
    // unmapped code: one key, whatever address the comment names
    return this.newSite(inst, inst === '' && isUnrecognisedCode(comment) ? UNKNOWN_CODE : comment);
  }

  private foldedSite: Site | null = null;
  private readonly foldedNames: Array<Names | undefined> = [];

  private newSite(inst: string, lineKey: string): Site {
    const site = new Site(this.siteCount++, inst, lineKey);
    this.batch.insts.push(site.inst);
    this.batch.lineKeys.push(site.lineKey);
    return site;
  }

  private makeNames(): Names {
    const row = this.row;
    const c = this.c;
    const v = row.values[c.issued] as number;
    const issued = v === 0 || v === 1 ? v : -1;
    if (this.nameCount >= MAX_SCAN_NAMES) {
      this.problems.foldedNames++;
      return (this.foldedNames[issued + 1] ??= this.newNames(
        issued,
        c.type >= 0 ? FOLDED_TALLY : null,
        c.reason >= 0 ? FOLDED_TALLY : null,
      ));
    }
    const type = c.type >= 0 ? keyText(rawKey(row, c.type, this.problems)) : null;
    const reason = c.reason >= 0 ? keyText(rawKey(row, c.reason, this.problems)) : null;
    return this.newNames(issued, type, reason);
  }

  private newNames(issued: number, type: string | null, reason: string | null): Names {
    this.pushNames(issued, type, reason);
    return { id: this.nameCount++, issued, counted: this.countedOf(issued, type, reason) };
  }

  private readonly countedIds = new Map<string, number>();
  private countedOf(issued: number, type: string | null, reason: string | null): number {
    const key =
      issued === 1 ? (type === null ? '1' : `1:${type}`) : issued === 0 ? (reason === null ? '0' : `0:${reason}`) : '-';
    let id = this.countedIds.get(key);
    if (id === undefined) {
      id = this.countedIds.size;
      this.countedIds.set(key, id);
    }
    return id;
  }

  private pushNames(issued: number, type: string | null, reason: string | null): void {
    this.batch.issued.push(issued);
    this.batch.types.push(type);
    this.batch.reasons.push(reason);
  }

  private kernelOf(dispatch: number): number {
    if (dispatch === this.lastDispatch) return this.lastKernel;
    // small dispatch ids (rocprofv3 counts them from 1) through an array, the rest through the map
    const small = dispatch < SMALL_DISPATCHES;
    let k = small ? (this.smallKernels[dispatch] as number) - 1 : (this.kernelByDispatch.get(dispatch) ?? -1);
    if (k < 0) {
      const code = this.dispatchKernel.get(dispatch) ?? -1 - dispatch;
      const known = this.kernelByCode.get(code);
      if (known === undefined) {
        k = this.kernelCount++;
        this.kernelByCode.set(code, k);
        this.batch.kernels.push(code);
      } else k = known;
      if (small) this.smallKernels[dispatch] = k + 1;
      else this.kernelByDispatch.set(dispatch, k);
    }
    this.lastDispatch = dispatch;
    this.lastKernel = k;
    return k;
  }

  /** One data row (line numbers in problems are the row's, as the scanner counts them). */
  add(row: CsvRow): void {
    this.row = row;
    const c = this.c;
    const problems = this.problems;
    problems.rowsRead++;
    const dispatch = row.values[c.dispatch] as number;
    if (row.fieldCount < this.needed || !(dispatch >= 0)) {
      problems.badRows++;
      problems.firstBadLine ??= row.line;
      return;
    }
    let lanes: number;
    const v = row.values[c.mask] as number;
    if (v >= 0) lanes = lanesOfSafeInteger(v);
    else if (row.wide[c.mask]) {
      // most samples repeat the full mask: one BigInt per distinct run of masks, not per sample
      const high = row.high[c.mask] as number;
      const low = row.low[c.mask] as number;
      if (high !== this.lastHigh || low !== this.lastLow) {
        const mask = maskFromWide(high, low);
        this.lastWideLanes = mask === null ? -1 : lanesOfMask(mask);
        this.lastHigh = high;
        this.lastLow = low;
      }
      lanes = this.lastWideLanes;
    } else {
      const mask = Number.isNaN(v) ? parseExecMask(rawKey(row, c.mask)) : null;
      lanes = mask === null ? -1 : lanesOfMask(mask);
    }
    if (lanes < 0) {
      problems.badMasks++;
      problems.firstBadMask ??= { line: row.line, text: keyText(rawKey(row, c.mask)).slice(0, 40) };
    }
    const k = this.kernelOf(dispatch);
    const site =
      this.siteSpan && !row.escaped[c.inst] && !row.escaped[c.comment] && spanFits(row, c.inst, c.comment)
        ? this.sites.get(row.buf, row.starts[c.inst] as number, row.ends[c.comment] as number)
        : this.makeSite();
    let names = this.noNames;
    if (c.issued >= 0) {
      names =
        this.namesSpan && !row.escaped[c.type] && !row.escaped[c.reason] && spanFits(row, c.issued, c.reason)
          ? this.nameSpans.get(row.buf, row.starts[c.issued] as number, row.ends[c.reason] as number)
          : this.makeNames();
      if (names.issued < 0) problems.badIssued++;
    }
    let tallies: number[];
    if (site.gen === this.gen && site.kernel === k) tallies = site.tallies;
    else if (site.gen !== this.gen) {
      site.gen = this.gen;
      site.kernel = k;
      tallies = site.tallies = [];
    } else {
      const key = `${k}:${site.id}`;
      tallies = this.otherKernels.get(key) ?? [];
      this.otherKernels.set(key, tallies);
    }
    let t = tallies[names.counted];
    if (t === undefined) {
      if (this.tallies === BATCH_TALLIES) {
        this.flush(); // a new batch, where every memo starts empty
        site.gen = this.gen;
        site.kernel = k;
        tallies = site.tallies = [];
      }
      const b = this.batch;
      t = this.tallies++;
      tallies[names.counted] = t;
      b.kernel[t] = k;
      b.site[t] = site.id;
      b.names[t] = names.id;
    }
    const b = this.batch;
    b.samples[t] = (b.samples[t] as number) + 1;
    if (lanes >= 0) {
      b.lanes[t] = (b.lanes[t] as number) + lanes;
      b.laneSamples[t] = (b.laneSamples[t] as number) + 1;
    }
  }
}

/** Fields `from`..`to` are short enough to be interned by their bytes (a longer one is cut by rawKey, not kept whole). */
function spanFits(row: CsvRow, from: number, to: number): boolean {
  return (row.ends[to] as number) - (row.starts[from] as number) <= 2 * MAX_PC_TEXT_BYTES;
}
