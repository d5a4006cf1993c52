// Filter throughput: the noise classifier in-process and `kernel-runner filter` end to end (built dist/cli.cjs)
// on a ~200 MB mixed rocprof log, against peers measured in the same run: `cat > /dev/null` (the I/O floor),
// a Node pass-through (stdin piped to stdout: Node's own stream cost) and `grep -v -E` with the noise prefixes
// (what one would do in a shell, without ANSI/CR/fatal handling). Prints medians and ratios.
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, openSync, closeSync, statSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLineClassifier } from '../src/core/noise/index';
import { seededRandom as rng } from '../test/support/random';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = path.join(root, 'bench/data');
const logPath = path.join(dataDir, 'filter-mixed-v1.log');
const cli = path.join(root, 'dist/cli.cjs');
const TARGET_BYTES = 200 * 1024 * 1024;
const ROUNDS = 3;

/** A realistic mix: program lines of varied length (some non-ASCII, some CRLF or progress CRs), coloured glog
 *  lines whose reset lands on the next line, Perfetto SDK lines, rocprofv3 warnings, and rare 16 KB lines. */
async function generate(): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const next = rng(42);
  const pick = <T>(xs: T[]): T => xs[Math.floor(next() * xs.length)] as T;
  const kernels = [
    'gemm_fp8_kernel',
    'vectorAdd',
    'softmax_warp',
    'ck::kernel_batched_gemm_xdl<...>',
    'transpose_tile',
  ];
  const ts = () =>
    `${String(Math.floor(next() * 24)).padStart(2, '0')}:${String(Math.floor(next() * 60)).padStart(2, '0')}:${String(Math.floor(next() * 60)).padStart(2, '0')}.${String(Math.floor(next() * 1e6)).padStart(6, '0')}`;
  const counters = Array.from({ length: 900 }, (_, i) => `SQ_COUNTER_${i}`).join(', ');
  const out = createWriteStream(logPath);
  let written = 0;
  let colourPending = false;
  let block: string[] = [];
  let i = 0;
  while (written < TARGET_BYTES) {
    const r = next();
    let line: string;
    const reset = colourPending ? '\x1b[m' : '';
    colourPending = false;
    if (r < 0.55) {
      line = `${reset}step ${i} kernel=${pick(kernels)} time=${(next() * 1000).toFixed(3)} us loss=${next().toFixed(6)}\n`;
    } else if (r < 0.6) {
      line = `${reset}résultat ✓ ${pick(kernels)} → ${(next() * 100).toFixed(2)}% 🚀\r\n`;
    } else if (r < 0.62) {
      line = `${reset}progress ${Math.floor(next() * 100)}%\rprogress 100%\n`;
    } else if (r < 0.64) {
      line = `${reset}${'x'.repeat(Math.floor(next() * 400))}\n`;
    } else if (r < 0.85) {
      const lvl = next() < 0.8 ? 'W' : 'E';
      line = `${reset}\x1b[0;${lvl === 'W' ? 33 : 31}m${lvl}20250710 ${ts()} 140172743004992 simple_timer.cpp:55] [rocprofv3] '${pick(kernels)}' ::     ${next().toFixed(6)} sec\n`;
      colourPending = true;
    } else if (r < 0.95) {
      line = `${reset}[${(next() * 500).toFixed(3)}]       perfetto.cc:${40000 + Math.floor(next() * 20000)} Configured tracing session 1, #sources:1, duration:0 ms\n`;
    } else if (r < 0.9999) {
      line = `${reset}[rocprofv3] Warning: option --kernel-trace is implied by --runtime-trace (run ${i})\n`;
    } else {
      line = `${reset}W20250328 ${ts()} 140180820113408 tool.cpp:930] Unable to find all counters for agent 1 (gpu-0, gfx950) in [${counters}]\n`;
    }
    block.push(line);
    written += Buffer.byteLength(line);
    i++;
    if (block.length === 4096) {
      if (!out.write(block.join(''))) await once(out, 'drain');
      block = [];
    }
  }
  out.end(block.join(''));
  await once(out, 'finish');
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

async function classifierInProcess(): Promise<{ seconds: number; program: number; noise: number }> {
  let program = 0;
  let noise = 0;
  const c = createLineClassifier({
    onLine: (l) => {
      if (l.noise) noise++;
      else program++;
    },
  });
  const t0 = performance.now();
  for await (const chunk of createReadStream(logPath, { highWaterMark: 256 * 1024 })) c.feed(chunk as Buffer);
  c.flush();
  return { seconds: (performance.now() - t0) / 1000, program, noise };
}

function timeCommand(cmd: string, args: string[], extraEnv: Record<string, string> = {}): number {
  const input = openSync(logPath, 'r');
  const output = openSync('/dev/null', 'w');
  try {
    const t0 = performance.now();
    const r = spawnSync(cmd, args, { stdio: [input, output, 'pipe'], env: { ...process.env, ...extraEnv } });
    const seconds = (performance.now() - t0) / 1000;
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
    return seconds;
  } finally {
    closeSync(input);
    closeSync(output);
  }
}

async function main(): Promise<void> {
  if (!existsSync(cli)) throw new Error('dist/cli.cjs is missing: run `node scripts/build.mjs` (npm run bench does)');
  if (!existsSync(logPath) || statSync(logPath).size < TARGET_BYTES) {
    const t0 = performance.now();
    await generate();
    console.log(`generated ${logPath} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  const mb = statSync(logPath).size / 1e6;
  const grepNoise =
    '^(\x1b\\[[0-9;]*m)*([IWE][0-9]{8} [0-9:.]+ +[0-9]+ [^ ]+:[0-9]+\\]|\\[ *[0-9]+\\.[0-9]{3}\\] +[^ ]+:[0-9]+ |\\[rocprofv3\\] )';
  const peers: Array<[string, () => Promise<number> | number]> = [
    ['cat > /dev/null', () => timeCommand('cat', [])],
    ['node stdin.pipe(stdout)', () => timeCommand(process.execPath, ['-e', 'process.stdin.pipe(process.stdout)'])],
    // GNU grep stops at the first match when its output is /dev/null, so its output goes through a pipe.
    [
      'grep -v -E (noise prefixes) | cat',
      () => timeCommand('sh', ['-c', 'grep -v -E "$NOISE" | cat > /dev/null'], { LC_ALL: 'C', NOISE: grepNoise }),
    ],
    ['classifier in-process', async () => (await classifierInProcess()).seconds],
    ['kernel-runner filter', () => timeCommand(process.execPath, [cli, 'filter'])],
    ['kernel-runner filter --show-noise', () => timeCommand(process.execPath, [cli, 'filter', '--show-noise'])],
  ];
  const times = new Map<string, number[]>(peers.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of peers) times.get(name)?.push(await run());
  }
  const counts = await classifierInProcess();
  const cat = median(times.get('cat > /dev/null') ?? []);
  console.log(
    `input: ${mb.toFixed(1)} MB, ${counts.program + counts.noise} lines (${counts.noise} noise); median of ${ROUNDS} rounds`,
  );
  console.log(`${'what'.padEnd(36)} ${'seconds'.padStart(8)} ${'MB/s'.padStart(8)} ${'x cat'.padStart(8)}`);
  for (const [name] of peers) {
    const s = median(times.get(name) ?? []);
    console.log(
      `${name.padEnd(36)} ${s.toFixed(3).padStart(8)} ${(mb / s).toFixed(0).padStart(8)} ${(s / cat).toFixed(1).padStart(8)}`,
    );
  }
  const filter = median(times.get('kernel-runner filter') ?? []);
  const grep = median(times.get('grep -v -E (noise prefixes) | cat') ?? []);
  const pass = median(times.get('node stdin.pipe(stdout)') ?? []);
  console.log(
    `ratios: filter/cat ${(filter / cat).toFixed(1)}, filter/node-pass-through ${(filter / pass).toFixed(2)}, filter/grep ${(filter / grep).toFixed(2)}`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
