// Overhead of `kernel-runner submit` on a trivial script, against its peer: running the same script with python3,
// measured in the same round (interleaved, so both see the same machine load):
//  - embedded runner (no --server: the runner starts and stops inside the command) -- the target,
//  - an already running runner (--server: client + queue + executor only),
//  - and, for reference, node loading the CLI bundle alone (`--help`).
// The CLI is run as users run it (dist/cli.cjs, whose code cache is warmed by the first run). CPU seconds of each
// command are printed too: on a shared machine they say what the command costs while the wall time also says
// how busy the machine was. Median of N runs each. Target: embedded overhead (median minus python3's) < 300 ms.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRunner } from '../src/runner/index';
import { machineLoad, median, q, summary, timeShell } from './support';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli.cjs');
const N = Number(process.env.BENCH_RUNS ?? 15);
const TARGET_MS = 300;

interface Series {
  wall: number[];
  cpu: number[];
}

async function main(): Promise<void> {
  if (!existsSync(cli)) throw new Error('run `npm run build` first (dist/cli.cjs is missing)');
  const data = path.join(root, 'bench/data');
  mkdirSync(data, { recursive: true });
  const script = path.join(data, 'trivial.py');
  writeFileSync(script, 'print("hello")\n');
  const cwd = mkdtempSync(path.join(tmpdir(), 'kr-bench-overhead-'));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kr-bench-overhead-data-'));
  const runner = await startRunner({ port: 0, dataDir, profiler: 'none', heartbeatMs: 15_000 });
  const env = { ...process.env, NO_COLOR: '1' };
  const node = q(process.execPath);
  const commands = {
    python: `python3 ${q(script)}`,
    embedded: `${node} ${q(cli)} submit ${q(script)}`,
    server: `${node} ${q(cli)} submit ${q(script)} --server ${runner.url}`,
    nodeOnly: `${node} ${q(cli)} --help`,
  };
  const series: Record<keyof typeof commands, Series> = {
    python: { wall: [], cpu: [] },
    embedded: { wall: [], cpu: [] },
    server: { wall: [], cpu: [] },
    nodeOnly: { wall: [], cpu: [] },
  };
  const loadBefore = machineLoad();
  try {
    // warm the file cache and the CLI's code cache (one per command)
    for (const cmd of Object.values(commands)) await timeShell(cmd, { env, cwd });
    for (let i = 0; i < N; i++) {
      for (const [name, cmd] of Object.entries(commands) as Array<[keyof typeof commands, string]>) {
        const r = await timeShell(cmd, { env, cwd });
        if (r.code !== 0) throw new Error(`${cmd} failed (exit ${r.code})`);
        series[name].wall.push(r.seconds * 1000);
        if (r.cpuSeconds !== null) series[name].cpu.push(r.cpuSeconds * 1000);
      }
    }
    const wall = (name: keyof typeof commands) => median(series[name].wall);
    const cpu = (name: keyof typeof commands) => (series[name].cpu.length ? `${median(series[name].cpu).toFixed(0)} ms CPU` : '? ms CPU');
    const p = wall('python');
    const line = (label: string, name: keyof typeof commands) =>
      `  ours  ${label.padEnd(40)} ${wall(name).toFixed(0).padStart(5)} ms  overhead ${(wall(name) - p).toFixed(0).padStart(4)} ms  ${(wall(name) / p).toFixed(1)}x the peer  (${cpu(name)})`;
    console.log(`kernel-runner submit on a trivial script, median of ${N} interleaved runs`);
    console.log(`  machine: ${loadBefore} at start, ${machineLoad()} at end`);
    console.log(`  peer  ${'python3 trivial.py'.padEnd(40)} ${p.toFixed(0).padStart(5)} ms  (${cpu('python')})`);
    console.log(line('kernel-runner submit (embedded runner)', 'embedded'));
    console.log(line('kernel-runner submit --server (running)', 'server'));
    console.log(`  (node loading the CLI alone, --help: ${wall('nodeOnly').toFixed(0)} ms, ${cpu('nodeOnly')})`);
    const overhead = wall('embedded') - p;
    console.log(summary('submit-overhead', `embedded runner overhead ${overhead.toFixed(0)} ms over python3`, `< ${TARGET_MS} ms`, overhead < TARGET_MS));
  } finally {
    await runner.close();
    rmSync(cwd, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
