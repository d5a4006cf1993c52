// `kernel-runner summarize --digest` on the 1,000,000-dispatch ROCm 7.0 kernel_trace.csv of summarize.bench.ts,
// against the full `summarize --json` of the same file in the same run (both child processes of the built CLI,
// start-up included). Prints each round, the medians, the ratio digest/json, and the digest's size. Targets
// (issue 22): the digest in < 2 s and <= 16 KB.
//
//   node --import tsx bench/digest.bench.ts        (BENCH_ROUNDS=3, BENCH_ROWS=1000000 by default)
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureKernelTrace } from './kernelTraceData';
import { machineLoad, median, summary as resultLine } from './support';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli.cjs');
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

function run(args: string[]): { seconds: number; bytes: number } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 30 });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return { seconds, bytes: Buffer.byteLength(r.stdout) };
}

const file = await ensureKernelTrace(path.join(root, 'bench/data'), { rows: ROWS, kernels: 300, seed: 7 });
console.log(`digest of ${ROWS} dispatches (${path.basename(file)}); ${machineLoad()}`);
run(['summarize', file, '--digest']); // untimed first run: page cache, code cache
const digest: number[] = [];
const full: number[] = [];
let digestBytes = 0;
let fullBytes = 0;
for (let i = 0; i < ROUNDS; i++) {
  const d = run(['summarize', file, '--digest']);
  const j = run(['summarize', file, '--json']);
  digest.push(d.seconds);
  full.push(j.seconds);
  digestBytes = d.bytes;
  fullBytes = j.bytes;
  console.log(
    `round ${i + 1}: --digest ${d.seconds.toFixed(2)} s (${d.bytes} bytes), --json ${j.seconds.toFixed(2)} s (${j.bytes} bytes), ratio ${(d.seconds / j.seconds).toFixed(2)}`,
  );
}
const md = median(digest);
const mj = median(full);
console.log(
  `median: --digest ${md.toFixed(2)} s, --json ${mj.toFixed(2)} s, ratio ${(md / mj).toFixed(2)}; digest ${digestBytes} bytes, summary ${fullBytes} bytes`,
);
console.log(
  resultLine(
    'digest',
    `${md.toFixed(2)} s, ${digestBytes} bytes`,
    '< 2 s and <= 16384 bytes',
    md < 2 && digestBytes <= 16384,
  ),
);
