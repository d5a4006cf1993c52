// rocprofv3's JSON output (`--output-format json`, generateJSON.cpp): `{"rocprofiler-sdk-tool": [process, ...]}`
// where each process has `strings.pc_sample_instructions` and `strings.pc_sample_comments` (tables that a
// sample's `inst_index` points into; -1: code not recognised), `buffer_records.pc_sample_host_trap` /
// `pc_sample_stochastic` (`{record: {pc: {code_object_id, code_object_offset}, exec_mask, dispatch_id, wave_issued,
// inst_type, snapshot: {stall_reason}}, inst_index}`), and kernel names through `kernel_symbols` and
// `buffer_records.kernel_dispatch[].dispatch_info`. exec_mask is a 64-bit number, past what JSON.parse keeps
// exact: it is turned into a string before parsing.
import type { PcSamplingMethod } from '../../core/protocol/pcSampling';
import { UNKNOWN_CODE, emptySample, type HotspotAggregator } from './aggregate';
import { lanesOfMask, parseExecMask } from './execMask';

/** Largest JSON output parsed (it is read whole); about 1 KB per pretty-printed sample. */
export const MAX_PC_JSON_BYTES = 768 * 1024 * 1024;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : isObj(v) ? Object.values(v) : []);
const num = (v: unknown): number =>
  typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;

/** Whether the start of a JSON file says it is rocprofv3's JSON output. */
export function isRocprofv3Json(head: string): boolean {
  return /"rocprofiler-sdk-tool"\s*:/.test(head);
}

export interface PcJsonResult {
  samples: number;
  methods: PcSamplingMethod[];
  badMasks: number;
  badRecords: number;
}

function kernelNames(proc: Obj): Map<number, string> {
  const byKernelId = new Map<number, string>();
  for (const s of asArray(proc.kernel_symbols)) {
    if (!isObj(s)) continue;
    const name =
      typeof s.formatted_kernel_name === 'string' && s.formatted_kernel_name !== ''
        ? s.formatted_kernel_name
        : s.kernel_name;
    if (typeof name === 'string') byKernelId.set(num(s.kernel_id), name);
  }
  const names = new Map<number, string>();
  const records = isObj(proc.buffer_records) ? proc.buffer_records : {};
  for (const d of asArray(records.kernel_dispatch)) {
    const info = isObj(d) && isObj(d.dispatch_info) ? d.dispatch_info : null;
    if (!info) continue;
    const name = byKernelId.get(num(info.kernel_id));
    if (name !== undefined) names.set(num(info.dispatch_id), name);
  }
  return names;
}

/** Reads the PC samples of a rocprofv3 JSON output into `agg`; throws on JSON that does not parse. */
export function readPcSamplingJson(text: string, path: string, agg: HotspotAggregator): PcJsonResult {
  const exact = text.replace(/("exec_mask"\s*:\s*)(\d+)/g, '$1"$2"');
  const root = JSON.parse(exact) as unknown;
  const procs = isObj(root) ? asArray(root['rocprofiler-sdk-tool']) : [];
  const result: PcJsonResult = { samples: 0, methods: [], badMasks: 0, badRecords: 0 };
  const sample = emptySample();
  for (const proc of procs) {
    if (!isObj(proc)) continue;
    const strings = isObj(proc.strings) ? proc.strings : {};
    const instructions = Array.isArray(strings.pc_sample_instructions) ? strings.pc_sample_instructions : [];
    const comments = Array.isArray(strings.pc_sample_comments) ? strings.pc_sample_comments : [];
    const records = isObj(proc.buffer_records) ? proc.buffer_records : {};
    agg.useDispatchNames(kernelNames(proc));
    for (const method of ['host_trap', 'stochastic'] as const) {
      const list = asArray(records[`pc_sample_${method}`]);
      if (list.length === 0) continue;
      if (!result.methods.includes(method)) result.methods.push(method);
      let read = 0;
      for (const entry of list) {
        const rec = isObj(entry) && isObj(entry.record) ? entry.record : null;
        const dispatch = rec ? num(rec.dispatch_id) : NaN;
        if (!rec || !(dispatch >= 0)) {
          result.badRecords++;
          continue;
        }
        sample.dispatchId = dispatch;
        const mask = typeof rec.exec_mask === 'string' ? parseExecMask(rec.exec_mask) : null;
        if (mask === null) result.badMasks++;
        sample.lanes = mask === null ? -1 : lanesOfMask(mask);
        const idx = num((entry as Obj).inst_index);
        const pc = isObj(rec.pc) ? rec.pc : {};
        const co = num(pc.code_object_id);
        const off = num(pc.code_object_offset);
        const known = idx >= 0 && idx < instructions.length;
        sample.codeObject = known && co >= 0 ? co : -1;
        sample.offset = known && off >= 0 ? off : -1;
        sample.instText = known && typeof instructions[idx] === 'string' ? (instructions[idx] as string) : '';
        sample.lineKey = !known ? UNKNOWN_CODE : typeof comments[idx] === 'string' ? (comments[idx] as string) : '';
        if (method === 'stochastic') {
          const issued = num(rec.wave_issued);
          sample.issued = issued === 0 || issued === 1 ? issued : -1;
          sample.typeId = typeof rec.inst_type === 'string' ? agg.typeId(rec.inst_type) : -1;
          const snap = isObj(rec.snapshot) ? rec.snapshot : {};
          sample.reasonId = typeof snap.stall_reason === 'string' ? agg.reasonId(snap.stall_reason) : -1;
        } else {
          sample.issued = -1;
          sample.typeId = -1;
          sample.reasonId = -1;
        }
        agg.add(sample);
        read++;
      }
      agg.methods.add(method);
      agg.sources.push({ path, format: 'rocprofv3-json', method, samples: read });
      result.samples += read;
    }
  }
  if (result.badRecords > 0)
    agg.warnings.push(`${path}: ${result.badRecords} PC-sample record(s) without a record or dispatch_id were skipped`);
  if (result.badMasks > 0)
    agg.warnings.push(
      `${path}: ${result.badMasks} sample(s) with an exec_mask that is not a 64-bit number are counted without active lanes`,
    );
  return result;
}
