// PC-sampling hot spots on rocprofiler-sdk's own sample files (../shared/fixtures/rocprof/pc-sampling, see its
// PROVENANCE.md): every count equals one done here independently (the reference CSV parser of helpers.ts, BigInt
// masks counted through their binary text), host-trap and stochastic, with and without line info; kernel names
// through a kernel trace; rocprofv3's JSON form; and hostile files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { hotspotsPath } from '../../../src/trace/pcSampling/hotspots';
import { MAX_SITES_PER_KERNEL } from '../../../src/trace/pcSampling/aggregate';
import { pcHotspotsSchema, type KernelHotspots, type PcHotspots } from '../../../src/core/protocol/pcSampling';
import { summarizePath } from '../../../src/trace/summarize';
import { TraceInputError } from '../../../src/trace/errors';
import { fixture, parseCsvReference, tempDir } from './helpers';

const PCS = (name: string): string => fixture(`pc-sampling/${name}`);
const REASON = 'ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_';
const TYPE = 'ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_';

interface RefAgg {
  samples: number;
  lanes: number;
  stalls: Map<string, number>;
  types: Map<string, number>;
}

const newRef = (): RefAgg => ({ samples: 0, lanes: 0, stalls: new Map(), types: new Map() });
const bump = (m: Map<string, number>, k: string): void => void m.set(k, (m.get(k) ?? 0) + 1);
const popcount = (mask: string): number => [...BigInt(mask).toString(2)].filter((c) => c === '1').length;

/** Per kernel ("dispatch N"), per `kernel|comment` line and `kernel|comment|instruction`: counted from the text. */
function referenceCounts(file: string, nameOf: (dispatch: string) => string = (d) => `dispatch ${d}`) {
  const [header, ...rows] = parseCsvReference(readFileSync(file, 'utf8'));
  const col = (n: string): number => (header as string[]).indexOf(n);
  const kernels = new Map<string, RefAgg>();
  const lines = new Map<string, RefAgg>();
  const insts = new Map<string, RefAgg>();
  const add = (m: Map<string, RefAgg>, key: string, r: string[]): void => {
    let a = m.get(key);
    if (!a) m.set(key, (a = newRef()));
    a.samples++;
    a.lanes += popcount(r[col('Exec_Mask')] as string);
    if (col('Wave_Issued_Instruction') >= 0) {
      if (r[col('Wave_Issued_Instruction')] === '0')
        bump(a.stalls, (r[col('Stall_Reason')] as string).replace(REASON, ''));
      else bump(a.types, (r[col('Instruction_Type')] as string).replace(TYPE, ''));
    }
  };
  for (const r of rows) {
    const k = nameOf(r[col('Dispatch_Id')] as string);
    add(kernels, k, r);
    add(lines, `${k}|${r[col('Instruction_Comment')]}`, r);
    add(insts, `${k}|${r[col('Instruction_Comment')]}|${r[col('Instruction')]}`, r);
  }
  return { rows: rows.length, kernels, lines, insts };
}

const obj = (m: Map<string, number>): Record<string, number> =>
  Object.fromEntries([...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)));

function assertMatches(hot: PcHotspots, ref: ReturnType<typeof referenceCounts>, withLines: boolean): void {
  assert.equal(hot.samples, ref.rows);
  assert.equal(hot.kernels.length, ref.kernels.size);
  for (const k of hot.kernels) {
    const r = ref.kernels.get(k.name);
    assert.ok(r, `kernel ${k.name} in the reference`);
    assert.equal(k.samples, r.samples, k.name);
    assert.equal(k.meanActiveLanes, r.lanes / r.samples, k.name);
    assert.deepEqual(k.stalls, obj(r.stalls), k.name);
    assert.deepEqual(k.types, obj(r.types), k.name);
    assert.equal(k.share, r.samples / ref.rows);
    const refLines = [...ref.lines].filter(([key]) => key.startsWith(`${k.name}|`));
    if (withLines) {
      assert.equal(k.withoutLine, 0);
      assert.equal(k.lines.length, refLines.length, k.name);
      for (const l of k.lines) {
        const rl = ref.lines.get(`${k.name}|${l.file}:${l.line}`);
        assert.ok(rl, `${k.name} ${l.file}:${l.line}`);
        assert.equal(l.samples, rl.samples);
        assert.equal(l.share, rl.samples / r.samples);
        assert.equal(l.meanActiveLanes, rl.lanes / rl.samples);
        assert.deepEqual(l.stalls, obj(rl.stalls));
        assert.deepEqual(l.types, obj(rl.types));
      }
    } else {
      assert.equal(k.lines.length, 0);
      assert.equal(k.withoutLine, k.samples);
    }
    const refInsts = [...ref.insts].filter(([key]) => key.startsWith(`${k.name}|`));
    assert.equal(k.instructions.length, refInsts.length, k.name);
    for (const i of k.instructions) {
      const comment = i.file === null ? '' : `${i.file}:${i.line}`;
      const ri = ref.insts.get(`${k.name}|${comment}|${i.text}`);
      assert.ok(ri, `${k.name} ${comment} ${i.text}`);
      assert.equal(i.samples, ri.samples);
      assert.equal(i.meanActiveLanes, ri.lanes / ri.samples);
      assert.deepEqual(i.stalls, obj(ri.stalls));
      assert.equal(i.codeObject, null);
      assert.equal(i.offset, null);
    }
    // hottest first
    for (let j = 1; j < k.instructions.length; j++)
      assert.ok(
        (k.instructions[j - 1] as { samples: number }).samples >= (k.instructions[j] as { samples: number }).samples,
      );
  }
  pcHotspotsSchema.parse(hot);
}

test('host-trap samples without line info: per kernel and per instruction, exactly', async () => {
  const file = PCS('pc_sampling_host_trap.csv');
  const hot = await hotspotsPath(file);
  assert.equal(hot.method, 'host_trap');
  assert.equal(hot.intervalUnit, null);
  assert.deepEqual(hot.warnings, []);
  assertMatches(hot, referenceCounts(file), false);
  assert.equal((hot.kernels[0] as KernelHotspots).issued, null);
});

test('host-trap samples with line info: per file:line, exactly', async () => {
  const file = PCS('pc_sampling_host_trap_debug.csv');
  const hot = await hotspotsPath(file);
  assertMatches(hot, referenceCounts(file), true);
  const top = (hot.kernels[0] as KernelHotspots).lines[0];
  assert.equal(top?.file, '/opt/rocm-6.4.0/share/hip/samples/2_Cookbook/0_MatrixTranspose/MatrixTranspose.cpp');
});

test('stochastic samples: stall reasons of the not-issued, types of the issued, 64-bit masks exactly', async () => {
  const file = PCS('pc_sampling_stochastic_debug.csv');
  const hot = await hotspotsPath(file);
  assert.equal(hot.method, 'stochastic');
  assert.equal(hot.intervalUnit, 'cycles');
  assert.deepEqual(hot.warnings, []);
  const ref = referenceCounts(file);
  assertMatches(hot, ref, true);
  // 18446744073709551615 is 64 lanes, not the 0 or 53 a double would give
  assert.ok(hot.kernels.every((k) => k.meanActiveLanes === 64));
  const issued = hot.kernels.reduce((n, k) => n + (k.issued ?? 0), 0);
  const refIssued = parseCsvReference(readFileSync(file, 'utf8'))
    .slice(1)
    .filter((r) => r[6] === '1').length;
  assert.equal(issued, refIssued);
});

test("dispatches become kernels through the same run's kernel trace", async () => {
  const dir = tempDir('pcs-names');
  copyFileSync(PCS('pc_sampling_stochastic_debug.csv'), path.join(dir, '4242_pc_sampling_stochastic.csv'));
  const rows = parseCsvReference(readFileSync(PCS('pc_sampling_stochastic_debug.csv'), 'utf8')).slice(1);
  const dispatches = [...new Set(rows.map((r) => r[2] as string))];
  // even dispatches run "vec_add", odd ones "vec_mul" (a kernel trace written for this test)
  const nameOf = (d: string): string =>
    Number(d) % 2 === 0 ? 'void vec_add<float>(float*, float const*, int)' : 'vec_mul';
  const trace = [
    '"Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","Dispatch_Id"',
  ];
  for (const d of dispatches)
    trace.push(`"KERNEL_DISPATCH",1,1,7,"${nameOf(d)}",${d},${1000 * Number(d)},${1000 * Number(d) + 500},${d}`);
  writeFileSync(path.join(dir, '4242_kernel_trace.csv'), `${trace.join('\n')}\n`);
  const hot = await hotspotsPath(dir);
  assert.deepEqual(hot.kernels.map((k) => k.name).sort(), [
    'vec_mul',
    'void vec_add<float>(float*, float const*, int)',
  ]);
  assertMatches(hot, referenceCounts(PCS('pc_sampling_stochastic_debug.csv'), nameOf), true);

  // summarize carries them too, with the samples as a source, and the kernel trace read as ever
  const summary = await summarizePath(dir);
  assert.equal(summary.hotspots?.samples, rows.length);
  assert.equal(summary.kernelTotals.calls, dispatches.length);
  assert.ok(summary.sources.some((s) => s.kind === 'pc_sampling_stochastic' && s.rows === rows.length));
  assert.ok((summary.hotspots?.kernels[0]?.lines.length ?? 0) <= 10);
});

/** A rocprofv3 JSON output in the layout of rocprofiler-sdk's generateJSON.cpp and using-pc-sampling.rst. */
function jsonOutput(): { text: string; expected: { samples: number; unknown: number } } {
  const instructions = ['s_waitcnt vmcnt(0)', 'v_add_f32_e32 v2, v2, v3', 'v_rcp_f64 v[0:1], v[2:3]'];
  const comments = ['/src/vec.hip:31', '/src/vec.hip:32', '/src/vec.hip:40'];
  const sample = (
    dispatch: number,
    inst: number,
    offset: number,
    mask: string,
    issued: number,
    reason: string,
    type: string,
  ) =>
    `{"record": {"hw_id": {"chiplet": 0, "wave_id": 0}, "pc": {"code_object_id": ${inst < 0 ? 0 : 2}, "code_object_offset": ${offset}},
      "exec_mask": ${mask}, "timestamp": 390705261924637, "dispatch_id": ${dispatch}, "corr_id": {"internal": ${dispatch}, "external": 0},
      "wave_in_grp": 0, "wave_issued": ${issued}, "inst_type": "${TYPE}${type}", "wave_cnt": 6,
      "snapshot": {"stall_reason": "${REASON}${reason}", "dual_issue_valu": 0}}, "inst_index": ${inst}}`;
  const samples = [
    sample(1, 0, 13880, '18446744073709551615', 0, 'WAITCNT', 'NO_INST'),
    sample(1, 0, 13880, '18446744073709551615', 0, 'WAITCNT', 'NO_INST'),
    sample(1, 1, 13884, '6148914691236517205', 1, 'OTHER_WAIT', 'VALU'), // 0x5555555555555555: 32 lanes
    sample(2, 2, 14000, '12297829382473034410', 0, 'ALU_DEPENDENCY', 'NO_INST'), // 0xAAAAAAAAAAAAAAAA
    sample(2, -1, 9999999, '1', 0, 'NO_INSTRUCTION_AVAILABLE', 'NO_INST'),
  ];
  const text = `{"rocprofiler-sdk-tool": [{
    "metadata": {"pid": 4242},
    "strings": {"pc_sample_instructions": ${JSON.stringify(instructions)}, "pc_sample_comments": ${JSON.stringify(comments)}},
    "kernel_symbols": [{"kernel_id": 7, "code_object_id": 2, "kernel_name": "vec_add.kd", "formatted_kernel_name": "vec_add"}],
    "buffer_records": {
      "kernel_dispatch": [{"dispatch_info": {"kernel_id": 7, "dispatch_id": 1}}, {"dispatch_info": {"kernel_id": 7, "dispatch_id": 2}}],
      "pc_sample_host_trap": [],
      "pc_sample_stochastic": [${samples.join(',\n')}]
    }}]}`;
  return { text, expected: { samples: samples.length, unknown: 1 } };
}

test('the JSON output: code object offsets, the instruction and comment tables, exact masks, kernel names', async () => {
  const dir = tempDir('pcs-json');
  const { text, expected } = jsonOutput();
  writeFileSync(path.join(dir, '4242_results.json'), text);
  const hot = await hotspotsPath(dir);
  pcHotspotsSchema.parse(hot);
  assert.equal(hot.samples, expected.samples);
  assert.deepEqual(hot.sources, [
    { path: '4242_results.json', format: 'rocprofv3-json', method: 'stochastic', samples: 5 },
  ]);
  assert.equal(hot.kernels.length, 1);
  const k = hot.kernels[0] as KernelHotspots;
  assert.equal(k.name, 'vec_add');
  assert.equal(k.unknownCode, expected.unknown);
  assert.equal(k.withoutLine, expected.unknown);
  assert.equal(k.issued, 1);
  assert.deepEqual(k.stalls, { WAITCNT: 2, ALU_DEPENDENCY: 1, NO_INSTRUCTION_AVAILABLE: 1 });
  assert.deepEqual(k.types, { VALU: 1 });
  assert.equal(k.meanActiveLanes, (64 + 64 + 32 + 32 + 1) / 5);
  const waitcnt = k.instructions.find((i) => i.offset === 13880);
  assert.deepEqual(
    waitcnt && {
      codeObject: waitcnt.codeObject,
      text: waitcnt.text,
      file: waitcnt.file,
      line: waitcnt.line,
      samples: waitcnt.samples,
      share: waitcnt.share,
    },
    { codeObject: 2, text: 's_waitcnt vmcnt(0)', file: '/src/vec.hip', line: 31, samples: 2, share: 0.4 },
  );
  assert.deepEqual(
    k.lines.map((l) => [l.line, l.samples]),
    [
      [31, 2],
      [32, 1],
      [40, 1],
    ],
  );
  const unknown = k.instructions.find((i) => i.text === '');
  assert.equal(unknown?.offset, null);
  assert.equal(unknown?.samples, 1);

  // the same run's CSV is then not read a second time
  copyFileSync(PCS('pc_sampling_stochastic_debug.csv'), path.join(dir, '4242_pc_sampling_stochastic.csv'));
  const both = await hotspotsPath(dir);
  assert.equal(both.samples, expected.samples);
  assert.ok(both.warnings.some((w) => w.includes('4242_pc_sampling_stochastic.csv: not read')));
});

const HEADER =
  '"Sample_Timestamp","Exec_Mask","Dispatch_Id","Instruction","Instruction_Comment","Correlation_Id","Wave_Issued_Instruction","Instruction_Type","Stall_Reason","Wave_Count"';
const row = (mask: string, dispatch: string, inst: string, comment: string, issued: string, reason: string): string =>
  `1,${mask},${dispatch},"${inst}","${comment}",${dispatch},${issued},"${TYPE}VALU","${REASON}${reason}",4`;

test('hostile CSV: malformed masks, unknown reasons, quotes, bad rows are counted in warnings, never lost silently', async () => {
  const dir = tempDir('pcs-hostile');
  const file = path.join(dir, '1_pc_sampling_stochastic.csv');
  const lines = [
    HEADER,
    row('18446744073709551615', '3', 'say ""hi"", ok', 'k.hip:10', '0', 'WAITCNT'), // a quoted comma and quotes
    row('18446744073709551616', '3', 's_nop 0', 'k.hip:11', '0', 'WAITCNT'), // 2^64: one bit too many
    row('banana', '3', 's_nop 0', 'k.hip:11', '0', 'WAITCNT'),
    row('0x00000000000000ff', '3', 's_nop 0', 'k.hip:11', '0', 'MADE_UP_REASON'),
    row('15', 'not-a-number', 's_nop 0', 'k.hip:12', '0', 'WAITCNT'),
    row('15', '3', 's_nop 0', 'k.hip:12', '7', 'WAITCNT'),
    '1,15,3',
  ];
  writeFileSync(file, `${lines.join('\n')}\n`);
  const hot = await hotspotsPath(file);
  const k = hot.kernels[0] as KernelHotspots;
  // 7 rows: 2 skipped (no dispatch id, missing fields), 5 counted
  assert.equal(hot.samples, 5);
  assert.equal(k.samples, 5);
  // lanes from the readable masks only: 64, 8 (0xff), 4 (15)
  assert.equal(k.meanActiveLanes, (64 + 8 + 4) / 3);
  assert.deepEqual(k.stalls, { WAITCNT: 3, MADE_UP_REASON: 1 });
  assert.ok(k.instructions.some((i) => i.text === 'say "hi", ok'));
  const w = hot.warnings.join('\n');
  assert.match(w, /2 row\(s\) without a dispatch id or with missing fields were skipped \(the first on line 6\)/);
  assert.match(
    w,
    /2 sample\(s\) with an Exec_Mask that is not a 64-bit number \(the first on line 3: "18446744073709551616"\)/,
  );
  assert.match(w, /1 sample\(s\) with stall reasons rocprofiler-sdk does not define: MADE_UP_REASON \(1\)/);
  assert.match(w, /1 sample\(s\) with a Wave_Issued_Instruction other than 0 or 1/);
});

test('hostile CSV: an unterminated quote keeps the rows before it, with a warning', async () => {
  const dir = tempDir('pcs-unterminated');
  const file = path.join(dir, '1_pc_sampling_stochastic.csv');
  writeFileSync(file, `${HEADER}\n${row('1', '3', 's_nop 0', 'k.hip:1', '0', 'WAITCNT')}\n1,1,3,"s_nop 0,k.hip:2,3\n`);
  const hot = await hotspotsPath(file);
  assert.equal(hot.samples, 1);
  assert.match(
    hot.warnings.join('\n'),
    /malformed CSV: unterminated quoted field .*the 1 row\(s\) before it were read/,
  );
});

test('hostile CSV: more distinct lines than the cap are folded, with a warning, and every sample still counted', async () => {
  const dir = tempDir('pcs-many');
  const file = path.join(dir, '1_pc_sampling_host_trap.csv');
  const n = MAX_SITES_PER_KERNEL + 5000;
  const out = ['"Sample_Timestamp","Exec_Mask","Dispatch_Id","Instruction","Instruction_Comment","Correlation_Id"'];
  for (let i = 0; i < n; i++) out.push(`1,1,1,"s_nop 0","gen.hip:${i + 1}",1`);
  writeFileSync(file, `${out.join('\n')}\n`);
  const hot = await hotspotsPath(file, { top: 3 });
  const k = hot.kernels[0] as KernelHotspots;
  assert.equal(k.samples, n);
  assert.equal(k.lines.length, 3);
  // the kernel keeps its hottest lines and instructions; the rest of the samples land in the folded entries
  const kept = k.linesTotal;
  assert.ok(kept < n, 'lines were folded');
  assert.match(
    hot.warnings.join('\n'),
    new RegExp(`1 kernel\\(s\\) with more than ${MAX_SITES_PER_KERNEL} distinct sampled lines and instructions`),
  );
});

test('no samples, a missing path: a clear TraceInputError', async () => {
  const dir = tempDir('pcs-none');
  writeFileSync(path.join(dir, 'notes.csv'), 'a,b\n1,2\n');
  await assert.rejects(
    hotspotsPath(dir),
    (e: unknown) => e instanceof TraceInputError && /no PC samples found/.test(e.message),
  );
  await assert.rejects(
    hotspotsPath(path.join(dir, 'nope')),
    (e: unknown) => e instanceof TraceInputError && /no such file/.test(e.message),
  );
});
