// Runs the BUILT CLI (dist/cli.cjs) on real fixtures: tables, --json (schema-checked, equal to the rocpd
// database's own views), a GPU MODE-like zip, and the exit-2 errors.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { ZipArchive } from 'archiver';
import { traceSummarySchema } from '../../src/core/protocol/traceSummary';
import { ensureBuilt } from './submit/helpers';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(repoRoot, 'dist/cli.cjs');
const fixtures = path.resolve(repoRoot, '../shared/fixtures/rocprof');
const DB = path.join(fixtures, 'batched_gemm__28_results.db');

before(() => {
  ensureBuilt();
});

function summarize(...args: string[]) {
  // from another working directory: the bundle must find its sql-wasm.wasm by itself
  const r = spawnSync(process.execPath, [cli, 'summarize', ...args], {
    cwd: tmpdir(),
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('--json prints a valid TraceSummary equal to the database top_kernels and busy views', () => {
  const r = summarize(DB, '--json');
  assert.equal(r.status, 0, r.stderr);
  const s = traceSummarySchema.parse(JSON.parse(r.stdout));
  const db = new Database(DB, { readonly: true });
  try {
    const top = db.prepare('SELECT name, total_calls, total_duration FROM top_kernels').all() as Array<{
      name: string;
      total_calls: number;
      total_duration: number;
    }>;
    assert.deepEqual(
      s.kernels.map((k) => [k.name, k.calls, k.totalNs / 1000]),
      top.map((t) => [t.name, t.total_calls, t.total_duration]),
    );
    const busy = db.prepare('SELECT GpuTime, WallTime FROM busy').get() as { GpuTime: number; WallTime: number };
    assert.equal(s.wall?.spanNs, busy.WallTime);
    assert.equal((s.agents[0]?.kernelNs ?? 0) + (s.agents[0]?.copyNs ?? 0), busy.GpuTime);
  } finally {
    db.close();
  }
  assert.equal(s.timeline?.buckets, 100);
});

test('tables show short kernel names, calls, busy % and API calls', () => {
  const json = traceSummarySchema.parse(JSON.parse(summarize(DB, '--json').stdout));
  const r = summarize(DB, '--top', '5');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '');
  const out = r.stdout;
  assert.ok(!out.includes('\x1b['), 'no colour when NO_COLOR is set or piped');
  assert.match(out, /^Trace summary: 151 kernel dispatches of 2 kernels/);
  assert.match(out, /Top kernels/);
  assert.match(out, /\n {2}1 {2}ck_tile::kentry<1, BatchedGemmKernel<…>, BatchedGemmKer… +150 +2\.58 ms/);
  assert.ok(!out.includes('ck_tile::GemmSpatiallyLocalTilePartitioner'), 'the 3,500-character name is not printed');
  const agent = json.agents[0];
  assert.ok(agent);
  assert.match(
    out,
    new RegExp(
      `${agent.id} +gfx942, AMD Instinct MI300X, 304 CUs +2\\.60 ms +${(agent.busyPercent as number).toFixed(1)}%`,
    ),
  );
  assert.match(out, /\(\+7 idle agents listed in the files\)/);
  assert.match(
    out,
    /API calls \(5 of 18\)\n\s+Function\s+Domain\s+Calls\s+Total\s+Avg\s+% of family\n\s+hipMalloc\s+HIP_RUNTIME_API_EXT\s+3\s+276\.83 ms/,
  );
  assert.match(out, /Check: kernel calls and totals vs .*top_kernels view: 2 rows agree\./);
});

test('a GPU MODE-like zip: kernels, copies, API and rocTX ranges', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kr-cli-zip-'));
  const zip = path.join(dir, 'profile.zip');
  const archive = new ZipArchive({ zlib: { level: 1 } });
  const out = createWriteStream(zip);
  archive.pipe(out);
  archive.file(path.join(fixtures, 'rocm-systems__sdkdocs__kernel_trace.csv'), { name: '77_kernel_trace.csv' });
  archive.file(path.join(fixtures, 'rocm-systems__sdkdocs__memory_copy_trace.csv'), {
    name: '77_memory_copy_trace.csv',
  });
  archive.file(path.join(fixtures, 'rocm-systems__sdkdocs__hip_runtime_trace.csv'), { name: '77_hip_api_trace.csv' });
  archive.file(path.join(fixtures, 'rocm-systems__sdkdocs__marker_api_trace.csv'), { name: '77_marker_api_trace.csv' });
  archive.append(Buffer.from([0x0a, 0x00]), { name: 'combined.pftrace' });
  archive.append(Buffer.from('\x7fELF'), { name: '_code_object_0.o' });
  await archive.finalize();
  if (!out.writableFinished) await once(out, 'finish');
  const r = summarize(zip);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /Trace summary: 9 kernel dispatches of 4 kernels/);
  assert.match(r.stdout, /addition_kernel<float> +3 /);
  assert.match(r.stdout, /Memory copies\n(?:.*\n)+?\s+HOST_TO_DEVICE\s+2\s/);
  assert.match(r.stdout, /\n\s+hipMemcpy\s+HIP_RUNTIME_API_EXT\s+2\s/);
  assert.match(r.stdout, /rocTX ranges\n.*\n\s+hipLaunchKernel range\s+1\s/);
  assert.match(r.stdout, /Read 4 files \(rocprofv3-csv rocm-7\.0, rocprofv3-csv rocprofv3\); skipped 2\./);
});

test('a missing path or a folder of junk: one line on stderr, exit code 2', () => {
  const missing = summarize('/no/such/profile.zip');
  assert.equal(missing.status, 2);
  assert.equal(missing.stdout, '');
  assert.match(
    missing.stderr,
    /^kernel-runner: \/no\/such\/profile\.zip: no such file or directory \(expected rocprofv3 CSVs .*results\.db.*\)\n$/,
  );

  const junk = mkdtempSync(path.join(tmpdir(), 'kr-cli-junk-'));
  writeFileSync(path.join(junk, 'notes.txt'), 'hello');
  copyFileSync(path.join(fixtures, 'PROVENANCE.md'), path.join(junk, 'PROVENANCE.md'));
  const r = summarize(junk);
  assert.equal(r.status, 2);
  assert.equal(r.stdout, '');
  assert.match(
    r.stderr,
    /^kernel-runner: .*: no rocprof output found \(looked for .*\); skipped 2 file\(s\): PROVENANCE\.md \(not a rocprof output file\), notes\.txt \(not a rocprof output file\)\n$/,
  );
  assert.equal(r.stderr.split('\n').length, 2, 'one line');

  const badTop = summarize(DB, '--top', 'many');
  assert.equal(badTop.status, 2);
  assert.match(badTop.stderr, /--top takes a whole number/);
});

test('a --pmc run (counter_collection.csv only): dispatches and counters per kernel in the tables and --json', (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kr-cli-pmc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  copyFileSync(
    path.join(fixtures, 'rocm-systems__sdkdocs__counter_collection.csv'),
    path.join(dir, '15606_counter_collection.csv'),
  );
  const r = summarize(dir);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Trace summary: 4 kernel dispatches of 4 kernels/);
  assert.match(
    r.stdout,
    /Hardware counters per kernel\n\s+Kernel\s+Dispatches\s+Counter\s+Values\s+Mean\s+Min\s+Max\n\s+addition_kernel<float>\s+1\s+SQ_WAVES\s+1\s+16,384\s+16,384\s+16,384\n/,
  );
  const s = traceSummarySchema.parse(JSON.parse(summarize(dir, '--json').stdout));
  assert.deepEqual(s.counters?.map((k) => [k.shortName, k.counters.map((c) => c.name)]).sort(), [
    ['addition_kernel<float>', ['SQ_WAVES']],
    ['divide_kernel', ['SQ_WAVES']],
    ['multiply_kernel', ['SQ_WAVES']],
    ['subtract_kernel', ['SQ_WAVES']],
  ]);
});

test('a zip that would unpack far past its size: exit 2 with one line saying why', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kr-cli-bomb-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const zip = path.join(dir, 'profile.zip');
  const archive = new ZipArchive({ zlib: { level: 9 } });
  const out = createWriteStream(zip);
  archive.pipe(out);
  archive.append(Buffer.alloc(16 * 1024 * 1024), { name: '9_kernel_trace.csv' });
  await archive.finalize();
  if (!out.writableFinished) await once(out, 'finish');
  const r = summarize(zip);
  assert.equal(r.status, 2);
  assert.equal(r.stdout, '');
  assert.match(
    r.stderr,
    /^kernel-runner: .*profile\.zip: refused: entry 9_kernel_trace\.csv would unpack \d+ bytes to 16777216 \(\d+:1, over the 200:1 that rocprof output reaches\): not a profile, possibly a zip bomb\n$/,
  );
});

test('a reader that goes away (| head) ends summarize quietly: status 0, no stack trace', async () => {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [cli, 'summarize', DB, '--json'], {
    cwd: tmpdir(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.destroy(); // the read end closes before the first line is written
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 0, stderr);
  assert.equal(stderr, '', 'nothing on stderr');
});
