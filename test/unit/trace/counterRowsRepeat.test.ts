// counter_collection.csv rows whose dispatch fields repeat the row before's bytes take the reader's fast path (the
// scanner's RepeatedFields): the same file with those bytes made to differ on every row (a quoted Correlation_Id
// reads as the same number) must summarise to the same numbers, bad rows and split dispatches included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { summarizePath } from '../../../src/trace/index';
import { seededRandom, tempDir } from './helpers';

const HEADER =
  'Correlation_Id,Dispatch_Id,Agent_Id,Queue_Id,Process_Id,Thread_Id,Grid_Size,Kernel_Id,Kernel_Name,Workgroup_Size,' +
  'LDS_Block_Size,Scratch_Size,VGPR_Count,Accum_VGPR_Count,SGPR_Count,Counter_Name,Counter_Value,Start_Timestamp,End_Timestamp';
const COUNTERS = [
  'SQ_INSTS_VALU_ADD_F32',
  'SQ_INSTS_VALU_FMA_F32',
  'SQ_INSTS_VALU_MFMA_MOPS_F16',
  'TCC_EA0_RDREQ_sum',
  'TCC_BUBBLE_sum',
  'TCC_EA0_RDREQ_32B_sum',
  'TCC_EA0_WRREQ_sum',
  'TCC_EA0_WRREQ_64B_sum',
  'TCP_TOTAL_CACHE_ACCESSES_sum',
  'TCP_TCC_READ_REQ_sum',
  'GRBM_GUI_ACTIVE',
];
const SYSINFO =
  'gpu_arch,cu_per_gpu,max_sclk,max_mclk,total_l2_chan,num_hbm_channels,num_xcd,max_waves_per_cu\ngfx942,304,2100,1300,128,128,8,32\n';

test('counter rows taken over from the row before summarise as rows scanned whole (bad rows, split dispatches, passes)', async () => {
  const next = seededRandom(2020);
  const kernels = ['"gemm<1, 2>(float const*, float*)"', 'kernel_a', 'kernel_b', '"say ""hi"""'];
  const rows: string[][] = [];
  let t = 12_000_000_000_000_000n;
  for (let d = 1; d <= 60; d++) {
    const k = Math.floor(next() * kernels.length);
    const start = t;
    const end = start + BigInt(1000 + Math.floor(next() * 5000));
    t = end + 100n;
    // some dispatches timed twice (a second pass), some rows bad (no number), some counters missing
    const passEnd = next() < 0.2 ? end + 77n : end;
    for (const [j, c] of COUNTERS.entries()) {
      if (next() < 0.05) continue;
      const value = next() < 0.04 ? 'abc' : String(Math.floor(next() * 100000));
      rows.push([
        `${d}`,
        `${d},2,1,4242,4242,1048576,${k + 1},${kernels[k]},256,0,0,16,4,32`,
        c,
        value,
        `${start}`,
        `${j > 6 ? passEnd : end}`,
      ]);
    }
  }
  // a dispatch's rows split by another's
  const moved = rows.splice(100, 4);
  rows.splice(130, 0, ...moved);
  const write = (tag: string, quoteEvery: (i: number) => boolean): string => {
    const dir = path.join(tempDir(`repeat-${tag}`), 'run');
    mkdirSync(dir);
    const body = rows.map((r, i) => [quoteEvery(i) ? `"${r[0]}"` : r[0], ...r.slice(1)].join(',')).join('\n');
    writeFileSync(path.join(dir, 'run_counter_collection.csv'), `${HEADER}\n${body}\n`);
    writeFileSync(path.join(dir, 'sysinfo.csv'), SYSINFO);
    return dir;
  };
  const repeating = await summarizePath(write('same', () => false));
  const differing = await summarizePath(write('differ', (i) => i % 2 === 1));
  const numbers = (s: typeof repeating): unknown => ({
    kernels: s.kernels,
    roofline: s.roofline,
    speedOfLight: s.speedOfLight,
    warnings: s.warnings,
  });
  assert.deepEqual(numbers(repeating), numbers(differing));
  assert.ok((repeating.roofline?.kernels.length ?? 0) >= 3, 'the roofline has the kernels');
  assert.ok(repeating.kernels.reduce((n, k) => n + k.calls, 0) === 60, 'every dispatch counted once');
});
