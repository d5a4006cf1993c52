// The BUILT CLI (dist/cli.cjs, its bundled trace worker) on a kernel trace whose every field is quoted and whose
// timestamps are past 2^53 (the real ROCm 7 sample moved to ~259 days of uptime, ends at any ns): durations equal
// the BigInt sums of the file, read by worker threads and by one thread; a file with rows none of which reads
// exits 2 naming the first one.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixture, parseCsvReference } from '../unit/trace/helpers';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(repoRoot, 'dist/cli.cjs');
const dir = mkdtempSync(path.join(tmpdir(), 'kr-cli-exact-'));

before(() => {
  if (!existsSync(cli) || !existsSync(path.join(repoRoot, 'dist/trace-worker.cjs'))) {
    const r = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot, stdio: 'inherit' });
    assert.equal(r.status, 0, 'build failed');
  }
});
after(() => rmSync(dir, { recursive: true, force: true }));

function run(file: string, env: Record<string, string>) {
  return spawnSync(process.execPath, [cli, 'summarize', file, '--json'], {
    cwd: tmpdir(),
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: { ...process.env, NO_COLOR: '1', KERNEL_RUNNER_TRACE_DEBUG: '1', ...env },
  });
}

test('quoted fields, timestamps past 2^53: exact durations through the bundled worker and on one thread', () => {
  const [header, ...rows] = parseCsvReference(
    readFileSync(fixture('rocm-systems__sdkdocs__kernel_trace.csv'), 'utf8'),
  ) as [string[], ...string[][]];
  const cs = header.indexOf('Start_Timestamp');
  const ce = header.indexOf('End_Timestamp');
  const cn = header.indexOf('Kernel_Name');
  const shift = 22386742234691893n - BigInt(rows[0]?.[cs] as string);
  const lines = [header.map((h) => `"${h}"`).join(',')];
  const truth = new Map<string, bigint>();
  for (let copy = 0; copy < 300; copy++) {
    rows.forEach((r, i) => {
      const start = BigInt(r[cs] as string) + shift + BigInt(copy) * 1_000_003n;
      const end = BigInt(r[ce] as string) + shift + BigInt(copy) * 1_000_003n + BigInt((i * 7) % 13) + 1n;
      truth.set(r[cn] as string, (truth.get(r[cn] as string) ?? 0n) + end - start);
      lines.push(r.map((v, j) => `"${j === cs ? start : j === ce ? end : v.replaceAll('"', '""')}"`).join(','));
    });
  }
  const file = path.join(dir, 'q_kernel_trace.csv');
  writeFileSync(file, lines.join('\n') + '\n');
  const many = run(file, { KERNEL_RUNNER_TRACE_MIN_BYTES: '0', KERNEL_RUNNER_TRACE_THREADS: '2' });
  assert.equal(many.status, 0, many.stderr);
  assert.match(many.stderr, /q_kernel_trace\.csv: \d+ part\(s\), [12] worker thread\(s\)/);
  const one = run(file, { KERNEL_RUNNER_TRACE_THREADS: '0' });
  assert.equal(one.status, 0, one.stderr);
  const a = JSON.parse(many.stdout) as { kernels: Array<{ name: string; calls: number; totalNs: number }> };
  const b = JSON.parse(one.stdout) as typeof a;
  assert.deepEqual(a, b);
  assert.deepEqual(new Map(a.kernels.map((k) => [k.name, BigInt(k.totalNs)])), truth);
  assert.equal(
    a.kernels.reduce((n, k) => n + k.calls, 0),
    9 * 300,
  );
});

test('a kernel trace none of whose rows reads: exit 2, the first row named', () => {
  const file = path.join(dir, 'bad_kernel_trace.csv');
  writeFileSync(
    file,
    '"Kind","Agent_Id","Kernel_Name","Start_Timestamp","End_Timestamp"\n"KERNEL_DISPATCH","Agent 4","k","",""\n',
  );
  const r = run(file, {});
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(
    r.stderr,
    /bad_kernel_trace\.csv: none of its 1 row\(s\) could be read .* line 2: "KERNEL_DISPATCH","Agent 4","k","",""/,
  );
});
