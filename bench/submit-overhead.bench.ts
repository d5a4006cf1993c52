// Overhead of `kernel-runner submit` on a trivial script, against running the same script with python3:
//  - embedded runner (no --server: the runner starts and stops inside the command) -- the target,
//  - an already running runner (--server: client + queue + executor only).
// Median of N runs each, measured in the same session. Target: embedded overhead < 300 ms.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRunner } from '../src/runner/index';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli.cjs');
const N = Number(process.env.BENCH_RUNS ?? 15);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** Runs a command to its end (asynchronously: the runner under test lives in this process). */
function timeIt(cmd: string, args: string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      if (code !== 0) reject(new Error(`${cmd} ${args.join(' ')} failed: ${stderr}`));
      else resolve(ms);
    });
  });
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
  try {
    const python: number[] = [];
    const embedded: number[] = [];
    const server: number[] = [];
    const nodeOnly: number[] = [];
    await timeIt(process.execPath, [cli, 'submit', script], cwd); // warm the file cache
    for (let i = 0; i < N; i++) {
      python.push(await timeIt('python3', [script], cwd));
      embedded.push(await timeIt(process.execPath, [cli, 'submit', script], cwd));
      server.push(await timeIt(process.execPath, [cli, 'submit', script, '--server', runner.url], cwd));
      nodeOnly.push(await timeIt(process.execPath, [cli, '--help'], cwd));
    }
    const p = median(python);
    const e = median(embedded);
    const s = median(server);
    const n = median(nodeOnly);
    console.log(`kernel-runner submit on a trivial script, median of ${N}`);
    console.log(`  python3 trivial.py                      ${p.toFixed(0)} ms`);
    console.log(`  kernel-runner submit (embedded runner)  ${e.toFixed(0)} ms   overhead ${(e - p).toFixed(0)} ms   ratio ${(e / p).toFixed(1)}x`);
    console.log(`  kernel-runner submit --server (running) ${s.toFixed(0)} ms   overhead ${(s - p).toFixed(0)} ms   ratio ${(s / p).toFixed(1)}x`);
    console.log(`  (node loading the CLI bundle alone: ${n.toFixed(0)} ms)`);
    console.log(`  target: embedded overhead < 300 ms: ${e - p < 300 ? 'met' : 'NOT met'}`);
  } finally {
    await runner.close();
    rmSync(cwd, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
