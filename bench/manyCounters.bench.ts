// Issue 27 item 4: a counter collection with many distinct counters on ONE dispatch, each row with its own timing
// (a hostile job's output: the read was quadratic, 40,000 rows 5.6 s, 160,000 95 s). Times `summarizePath` in this
// process on 40,000 and 160,000 such rows, and, as the peer, on the same row counts of an ordinary collection
// (test/support/hostileProfiles.ts's rows spread over dispatches of 40 counters each). Prints the medians, the
// 160,000/40,000 ratio (linear is 4x; fixed costs make it less) and hostile/ordinary at each size.
// Target: 160,000/40,000 <= 5 (linear).
//
//   node --import tsx bench/manyCounters.bench.ts            (BENCH_ROUNDS=3 by default)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { summarizePath } from '../src/trace/index';
import { writeManyCountersOneDispatch } from '../test/support/hostileProfiles';
import { machineLoad, median, summary } from './support';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SIZES = [40_000, 160_000];

function writeOrdinary(dir: string, n: number): void {
  const lines = [
    'Correlation_Id,Dispatch_Id,Agent_Id,Queue_Id,Process_Id,Thread_Id,Grid_Size,Kernel_Id,Kernel_Name,Workgroup_Size,' +
      'LDS_Block_Size,Scratch_Size,VGPR_Count,Accum_VGPR_Count,SGPR_Count,Counter_Name,Counter_Value,Start_Timestamp,End_Timestamp',
  ];
  for (let i = 0; i < n; i++) {
    const d = 1 + Math.floor(i / 40);
    lines.push(`${d},${d},1,1,100,100,1024,1,"k()",256,0,0,8,0,16,C_${i % 40},${i}.5,${d * 5000},${d * 5000 + 3000}`);
  }
  writeFileSync(path.join(dir, 'counter_collection.csv'), `${lines.join('\n')}\n`);
}

async function timed(dir: string): Promise<number> {
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    await summarizePath(dir);
    times.push((performance.now() - t0) / 1000);
  }
  return median(times);
}

const root = mkdtempSync(path.join(tmpdir(), 'kr-bench-counters-'));
try {
  const hostile: number[] = [];
  const ordinary: number[] = [];
  for (const n of SIZES) {
    const h = mkdtempSync(path.join(root, 'h-'));
    await writeManyCountersOneDispatch(h, n);
    const o = mkdtempSync(path.join(root, 'o-'));
    writeOrdinary(o, n);
    await timed(o); // warm-up
    hostile.push(await timed(h));
    ordinary.push(await timed(o));
    console.log(
      `${n} rows: one dispatch ${(hostile.at(-1) as number).toFixed(3)} s, ordinary ${(ordinary.at(-1) as number).toFixed(3)} s, ratio ${((hostile.at(-1) as number) / (ordinary.at(-1) as number)).toFixed(2)}`,
    );
  }
  const ratio = (hostile[1] as number) / (hostile[0] as number);
  const peer = (ordinary[1] as number) / (ordinary[0] as number);
  console.log(
    `160,000/40,000 rows: one dispatch ${ratio.toFixed(2)}x, ordinary ${peer.toFixed(2)}x (${machineLoad()})`,
  );
  console.log(summary('manyCounters', `160,000/40,000 on one dispatch ${ratio.toFixed(2)}x`, '<= 5x', ratio <= 5));
} finally {
  rmSync(root, { recursive: true, force: true });
}
