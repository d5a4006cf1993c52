// Kernels per rocTX range at scale: `summarize` of a run with 1,000,000 dispatches (the summarize bench's
// kernel_trace.csv), one hipLaunchKernel per dispatch in a hip_api_trace.csv and 10 benchmark-case ranges in a
// marker_api_trace.csv, against the same run without the marker trace (so without the attribution pass) in the
// same run. Prints medians, the ratio with/without and peak RSS, and checks that every dispatch landed in its case.
//
//   node --import tsx bench/ranges.bench.ts            (BENCH_ROUNDS=3, BENCH_ROWS=1000000 by default)
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, rmSync, linkSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { TraceSummary } from '../src/core/protocol/traceSummary';
import { ensureKernelTrace } from './kernelTraceData';
import { machineLoad, median, summary } from './support';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli.cjs');
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CASES = 10;
const TIME = '/usr/bin/time';
const API_HEADER = '"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"';

function run(dir: string): { seconds: number; rssMiB: number | null; summary: TraceSummary } {
  const useTime = existsSync(TIME);
  const args = [cli, 'summarize', dir, '--json'];
  const t0 = performance.now();
  const r = spawnSync(useTime ? TIME : process.execPath, useTime ? ['-v', process.execPath, ...args] : args, {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`summarize failed (${r.status}): ${r.stderr}`);
  const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  return { seconds, rssMiB: m ? Number(m[1]) / 1024 : null, summary: JSON.parse(r.stdout) as TraceSummary };
}

/** A launch 5 µs before each dispatch, on its Thread_Id; the cases split the launch times in ten equal counts. */
async function writeRun(kernelFile: string, withMarkers: string, without: string): Promise<number> {
  for (const d of [withMarkers, without]) {
    rmSync(d, { recursive: true, force: true });
    mkdirSync(d, { recursive: true });
    linkSync(kernelFile, path.join(d, '1_kernel_trace.csv'));
  }
  const launches: Array<[number, number, number]> = [];
  let header = true;
  for await (const line of createInterface({ input: createReadStream(kernelFile), crlfDelay: Infinity })) {
    if (header) {
      header = false;
      continue;
    }
    const parts = line.split(',');
    const n = parts.length;
    // from the end: Correlation_Id, Start, End, then 11 numbers; from the start: Kind, Agent, Queue, Stream, Thread
    launches.push([Number(parts[n - 14]), Number(parts[4]), Number(parts[n - 13]) - 5000]);
  }
  launches.sort((a, b) => a[2] - b[2]);
  const hip = createWriteStream(path.join(withMarkers, '1_hip_api_trace.csv'));
  hip.write(`${API_HEADER}\n`);
  for (const [corr, tid, at] of launches) {
    if (!hip.write(`"HIP_RUNTIME_API_EXT","hipLaunchKernel",1,${tid},${corr},${at},${at + 2000}\n`))
      await once(hip, 'drain');
  }
  hip.end();
  await once(hip, 'finish');
  linkSync(path.join(withMarkers, '1_hip_api_trace.csv'), path.join(without, '1_hip_api_trace.csv'));
  const markers = [API_HEADER];
  const tids = [...new Set(launches.map((l) => l[1]))];
  for (let c = 0; c < CASES; c++) {
    const first = launches[Math.floor((c * launches.length) / CASES)] as [number, number, number];
    const last = launches[Math.floor(((c + 1) * launches.length) / CASES) - 1] as [number, number, number];
    for (const tid of tids)
      markers.push(
        `"MARKER_CORE_API","benchmark ${c}: n: ${1024 << c}",1,${tid},${9_000_000 + c},${first[2] - 1},${last[2] + 1}`,
      );
  }
  const m = createWriteStream(path.join(withMarkers, '1_marker_api_trace.csv'));
  m.end(markers.join('\n') + '\n');
  await once(m, 'finish');
  return launches.length;
}

const kernelFile = await ensureKernelTrace(path.join(root, 'bench/data'), { rows: ROWS, kernels: 300, seed: 7 });
const withDir = path.join(root, 'bench/data/ranges-with');
const withoutDir = path.join(root, 'bench/data/ranges-without');
const dispatches = await writeRun(kernelFile, withDir, withoutDir);
console.log(`ranges: ${dispatches} dispatches, ${CASES} cases; ${machineLoad()}`);
const withT: number[] = [];
const withoutT: number[] = [];
let rss: number | null = null;
let last: TraceSummary | null = null;
for (let i = 0; i < ROUNDS; i++) {
  const a = run(withoutDir);
  const b = run(withDir);
  withoutT.push(a.seconds);
  withT.push(b.seconds);
  rss = Math.max(rss ?? 0, b.rssMiB ?? 0);
  last = b.summary;
  console.log(
    `round ${i + 1}: without ranges ${a.seconds.toFixed(2)} s, with ${b.seconds.toFixed(2)} s, ratio ${(b.seconds / a.seconds).toFixed(2)}, RSS ${b.rssMiB?.toFixed(0)} MiB (without ${a.rssMiB?.toFixed(0)} MiB)`,
  );
}
const inCases = last?.markers.reduce((n, m) => n + m.kernels.reduce((k, x) => k + x.calls, 0), 0) ?? 0;
const exact = inCases === dispatches && last?.rangeAttribution?.by === 'correlation';
console.log(`every dispatch in its case: ${exact ? 'yes' : `NO (${inCases} of ${dispatches})`}`);
const ratio = median(withT) / median(withoutT);
console.log(`median: without ${median(withoutT).toFixed(2)} s, with ${median(withT).toFixed(2)} s`);
console.log(
  summary(
    'ranges',
    `attribution costs ${ratio.toFixed(2)}x of a summarize without it, peak RSS ${rss?.toFixed(0)} MiB`,
    'ratio <= 2.0, exact',
    ratio <= 2.0 && exact,
  ),
);
rmSync(withDir, { recursive: true, force: true });
rmSync(withoutDir, { recursive: true, force: true });
if (!exact) process.exitCode = 1;
