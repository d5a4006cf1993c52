// PC samples to hot spots: per kernel (by dispatch), per source line, per instruction, with stall reasons and
// instruction types (stochastic) and active lanes. Readers hand samples one at a time (one reused object); memory
// is bounded by the distinct keys (kernels, lines, instructions, names), each capped with a warning.
import type {
  HotInstruction,
  HotLine,
  KernelHotspots,
  PcHotspots,
  PcSampleSource,
  PcSamplingMethod,
  PcSamplingUnit,
} from '../../core/protocol/pcSampling';
import { FOLDED_KERNELS, foldWarning } from '../keyLimits';
import { MAX_DISTINCT_NAMES } from '../limits';
import {
  FOLDED_TALLY,
  KNOWN_INSTRUCTION_TYPES,
  KNOWN_STALL_REASONS,
  MAX_TALLY_NAMES,
  STALL_PREFIX,
  TYPE_PREFIX,
  shortName,
} from './names';
import { shortKernelName } from '../shortName';
import { keyText } from './latin1Keys';
import { parseSourceLine } from './sourceLine';

/** One sample as a reader hands it over (the object is reused: copy nothing out of it). */
export interface SampleInput {
  dispatchId: number;
  /** Set bits of the exec mask; -1 when the mask was unreadable. */
  lanes: number;
  /** The comment (`file:line`), '' without line info; UNKNOWN_CODE for code the profiler could not map. */
  lineKey: string;
  /** The line key is a latin1 string of the comment's bytes (CSV), not its text. */
  lineKeyIsBytes: boolean;
  instText: string;
  /** Code object id and offset (JSON output); -1 when unknown. */
  codeObject: number;
  offset: number;
  /** 1 issued, 0 not issued (stochastic); -1 host-trap or unknown. */
  issued: number;
  /** Ids from `names` (HotspotAggregator.typeId / reasonId); -1 none. */
  typeId: number;
  reasonId: number;
}

/** The line key of a sample in unmapped code: one key for all of them, however many PCs the comments name. */
export const UNKNOWN_CODE = '\u0001unknown';

/** The line key of the samples a reader folded (past its own limits): counted under the kernel's "(other ...)". */
export const FOLDED_SITE_KEY = '\u0001other';

export function emptySample(): SampleInput {
  return {
    dispatchId: NaN,
    lanes: -1,
    lineKey: '',
    lineKeyIsBytes: false,
    instText: '',
    codeObject: -1,
    offset: -1,
    issued: -1,
    typeId: -1,
    reasonId: -1,
  };
}

/** Distinct lines + instructions kept over all kernels; a real kernel has hundreds to thousands. */
const MAX_SITES = 200_000;
/**
 * Distinct lines + instructions kept per kernel: past it, the kernel keeps its hottest half and counts the rest
 * under "(other lines)" / "(other instructions)" (a hostile file's every sample a new line would otherwise keep
 * them all).
 */
export const MAX_SITES_PER_KERNEL = 1 << 14;
/** Dispatch ids remembered (dispatch -> kernel) before the cache starts over. */
const MAX_DISPATCH_CACHE = 1 << 20;

const FOLDED_LINES_FILE = '(other lines)';
const FOLDED_INSTRUCTIONS = '(other instructions)';

/** A kernel, line and instruction that samples are counted under (HotspotAggregator.slot). */
export interface SampleSlot {
  readonly k: KernelAgg;
  readonly line: LineAgg;
  readonly inst: InstAgg;
  readonly unknownCode: boolean;
  /** Past the cap on sites: its samples count as folded ones. */
  readonly instFolded: boolean;
}

class Agg {
  /** Folded into its kernel's "(other ...)" entry (it was among the coldest when the kernel had too many). */
  pruned = false;
  samples = 0;
  laneSum = 0;
  laneSamples = 0;
  /** Per name id; null until a sample has one (most aggregates of a host-trap run never do). */
  stalls: number[] | null = null;
  types: number[] | null = null;
}

class InstAgg extends Agg {
  constructor(
    readonly text: string,
    readonly codeObject: number,
    readonly offset: number,
    readonly line: LineAgg,
  ) {
    super();
  }
}

class LineAgg extends Agg {
  /** Instructions by text, when the samples carry no offset. */
  insts: Map<string, InstAgg> | null = null;
  constructor(
    readonly file: string | null,
    readonly line: number | null,
  ) {
    super();
  }
}

class KernelAgg extends Agg {
  issued = 0;
  stochastic = 0;
  withoutLine = 0;
  unknownCode = 0;
  readonly lines = new Map<string, LineAgg>();
  /** Instructions by `codeObject:offset`, when the samples carry one. */
  readonly byPc = new Map<string, InstAgg>();
  foldedLine: LineAgg | null = null;
  foldedInst: InstAgg | null = null;
  /** Lines and instructions kept (MAX_SITES_PER_KERNEL), and whether some were folded. */
  sites = 0;
  prunedSites = 0;
  constructor(readonly name: string) {
    super();
  }
}

class NameTable {
  readonly ids = new Map<string, number>();
  readonly names: string[] = [];
  /** Per id: a name rocprofiler-sdk defines. */
  readonly known: boolean[] = [];
  /** Samples counted under a name it does not define, per id. */
  readonly unknownSamples: number[] = [];
  folded = 0;
  constructor(
    private readonly prefix: string,
    private readonly knownNames: ReadonlySet<string>,
  ) {}
  /** The id of a name as the file writes it (with or without the prefix). */
  id(written: string): number {
    const name = shortName(written, this.prefix);
    const id = this.ids.get(name);
    if (id !== undefined) return id;
    // the folded name itself is kept past the cap (else asking for it would ask for it again, without end)
    if (this.names.length >= MAX_TALLY_NAMES && name !== FOLDED_TALLY) {
      this.folded++;
      return this.id(FOLDED_TALLY);
    }
    this.ids.set(name, this.names.length);
    this.names.push(name);
    this.known.push(this.knownNames.has(name));
    this.unknownSamples.push(0);
    return this.names.length - 1;
  }
  unknownWarning(what: string): string | null {
    const named = this.names.flatMap((n, id) => (this.known[id] ? [] : [`${n} (${this.unknownSamples[id]})`]));
    const samples = this.unknownSamples.reduce((a, b) => a + b, 0);
    if (samples === 0) return null;
    return `${samples} sample(s) with ${what} rocprofiler-sdk does not define: ${named.slice(0, 5).join(', ')}${named.length > 5 ? ', ...' : ''}; counted under the names written`;
  }
}

/** Adds `from`'s counts to `into` (a pruned line or instruction into its kernel's folded one). */
function addAgg(into: Agg, from: Agg): void {
  into.samples += from.samples;
  into.laneSum += from.laneSum;
  into.laneSamples += from.laneSamples;
  const add = (a: number[] | null, b: number[] | null): number[] | null => {
    if (b === null) return a;
    const out = a ?? [];
    b.forEach((n, i) => (out[i] = (out[i] ?? 0) + n));
    return out;
  };
  into.stalls = add(into.stalls, from.stalls);
  into.types = add(into.types, from.types);
}

/** `n` samples with the same issue state and names, `lanes` active lanes over `laneSamples` of them. */
function count(
  agg: Agg,
  n: number,
  lanes: number,
  laneSamples: number,
  issued: number,
  typeId: number,
  reasonId: number,
): void {
  agg.samples += n;
  agg.laneSum += lanes;
  agg.laneSamples += laneSamples;
  if (issued === 1 && typeId >= 0) {
    const t = (agg.types ??= []);
    t[typeId] = (t[typeId] ?? 0) + n;
  } else if (issued === 0 && reasonId >= 0) {
    const t = (agg.stalls ??= []);
    t[reasonId] = (t[reasonId] ?? 0) + n;
  }
}

export interface BuildHotspotsOptions {
  /** Lines and instructions kept per kernel, hottest first (default: all). */
  top?: number;
  interval?: number | null;
  intervalUnit?: PcSamplingUnit | null;
}

export class HotspotAggregator {
  readonly kernels = new Map<string, KernelAgg>();
  readonly stallNames = new NameTable(STALL_PREFIX, KNOWN_STALL_REASONS);
  readonly typeNames = new NameTable(TYPE_PREFIX, KNOWN_INSTRUCTION_TYPES);
  readonly warnings: string[] = [];
  readonly sources: PcSampleSource[] = [];
  readonly methods = new Set<PcSamplingMethod>();
  private dispatchNames: ReadonlyMap<number, string> | null = null;
  private readonly byDispatch = new Map<number, KernelAgg>();
  private sites = 0;
  private foldedSiteSamples = 0;
  private foldedKernelNames = 0;
  total = 0;

  /** The dispatch -> kernel name map of the run whose samples come next (null: kernels are named by dispatch). */
  useDispatchNames(names: ReadonlyMap<number, string> | null): void {
    this.dispatchNames = names;
    this.byDispatch.clear();
  }

  /** The id of a stall reason as written (`ROCPROFILER_..._WAITCNT` or `WAITCNT`). */
  reasonId(written: string): number {
    return this.stallNames.id(written);
  }

  /** The id of an instruction type as written. */
  typeId(written: string): number {
    return this.typeNames.id(written);
  }

  private kernelOf(dispatchId: number): KernelAgg {
    let k = this.byDispatch.get(dispatchId);
    if (k) return k;
    k = this.kernelNamed(this.kernelName(dispatchId));
    if (this.byDispatch.size >= MAX_DISPATCH_CACHE) this.byDispatch.clear();
    this.byDispatch.set(dispatchId, k);
    return k;
  }

  /** The kernel a dispatch's samples are counted under. */
  kernelName(dispatchId: number): string {
    return this.dispatchNames?.get(dispatchId) ?? `dispatch ${Number.isFinite(dispatchId) ? dispatchId : '?'}`;
  }

  /** The dispatch -> kernel name map in use (null: kernels are named by dispatch). */
  get dispatchNameMap(): ReadonlyMap<number, string> | null {
    return this.dispatchNames;
  }

  private kernelNamed(name: string): KernelAgg {
    let k = this.kernels.get(name);
    if (!k) {
      if (this.kernels.size >= MAX_DISTINCT_NAMES) {
        this.foldedKernelNames++;
        k = this.kernels.get(FOLDED_KERNELS);
        if (!k) {
          k = new KernelAgg(FOLDED_KERNELS);
          this.kernels.set(FOLDED_KERNELS, k);
        }
      } else {
        k = new KernelAgg(name);
        this.kernels.set(name, k);
      }
    }
    return k;
  }

  private lineOf(k: KernelAgg, key: string, isBytes: boolean): LineAgg {
    let line = k.lines.get(key);
    if (line) return line;
    if (this.sites >= MAX_SITES) return (k.foldedLine ??= new LineAgg(FOLDED_LINES_FILE, 0));
    if (key === FOLDED_SITE_KEY) return this.foldedLineOf(k);
    this.sites++;
    k.sites++;
    const where = key === '' || key === UNKNOWN_CODE ? null : parseSourceLine(isBytes ? keyText(key) : key);
    line = new LineAgg(where?.file ?? null, where?.line ?? null);
    k.lines.set(key, line);
    return line;
  }

  private instOf(
    k: KernelAgg,
    line: LineAgg,
    codeObject: number,
    offset: number,
    text: string,
    samples: number,
  ): InstAgg {
    const byPc = codeObject >= 0 && offset >= 0;
    const map = byPc ? k.byPc : (line.insts ??= new Map());
    const key = byPc ? `${codeObject}:${offset}` : text;
    let inst = map.get(key);
    if (inst) return inst;
    if (this.sites >= MAX_SITES || line === k.foldedLine) {
      if (line !== k.foldedLine) this.foldedSiteSamples += samples;
      return this.foldedInstOf(k);
    }
    this.sites++;
    k.sites++;
    inst = new InstAgg(text, byPc ? codeObject : -1, byPc ? offset : -1, line);
    map.set(key, inst);
    if (k.sites > MAX_SITES_PER_KERNEL) this.prune(k);
    return inst;
  }

  private foldedLineOf(k: KernelAgg): LineAgg {
    return (k.foldedLine ??= new LineAgg(FOLDED_LINES_FILE, 0));
  }

  private foldedInstOf(k: KernelAgg): InstAgg {
    return (k.foldedInst ??= new InstAgg(FOLDED_INSTRUCTIONS, -1, -1, this.foldedLineOf(k)));
  }

  /**
   * Keeps the kernel's hottest lines and instructions (half of MAX_SITES_PER_KERNEL), adding the others' counts
   * to its folded ones: memory stays bounded, the kernel's totals do not change, and a line or instruction seen
   * again after starts over (slots that point at a pruned one count into the folded ones, see addMany).
   */
  private prune(k: KernelAgg): void {
    const budget = MAX_SITES_PER_KERNEL >> 1;
    const hottest = <T extends Agg>(xs: Iterable<T>): T[] => [...xs].sort((a, b) => b.samples - a.samples);
    let kept = 0;
    const fold = (agg: Agg, into: Agg): void => {
      agg.pruned = true;
      addAgg(into, agg);
      k.prunedSites++;
    };
    const lines = hottest(k.lines.values());
    const keptLines = new Set<LineAgg>();
    for (const line of lines) {
      if (kept >= budget) break;
      keptLines.add(line);
      kept++;
      if (!line.insts) continue;
      for (const inst of hottest(line.insts.values())) {
        if (kept < budget) kept++;
        else {
          fold(inst, this.foldedInstOf(k));
          line.insts.delete(inst.text);
        }
      }
    }
    for (const [key, line] of k.lines) {
      if (keptLines.has(line)) continue;
      fold(line, this.foldedLineOf(k));
      for (const inst of line.insts?.values() ?? []) fold(inst, this.foldedInstOf(k));
      k.lines.delete(key);
    }
    for (const [key, inst] of [...k.byPc].sort((a, b) => b[1].samples - a[1].samples)) {
      if (kept < budget) kept++;
      else {
        fold(inst, this.foldedInstOf(k));
        k.byPc.delete(key);
      }
    }
    this.sites -= k.sites - kept;
    k.sites = kept;
  }

  add(s: SampleInput): void {
    const known = s.lanes >= 0 ? 1 : 0;
    this.count(
      this.kernelOf(s.dispatchId),
      s.lineKey,
      s.lineKeyIsBytes,
      s.codeObject,
      s.offset,
      s.instText,
      s.issued,
      s.typeId,
      s.reasonId,
      1,
      known * s.lanes,
      known,
    );
  }

  /**
   * Where samples of one kernel, line and instruction are counted (made as `add` would at the first of them),
   * for `addMany`: a reader that tallied its samples (sampleTally.ts) looks each up once.
   */
  slot(kernelName: string, lineKey: string, lineKeyIsBytes: boolean, instText: string): SampleSlot {
    const k = this.kernelNamed(kernelName);
    const line = this.lineOf(k, lineKey, lineKeyIsBytes);
    const inst = this.instOf(k, line, -1, -1, instText, 0);
    return {
      k,
      line,
      inst,
      unknownCode: lineKey === UNKNOWN_CODE,
      instFolded: inst === k.foldedInst && lineKey !== FOLDED_SITE_KEY,
    };
  }

  /**
   * `n` samples of a slot with the same issue state and names (ids from typeId / reasonId), `lanes` active lanes
   * over `laneSamples` of them (the others had no readable mask): what `n` calls of `add` would count.
   */
  addMany(
    slot: SampleSlot,
    issued: number,
    typeId: number,
    reasonId: number,
    n: number,
    lanes: number,
    laneSamples: number,
  ): void {
    if (slot.instFolded) this.foldedSiteSamples += n;
    const { k } = slot;
    // a slot made before its line or instruction was pruned counts into the kernel's folded ones
    const line = slot.line.pruned ? this.foldedLineOf(k) : slot.line;
    const inst = slot.inst.pruned || slot.line.pruned ? this.foldedInstOf(k) : slot.inst;
    this.countAt(k, line, inst, slot.unknownCode, issued, typeId, reasonId, n, lanes, laneSamples);
  }

  private countNames(k: KernelAgg, issued: number, typeId: number, reasonId: number, n: number): void {
    if (issued >= 0) {
      k.stochastic += n;
      if (issued === 1) {
        k.issued += n;
        if (typeId >= 0 && !this.typeNames.known[typeId]) (this.typeNames.unknownSamples[typeId] as number) += n;
      } else if (reasonId >= 0 && !this.stallNames.known[reasonId])
        (this.stallNames.unknownSamples[reasonId] as number) += n;
    }
  }

  private count(
    k: KernelAgg,
    lineKey: string,
    lineKeyIsBytes: boolean,
    codeObject: number,
    offset: number,
    instText: string,
    issued: number,
    typeId: number,
    reasonId: number,
    n: number,
    lanes: number,
    laneSamples: number,
  ): void {
    const line = this.lineOf(k, lineKey, lineKeyIsBytes);
    const inst = this.instOf(k, line, codeObject, offset, instText, n);
    this.countAt(k, line, inst, lineKey === UNKNOWN_CODE, issued, typeId, reasonId, n, lanes, laneSamples);
  }

  /** `n` samples of kernel `k` at `line` and `inst`, found or made (what `add` and `addMany` count alike). */
  private countAt(
    k: KernelAgg,
    line: LineAgg,
    inst: InstAgg,
    unknownCode: boolean,
    issued: number,
    typeId: number,
    reasonId: number,
    n: number,
    lanes: number,
    laneSamples: number,
  ): void {
    this.total += n;
    count(k, n, lanes, laneSamples, issued, typeId, reasonId);
    this.countNames(k, issued, typeId, reasonId, n);
    if (unknownCode) k.unknownCode += n;
    if (line.file === null) k.withoutLine += n;
    count(line, n, lanes, laneSamples, issued, typeId, reasonId);
    count(inst, n, lanes, laneSamples, issued, typeId, reasonId);
  }

  build(options: BuildHotspotsOptions = {}): PcHotspots {
    const top = options.top ?? Infinity;
    const tally = (counts: number[] | null, names: NameTable): Record<string, number> => {
      if (counts === null) return {};
      const entries: Array<[string, number]> = [];
      counts.forEach((n, id) => {
        if (n > 0) entries.push([names.names[id] as string, n]);
      });
      entries.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
      return Object.fromEntries(entries);
    };
    const lanes = (a: Agg): number | null => (a.laneSamples > 0 ? a.laneSum / a.laneSamples : null);
    const kernels: KernelHotspots[] = [];
    for (const k of this.kernels.values()) {
      const share = (n: number): number => (k.samples > 0 ? n / k.samples : 0);
      const lineAggs = [...k.lines.values()];
      if (k.foldedLine) lineAggs.push(k.foldedLine);
      const lines: HotLine[] = lineAggs
        .filter((l) => l.file !== null && l.line !== null)
        .map((l) => ({
          file: l.file as string,
          line: l.line as number,
          samples: l.samples,
          share: share(l.samples),
          meanActiveLanes: lanes(l),
          stalls: tally(l.stalls, this.stallNames),
          types: tally(l.types, this.typeNames),
        }))
        .sort((a, b) => b.samples - a.samples || (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
      const instAggs: InstAgg[] = [...k.byPc.values()];
      for (const l of k.lines.values()) if (l.insts) for (const i of l.insts.values()) instAggs.push(i);
      if (k.foldedInst) instAggs.push(k.foldedInst);
      const instructions: HotInstruction[] = instAggs
        .map((i) => ({
          codeObject: i.codeObject >= 0 ? i.codeObject : null,
          offset: i.offset >= 0 ? i.offset : null,
          text: i.text,
          file: i.line.file,
          line: i.line.line,
          samples: i.samples,
          share: share(i.samples),
          meanActiveLanes: lanes(i),
          stalls: tally(i.stalls, this.stallNames),
          types: tally(i.types, this.typeNames),
        }))
        .sort(
          (a, b) =>
            b.samples - a.samples ||
            (a.codeObject ?? -1) - (b.codeObject ?? -1) ||
            (a.offset ?? -1) - (b.offset ?? -1) ||
            (a.text < b.text ? -1 : a.text > b.text ? 1 : (a.line ?? 0) - (b.line ?? 0)),
        );
      kernels.push({
        name: k.name,
        shortName: k.name.startsWith('dispatch ') ? k.name : shortKernelName(k.name),
        samples: k.samples,
        share: this.total > 0 ? k.samples / this.total : 0,
        meanActiveLanes: lanes(k),
        issued: k.stochastic > 0 ? k.issued : null,
        stalls: tally(k.stalls, this.stallNames),
        types: tally(k.types, this.typeNames),
        withoutLine: k.withoutLine,
        unknownCode: k.unknownCode,
        lines: lines.slice(0, top),
        linesTotal: lines.length,
        instructions: instructions.slice(0, top),
        instructionsTotal: instructions.length,
      });
    }
    kernels.sort((a, b) => b.samples - a.samples || (a.name < b.name ? -1 : 1));
    const warnings = [...this.warnings];
    const pruned = [...this.kernels.values()].filter((k) => k.prunedSites > 0);
    if (pruned.length > 0)
      warnings.push(
        `${pruned.length} kernel(s) with more than ${MAX_SITES_PER_KERNEL} distinct sampled lines and instructions (${pruned
          .slice(0, 3)
          .map((k) => shortKernelName(k.name))
          .join(
            ', ',
          )}): each keeps its hottest, the others counted together as "${FOLDED_LINES_FILE}" / "${FOLDED_INSTRUCTIONS}"; a real kernel has far fewer (a corrupt or generated file?)`,
      );
    if (this.foldedKernelNames > 0)
      warnings.push(foldWarning('sampled kernels', MAX_DISTINCT_NAMES, FOLDED_KERNELS, null));
    if (this.foldedSiteSamples > 0 || this.sites >= MAX_SITES) {
      warnings.push(
        `more than ${MAX_SITES} distinct sampled lines and instructions: those past the first ${MAX_SITES} are counted together as "${FOLDED_LINES_FILE}" / "${FOLDED_INSTRUCTIONS}" per kernel; a real run has far fewer (a corrupt or generated file?)`,
      );
    }
    for (const [what, names, tallies] of [
      ['stall reasons', this.stallNames, (k: KernelAgg) => k.stalls],
      ['instruction types', this.typeNames, (k: KernelAgg) => k.types],
    ] as const) {
      const unknown = names.unknownWarning(what);
      if (unknown) warnings.push(unknown);
      if (names.folded > 0) {
        // the samples counted under the folded name (names.folded counts the names asked for past the cap)
        const id = names.ids.get(FOLDED_TALLY) as number;
        let samples = 0;
        for (const k of this.kernels.values()) samples += tallies(k)?.[id] ?? 0;
        warnings.push(
          `more than ${MAX_TALLY_NAMES} distinct ${what}: ${samples} sample(s) past them are counted as "${FOLDED_TALLY}"`,
        );
      }
    }
    const method = this.methods.size > 1 ? 'mixed' : (([...this.methods][0] ?? 'host_trap') as PcSamplingMethod);
    return {
      method,
      intervalUnit: options.intervalUnit ?? (method === 'stochastic' ? 'cycles' : null),
      interval: options.interval ?? null,
      samples: this.total,
      kernels,
      sources: this.sources,
      warnings,
    };
  }
}
