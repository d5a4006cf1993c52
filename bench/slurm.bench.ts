// The Slurm executor against the local one, on a real one-node Slurm cluster (test/integration/slurm/cluster.ts,
// 2 CPUs = 2 jobs at a time): (1) submission-to-first-output latency, median of 10, as a ratio to the local
// executor measured in the same run; (2) 50 trivial jobs submitted at once and drained through Slurm: total time,
// every result checked, none lost (the local executor's drain of the same 50 as the peer).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXTENSIONS_HEADER } from '../src/core/protocol/api';
import { startRunner, type RunningRunner } from '../src/runner/index';
import { slurmMissing, startSlurmCluster } from '../test/integration/slurm/cluster';
import { machineLoad, median, summary } from './support';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = 10;
const JOBS = 50;

interface Frame {
  event: string;
  data: string;
}

/** POSTs a script and reads its event stream; resolves with the ms to the first output line and the final frame. */
async function submit(
  url: string,
  code: string,
): Promise<{ firstOutputMs: number | null; result: Frame | null; stdout: string }> {
  const fd = new FormData();
  fd.append('file', new Blob([code]), 'job.py');
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', body: fd, headers: { [EXTENSIONS_HEADER]: '1' } });
  if (!res.body) throw new Error(`no body: ${res.status}`);
  let firstOutputMs: number | null = null;
  let result: Frame | null = null;
  let buf = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body) {
    buf += decoder.decode(chunk as Uint8Array, { stream: true });
    let at: number;
    while ((at = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, at);
      buf = buf.slice(at + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
      if (event === 'output' && firstOutputMs === null && data.includes('"stdout"'))
        firstOutputMs = performance.now() - t0;
      if (event === 'result' || event === 'error') result = { event, data };
    }
  }
  let stdout = '';
  if (result?.event === 'result') {
    const parsed = JSON.parse(result.data) as {
      results: { runs: Record<string, { run: { stdout: string } | null }> }[];
    };
    stdout = parsed.results[0]?.runs.test?.run?.stdout ?? '';
  }
  return { firstOutputMs, result, stdout };
}

async function latency(runner: RunningRunner, gpu: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const r = await submit(`${runner.url}/script/${gpu}/test`, 'print("first", flush=True)\n');
    if (r.firstOutputMs === null) throw new Error(`no output: ${r.result?.data}`);
    times.push(r.firstOutputMs);
  }
  return median(times);
}

async function drain(runner: RunningRunner, gpu: string): Promise<{ seconds: number; correct: number; lost: number }> {
  const t0 = performance.now();
  const all = await Promise.all(
    Array.from({ length: JOBS }, (_, i) =>
      submit(`${runner.url}/script/${gpu}/test`, `print(${i} * ${i} + 7)\n`).then((r) => ({ i, r })),
    ),
  );
  const seconds = (performance.now() - t0) / 1000;
  const correct = all.filter(({ i, r }) => r.stdout === `${i * i + 7}\n`).length;
  const lost = all.filter(({ r }) => r.result === null).length;
  return { seconds, correct, lost };
}

async function main(): Promise<void> {
  const missing = slurmMissing();
  if (missing) {
    console.log(`slurm bench SKIPPED: ${missing}`);
    return;
  }
  const cluster = await startSlurmCluster();
  const common = {
    port: 0,
    profiler: 'none' as const,
    problemsDir: path.join(root, 'examples/problems'),
    token: '',
    heartbeatMs: 15_000,
  };
  const local = await startRunner({ ...common, dataDir: path.join(cluster.root, 'data-local'), gpuName: 'MI300' });
  const slurm = await startRunner({
    ...common,
    dataDir: path.join(cluster.root, 'data-slurm'),
    executor: 'slurm',
    slurm: { partition: cluster.partition, pollMs: 1000 },
    env: cluster.env,
  });
  const loadBefore = machineLoad();
  try {
    const localMs = await latency(local, 'MI300');
    const slurmMs = await latency(slurm, 'MI300');
    const ld = await drain(local, 'MI300');
    const sd = await drain(slurm, 'MI300');
    console.log(
      `Slurm executor (one-node Slurm 22.05 cluster, 2 CPUs) vs local (machine: ${loadBefore} at start, ${machineLoad()} at end):`,
    );
    console.log(
      `  submission -> first output line, median of ${ROUNDS}: local ${localMs.toFixed(0)} ms, slurm ${slurmMs.toFixed(0)} ms = ${(slurmMs / localMs).toFixed(1)}x local (+${(slurmMs - localMs).toFixed(0)} ms)`,
    );
    console.log(
      `  ${JOBS} trivial jobs at once, drained: slurm ${sd.seconds.toFixed(1)} s (${sd.correct}/${JOBS} correct, ${sd.lost} lost); local ${ld.seconds.toFixed(1)} s (${ld.correct}/${JOBS} correct, ${ld.lost} lost); slurm/local ${(sd.seconds / ld.seconds).toFixed(1)}x`,
    );
    console.log(
      summary(
        'slurm',
        `first output +${(slurmMs - localMs).toFixed(0)} ms over local; ${JOBS} jobs ${sd.seconds.toFixed(1)} s, ${sd.correct}/${JOBS} correct, ${sd.lost} lost`,
        `every job correct and none lost; first output within 1 s of local`,
        sd.correct === JOBS && sd.lost === 0 && slurmMs - localMs < 1000,
      ),
    );
  } finally {
    await slurm.close();
    await local.close();
    await cluster.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
