// Live output end to end: a program printing 100 MB of mixed lines (program output and rocprof-style noise, on
// stdout and stderr) run through the runner and received by our client, vs the same program `> /dev/null`.
//  - client core: createRunnerClient().submit, every output event delivered to onEvent;
//  - the CLI: `kernel-runner submit --server URL > /dev/null` (parses, filters, prints every program line).
// Median of ROUNDS. Target: >= 50 MB/s end to end.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRunnerClient } from '../src/core/client/index';
import { startRunner } from '../src/runner/index';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli.cjs');
const MB = 1024 * 1024;
const TOTAL_MB = Number(process.env.BENCH_MB ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

// A ~1 MB block of mixed lines, written TOTAL_MB times.
const program = `
import random, sys
random.seed(11)
out, err, size, i = [], [], 0, 0
while size < ${MB}:
    r = random.random()
    if r < 0.55:
        line = f"step {i}: loss={random.random():.6f} time={random.random()*1000:.2f} us\\n"; out.append(line)
    elif r < 0.7:
        line = f"W20250710 21:33:25.713947 140172743004992 simple_timer.cpp:55] [rocprofv3] tool initialization :: {random.random():.6f} sec\\n"; err.append(line)
    elif r < 0.8:
        line = f"[{random.random()*1000:.3f}]       perfetto.cc:47304 Configured tracing session 1, #sources:1, duration:0 ms\\n"; err.append(line)
    else:
        line = f"note {i}: the program's own stderr " + "y" * int(random.random() * 100) + "\\n"; err.append(line)
    size += len(line); i += 1
o, e = "".join(out).encode(), "".join(err).encode()
for _ in range(${TOTAL_MB}):
    sys.stdout.buffer.write(o); sys.stderr.buffer.write(e)
`;

/** Runs a shell command asynchronously (the runner under test lives in this process); resolves with its exit code. */
function sh(command: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

async function main(): Promise<void> {
  if (!existsSync(cli)) throw new Error('run `npm run build` first (dist/cli.cjs is missing)');
  mkdirSync(path.join(root, 'bench/data'), { recursive: true });
  const file = path.join(root, 'bench/data/print100mb.py');
  writeFileSync(file, program);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kr-bench-throughput-'));
  const runner = await startRunner({ port: 0, dataDir, profiler: 'none', scriptTimeoutSec: 600 });
  const client = createRunnerClient({ baseUrl: runner.url });
  try {
    const direct: number[] = [];
    const viaClient: number[] = [];
    const viaCli: number[] = [];
    let counted = { lines: 0, noise: 0, bytes: 0 };
    for (let r = 0; r < ROUNDS; r++) {
      let t0 = performance.now();
      if (spawnSync('sh', ['-c', `python3 '${file}' > /dev/null 2>&1`]).status !== 0) throw new Error('direct run failed');
      direct.push((performance.now() - t0) / 1000);

      const c = { lines: 0, noise: 0, bytes: 0 };
      t0 = performance.now();
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
      if (outcome.kind !== 'result') throw new Error(`run failed: ${JSON.stringify(outcome.error)}`);
      counted = c;

      t0 = performance.now();
      const code = await sh(`'${process.execPath}' '${cli}' submit '${file}' --server ${runner.url} > /dev/null 2>&1`);
      viaCli.push((performance.now() - t0) / 1000);
      if (code !== 0) throw new Error(`kernel-runner submit failed (exit ${code})`);
    }
    const d = median(direct);
    const c = median(viaClient);
    const k = median(viaCli);
    const rate = (s: number) => `${(TOTAL_MB / s).toFixed(0)} MB/s`;
    console.log(`live output of a program printing ${TOTAL_MB} MB of mixed lines, median of ${ROUNDS}`);
    console.log(`  python3 prog.py > /dev/null               ${d.toFixed(2)} s  ${rate(d)}`);
    console.log(`  runner -> client core (every line)        ${c.toFixed(2)} s  ${rate(c)}  ratio ${(c / d).toFixed(1)}x  (${counted.lines} lines, ${counted.noise} noise, ${(counted.bytes / MB).toFixed(1)} MB)`);
    console.log(`  kernel-runner submit --server > /dev/null ${k.toFixed(2)} s  ${rate(k)}  ratio ${(k / d).toFixed(1)}x`);
    console.log(`  target >= 50 MB/s end to end: client ${TOTAL_MB / c >= 50 ? 'met' : 'NOT met'}, CLI ${TOTAL_MB / k >= 50 ? 'met' : 'NOT met'}`);
  } finally {
    await runner.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
