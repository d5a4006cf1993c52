// The runner's own cost for live output: a program printing 100 MB of mixed lines (program output + rocprof-style
// noise, stdout and stderr), streamed by the runner (classify every line, log every event, send it) to a client in
// ANOTHER process that only counts bytes, so the figure is the service's capacity, apart from any client's
// parsing (bench/output-throughput.bench.ts measures our client end to end). Peer in the same run: the program
// `> /dev/null`. Also reports the runner's CPU seconds per 100 MB.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXTENSIONS_HEADER } from '../src/core/protocol/api';
import { startRunner } from '../src/runner/index';
import { machineLoad, median, summary, mixedOutputProgram } from './support';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MB = 1024 * 1024;
const TOTAL_MB = Number(process.env.BENCH_MB ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const program = mixedOutputProgram(TOTAL_MB);

// The client: POSTs the program with the extensions header and counts the bytes of the event stream.
const clientSource = `
const [url, header] = process.argv.slice(1);
const fd = new FormData();
fd.append('file', new Blob([process.env.KR_PROGRAM]), 'print.py');
const t = performance.now();
const res = await fetch(url, { method: 'POST', body: fd, headers: { [header]: '1' } });
let bytes = 0, tail = '', seen = false;
for await (const chunk of res.body) {
  bytes += chunk.length;
  const text = tail + Buffer.from(chunk).toString('latin1');
  seen ||= text.includes('\\nevent: result\\n');
  tail = text.slice(-32);
}
if (!seen) { console.error('no result event'); process.exit(1); }
console.log(JSON.stringify({ seconds: (performance.now() - t) / 1000, bytes }));
`;

function runClient(url: string): Promise<{ seconds: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', clientSource, `${url}/script/CPU/test`, EXTENSIONS_HEADER],
      {
        env: { ...process.env, KR_PROGRAM: program },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out) as { seconds: number; bytes: number })
        : reject(new Error(`client exited ${code}`)),
    );
  });
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kr-bench-'));
  const runner = await startRunner({
    port: 0,
    dataDir,
    profiler: 'none',
    problemsDir: path.join(root, 'examples/problems'),
    scriptTimeoutSec: 600,
  });
  const loadBefore = machineLoad();
  try {
    const direct: number[] = [];
    const served: number[] = [];
    const cpu: number[] = [];
    let sseBytes = 0;
    for (let r = 0; r < ROUNDS; r++) {
      const t0 = performance.now();
      if (spawnSync('sh', ['-c', 'python3 - > /dev/null 2>&1'], { input: program }).status !== 0)
        throw new Error('direct run failed');
      direct.push((performance.now() - t0) / 1000);
      const c0 = process.cpuUsage();
      const s = await runClient(runner.url);
      const c = process.cpuUsage(c0);
      served.push(s.seconds);
      cpu.push((c.user + c.system) / 1e6);
      sseBytes = s.bytes;
    }
    const d = median(direct);
    const s = median(served);
    const rate = (sec: number) => `${(TOTAL_MB / sec).toFixed(0)} MB/s`;
    console.log(
      `runner live output, ${TOTAL_MB} MB of mixed lines, median of ${ROUNDS} (machine: ${loadBefore} at start, ${machineLoad()} at end):`,
    );
    console.log(`  peer  python3 > /dev/null                 ${d.toFixed(2)} s  ${rate(d)}`);
    console.log(
      `  ours  runner -> byte-counting SSE client  ${s.toFixed(2)} s  ${rate(s)}  ${(s / d).toFixed(1)}x the peer  (${(sseBytes / MB).toFixed(0)} MB of events)`,
    );
    console.log(
      `  runner CPU per run: ${median(cpu).toFixed(2)} s (user+sys, all its threads) = ${rate(median(cpu))} of CPU`,
    );
    // The runner alone has no target of its own: the end-to-end target (output-throughput) needs it well above.
    console.log(
      summary(
        'runner',
        `runner alone ${rate(s)} (${rate(median(cpu))} of CPU)`,
        '>= 50 MB/s end to end, so the runner alone well above',
        TOTAL_MB / s >= 50,
      ),
    );
  } finally {
    await runner.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
