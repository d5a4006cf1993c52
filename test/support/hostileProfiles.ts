// Profile outputs a hostile (or broken) job could write, for the tests and benches that check the readers stay
// linear and bounded on them (issue 27 items 4-6): written in rocprofv3's CSV layouts, streamed to disk.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';

const COUNTER_HEADER =
  'Correlation_Id,Dispatch_Id,Agent_Id,Queue_Id,Process_Id,Thread_Id,Grid_Size,Kernel_Id,Kernel_Name,Workgroup_Size,' +
  'LDS_Block_Size,Scratch_Size,VGPR_Count,Accum_VGPR_Count,SGPR_Count,Counter_Name,Counter_Value,Start_Timestamp,End_Timestamp';

const PC_HEADER =
  '"Sample_Timestamp","Exec_Mask","Dispatch_Id","Instruction","Instruction_Comment","Correlation_Id",' +
  '"Wave_Issued_Instruction","Instruction_Type","Stall_Reason","Wave_Count"';

async function writeLines(file: string, header: string, n: number, line: (i: number) => string): Promise<string> {
  const out = createWriteStream(file, { highWaterMark: 1 << 20 });
  let buf = `${header}\n`;
  for (let i = 0; i < n; i++) {
    buf += `${line(i)}\n`;
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
  return file;
}

/**
 * `counter_collection.csv` in `dir`: ONE dispatch with `n` distinct counters, each row with its own timing (what
 * made the read quadratic: every row a new timing of the dispatch to look for among the ones before).
 */
export function writeManyCountersOneDispatch(dir: string, n: number): Promise<string> {
  return writeLines(
    path.join(dir, 'counter_collection.csv'),
    COUNTER_HEADER,
    n,
    (i) => `1,1,1,1,100,100,1024,1,"hostile_kernel()",256,0,0,8,0,16,HOSTILE_${i},${i}.5,${1000 + i},${3000 + 2 * i}`,
  );
}

/** `<pid>_kernel_trace.csv` and `<pid>_pc_sampling_stochastic.csv` in `dir`: `n` samples, each with a distinct instruction, line and stall reason. */
export async function writeDistinctPcSamples(dir: string, n: number): Promise<string> {
  await writeLines(
    path.join(dir, '100_kernel_trace.csv'),
    '"Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","Dispatch_Id"',
    1,
    () => '"KERNEL_DISPATCH",1,1,1,"hostile_kernel()",1,1000,900000000,1',
  );
  return writeLines(
    path.join(dir, '100_pc_sampling_stochastic.csv'),
    PC_HEADER,
    n,
    (i) =>
      `${1000 + i},18446744073709551615,1,"v_add_f32_e32 v${i}, v2, v3","/work/k${i}.hip:${i + 1}",1,0,"VALU","STALL_${i}",4`,
  );
}

/** A PC-sample CSV in `dir` with one sample whose instruction is `bytes` of doubled quotes. */
export function writeQuotedFieldPcSample(dir: string, bytes: number): Promise<string> {
  return writeLines(
    path.join(dir, '100_pc_sampling_stochastic.csv'),
    PC_HEADER,
    1,
    () => `1000,18446744073709551615,1,"${'"'.repeat(bytes)}","/work/k.hip:1",1,1,"VALU","NONE",4`,
  );
}
