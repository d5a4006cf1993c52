// Generates a rocprofv3 stochastic PC-sample CSV (the columns of generateCSV.cpp, quoted as it quotes them) and
// the run's kernel trace, for the hotspots benchmark: 8 kernels over 400 dispatches, each kernel ~40 source lines
// of ~6 instructions (some with commas inside the quoted instruction), samples skewed towards a few hot lines,
// full 64-lane masks mostly (written as rocprofv3 writes them: 18446744073709551615) and partial ones now and then,
// stall reasons for the not-issued and types for the issued. Deterministic for a seed; rewritten only when the
// parameters change (a .meta.json beside it records them).
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { seededRandom } from '../test/support/random';

export interface PcSampleParams {
  samples: number;
  seed: number;
}

const REASONS = [
  'WAITCNT',
  'ALU_DEPENDENCY',
  'OTHER_WAIT',
  'ARBITER_NOT_WIN',
  'BARRIER_WAIT',
  'NO_INSTRUCTION_AVAILABLE',
  'INTERNAL_INSTRUCTION',
];
const TYPES = ['VALU', 'SCALAR', 'LDS', 'FLAT', 'MATRIX', 'BRANCH_TAKEN'];
const OPS = [
  's_waitcnt vmcnt(0)',
  'v_add_f32_e32 v2, v2, v3',
  'global_load_dwordx4 v[4:7], v[0:1], off',
  'v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]',
  's_load_dwordx4 s[4:7], s[0:1], 0x0',
  'ds_read_b128 v[8:11], v1',
  'v_fma_f32 v5, v6, v7, v5',
  's_barrier',
  's_cbranch_scc1 .LBB0_3',
  'v_mov_b32_e32 v0, s4',
];

export async function ensurePcSamples(dir: string, p: PcSampleParams): Promise<{ samples: string; kernels: string }> {
  mkdirSync(dir, { recursive: true });
  const samples = path.join(dir, `pcs_${p.samples}_${p.seed}_pc_sampling_stochastic.csv`);
  const kernels = path.join(dir, `pcs_${p.samples}_${p.seed}_kernel_trace.csv`);
  const meta = `${samples}.meta.json`;
  const wanted = JSON.stringify({ ...p, version: 1 });
  if (existsSync(samples) && existsSync(kernels) && existsSync(meta) && readFileSync(meta, 'utf8') === wanted)
    return { samples, kernels };
  const next = seededRandom(p.seed);
  const kernelNames = Array.from(
    { length: 8 },
    (_, i) => `void bench_kernel_${i}<float, ${64 << (i % 3)}>(float const*, float*, int)`,
  );
  const dispatches = 400;
  const kt = [
    '"Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","Dispatch_Id"',
  ];
  for (let d = 1; d <= dispatches; d++)
    kt.push(`"KERNEL_DISPATCH",1,1,${d % 8},"${kernelNames[d % 8]}",${d},${d * 100000},${d * 100000 + 90000},${d}`);
  writeFileSync(kernels, `${kt.join('\n')}\n`);
  // per kernel: lines, each with instructions
  const sites = kernelNames.map((_, k) =>
    Array.from({ length: 40 }, (_, l) => ({
      comment: `/work/kernels/bench_kernel_${k}.hip:${20 + l * 3}`,
      insts: Array.from({ length: 6 }, () => OPS[Math.floor(next() * OPS.length)] as string),
    })),
  );
  const out = createWriteStream(samples, { highWaterMark: 1 << 20 });
  out.write(
    '"Sample_Timestamp","Exec_Mask","Dispatch_Id","Instruction","Instruction_Comment","Correlation_Id","Wave_Issued_Instruction","Instruction_Type","Stall_Reason","Wave_Count"\n',
  );
  let buf = '';
  let ts = 390705261841337;
  for (let i = 0; i < p.samples; i++) {
    const d = 1 + Math.floor(next() * dispatches);
    const lines = sites[d % 8] as (typeof sites)[number];
    const line = lines[Math.floor(next() * next() * lines.length)] as (typeof lines)[number];
    const inst = line.insts[Math.floor(next() * line.insts.length)] as string;
    const mask =
      next() < 0.9
        ? '18446744073709551615'
        : BigInt.asUintN(
            64,
            BigInt(Math.floor(next() * 2 ** 32)) * 4294967296n + BigInt(Math.floor(next() * 2 ** 32)),
          ).toString();
    const issued = next() < 0.3 ? 1 : 0;
    const type = issued ? TYPES[Math.floor(next() * TYPES.length)] : 'NO_INST';
    const reason = REASONS[Math.floor(next() * next() * REASONS.length)];
    ts += 1 + Math.floor(next() * 200);
    buf += `${ts},${mask},${d},"${inst}","${line.comment}",${d},${issued},"ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_${type}","ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_${reason}",${1 + Math.floor(next() * 8)}\n`;
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
  writeFileSync(meta, wanted);
  return { samples, kernels };
}
