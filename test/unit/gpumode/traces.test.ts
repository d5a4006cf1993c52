import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { ZipArchive } from 'archiver';
import type { EvalResult, ResultEvent } from '../../../src/core/protocol/api';
import { saveProfileTraces, traceBaseName } from '../../../src/core/gpumode/index';
import { summarizePath } from '../../../src/trace/index';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fixtures = path.resolve(repoRoot, '../shared/fixtures/rocprof');

async function zipOf(files: Record<string, string>): Promise<Buffer> {
  const archive = new ZipArchive({ zlib: { level: 1 } });
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((resolve) => sink.on('end', resolve));
  archive.pipe(sink);
  for (const [name, fixture] of Object.entries(files))
    archive.append(readFileSync(path.join(fixtures, fixture)), { name });
  await archive.finalize();
  await done;
  return Buffer.concat(chunks);
}

function profileRun(trace: string): EvalResult {
  return {
    start: '',
    end: '',
    compilation: null,
    run: { success: true, passed: true, command: '', stdout: '', stderr: '', exit_code: 0, duration: 1, result: {} },
    profile: { profiler: 'rocPROF', trace, download_url: null },
  };
}

test('each profile zip is saved under a per-run name, never overwritten, and summarised', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kr-traces-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const zip = await zipOf({
    '1_kernel_trace.csv': 'rocm-systems__sdkdocs__kernel_trace.csv',
    '1_memory_copy_trace.csv': 'rocm-systems__sdkdocs__memory_copy_trace.csv',
  });
  const result: ResultEvent = {
    status: 'success',
    reports: [],
    results: [
      {
        success: true,
        error: '',
        system: { gpu: 'MI300', cpu: '', platform: '', torch: '' },
        runs: {
          'profile.0': profileRun(zip.toString('base64')),
          'profile.1': profileRun(zip.toString('base64')),
          test: { ...profileRun(''), profile: null },
        },
      },
    ],
  };
  const opts = {
    outDir: dir,
    fileName: 'kernels/my kernel.py',
    leaderboard: 'amd-fp8-mm',
    gpu: 'MI300',
    summarize: summarizePath,
  };
  const first = await saveProfileTraces(result, { ...opts, submissionId: 42 });
  const again = await saveProfileTraces(result, { ...opts, submissionId: 42 });
  const stamped = await saveProfileTraces(result, {
    ...opts,
    now: new Date(2026, 0, 2, 3, 4, 5),
    summarize: undefined,
  });
  assert.deepEqual(
    first.map((s) => path.basename(s.path)),
    ['my_kernel-amd-fp8-mm-MI300-42-profile.0.zip', 'my_kernel-amd-fp8-mm-MI300-42-profile.1.zip'],
  );
  assert.deepEqual(
    again.map((s) => path.basename(s.path)),
    ['my_kernel-amd-fp8-mm-MI300-42-profile.0-2.zip', 'my_kernel-amd-fp8-mm-MI300-42-profile.1-2.zip'],
  );
  assert.deepEqual(
    stamped.map((s) => path.basename(s.path)),
    [
      'my_kernel-amd-fp8-mm-MI300-20260102-030405-profile.0.zip',
      'my_kernel-amd-fp8-mm-MI300-20260102-030405-profile.1.zip',
    ],
  );
  assert.equal(readdirSync(dir).length, 6);
  assert.deepEqual(readFileSync(first[0]!.path), zip);
  assert.equal(first[0]!.bytes, zip.length);
  // summarised with the trace toolkit: the fixture's kernels are there
  const summary = first[0]!.summary;
  assert.ok(summary, first[0]!.summaryError);
  assert.ok(summary.kernels.length > 0);
  assert.ok(
    summary.kernels.some((k) => /addition_kernel/.test(k.name)),
    summary.kernels.map((k) => k.name).join(', '),
  );
  assert.equal(stamped[0]!.summary, undefined);
  assert.equal(traceBaseName({ fileName: '../.hidden.py' }).startsWith('hidden-'), true);
});

test('a zip the toolkit cannot read is still saved; the reason is kept', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kr-traces-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const result: ResultEvent = {
    status: 'success',
    reports: [],
    results: [
      {
        success: true,
        error: '',
        system: { gpu: 'MI300', cpu: '', platform: '', torch: '' },
        runs: { 'profile.0': profileRun(Buffer.from('not a zip').toString('base64')) },
      },
    ],
  };
  const [saved] = await saveProfileTraces(result, {
    outDir: dir,
    fileName: 'a.py',
    submissionId: 1,
    summarize: summarizePath,
  });
  assert.equal(readFileSync(saved!.path, 'utf8'), 'not a zip');
  assert.equal(saved!.summary, undefined);
  assert.ok(saved!.summaryError && saved!.summaryError.length > 0);
});
