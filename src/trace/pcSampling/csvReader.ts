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
import { ByteInterner } from './byteInterner';
import { keyText } from './latin1Keys';
import { isUnrecognisedCode } from './sourceLine';

/** The PC-sampling method of a CSV by its columns; null when it is not a PC-sample file. */
export function pcSamplingMethodOf(c: Columns): PcSamplingMethod | null {
  if (!(c.has('Exec_Mask') && c.has('Dispatch_Id') && c.has('Instruction') && c.has('Instruction_Comment')))
    return null;
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

interface Site {
  inst: string;
  lineKey: string;
}

interface Names {
  issued: number;
  typeId: number;
  reasonId: number;
}

/** Streams one PC-sample CSV into `agg`; returns the rows read. Throws on a header without the needed columns. */
export async function readPcSamplingCsv(
  source: FileSource,
  agg: HotspotAggregator,
  problems: PcCsvProblems,
): Promise<number> {
  const sample = emptySample();
  sample.lineKeyIsBytes = true;
  let row: CsvRow = undefined as unknown as CsvRow;
  let iInst = -1;
  let iComment = -1;
  let iIssued = -1;
  let iType = -1;
  let iReason = -1;
  /** The instruction (its text) and line key (the comment's bytes; the aggregator decodes each distinct one). */
  const makeSite = (): Site => {
    const inst = keyText(rawKey(row, iInst));
    const comment = rawKey(row, iComment);
    // unmapped code: one key, whatever address the comment names
    return { inst, lineKey: inst === '' && isUnrecognisedCode(comment) ? UNKNOWN_CODE : comment };
  };
  const makeNames = (): Names => {
    const v = row.values[iIssued] as number;
    return {
      issued: v === 0 || v === 1 ? v : -1,
      typeId: iType >= 0 ? agg.typeId(keyText(rawKey(row, iType))) : -1,
      reasonId: iReason >= 0 ? agg.reasonId(keyText(rawKey(row, iReason))) : -1,
    };
  };
  // Instruction and Instruction_Comment are side by side in rocprofv3's files, and so are Wave_Issued_Instruction,
  // Instruction_Type and Stall_Reason: one lookup of each span's bytes gives all its fields
  const sites = new ByteInterner<Site>(makeSite);
  const names = new ByteInterner<Names>(makeNames, 4096);
  let lastHigh = -1;
  let lastLow = -1;
  let lastWideLanes = -1;
  let method: PcSamplingMethod = 'host_trap';
  const rows = await streamCsv(
    source,
    (c) => {
      const m = pcSamplingMethodOf(c);
      if (m === null)
        throw new Error(
          `not a PC-sample CSV: it needs Exec_Mask, Dispatch_Id, Instruction and Instruction_Comment columns (has ${c.names.slice(0, 6).join(', ')})`,
        );
      method = m;
      const iMask = c.find('Exec_Mask');
      const iDispatch = c.find('Dispatch_Id');
      iInst = c.find('Instruction');
      iComment = c.find('Instruction_Comment');
      iIssued = c.find('Wave_Issued_Instruction');
      iType = c.find('Instruction_Type');
      iReason = c.find('Stall_Reason');
      const siteSpan = iComment === iInst + 1;
      const namesSpan = iIssued >= 0 && iType === iIssued + 1 && iReason === iType + 1;
      const needed = Math.max(iMask, iDispatch, iInst, iComment, iIssued, iType, iReason) + 1;
      return (r: CsvRow) => {
        row = r;
        const dispatch = row.values[iDispatch] as number;
        if (row.fieldCount < needed || !(dispatch >= 0)) {
          problems.badRows++;
          problems.firstBadLine ??= row.line;
          return;
        }
        sample.dispatchId = dispatch;
        let lanes: number;
        const v = row.values[iMask] as number;
        if (v >= 0) lanes = lanesOfSafeInteger(v);
        else if (row.wide[iMask]) {
          // most samples repeat the full mask: one BigInt per distinct run of masks, not per sample
          const high = row.high[iMask] as number;
          const low = row.low[iMask] as number;
          if (high !== lastHigh || low !== lastLow) {
            const mask = maskFromWide(high, low);
            lastWideLanes = mask === null ? -1 : lanesOfMask(mask);
            lastHigh = high;
            lastLow = low;
          }
          lanes = lastWideLanes;
        } else {
          const mask = Number.isNaN(v) ? parseExecMask(rawKey(row, iMask)) : null;
          lanes = mask === null ? -1 : lanesOfMask(mask);
        }
        if (lanes < 0) {
          problems.badMasks++;
          problems.firstBadMask ??= { line: row.line, text: keyText(rawKey(row, iMask)).slice(0, 40) };
        }
        sample.lanes = lanes;
        const site =
          siteSpan && !row.escaped[iInst] && !row.escaped[iComment]
            ? sites.get(row.buf, row.starts[iInst] as number, row.ends[iComment] as number)
            : makeSite();
        sample.lineKey = site.lineKey;
        sample.instText = site.inst;
        if (iIssued >= 0) {
          const n =
            namesSpan && !row.escaped[iType] && !row.escaped[iReason]
              ? names.get(row.buf, row.starts[iIssued] as number, row.ends[iReason] as number)
              : makeNames();
          if (n.issued < 0) problems.badIssued++;
          sample.issued = n.issued;
          sample.typeId = n.typeId;
          sample.reasonId = n.reasonId;
        }
        agg.add(sample);
      };
    },
    problems,
  );
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
  return out;
}
