// `kernel-runner submit` of a file far over the service's 1 MB limit (a sparse 200 MB file): the time from the
// command's start to its refusal (exit 2), against a real `kernel-runner serve` on loopback, beside its peer in the
// same rounds: the same command on a file just over the limit (1,000,001 bytes), which costs the CLI's start-up and
// a stat only. A ratio near 1 says the refusal does not depend on the file's size. With BENCH_PEER=<an older
// checkout, built> (support.ts), that CLI submits the 200 MB file to a `serve` of its own in the same rounds: the
// time the refusal took before. Median of BENCH_RUNS (default 7) interleaved rounds; timings are reported, never a
// failure of the benchmark.
import { closeSync, existsSync, ftruncateSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineLoad, median, peerCli, q, startServe, summary, timeShell } from './support';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli.cjs');
const N = Number(process.env.BENCH_RUNS ?? 7);
const TARGET_RATIO = 2;

function sparseFile(file: string, size: number): string {
  const fd = openSync(file, 'wx');
  ftruncateSync(fd, size);
  closeSync(fd);
  return file;
}

async function main(): Promise<void> {
  if (!existsSync(cli)) throw new Error('run `npm run build` first (dist/cli.cjs is missing)');
  const work = mkdtempSync(path.join(tmpdir(), 'kr-bench-oversized-'));
  const big = sparseFile(path.join(work, 'big.py'), 200_000_000);
  const justOver = sparseFile(path.join(work, 'over.py'), 1_000_001);
  const peer = peerCli();
  const dataDirs = [mkdtempSync(path.join(work, 'serve-')), mkdtempSync(path.join(work, 'peer-'))];
  const serve = await startServe(cli, dataDirs[0] as string);
  const peerServe = peer ? await startServe(peer, dataDirs[1] as string) : null;
  const node = q(process.execPath);
  const commands: Record<string, string> = {
    big: `${node} ${q(cli)} submit ${q(big)} --server ${serve.url} --mode test`,
    justOver: `${node} ${q(cli)} submit ${q(justOver)} --server ${serve.url} --mode test`,
    ...(peer && peerServe
      ? { before: `${node} ${q(peer)} submit ${q(big)} --server ${peerServe.url} --mode test` }
      : {}),
  };
  const env = { ...process.env, NO_COLOR: '1' };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  try {
    console.log(`load before: ${machineLoad()}`);
    for (let round = 0; round < N; round++) {
      for (const [name, command] of Object.entries(commands)) {
        const r = await timeShell(command, { env, cwd: work });
        // the older CLI heard the runner's 413 (exit 1); ours refuses itself (exit 2)
        if (name === 'before' ? r.code === 0 : r.code !== 2)
          throw new Error(`${name}: exit ${r.code}, expected the refusal`);
        times[name]?.push(r.seconds);
      }
    }
    console.log(`load after: ${machineLoad()}`);
    const big200 = median(times.big ?? []);
    const over = median(times.justOver ?? []);
    console.log(`200 MB file, start to refusal:       ${(big200 * 1000).toFixed(0)} ms (median of ${N})`);
    console.log(`1,000,001-byte file, start to refusal: ${(over * 1000).toFixed(0)} ms`);
    if (times.before)
      console.log(`200 MB file with BENCH_PEER's CLI:   ${(median(times.before) * 1000).toFixed(0)} ms`);
    const ratio = big200 / over;
    console.log(
      summary(
        'oversized-submit',
        `200 MB / just-over refusal time ${ratio.toFixed(2)}`,
        `< ${TARGET_RATIO}`,
        ratio < TARGET_RATIO,
      ),
    );
  } finally {
    serve.child.kill('SIGTERM');
    peerServe?.child.kill('SIGTERM');
    rmSync(work, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
