// `kernel-runner summarize` of a multi-GPU job's profile: 8 ranks, each its own process on its own GPU, each a
// ROCm 7.0 kernel trace of 125,000 dispatches in rocprofv3's per-process layout (`<host>/<pid>_kernel_trace.csv`;
// 1,000,000 dispatches in all; the same kernels on every rank, each rank its own timings), against DuckDB reading
// the same 8 files in one query (read_csv of the list, GROUP BY file and kernel: count/sum/min/max). Both are child
// processes (start-up included); peak RSS from /usr/bin/time -v. Checks, untimed: every rank's kernel calls and
// time equal DuckDB's per file, the whole summary's per-kernel numbers equal DuckDB's per kernel, and every rank's
// busy time equals a gaps-and-islands query per file. Targets (issue 29): ratio <= 1.0, peak RSS < 200 MiB.
//
//   node --import tsx bench/summarize-ranks.bench.ts      (BENCH_ROUNDS=5, BENCH_RANK_ROWS=125000)
import { spawnSync } from 'node:child_process';
import { createReadStream, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import type { TraceSummary } from '../src/core/protocol/traceSummary';
import { ensureKernelTrace } from './kernelTraceData';
import { machineLoad, median, roundsAgainstDuckDb, summary as resultLine, timedNode, type TimedRun } from './support';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli.cjs');
const RANKS = 8;
const ROWS = Number(process.env.BENCH_RANK_ROWS ?? 125_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const HOST = 'mi300x8-bench';
const FIRST_PID = 41_000;

const sqlList = (files: string[]): string => `[${files.map((f) => `'${f.replaceAll("'", "''")}'`).join(', ')}]`;

const duckdbChild = (files: string[]): string => `
import { DuckDBInstance } from '@duckdb/node-api';
const instance = await DuckDBInstance.create(':memory:');
const con = await instance.connect();
const reader = await con.runAndReadAll(\`
  SELECT filename AS file, Kernel_Name AS name, count(*) AS calls, sum(End_Timestamp - Start_Timestamp) AS total,
         min(End_Timestamp - Start_Timestamp) AS min, max(End_Timestamp - Start_Timestamp) AS max
  FROM read_csv(${sqlList(files)}, header = true, filename = true) GROUP BY filename, Kernel_Name\`);
process.stdout.write(JSON.stringify(reader.getRowObjectsJS(), (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
`;

interface DuckRow {
  file: string;
  name: string;
  calls: string;
  total: string;
  min: string;
  max: string;
}

/** Per file, the union of its dispatches' intervals (gaps and islands). */
async function busyByDuckDb(files: string[]): Promise<Map<string, number>> {
  const instance = await DuckDBInstance.create(':memory:');
  const con = await instance.connect();
  const reader = await con.runAndReadAll(`
    WITH t AS (SELECT filename AS f, Start_Timestamp AS s, End_Timestamp AS e FROM read_csv(${sqlList(files)}, header = true, filename = true)),
    m AS (SELECT f, s, e, max(e) OVER (PARTITION BY f ORDER BY s, e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev FROM t),
    g AS (SELECT f, s, e, sum(CASE WHEN prev IS NULL OR s > prev THEN 1 ELSE 0 END) OVER (PARTITION BY f ORDER BY s, e ROWS UNBOUNDED PRECEDING) AS grp FROM m)
    SELECT f, sum(ge - gs) AS busy FROM (SELECT f, min(s) AS gs, max(e) AS ge FROM g GROUP BY f, grp) GROUP BY f`);
  return new Map(
    (reader.getRowObjectsJS() as Array<{ f: string; busy: bigint }>).map((r) => [r.f, Number(r.busy)] as const),
  );
}

async function warm(files: string[]): Promise<void> {
  for (const file of files)
    for await (const _ of createReadStream(file, { highWaterMark: 1 << 22 })) {
      // read once so both tools start from a warm page cache
    }
}

/** Differences between our summary and DuckDB's per-file, per-kernel rows (empty: equal). */
function differences(summary: TraceSummary, rows: DuckRow[], busy: Map<string, number>, dir: string): string[] {
  const diffs: string[] = [];
  const ranks = summary.ranks?.processes ?? [];
  if (ranks.filter((r) => r.rank !== null).length !== RANKS)
    diffs.push(`ranks: ${ranks.filter((r) => r.rank !== null).length}, not ${RANKS}`);
  for (let i = 0; i < RANKS; i++) {
    const file = path.join(dir, HOST, `${FIRST_PID + i}_kernel_trace.csv`);
    const own = rows.filter((r) => r.file === file);
    const r = ranks.find((x) => x.pid === FIRST_PID + i);
    const calls = own.reduce((n, x) => n + Number(x.calls), 0);
    const total = own.reduce((n, x) => n + Number(x.total), 0);
    if (!r || r.kernelCalls !== calls || r.kernelNs !== total)
      diffs.push(`pid ${FIRST_PID + i}: ours ${r?.kernelCalls}/${r?.kernelNs}, DuckDB ${calls}/${total}`);
    if (r?.rank !== i || r.device !== i) diffs.push(`pid ${FIRST_PID + i}: rank ${r?.rank}, device ${r?.device}`);
    if (r?.busyNs !== busy.get(file))
      diffs.push(`pid ${FIRST_PID + i} busy: ours ${r?.busyNs}, DuckDB ${busy.get(file)}`);
  }
  const byName = new Map<string, { calls: number; total: number; min: number; max: number }>();
  for (const x of rows) {
    const k = byName.get(x.name) ?? { calls: 0, total: 0, min: Infinity, max: -Infinity };
    k.calls += Number(x.calls);
    k.total += Number(x.total);
    k.min = Math.min(k.min, Number(x.min));
    k.max = Math.max(k.max, Number(x.max));
    byName.set(x.name, k);
  }
  for (const [name, d] of byName) {
    const k = summary.kernels.find((x) => x.name === name);
    if (!k || k.calls !== d.calls || k.totalNs !== d.total || k.minNs !== d.min || k.maxNs !== d.max)
      diffs.push(`${name.slice(0, 50)}: ours ${k?.calls}/${k?.totalNs}, DuckDB ${d.calls}/${d.total}`);
  }
  if (byName.size !== summary.kernels.length)
    diffs.push(`kernels: ours ${summary.kernels.length}, DuckDB ${byName.size}`);
  return diffs;
}

async function main(): Promise<void> {
  if (!existsSync(cli)) {
    const b = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
    if (b.status !== 0) throw new Error('build failed');
  }
  const dir = path.join(root, 'bench/data', `ranks${RANKS}x${ROWS}`);
  const files: string[] = [];
  for (let i = 0; i < RANKS; i++)
    files.push(
      await ensureKernelTrace(path.join(dir, HOST), {
        rows: ROWS,
        kernels: 300,
        seed: 7,
        rowSeed: 100 + i,
        agent: `Agent ${i + 1}`,
        fileName: `${FIRST_PID + i}_kernel_trace.csv`,
      }),
    );
  const mb = files.reduce((n, f) => n + statSync(f).size, 0) / 1e6;
  console.log(
    `summarize ranks bench: ${path.relative(root, dir)} (${RANKS} ranks x ${ROWS} dispatches, ${mb.toFixed(0)} MB), ${ROUNDS} rounds, ${machineLoad()}`,
  );
  await warm(files);
  const ours = (): TimedRun => timedNode([cli, 'summarize', dir, '--json'], { cwd: root });
  const duck = (): TimedRun => timedNode(['--input-type=module', '-e', duckdbChild(files)], { cwd: root });
  const { first, ours: o, duck: d, ratios } = roundsAgainstDuckDb(ROUNDS, ours, duck);

  const summary = JSON.parse(first.ours.stdout) as TraceSummary;
  const diffs = differences(summary, JSON.parse(first.duck.stdout) as DuckRow[], await busyByDuckDb(files), dir);
  console.log(
    `  per rank calls/time/busy and per kernel count/sum/min/max vs DuckDB: ${diffs.length === 0 ? 'all equal' : `${diffs.length} DIFFERENCES: ${diffs.slice(0, 5).join('; ')}`}`,
  );
  console.log(`  imbalance line: ${summary.ranks?.imbalanceLine}`);

  const ratio = median(ratios);
  const rss = Math.max(...o.map((r) => r.rssMiB ?? 0));
  const cpu = (runs: TimedRun[]): string =>
    runs.every((r) => r.cpuSeconds !== null) ? median(runs.map((r) => r.cpuSeconds as number)).toFixed(2) : '?';
  console.log('');
  console.log('| peer | wall s (median) | CPU s (median) | peak RSS MiB |');
  console.log('|---|---|---|---|');
  console.log(
    `| kernel-runner summarize (8 ranks, dist/cli.cjs) | ${median(o.map((r) => r.seconds)).toFixed(2)} | ${cpu(o)} | ${rss.toFixed(0)} |`,
  );
  console.log(
    `| DuckDB read_csv of 8 files + GROUP BY file, kernel | ${median(d.map((r) => r.seconds)).toFixed(2)} | ${cpu(d)} | ${Math.max(...d.map((r) => r.rssMiB ?? 0)).toFixed(0)} |`,
  );
  console.log('');
  const exact = diffs.length === 0;
  console.log(
    resultLine(
      'summarize ranks',
      `ours/DuckDB ${ratio.toFixed(2)}, peak RSS ${rss.toFixed(0)} MiB, results ${exact ? 'exact' : 'NOT exact'}`,
      'ratio <= 1.0, RSS < 200 MiB, exact',
      ratio <= 1 && rss < 200 && exact,
    ),
  );
  if (!exact) process.exitCode = 1;
}

await main();
