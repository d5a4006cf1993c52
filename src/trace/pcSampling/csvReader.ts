// rocprofv3's `<prefix>_pc_sampling_host_trap.csv` and `<prefix>_pc_sampling_stochastic.csv` (generateCSV.cpp):
// Sample_Timestamp, Exec_Mask, Dispatch_Id, Instruction, Instruction_Comment, Correlation_Id, and for stochastic
// Wave_Issued_Instruction, Instruction_Type, Stall_Reason, Wave_Count. Read by header name through the byte
// scanner; text fields are keyed by their bytes (latin1 strings, decoded as UTF-8 once per distinct key).
import type { PcSamplingMethod } from '../../core/protocol/pcSampling';
import { Columns, streamCsv } from '../csvFile';
import type { CsvRow } from '../csvScanner';
import type { FileSource } from '../sources';
import { UNKNOWN_CODE, emptySample, type HotspotAggregator } from './aggregate';
import { lanesOfMask, lanesOfSafeInteger, maskFromWide, parseExecMask } from './execMask';
import { keyText } from './latin1Keys';
import { isUnrecognisedCode } from './sourceLine';

/** The PC-sampling method of a CSV by its columns; null when it is not a PC-sample file. */
export function pcSamplingMethodOf(c: Columns): PcSamplingMethod | null {
  if (!(c.has('Exec_Mask') && c.has('Dispatch_Id') && c.has('Instruction') && c.has('Instruction_Comment'))) return null;
  return c.has('Stall_Reason') || c.has('Wave_Issued_Instruction') ? 'stochastic' : 'host_trap';
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
}

export function newPcCsvProblems(): PcCsvProblems {
  return { rowsRead: 0, badRows: 0, badMasks: 0, badIssued: 0 };
}

/** Field `i` as a latin1 string of its bytes, `""` unescaped: a cheap exact key for its text. */
function rawKey(row: CsvRow, i: number): string {
  const s = row.buf.toString('latin1', row.starts[i], row.ends[i]);
  return row.escaped[i] ? s.replaceAll('""', '"') : s;
}

/** Set bits of field `i`'s mask, or -1 when it is not a 64-bit number. */
function laneCount(row: CsvRow, i: number): number {
  const v = row.values[i] as number;
  if (v >= 0) return lanesOfSafeInteger(v);
  let mask: bigint | null = null;
  if (row.wide[i]) mask = maskFromWide(row.high[i] as number, row.low[i] as number);
  else if (Number.isNaN(v)) mask = parseExecMask(rawKey(row, i));
  return mask === null ? -1 : lanesOfMask(mask);
}

/** Streams one PC-sample CSV into `agg`; returns the rows read. Throws on a header without the needed columns. */
export async function readPcSamplingCsv(source: FileSource, agg: HotspotAggregator, problems: PcCsvProblems): Promise<number> {
  const sample = emptySample();
  sample.lineKeyIsBytes = true;
  const texts = new Map<string, string>();
  const textOf = (key: string): string => {
    let t = texts.get(key);
    if (t === undefined) {
      t = keyText(key);
      if (texts.size < 100_000) texts.set(key, t);
    }
    return t;
  };
  const reasonIds = new Map<string, number>();
  const typeIds = new Map<string, number>();
  let method: PcSamplingMethod = 'host_trap';
  const rows = await streamCsv(source, (c) => {
    const m = pcSamplingMethodOf(c);
    if (m === null) throw new Error(`not a PC-sample CSV: it needs Exec_Mask, Dispatch_Id, Instruction and Instruction_Comment columns (has ${c.names.slice(0, 6).join(', ')})`);
    method = m;
    const iMask = c.find('Exec_Mask');
    const iDispatch = c.find('Dispatch_Id');
    const iInst = c.find('Instruction');
    const iComment = c.find('Instruction_Comment');
    const iIssued = c.find('Wave_Issued_Instruction');
    const iType = c.find('Instruction_Type');
    const iReason = c.find('Stall_Reason');
    const needed = Math.max(iMask, iDispatch, iInst, iComment, iIssued, iType, iReason) + 1;
    return (row: CsvRow) => {
      const dispatch = row.values[iDispatch] as number;
      if (row.fieldCount < needed || !(dispatch >= 0)) {
        problems.badRows++;
        problems.firstBadLine ??= row.line;
        return;
      }
      sample.dispatchId = dispatch;
      const lanes = laneCount(row, iMask);
      if (lanes < 0) {
        problems.badMasks++;
        problems.firstBadMask ??= { line: row.line, text: keyText(rawKey(row, iMask)).slice(0, 40) };
      }
      sample.lanes = lanes;
      const comment = rawKey(row, iComment);
      const inst = rawKey(row, iInst);
      // unmapped code: one key, whatever address the comment names
      sample.lineKey = inst === '' && isUnrecognisedCode(comment) ? UNKNOWN_CODE : comment;
      sample.instText = textOf(inst);
      if (iIssued >= 0) {
        const issued = row.values[iIssued] as number;
        if (issued === 0 || issued === 1) {
          sample.issued = issued;
        } else {
          sample.issued = -1;
          problems.badIssued++;
        }
        sample.typeId = iType >= 0 ? idOf(typeIds, rawKey(row, iType), (n) => agg.typeId(n)) : -1;
        sample.reasonId = iReason >= 0 ? idOf(reasonIds, rawKey(row, iReason), (n) => agg.reasonId(n)) : -1;
      }
      agg.add(sample);
    };
  }, problems);
  agg.methods.add(method);
  agg.sources.push({ path: source.path, format: 'rocprofv3-csv', method, samples: rows - problems.badRows });
  return rows;
}

function idOf(cache: Map<string, number>, key: string, make: (name: string) => number): number {
  let id = cache.get(key);
  if (id === undefined) {
    id = make(keyText(key));
    if (cache.size < 1024) cache.set(key, id);
  }
  return id;
}

/** The warnings for what a read of `path` passed over. */
export function pcCsvWarnings(path: string, p: PcCsvProblems): string[] {
  const out: string[] = [];
  if (p.badRows > 0) out.push(`${path}: ${p.badRows} row(s) without a dispatch id or with missing fields were skipped (the first on line ${p.firstBadLine})`);
  if (p.badMasks > 0) {
    out.push(`${path}: ${p.badMasks} sample(s) with an Exec_Mask that is not a 64-bit number (the first on line ${p.firstBadMask?.line}: "${p.firstBadMask?.text}") are counted without active lanes`);
  }
  if (p.badIssued > 0) out.push(`${path}: ${p.badIssued} sample(s) with a Wave_Issued_Instruction other than 0 or 1 are counted without a stall reason or instruction type`);
  return out;
}
