// Live output end to end: a program printing 100 MB of mixed lines (program output and rocprof-style noise, on
// stdout and stderr) run through the runner and received by our client, against the same program `> /dev/null`
// (the peer, measured in the same round):
//  - client core: createRunnerClient().submit with every output event delivered to onEvent; the runner lives in
//    this process too (as the VS Code extension's embedded runner does), so both share one thread;
//  - the CLI: `kernel-runner submit --server URL > /dev/null` (parses, filters, prints every program line), the
//    runner in this process and the CLI in its own.
// Wall time is the target's measure; CPU seconds are printed too: on a shared machine they say what the code
// costs while the wall time also says how busy the machine was. Median of ROUNDS. Target: >= 50 MB/s end to end.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRunnerClient } from '../src/core/client/index';
import { startRunner } from '../src/runner/index';
import { cpuSecondsSince, machineLoad, median, q, summary, timeShell, mixedOutputProgram } from './support';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli.cjs');
const TOTAL_MB = Number(process.env.BENCH_MB ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TARGET_MB_S = 50;

const program = mixedOutputProgram(TOTAL_MB);

async function main(): Promise<void> {
  if (!existsSync(cli)) throw new Error('run `npm run build` first (dist/cli.cjs is missing)');
  mkdirSync(path.join(root, 'bench/data'), { recursive: true });
  const file = path.join(root, 'bench/data/print100mb.py');
  writeFileSync(file, program);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kr-bench-throughput-'));
  const runner = await startRunner({ port: 0, dataDir, profiler: 'none', scriptTimeoutSec: 600 });
  const client = createRunnerClient({ baseUrl: runner.url });
  const loadBefore = machineLoad();
  try {
    const direct: number[] = [];
    const viaClient: number[] = [];
    const clientCpu: number[] = [];
    const viaCli: number[] = [];
    const cliCpu: number[] = [];
    const cliRunnerCpu: number[] = [];
    let counted = { lines: 0, noise: 0, bytes: 0 };
    for (let r = 0; r < ROUNDS; r++) {
      const d = await timeShell(`python3 ${q(file)}`);
      if (d.code !== 0) throw new Error('direct run failed');
      direct.push(d.seconds);

      const c = { lines: 0, noise: 0, bytes: 0 };
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const outcome = await client.submit(
        { leaderboard: 'script', gpu: 'CPU', mode: 'test', file: { name: 'print100mb.py', content: program } },
        {
          onEvent(e) {
            if (e.event !== 'output') return;
            c.lines++;
            c.bytes += e.data.text.length + 1;
            if (e.data.noise) c.noise++;
          },
        },
      );
      viaClient.push((performance.now() - t0) / 1000);
      clientCpu.push(cpuSecondsSince(cpu0));
      if (outcome.kind !== 'result') throw new Error(`run failed: ${JSON.stringify(outcome.error)}`);
      counted = c;

      const cpu1 = process.cpuUsage();
      const k = await timeShell(`${q(process.execPath)} ${q(cli)} submit ${q(file)} --server ${runner.url}`);
      cliRunnerCpu.push(cpuSecondsSince(cpu1));
      if (k.code !== 0) throw new Error(`kernel-runner submit failed (exit ${k.code})`);
      viaCli.push(k.seconds);
      if (k.cpuSeconds !== null) cliCpu.push(k.cpuSeconds);
    }
    const d = median(direct);
    const c = median(viaClient);
    const k = median(viaCli);
    const rate = (s: number) => `${(TOTAL_MB / s).toFixed(0).padStart(4)} MB/s`;
    const cpu = (s: number) => `${s.toFixed(2)} CPU s`;
    console.log(`live output of a program printing ${TOTAL_MB} MB of mixed lines (${counted.lines} lines, ${counted.noise} noise), median of ${ROUNDS}`);
    console.log(`  machine: ${loadBefore} at start, ${machineLoad()} at end`);
    console.log(`  peer  python3 prog.py > /dev/null                 ${d.toFixed(2)} s ${rate(d)}`);
    console.log(
      `  ours  runner + client core, one process           ${c.toFixed(2)} s ${rate(c)}  ${(c / d).toFixed(1)}x the peer  ` +
        `(${cpu(median(clientCpu))}: runner and client together, ${rate(median(clientCpu))} of CPU)`,
    );
    console.log(
      `  ours  kernel-runner submit --server > /dev/null   ${k.toFixed(2)} s ${rate(k)}  ${(k / d).toFixed(1)}x the peer  ` +
        `(CLI ${cliCpu.length ? cpu(median(cliCpu)) : '? CPU s'}, runner ${cpu(median(cliRunnerCpu))})`,
    );
    const worst = Math.min(TOTAL_MB / c, TOTAL_MB / k);
    console.log(summary('output-throughput', `client core ${(TOTAL_MB / c).toFixed(0)} MB/s, CLI ${(TOTAL_MB / k).toFixed(0)} MB/s end to end`, `>= ${TARGET_MB_S} MB/s`, worst >= TARGET_MB_S));
  } finally {
    await runner.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
