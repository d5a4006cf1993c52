// Live output end to end: a program printing 100 MB of mixed lines (program output and rocprof-style noise, on
// stdout and stderr) run through the runner and received by our client, against the same program `> /dev/null`
// (the peer, measured in the same round):
//  - the CLI: `kernel-runner submit --server URL > /dev/null` (parses, filters, prints every program line) against
//    a `kernel-runner serve` in its own process, as a user runs them: the measure;
//  - client core: createRunnerClient().submit with every output line delivered to onEvent; the runner lives in
//    this process too (as the VS Code extension's embedded runner does), so both share one thread;
//  - a 2 GB flood through the CLI, every line stored and streamed (--max-job-output 4GiB), for the runner's peak RSS
//    (VmHWM of the serve process).
// Wall time is the target's measure; CPU seconds are printed too: on a shared machine they say what the code
// costs while the wall time also says how busy the machine was. Median of ROUNDS. Goal >= 100 MB/s, must >= 60 MB/s
// (CLI end to end); runner peak RSS <= 200 MB.
// With BENCH_PEER=<an older checkout, built> (support.ts) its CLI and its own `serve` run the same rounds and the same
// flood right after ours: the A/B of a change, under the same load.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRunnerClient } from '../src/core/client/index';
import { expandOutput } from '../src/core/protocol/api';
import { startRunner } from '../src/runner/index';
import {
  cpuSecondsSince,
  machineLoad,
  median,
  peerCli,
  q,
  startServe as startServeOf,
  summary,
  timeShell,
  mixedOutputProgram,
} from './support';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli.cjs');
const TOTAL_MB = Number(process.env.BENCH_MB ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const FLOOD_MB = Number(process.env.BENCH_FLOOD_MB ?? 2048);
const GOAL_MB_S = 100;
const MUST_MB_S = 60;
const RSS_LIMIT_MB = 200;

/** `kernel-runner serve` of the built CLI `cliPath` in its own process, on a fresh data dir. */
function startServe(dataDir: string, cliPath = cli): Promise<{ child: ChildProcess; url: string }> {
  return startServeOf(cliPath, dataDir, ['--script-timeout', '900', '--max-job-output', '4GiB']);
}

/** Peak resident set of a process so far (VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}

const program = mixedOutputProgram(TOTAL_MB);

/** CPU seconds a process has used (utime + stime of /proc/PID/stat, in clock ticks of 1/100 s). */
function processCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function main(): Promise<void> {
  if (!existsSync(cli)) throw new Error('run `npm run build` first (dist/cli.cjs is missing)');
  mkdirSync(path.join(root, 'bench/data'), { recursive: true });
  const file = path.join(root, 'bench/data/print100mb.py');
  writeFileSync(file, program);
  const flood = path.join(root, 'bench/data/flood.py');
  writeFileSync(flood, mixedOutputProgram(FLOOD_MB));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kr-bench-throughput-'));
  const serveDir = mkdtempSync(path.join(tmpdir(), 'kr-bench-serve-'));
  const runner = await startRunner({ port: 0, dataDir, profiler: 'none', scriptTimeoutSec: 600 });
  const serve = await startServe(serveDir);
  const servePid = serve.child.pid as number;
  const peer = peerCli();
  const peerDir = peer ? mkdtempSync(path.join(tmpdir(), 'kr-bench-peer-')) : null;
  const peerServe = peer && peerDir ? await startServe(peerDir, peer) : null;
  const peerCliRuns: number[] = [];
  const peerCliCpu: number[] = [];
  const peerServeCpu: number[] = [];
  const client = createRunnerClient({ baseUrl: runner.url });
  const loadBefore = machineLoad();
  try {
    const direct: number[] = [];
    const viaClient: number[] = [];
    const clientCpu: number[] = [];
    const viaCli: number[] = [];
    const cliCpu: number[] = [];
    const serveCpu: number[] = [];
    let counted = { lines: 0, noise: 0, bytes: 0 };
    for (let r = 0; r < ROUNDS; r++) {
      const d = await timeShell(`python3 ${q(file)}`);
      if (d.code !== 0) throw new Error('direct run failed');
      direct.push(d.seconds);

      const cpu1 = processCpuSeconds(servePid);
      const k = await timeShell(`${q(process.execPath)} ${q(cli)} submit ${q(file)} --server ${serve.url}`);
      serveCpu.push(processCpuSeconds(servePid) - cpu1);
      if (k.code !== 0) throw new Error(`kernel-runner submit failed (exit ${k.code})`);
      viaCli.push(k.seconds);
      if (k.cpuSeconds !== null) cliCpu.push(k.cpuSeconds);
      if (peer && peerServe) {
        const pid = peerServe.child.pid as number;
        const before = processCpuSeconds(pid);
        const b = await timeShell(`${q(process.execPath)} ${q(peer)} submit ${q(file)} --server ${peerServe.url}`);
        peerServeCpu.push(processCpuSeconds(pid) - before);
        if (b.code !== 0) throw new Error(`the peer's submit failed (exit ${b.code})`);
        peerCliRuns.push(b.seconds);
        if (b.cpuSeconds !== null) peerCliCpu.push(b.cpuSeconds);
      }

      const c = { lines: 0, noise: 0, bytes: 0 };
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const outcome = await client.submit(
        { leaderboard: 'script', gpu: 'CPU', mode: 'test', file: { name: 'print100mb.py', content: program } },
        {
          onEvent(e) {
            if (e.event !== 'output') return;
            for (const line of expandOutput(e.data)) {
              c.lines++;
              c.bytes += line.text.length + 1;
              if (line.noise) c.noise++;
            }
          },
        },
      );
      viaClient.push((performance.now() - t0) / 1000);
      clientCpu.push(cpuSecondsSince(cpu0));
      if (outcome.kind !== 'result') throw new Error(`run failed: ${JSON.stringify(outcome.error)}`);
      counted = c;
    }
    const d = median(direct);
    const c = median(viaClient);
    const k = median(viaCli);
    const rate = (s: number, mb = TOTAL_MB) => `${(mb / s).toFixed(0).padStart(4)} MB/s`;
    const cpu = (s: number) => `${s.toFixed(2)} CPU s`;
    console.log(
      `live output of a program printing ${TOTAL_MB} MB of mixed lines (${counted.lines} lines, ${counted.noise} noise), median of ${ROUNDS}`,
    );
    console.log(`  machine: ${loadBefore} at start`);
    console.log(`  peer  python3 prog.py > /dev/null                 ${d.toFixed(2)} s ${rate(d)}`);
    console.log(
      `  ours  kernel-runner submit --server > /dev/null   ${k.toFixed(2)} s ${rate(k)}  ${(k / d).toFixed(1)}x the peer  ` +
        `(CLI ${cliCpu.length ? cpu(median(cliCpu)) : '? CPU s'}, serve ${cpu(median(serveCpu))})`,
    );
    console.log(
      `  ours  runner + client core, one process           ${c.toFixed(2)} s ${rate(c)}  ${(c / d).toFixed(1)}x the peer  ` +
        `(${cpu(median(clientCpu))}: runner and client together)`,
    );

    const floodStart = performance.now();
    const f = await timeShell(`${q(process.execPath)} ${q(cli)} submit ${q(flood)} --server ${serve.url}`);
    const floodSeconds = (performance.now() - floodStart) / 1000;
    if (f.code !== 0) throw new Error(`the flood failed (exit ${f.code})`);
    const rss = peakRssMb(servePid);
    console.log(
      `  flood ${FLOOD_MB} MB through kernel-runner submit --server: ${floodSeconds.toFixed(1)} s ${rate(floodSeconds, FLOOD_MB)}; serve's peak RSS ${rss.toFixed(0)} MB (limit ${RSS_LIMIT_MB})`,
    );
    if (peer && peerServe) {
      const t0 = performance.now();
      const pf = await timeShell(`${q(process.execPath)} ${q(peer)} submit ${q(flood)} --server ${peerServe.url}`);
      const peerFloodSeconds = (performance.now() - t0) / 1000;
      if (pf.code !== 0) throw new Error(`the peer's flood failed (exit ${pf.code})`);
      const pk = median(peerCliRuns);
      console.log(`  A/B against BENCH_PEER (${peer}), same rounds, a serve process each:`);
      console.log(
        `    CLI end to end   ours ${rate(k)} (CLI ${cliCpu.length ? cpu(median(cliCpu)) : '? CPU s'}, serve ${cpu(median(serveCpu))}), peer ${rate(pk)} (CLI ${peerCliCpu.length ? cpu(median(peerCliCpu)) : '? CPU s'}, serve ${cpu(median(peerServeCpu))}); ours/peer time ${(k / pk).toFixed(2)}x`,
      );
      console.log(
        `    flood ${FLOOD_MB} MB    ours ${rate(floodSeconds, FLOOD_MB)} peak RSS ${rss.toFixed(0)} MB, peer ${rate(peerFloodSeconds, FLOOD_MB)} peak RSS ${peakRssMb(peerServe.child.pid as number).toFixed(0)} MB`,
      );
    }
    console.log(`  machine: ${machineLoad()} at end`);
    const cliRate = TOTAL_MB / k;
    console.log(
      summary(
        'output-throughput',
        `CLI ${cliRate.toFixed(0)} MB/s end to end (${(k / d).toFixed(1)}x python3 > /dev/null), client core ${(TOTAL_MB / c).toFixed(0)} MB/s, serve peak RSS ${rss.toFixed(0)} MB in a ${FLOOD_MB} MB flood`,
        `>= ${MUST_MB_S} MB/s (goal ${GOAL_MB_S}), RSS <= ${RSS_LIMIT_MB} MB`,
        cliRate >= MUST_MB_S && rss <= RSS_LIMIT_MB,
      ),
    );
  } finally {
    serve.child.kill('SIGTERM');
    await once(serve.child, 'exit');
    if (peerServe) {
      peerServe.child.kill('SIGTERM');
      await once(peerServe.child, 'exit');
    }
    if (peerDir) rmSync(peerDir, { recursive: true, force: true });
    await runner.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(serveDir, { recursive: true, force: true });
  }
}

void main();
