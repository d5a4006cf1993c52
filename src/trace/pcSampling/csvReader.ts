// rocprofv3's `<prefix>_pc_sampling_host_trap.csv` and `<prefix>_pc_sampling_stochastic.csv` (generateCSV.cpp):
// Sample_Timestamp, Exec_Mask, Dispatch_Id, Instruction, Instruction_Comment, Correlation_Id, and for stochastic
// Wave_Issued_Instruction, Instruction_Type, Stall_Reason, Wave_Count. Read by header name through the byte
// scanner; text fields are keyed by their bytes (latin1 strings, decoded as UTF-8 once per distinct key).
import { Columns, readCsvHead, streamCsv } from '../csvFile';
import type { FileSource } from '../sources';
import type { HotspotAggregator, SampleSlot } from './aggregate';
import type { ParallelOptions, ParallelRun } from '../parallelParts';
import { readPcCsvParallel } from './pcSampleParts';
import {
  MAX_PC_TEXT_BYTES,
  MAX_SCAN_NAMES,
  MAX_SCAN_SITES,
  SampleTally,
  dispatchKernelMap,
  dispatchKernelsOf,
  pcColumnsOf,
  type PcCsvProblems,
  type PcColumns,
  type SampleBatch,
} from './sampleTally';

export { newPcCsvProblems, pcSamplingMethodOf, type PcCsvProblems } from './sampleTally';

/** A large file on disk is read by worker threads (pcSampleParts.ts) with these; null: on this thread. */
export interface PcCsvParallel extends ParallelOptions {
  /** Smaller files are read on this thread. */
  minBytes: number;
  onRun?: (run: ParallelRun) => void;
}

/** Applies a scan's batches to the aggregator, resolving the scan's ids to texts and name ids as they come. */
class BatchApplier {
  private readonly kernels: string[] = [];
  private readonly insts: string[] = [];
  private readonly lineKeys: string[] = [];
  private readonly issued: number[] = [];
  private readonly typeIds: number[] = [];
  private readonly reasonIds: number[] = [];
  constructor(
    private readonly agg: HotspotAggregator,
    private readonly kernelNames: readonly string[],
  ) {}

  apply(b: SampleBatch): void {
    const agg = this.agg;
    for (const code of b.kernels)
      this.kernels.push(code >= 0 ? (this.kernelNames[code] as string) : `dispatch ${-1 - code}`);
    for (const inst of b.insts) this.insts.push(inst);
    for (const key of b.lineKeys) this.lineKeys.push(key);
    for (let i = 0; i < b.issued.length; i++) {
      const type = b.types[i] as string | null;
      const reason = b.reasons[i] as string | null;
      this.issued.push(b.issued[i] as number);
      this.typeIds.push(type === null ? -1 : agg.typeId(type));
      this.reasonIds.push(reason === null ? -1 : agg.reasonId(reason));
    }
    for (let t = 0; t < b.samples.length; t++) {
      const names = b.names[t] as number;
      agg.addMany(
        this.slotOf(b.kernel[t] as number, b.site[t] as number),
        this.issued[names] as number,
        this.typeIds[names] as number,
        this.reasonIds[names] as number,
        b.samples[t] as number,
        b.lanes[t] as number,
        b.laneSamples[t] as number,
      );
    }
  }

  /** Slots by site, for the kernel of the site's first tally (a site is nearly always one kernel's). */
  private readonly slots: Array<{ kernel: number; slot: SampleSlot } | undefined> = [];
  private readonly otherSlots = new Map<string, SampleSlot>();
  private slotOf(kernel: number, site: number): SampleSlot {
    const s = this.slots[site];
    if (s !== undefined && s.kernel === kernel) return s.slot;
    const key = `${kernel}:${site}`;
    let slot = s === undefined ? undefined : this.otherSlots.get(key);
    if (slot === undefined) {
      slot = this.agg.slot(
        this.kernels[kernel] as string,
        this.lineKeys[site] as string,
        true,
        this.insts[site] as string,
      );
      if (s === undefined) this.slots[site] = { kernel, slot };
      else this.otherSlots.set(key, slot);
    }
    return slot;
  }
}

/**
 * Streams one PC-sample CSV into `agg`; returns the rows read. Throws on a header without the needed columns; at
 * a malformed row, throws after counting the rows before it (`problems.rowsRead`).
 */
export async function readPcSamplingCsv(
  source: FileSource,
  agg: HotspotAggregator,
  problems: PcCsvProblems,
  parallel: PcCsvParallel | null = null,
): Promise<number> {
  const kernels = dispatchKernelsOf(agg.dispatchNameMap);
  let columns: PcColumns | null = null;
  let rows: number;
  const head =
    parallel && source.diskPath && source.size >= parallel.minBytes
      ? await readCsvHead(source.diskPath, source.size)
      : null;
  if (parallel && source.diskPath && head && head.dataStart < source.size) {
    columns = pcColumnsOf(new Columns(head.names));
    rows = await readPcCsvParallel(
      { path: source.diskPath, size: source.size, dataStart: head.dataStart, dataLine: head.dataLine },
      { columns, kernels },
      () => {
        const applier = new BatchApplier(agg, kernels.names);
        return (b) => applier.apply(b);
      },
      problems,
      parallel,
      parallel.onRun,
    );
  } else {
    let tally: SampleTally | null = null;
    const kernelMap = dispatchKernelMap(kernels);
    const applier = new BatchApplier(agg, kernels.names);
    try {
      rows = await streamCsv(
        source,
        (c: Columns) => {
          columns = pcColumnsOf(c);
          const t = new SampleTally(columns, kernelMap, (b) => applier.apply(b));
          tally = t;
          return (r) => t.add(r);
        },
        problems,
      );
    } finally {
      const t = tally as SampleTally | null;
      if (t) {
        t.flush();
        const p = t.problems;
        problems.badRows = p.badRows;
        problems.firstBadLine = p.firstBadLine;
        problems.badMasks = p.badMasks;
        problems.firstBadMask = p.firstBadMask;
        problems.badIssued = p.badIssued;
        problems.longFields = p.longFields;
        problems.foldedSites = p.foldedSites;
        problems.foldedNames = p.foldedNames;
      }
    }
  }
  const method = (columns as PcColumns | null)?.method ?? 'host_trap';
  agg.methods.add(method);
  agg.sources.push({ path: source.path, format: 'rocprofv3-csv', method, samples: rows - problems.badRows });
  return rows;
}

/** The warnings for what a read of `path` passed over. */
export function pcCsvWarnings(path: string, p: PcCsvProblems): string[] {
  const out: string[] = [];
  if (p.badRows > 0)
    out.push(
      `${path}: ${p.badRows} row(s) without a dispatch id or with missing fields were skipped (the first on line ${p.firstBadLine})`,
    );
  if (p.badMasks > 0) {
    out.push(
      `${path}: ${p.badMasks} sample(s) with an Exec_Mask that is not a 64-bit number (the first on line ${p.firstBadMask?.line}: "${p.firstBadMask?.text}") are counted without active lanes`,
    );
  }
  if (p.badIssued > 0)
    out.push(
      `${path}: ${p.badIssued} sample(s) with a Wave_Issued_Instruction other than 0 or 1 are counted without a stall reason or instruction type`,
    );
  if (p.longFields > 0)
    out.push(
      `${path}: ${p.longFields} text field(s) longer than ${MAX_PC_TEXT_BYTES} bytes: their first ${MAX_PC_TEXT_BYTES} bytes are kept (a corrupt or generated file?)`,
    );
  if (p.foldedSites > 0 || p.foldedNames > 0)
    out.push(
      `${path}: more than ${MAX_SCAN_SITES} distinct instructions and lines or ${MAX_SCAN_NAMES} distinct stall reasons and types: ${p.foldedSites + p.foldedNames} sample(s) past them are counted under "(other ...)" per kernel; a real run has far fewer (a corrupt or generated file?)`,
    );
  return out;
}
