// The 2 GB flood with company: a job writing 2 GB of output to a `kernel-runner serve` (the built CLI, its own
// process, --max-job-output 4GiB so every line is stored and streamed) while 4 clients read its event stream and
// 4 stall (they open it and never read). serve's peak RSS (VmHWM), target <= 200 MB (the measure: 213 MiB).
// With BENCH_PEER=<an older checkout, built> (support.ts) its serve takes the same flood right after ours.
import { request, type IncomingMessage } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineLoad, peerCli, startServe, summary } from './support';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli.cjs');
const FLOOD_MB = Number(process.env.BENCH_FLOOD_MB ?? 2048);
const READERS = Number(process.env.BENCH_READERS ?? 4);
const STALLED = Number(process.env.BENCH_STALLED ?? 4);
const LIMIT_MB = 200;

const program = `
import sys
w = sys.stdout.write
block = "".join("%08d " % i + "x" * 60 + "\\n" for i in range(15000))
for _ in range(${Math.ceil((FLOOD_MB * 1e6) / (15000 * 70))}):
    w(block)
`;

function peakRssMb(pid: number): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
}

function openEvents(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { Accept: 'text/event-stream' } }, resolve);
    req.on('error', reject);
    req.end();
  });
}

async function flood(cliPath: string): Promise<{ seconds: number; peak: number; read: number }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kr-bench-flood-'));
  const serve = await startServe(cliPath, dataDir, ['--script-timeout', '1800', '--max-job-output', '4GiB']);
  try {
    const fd = new FormData();
    fd.append('file', new Blob([program]), 'flood.py');
    const started = performance.now();
    const res = await fetch(`${serve.url}/submission/script/CPU/test`, { method: 'POST', body: fd });
    if (!res.ok) throw new Error(`submission: ${res.status} ${await res.text()}`);
    const id = ((await res.json()) as { details: { id: number } }).details.id;
    const events = `${serve.url}/jobs/${id}/events`;
    const stalled = await Promise.all(Array.from({ length: STALLED }, () => openEvents(events)));
    for (const s of stalled) s.pause();
    let read = 0;
    const readers = await Promise.all(Array.from({ length: READERS }, () => openEvents(events)));
    await Promise.all(
      readers.map(
        (r) =>
          new Promise<void>((resolve, reject) => {
            r.on('data', (c: Buffer) => (read += c.length));
            r.on('end', resolve);
            r.on('error', reject);
          }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const peak = peakRssMb(serve.child.pid as number);
    for (const s of stalled) s.destroy();
    return { seconds, peak, read };
  } finally {
    serve.child.kill('SIGTERM');
    await new Promise((r) => serve.child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

console.log(`${FLOOD_MB} MB flood, ${READERS} reading and ${STALLED} stalled event-stream clients; ${machineLoad()}`);
const ours = await flood(cli);
const line = (who: string, r: { seconds: number; peak: number; read: number }) =>
  `  ${who}: ${r.seconds.toFixed(1)} s, readers got ${(r.read / 1e6 / READERS).toFixed(0)} MB each; serve's peak RSS ${r.peak.toFixed(0)} MiB`;
console.log(line('ours', ours));
const peer = peerCli();
if (peer) {
  const theirs = await flood(peer);
  console.log(line('peer', theirs));
  console.log(`  peak RSS: ours ${(ours.peak / theirs.peak).toFixed(2)}x the peer's`);
}
console.log(
  summary(
    'flood-readers',
    `serve's peak RSS ${ours.peak.toFixed(0)} MB in a ${FLOOD_MB} MB flood with ${READERS} readers and ${STALLED} stalled clients`,
    `<= ${LIMIT_MB} MB`,
    ours.peak <= LIMIT_MB,
  ),
);
