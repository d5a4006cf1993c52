// `kernel-runner hotspots` on 1,000,000 generated stochastic PC samples (bench/pcSampleData.ts, with the run's
// kernel trace) against DuckDB in the same run. Both run as child processes (start-up included for both): ours is
// the built dist/cli.cjs (`hotspots DIR --json`), DuckDB is @duckdb/node-api with read_csv + a join on Dispatch_Id +
// the three GROUP BYs that give the same tables (per kernel and line: samples, active lanes by bit_count of the
// UBIGINT mask; per instruction: samples; per line: not-issued samples per stall reason). Also times
// hotspotsPath in this process (no start-up). Each child's CPU seconds (all its threads: our workers, DuckDB's)
// are printed beside its wall time. Checks, untimed: every line's samples, lanes and stalls and every
// instruction's samples equal DuckDB's. Target (issue 21): `kernel-runner hotspots` on a million samples in
// under a second, faster than DuckDB in the same run.
//
//   node --import tsx bench/hotspots.bench.ts            (BENCH_ROUNDS=5, BENCH_SAMPLES=1000000 by default)
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PcHotspots } from '../src/core/protocol/pcSampling';
import { hotspotsPath } from '../src/trace/pcSampling/hotspots';
import { ensurePcSamples } from './pcSampleData';
import { machineLoad, median, summary as resultLine } from './support';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli.cjs');
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REASON = 'ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_';

interface Run {
  seconds: number;
  /** CPU seconds of the child's process, all its threads (worker threads, DuckDB's threads). */
  cpu: number;
  stdout: string;
}

/** Loaded first in each child: its CPU time (process-wide: every thread) on stderr as it exits. */
const CPU_REPORT = `data:text/javascript,process.on('exit', () => { const u = process.cpuUsage(); process.stderr.write('\\nKR_CPU ' + (u.user + u.system) / 1e6 + '\\n'); });`;

function runChild(args: string[]): Run {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', CPU_REPORT, ...args], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${args.slice(0, 3).join(' ')} failed (${r.status}): ${r.stderr}`);
  const cpu = Number(/KR_CPU ([\d.]+)/.exec(r.stderr)?.[1] ?? NaN);
  return { seconds, cpu, stdout: r.stdout };
}

const sql = (s: string): string => `'${s.replaceAll("'", "''")}'`;

const duckdbChild = (samples: string, kernels: string): string => `
import { DuckDBInstance } from '@duckdb/node-api';
const instance = await DuckDBInstance.create(':memory:');
const con = await instance.connect();
await con.run(\`CREATE TEMP VIEW s AS SELECT k.Kernel_Name AS kernel, p.* FROM read_csv(${sql(samples)}, header = true, types = {'Exec_Mask': 'UBIGINT'}) p
  JOIN (SELECT Dispatch_Id, Kernel_Name FROM read_csv(${sql(kernels)}, header = true)) k USING (Dispatch_Id)\`);
await con.run('CREATE TEMP TABLE t AS SELECT kernel, Instruction_Comment AS comment, Instruction AS inst, bit_count(Exec_Mask) AS lanes, Wave_Issued_Instruction AS issued, Stall_Reason AS reason FROM s');
const rows = async (q) => (await con.runAndReadAll(q)).getRowObjectsJS();
const out = {
  lines: await rows('SELECT kernel, comment, count(*) AS samples, sum(lanes) AS lanes FROM t GROUP BY ALL'),
  insts: await rows('SELECT kernel, comment, inst, count(*) AS samples FROM t GROUP BY ALL'),
  stalls: await rows('SELECT kernel, comment, reason, count(*) AS samples FROM t WHERE issued = 0 GROUP BY ALL'),
};
process.stdout.write(JSON.stringify(out, (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
`;

interface DuckOut {
  lines: Array<{ kernel: string; comment: string; samples: string; lanes: string }>;
  insts: Array<{ kernel: string; comment: string; inst: string; samples: string }>;
  stalls: Array<{ kernel: string; comment: string; reason: string; samples: string }>;
}

function compare(hot: PcHotspots, duck: DuckOut): string[] {
  const diffs: string[] = [];
  const lines = new Map<string, { samples: number; lanes: number; stalls: Record<string, number> }>();
  const insts = new Map<string, number>();
  let lineCount = 0;
  let instCount = 0;
  for (const k of hot.kernels) {
    for (const l of k.lines) {
      lineCount++;
      lines.set(`${k.name}|${l.file}:${l.line}`, {
        samples: l.samples,
        lanes: Math.round((l.meanActiveLanes ?? 0) * l.samples),
        stalls: l.stalls,
      });
    }
    for (const i of k.instructions) {
      instCount++;
      insts.set(`${k.name}|${i.file}:${i.line}|${i.text}`, i.samples);
    }
  }
  if (lineCount !== duck.lines.length) diffs.push(`lines: ours ${lineCount}, DuckDB ${duck.lines.length}`);
  if (instCount !== duck.insts.length) diffs.push(`instructions: ours ${instCount}, DuckDB ${duck.insts.length}`);
  for (const r of duck.lines) {
    const o = lines.get(`${r.kernel}|${r.comment}`);
    if (!o || o.samples !== Number(r.samples) || o.lanes !== Number(r.lanes))
      diffs.push(`${r.comment}: ours ${o?.samples}/${o?.lanes}, DuckDB ${r.samples}/${r.lanes}`);
  }
  for (const r of duck.insts) {
    const o = insts.get(`${r.kernel}|${r.comment}|${r.inst}`);
    if (o !== Number(r.samples)) diffs.push(`${r.comment} ${r.inst}: ours ${o}, DuckDB ${r.samples}`);
  }
  for (const r of duck.stalls) {
    const o = lines.get(`${r.kernel}|${r.comment}`)?.stalls[r.reason.replace(REASON, '')];
    if (o !== Number(r.samples)) diffs.push(`${r.comment} ${r.reason}: ours ${o}, DuckDB ${r.samples}`);
  }
  return diffs;
}

async function main(): Promise<void> {
  if (!existsSync(cli)) {
    const b = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
    if (b.status !== 0) throw new Error('build failed');
  }
  const dir = path.join(root, `bench/data/pcs-${SAMPLES}`);
  const { samples, kernels } = await ensurePcSamples(dir, { samples: SAMPLES, seed: 21 });
  const mb = statSync(samples).size / 1e6;
  console.log(
    `hotspots bench: ${path.relative(root, samples)} (${mb.toFixed(0)} MB, ${SAMPLES} samples) + its kernel trace, ${ROUNDS} rounds, ${machineLoad()}`,
  );
  const first = runChild([cli, 'hotspots', dir, '--json']);
  const firstDuck = runChild(['--input-type=module', '-e', duckdbChild(samples, kernels)]);
  console.log(
    `  first runs (not counted): ours ${first.seconds.toFixed(2)} s, DuckDB ${firstDuck.seconds.toFixed(2)} s`,
  );

  const ours: Run[] = [];
  const duck: Run[] = [];
  const ratios: number[] = [];
  const inProcess: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const o = runChild([cli, 'hotspots', dir, '--json']);
    const d = runChild(['--input-type=module', '-e', duckdbChild(samples, kernels)]);
    const t0 = performance.now();
    await hotspotsPath(dir);
    const ip = (performance.now() - t0) / 1000;
    ours.push(o);
    duck.push(d);
    inProcess.push(ip);
    ratios.push(o.seconds / d.seconds);
    console.log(
      `  round ${round + 1}: ours ${o.seconds.toFixed(2)} s wall / ${o.cpu.toFixed(2)} s CPU (in-process ${ip.toFixed(2)} s), DuckDB ${d.seconds.toFixed(2)} s wall / ${d.cpu.toFixed(2)} s CPU, ratio ${(o.seconds / d.seconds).toFixed(2)}, ${machineLoad()}`,
    );
  }
  const diffs = compare(
    JSON.parse((ours[0] as Run).stdout) as PcHotspots,
    JSON.parse((duck[0] as Run).stdout) as DuckOut,
  );
  console.log(
    `  lines (samples, lanes, stalls) and instructions vs DuckDB: ${diffs.length === 0 ? 'all equal' : `${diffs.length} DIFFERENCES: ${diffs.slice(0, 5).join('; ')}`}`,
  );
  const ratio = median(ratios);
  const ip = median(inProcess);
  console.log('');
  const wall = (rs: Run[]): number => median(rs.map((r) => r.seconds));
  const cpu = (rs: Run[]): number => median(rs.map((r) => r.cpu));
  console.log('| peer | wall s (median) | CPU s (median) | MB/s |');
  console.log('|---|---|---|---|');
  console.log(
    `| kernel-runner hotspots --json (dist/cli.cjs) | ${wall(ours).toFixed(2)} | ${cpu(ours).toFixed(2)} | ${(mb / wall(ours)).toFixed(0)} |`,
  );
  console.log(
    `| hotspotsPath in-process (TS sources: workers compile through tsx) | ${ip.toFixed(2)} | | ${(mb / ip).toFixed(0)} |`,
  );
  console.log(
    `| DuckDB read_csv + join + 3 GROUP BYs | ${wall(duck).toFixed(2)} | ${cpu(duck).toFixed(2)} | ${(mb / wall(duck)).toFixed(0)} |`,
  );
  console.log('');
  console.log(`ratio ours/DuckDB (median of per-round ratios): ${ratio.toFixed(2)}`);
  const exact = diffs.length === 0;
  console.log(
    resultLine(
      'hotspots',
      `${SAMPLES} samples: kernel-runner hotspots ${wall(ours).toFixed(2)} s wall, ${cpu(ours).toFixed(2)} s CPU, ours/DuckDB ${ratio.toFixed(2)}, results ${exact ? 'exact' : 'NOT exact'}`,
      'under 1 s (CLI, wall), faster than DuckDB, exact',
      wall(ours) < 1 && ratio < 1 && exact,
    ),
  );
  if (!exact) process.exitCode = 1;
}

await main();
