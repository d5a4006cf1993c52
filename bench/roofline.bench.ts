// Roofline metrics from 1,000,000 counter rows against DuckDB in the same run. The input is a generated rocprofv3
// ROCm 7 `counter_collection.csv` (one row per dispatch and counter: the 30 counters of the gfx942 roofline and 10
// more, for 25,000 dispatches of 40 kernels, timestamps past 2^53) with a sysinfo.csv beside it, written as
// rocprofv3 writes it (shared/fixtures/rocprof/*counter_collection.csv): strings in quotes, values as %f. Both run as child
// processes, start-up included: ours is the built dist/cli.cjs (`summarize <dir> --json`: the whole summary, the
// roofline and speed-of-light included), DuckDB is @duckdb/node-api with read_csv, a pivot per dispatch and a
// GROUP BY kernel computing the same sums (dispatches, duration, FLOPs, HBM/L2/L1/LDS bytes). Prints each round,
// the medians, the per-round ratio ours/DuckDB, and the CPU seconds of both (the machine is shared: CPU time
// says more than wall time there). Checks, untimed: our per-kernel means x dispatches equal DuckDB's sums.
// KERNEL_RUNNER_TRACE_THREADS=0 measures our one-thread read, =2 this thread and a worker (by default: one pass on two
// cores or fewer, else this thread and workers; traceWorkerPool.ts counterReadThreads).
// Target (issue 20): ratio <= 1.0.
//
//   node --import tsx bench/roofline.bench.ts            (BENCH_ROUNDS=5, BENCH_ROWS=1000000 by default)
import { spawnSync } from 'node:child_process';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TraceSummary } from '../src/core/protocol/traceSummary';
import { seededRandom } from '../test/support/random';
import { machineLoad, median, roundsAgainstDuckDb, summary as resultLine } from './support';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli.cjs');
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const TIME = '/usr/bin/time';

const VALU = ['F16', 'F32', 'F64'].flatMap((p) =>
  ['ADD', 'MUL', 'FMA', 'TRANS'].map((op) => `SQ_INSTS_VALU_${op}_${p}`),
);
const MOPS = ['F8', 'F16', 'BF16', 'F32', 'F64', 'I8'].map((t) => `SQ_INSTS_VALU_MFMA_MOPS_${t}`);
const OTHER = [
  'SQ_LDS_IDX_ACTIVE',
  'SQ_LDS_BANK_CONFLICT',
  'TCP_TOTAL_CACHE_ACCESSES_sum',
  'TCP_TCC_WRITE_REQ_sum',
  'TCP_TCC_ATOMIC_WITH_RET_REQ_sum',
  'TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum',
  'TCP_TCC_READ_REQ_sum',
  'TCC_BUBBLE_sum',
  'TCC_EA0_RDREQ_32B_sum',
  'TCC_EA0_RDREQ_sum',
  'TCC_EA0_WRREQ_sum',
  'TCC_EA0_WRREQ_64B_sum',
  // speed-of-light's, and two that neither reads: 40 counters, so that 1,000,000 rows are 25,000 whole dispatches
  'TCC_HIT_sum',
  'TCC_MISS_sum',
  'TCC_REQ_sum',
  'GRBM_GUI_ACTIVE',
  'SQ_LEVEL_WAVES_ACCUM',
  'SQ_INSTS_VALU_MFMA_MOPS_F6F4',
  'SQ_INSTS_VALU_INT32',
  'SQ_INSTS_VALU_INT64',
  'SQ_WAVES',
  'SQ_BUSY_CYCLES',
];
const COUNTERS = [...VALU, ...MOPS, ...OTHER];

const HEADER =
  'Correlation_Id,Dispatch_Id,Agent_Id,Queue_Id,Process_Id,Thread_Id,Grid_Size,Kernel_Id,Kernel_Name,Workgroup_Size,' +
  'LDS_Block_Size,Scratch_Size,VGPR_Count,Accum_VGPR_Count,SGPR_Count,Counter_Name,Counter_Value,Start_Timestamp,End_Timestamp';

/** The folder with counter_collection.csv and sysinfo.csv; rewritten only when the row count changes. */
async function ensureData(): Promise<string> {
  const dir = path.join(root, 'bench/data/roofline');
  const file = path.join(dir, 'run_counter_collection.csv');
  const meta = path.join(dir, 'meta.json');
  const want = JSON.stringify({ rows: ROWS, counters: COUNTERS.length, v: 2 });
  if (existsSync(file) && existsSync(meta) && readFileSync(meta, 'utf8') === want) return dir;
  mkdirSync(dir, { recursive: true });
  const rnd = seededRandom(20);
  const kernels = Array.from({ length: 40 }, (_, i) =>
    i % 3 === 0 ? `"gemm_kernel_${i}(float const*, float const*, float*, int)"` : `"kernel_${i}"`,
  );
  const out = createWriteStream(file);
  out.write(`${HEADER}\n`);
  const dispatches = Math.ceil(ROWS / COUNTERS.length);
  let t = 12_000_000_000_000_000n;
  let rows = 0;
  for (let d = 1; d <= dispatches && rows < ROWS; d++) {
    const k = Math.floor(rnd() * kernels.length);
    const start = t;
    const end = start + BigInt(1000 + Math.floor(rnd() * 100000));
    t = end + 500n;
    const fixed = `${d},${d},"Agent 2",1,4242,4242,1048576,${k + 1},${kernels[k]},256,0,0,16,4,32`;
    let chunk = '';
    for (const c of COUNTERS) {
      if (rows++ >= ROWS) break;
      const v = c.includes('MOPS') && k % 3 !== 0 ? 0 : Math.floor(rnd() * 200000);
      chunk += `${fixed},"${c}",${v}.000000,${start},${end}\n`;
    }
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  writeFileSync(
    path.join(dir, 'sysinfo.csv'),
    'gpu_arch,cu_per_gpu,max_sclk,max_mclk,total_l2_chan,num_hbm_channels,num_xcd,max_waves_per_cu\ngfx942,304,2100,1300,128,128,8,32\n',
  );
  writeFileSync(meta, want);
  return dir;
}

interface Run {
  seconds: number;
  cpuSeconds: number | null;
  rssMiB: number | null;
  stdout: string;
}

function runChild(args: string[]): Run {
  const useTime = existsSync(TIME);
  const t0 = performance.now();
  const r = spawnSync(useTime ? TIME : process.execPath, useTime ? ['-v', process.execPath, ...args] : args, {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${args.slice(0, 3).join(' ')} failed (${r.status}): ${r.stderr}`);
  const user = /User time \(seconds\): ([\d.]+)/.exec(r.stderr);
  const sys = /System time \(seconds\): ([\d.]+)/.exec(r.stderr);
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  return {
    seconds,
    cpuSeconds: user && sys ? Number(user[1]) + Number(sys[1]) : null,
    rssMiB: rss ? Number(rss[1]) / 1024 : null,
    stdout: r.stdout,
  };
}

/** DuckDB: the roofline sums per kernel, as calc_ai's formulas (gfx942, every counter present). */
function duckdbChild(file: string): string {
  const col = (c: string): string => `sum(CASE WHEN Counter_Name = '${c}' THEN Counter_Value END) AS ${c}`;
  const valu = ['F16', 'F32', 'F64']
    .map(
      (p) =>
        `64 * (SQ_INSTS_VALU_ADD_${p} + SQ_INSTS_VALU_MUL_${p} + 2 * SQ_INSTS_VALU_FMA_${p} + SQ_INSTS_VALU_TRANS_${p})`,
    )
    .join(' + ');
  const flops = `${valu} + 512 * (SQ_INSTS_VALU_MFMA_MOPS_F16 + SQ_INSTS_VALU_MFMA_MOPS_BF16 + SQ_INSTS_VALU_MFMA_MOPS_F32 + SQ_INSTS_VALU_MFMA_MOPS_F64 + SQ_INSTS_VALU_MFMA_MOPS_F8)`;
  const hbm =
    'TCC_BUBBLE_sum * 128 + TCC_EA0_RDREQ_32B_sum * 32 + (TCC_EA0_RDREQ_sum - TCC_BUBBLE_sum - TCC_EA0_RDREQ_32B_sum) * 64 + (TCC_EA0_WRREQ_sum - TCC_EA0_WRREQ_64B_sum) * 32 + TCC_EA0_WRREQ_64B_sum * 64';
  const l2 =
    '(TCP_TCC_WRITE_REQ_sum + TCP_TCC_ATOMIC_WITH_RET_REQ_sum + TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum + TCP_TCC_READ_REQ_sum) * 64';
  const sql = `
    WITH d AS (
      SELECT Dispatch_Id, any_value(Kernel_Name) AS k, any_value(End_Timestamp - Start_Timestamp) AS dur, ${COUNTERS.map(col).join(', ')}
      FROM read_csv('${file}', header = true) GROUP BY Dispatch_Id)
    SELECT k AS name, count(*) AS dispatches, sum(dur)::DOUBLE AS duration, sum(${flops})::DOUBLE AS flops, sum(${hbm})::DOUBLE AS hbm,
      sum(${l2})::DOUBLE AS l2, sum(TCP_TOTAL_CACHE_ACCESSES_sum * 64)::DOUBLE AS l1, sum((SQ_LDS_IDX_ACTIVE - SQ_LDS_BANK_CONFLICT) * 4 * 32)::DOUBLE AS lds
    FROM d GROUP BY k`;
  return `
import { DuckDBInstance } from '@duckdb/node-api';
const instance = await DuckDBInstance.create(':memory:');
const con = await instance.connect();
const reader = await con.runAndReadAll(${JSON.stringify(sql)});
process.stdout.write(JSON.stringify(reader.getRowObjectsJS(), (_k, v) => (typeof v === 'bigint' ? Number(v) : v)));
`;
}

async function main(): Promise<void> {
  if (!existsSync(cli)) {
    const b = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
    if (b.status !== 0) throw new Error('build failed');
  }
  const dir = await ensureData();
  const file = path.join(dir, 'run_counter_collection.csv');
  const mb = statSync(file).size / 1e6;
  console.log(
    `roofline bench: ${path.relative(root, file)} (${mb.toFixed(0)} MB, ${ROWS} counter rows), ${ROUNDS} rounds, ours with KERNEL_RUNNER_TRACE_THREADS=${process.env.KERNEL_RUNNER_TRACE_THREADS ?? '(default: one pass on 2 cores or fewer)'}, ${machineLoad()}`,
  );
  for await (const _ of createReadStream(file, { highWaterMark: 1 << 22 })) {
    // read once so both start from a warm page cache
  }
  const ours = (): Run => runChild([cli, 'summarize', dir, '--json']);
  const duck = (): Run => runChild(['--input-type=module', '-e', duckdbChild(file)]);
  const { ours: o, duck: d, ratios } = roundsAgainstDuckDb(ROUNDS, ours, duck);

  const s = JSON.parse((o[0] as Run).stdout) as TraceSummary;
  const rows = JSON.parse((d[0] as Run).stdout) as Array<{
    name: string;
    dispatches: number;
    duration: number;
    flops: number;
    hbm: number;
    l2: number;
    l1: number;
    lds: number;
  }>;
  const ourKernels = new Map((s.roofline?.kernels ?? []).map((k) => [k.name, k]));
  const diffs: string[] = [];
  const same = (a: number | null, b: number): boolean =>
    a !== null && (b === 0 ? Math.abs(a) < 1e-9 : Math.abs(a - b) / Math.abs(b) < 1e-9);
  for (const r of rows) {
    const k = ourKernels.get(r.name);
    if (!k) {
      diffs.push(`missing ${r.name}`);
      continue;
    }
    const n = k.dispatches;
    const pairs: Array<[string, number | null, number]> = [
      ['dispatches', n, r.dispatches],
      ['duration', (k.durationNs ?? NaN) * n, r.duration],
      ['flops', (k.flops ?? NaN) * n, r.flops],
      ['hbm', (k.hbmBytes ?? NaN) * n, r.hbm],
      ['l2', (k.l2Bytes ?? NaN) * n, r.l2],
      ['l1', (k.l1Bytes ?? NaN) * n, r.l1],
      ['lds', (k.ldsBytes ?? NaN) * n, r.lds],
    ];
    for (const [what, a, b] of pairs) if (!same(a, b)) diffs.push(`${r.name} ${what}: ours ${a}, DuckDB ${b}`);
  }
  if (rows.length !== ourKernels.size) diffs.push(`kernel count: ours ${ourKernels.size}, DuckDB ${rows.length}`);
  console.log(
    `  per-kernel sums vs DuckDB: ${diffs.length === 0 ? `all ${rows.length} kernels equal` : `${diffs.length} DIFFERENCES: ${diffs.slice(0, 5).join('; ')}`}`,
  );

  const cpu = (runs: Run[]): number => median(runs.map((r) => r.cpuSeconds ?? NaN));
  const ratio = median(ratios);
  console.log('');
  console.log('| peer | wall s (median) | CPU s (median) | peak RSS MiB |');
  console.log('|---|---|---|---|');
  console.log(
    `| kernel-runner summarize (roofline, dist/cli.cjs) | ${median(o.map((r) => r.seconds)).toFixed(2)} | ${cpu(o).toFixed(2)} | ${Math.max(...o.map((r) => r.rssMiB ?? 0)).toFixed(0)} |`,
  );
  console.log(
    `| DuckDB read_csv + pivot + GROUP BY | ${median(d.map((r) => r.seconds)).toFixed(2)} | ${cpu(d).toFixed(2)} | ${Math.max(...d.map((r) => r.rssMiB ?? 0)).toFixed(0)} |`,
  );
  console.log('');
  console.log(
    `ratio ours/DuckDB (median of per-round ratios): wall ${ratio.toFixed(2)}, CPU ${(cpu(o) / cpu(d)).toFixed(2)}`,
  );
  const exact = diffs.length === 0;
  console.log(
    resultLine(
      'roofline',
      `ours/DuckDB ${ratio.toFixed(2)} wall, ${(cpu(o) / cpu(d)).toFixed(2)} CPU, sums ${exact ? 'equal' : 'DIFFERENT'}`,
      'ratio <= 1.0, sums equal',
      ratio <= 1 && exact,
    ),
  );
  if (!exact) process.exitCode = 1;
}

await main();
