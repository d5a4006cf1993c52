// Output layouts: per-process `<pid>_` sets, `<hostname>/` subfolders, a GPU MODE profile zip, a rocpd
// database beside CSVs of the same run, and inputs that hold nothing readable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { ZipArchive } from 'archiver';
import { summarizePath, TraceInputError } from '../../../src/trace/index';
import { traceSummarySchema } from '../../../src/core/protocol/traceSummary';
import { fixture, parseCsvReference, referenceKernels, tempDir, unionLength } from './helpers';

const KERNELS_70 = fixture('rocm-systems__sdkdocs__kernel_trace.csv');
const KERNELS_63 = fixture('rocprofiler-sdk-0.5.0__sdkdocs__kernel_trace.csv');

async function zipOf(entries: Array<{ name: string; file?: string; data?: Buffer | string }>): Promise<string> {
  const file = path.join(tempDir('zip'), 'profile.zip');
  const archive = new ZipArchive({ zlib: { level: 6 } });
  const out = createWriteStream(file);
  archive.pipe(out);
  for (const e of entries) {
    if (e.file) archive.file(e.file, { name: e.name });
    else archive.append(e.data ?? '', { name: e.name });
  }
  await archive.finalize();
  if (!out.writableFinished) await once(out, 'finish');
  return file;
}

test('per-process <pid>_ sets in one folder add up; each source knows its pid', async () => {
  const dir = tempDir('pids');
  copyFileSync(KERNELS_70, path.join(dir, '4101_kernel_trace.csv'));
  copyFileSync(KERNELS_70, path.join(dir, '4102_kernel_trace.csv'));
  copyFileSync(fixture('rocm-systems__sdkdocs__memory_copy_trace.csv'), path.join(dir, '4102_memory_copy_trace.csv'));
  const s = await summarizePath(dir);
  const ref = referenceKernels(KERNELS_70);
  for (const [name, r] of ref.kernels) {
    const k = s.kernels.find((x) => x.name === name);
    assert.deepEqual([k?.calls, k?.totalNs, k?.minNs, k?.maxNs], [2 * r.calls, 2 * r.total, r.min, r.max], name);
    assert.equal(
      k?.launches.reduce((t, l) => t + l.calls, 0),
      2 * r.calls,
      'launch counts add up too',
    );
  }
  assert.deepEqual(
    s.sources.map((x) => [x.path, x.pid, x.host]),
    [
      ['4101_kernel_trace.csv', 4101, null],
      ['4102_kernel_trace.csv', 4102, null],
      ['4102_memory_copy_trace.csv', 4102, null],
    ],
  );
  assert.deepEqual(
    s.processes.map((p) => p.pid),
    [4101, 4102],
  );
  // the same GPU in both processes: identical dispatches overlap completely, so the union is one copy's worth
  const agent = s.agents.find((a) => a.id === 'Agent 4');
  assert.equal(agent?.kernelCalls, 18);
  assert.equal(agent?.kernelNs, s.kernelTotals.totalNs);
  const copies = parseCsvReference(readFileSync(fixture('rocm-systems__sdkdocs__memory_copy_trace.csv'), 'utf8'))
    .slice(1)
    .map((r) => [Number(r[6]), Number(r[7])] as [number, number]);
  assert.equal(agent?.busyNs, unionLength([...ref.intervals, ...ref.intervals, ...copies]));
  assert.ok((agent?.busyNs as number) < (agent?.kernelNs as number) + (agent?.copyNs as number));
});

test('<hostname>/ subfolders: agents of different hosts stay apart', async () => {
  const dir = tempDir('hosts');
  mkdirSync(path.join(dir, 'node-a'));
  mkdirSync(path.join(dir, 'node-b'));
  copyFileSync(KERNELS_70, path.join(dir, 'node-a', '11_kernel_trace.csv'));
  copyFileSync(KERNELS_63, path.join(dir, 'node-b', '22_kernel_trace.csv'));
  const s = await summarizePath(dir);
  assert.deepEqual(
    s.sources.map((x) => [x.path, x.variant, x.pid, x.host]),
    [
      ['node-a/11_kernel_trace.csv', 'rocm-7.0', 11, 'node-a'],
      ['node-b/22_kernel_trace.csv', 'rocm-6.3', 22, 'node-b'],
    ],
  );
  assert.deepEqual(s.agents.map((a) => a.id).sort(), ['node-a/Agent 4', 'node-b/Agent 1']);
  assert.deepEqual(s.processes, [
    { pid: 11, host: 'node-a', command: null },
    { pid: 22, host: 'node-b', command: null },
  ]);
  const a = referenceKernels(KERNELS_70);
  const b = referenceKernels(KERNELS_63);
  const addition = s.kernels.find((k) => k.shortName === 'addition_kernel<float>');
  const name = 'void addition_kernel<float>(float*, float const*, float const*, int, int)';
  assert.equal(addition?.calls, (a.kernels.get(name)?.calls as number) + (b.kernels.get(name)?.calls as number));
  assert.deepEqual(addition?.agentIds, ['node-a/Agent 4', 'node-b/Agent 1']);
  assert.equal(s.timeline?.agents.length, 2);

  // one host folder only: agent ids stay plain
  const one = tempDir('onehost');
  mkdirSync(path.join(one, 'gpu-host-7'));
  copyFileSync(KERNELS_70, path.join(one, 'gpu-host-7', '31_kernel_trace.csv'));
  const s1 = await summarizePath(one);
  assert.deepEqual(
    s1.agents.map((x) => x.id),
    ['Agent 4'],
  );
  assert.equal(s1.sources[0]?.host, 'gpu-host-7');
});

test('a GPU MODE profile zip (CSVs, combined.pftrace, code objects) reads like its folder', async () => {
  const dir = tempDir('gpumode');
  const files: Array<[string, string]> = [
    ['812_kernel_trace.csv', KERNELS_70],
    ['812_memory_copy_trace.csv', fixture('rocm-systems__sdkdocs__memory_copy_trace.csv')],
    ['812_hip_api_trace.csv', fixture('rocm-systems__sdkdocs__hip_runtime_trace.csv')],
    ['812_marker_api_trace.csv', fixture('rocm-systems__sdkdocs__marker_api_trace.csv')],
    ['812_scratch_memory_trace.csv', fixture('rocm-systems__sdkdocs__scratch_memory_trace.csv')],
  ];
  for (const [name, src] of files) copyFileSync(src, path.join(dir, name));
  const zip = await zipOf([
    ...files.map(([name, file]) => ({ name, file })),
    { name: 'combined.pftrace', data: Buffer.from([0x0a, 0x04, 0x08, 0x01, 0x10, 0x02]) },
    { name: '812_results.pftrace', data: Buffer.from([0x0a, 0x00]) },
    { name: '_code_object_1.o', data: Buffer.from('\x7fELF') },
    { name: '.rocprofv3/812.tmp', data: 'scratch' },
  ]);
  const fromZip = traceSummarySchema.parse(await summarizePath(zip));
  const fromDir = await summarizePath(dir);
  assert.deepEqual(fromZip.kernels, fromDir.kernels);
  assert.deepEqual(fromZip.memoryCopies, fromDir.memoryCopies);
  assert.deepEqual(fromZip.api, fromDir.api);
  assert.deepEqual(fromZip.markers, fromDir.markers);
  assert.deepEqual(fromZip.agents, fromDir.agents);
  assert.deepEqual(fromZip.timeline, fromDir.timeline);
  assert.deepEqual(fromZip.sources, fromDir.sources);
  assert.equal(fromZip.kernelTotals.calls, 9);
  const reasons = new Map(fromZip.skipped.map((x) => [x.path, x.reason]));
  assert.match(reasons.get('combined.pftrace') ?? '', /Perfetto/);
  assert.match(reasons.get('_code_object_1.o') ?? '', /code object/);
  assert.match(reasons.get('.rocprofv3/812.tmp') ?? '', /temporary/);
  assert.match(reasons.get('812_scratch_memory_trace.csv') ?? '', /scratch/);
});

test('a zip holding the rocpd database', async () => {
  const zip = await zipOf([{ name: 'out/28_results.db', file: fixture('batched_gemm__28_results.db') }]);
  const s = await summarizePath(zip);
  assert.deepEqual(
    s.sources.map((x) => [x.path, x.format, x.pid, x.host]),
    [['out/28_results.db', 'rocpd', 28, '37ca13315e70']],
  );
  assert.equal(s.processes.length, 1, 'the database names the process and its host');
  assert.equal(s.kernelTotals.calls, 151);
  assert.ok(s.checks.every((c) => c.mismatches.length === 0));
});

test('a rocpd database wins over CSVs of the same run; the CSVs are listed as skipped', async () => {
  const dir = tempDir('dbcsv');
  copyFileSync(fixture('batched_gemm__28_results.db'), path.join(dir, '28_results.db'));
  copyFileSync(KERNELS_70, path.join(dir, '28_kernel_trace.csv'));
  copyFileSync(KERNELS_63, path.join(dir, '29_kernel_trace.csv'));
  const s = await summarizePath(dir);
  assert.deepEqual(
    s.sources.map((x) => x.path),
    ['28_results.db', '29_kernel_trace.csv'],
  );
  assert.match(s.skipped.find((x) => x.path === '28_kernel_trace.csv')?.reason ?? '', /same run as 28_results\.db/);
  assert.equal(s.kernelTotals.calls, 151 + 7);
});

test('missing paths and folders of junk are TraceInputErrors that say what was looked for', async () => {
  await assert.rejects(summarizePath('/no/such/profile'), (err: unknown) => {
    assert.ok(err instanceof TraceInputError);
    assert.equal(err.type, 'trace-input');
    assert.match(
      err.message,
      /^\/no\/such\/profile: no such file or directory \(expected rocprofv3 CSVs \(\*_kernel_trace\.csv/,
    );
    assert.ok(!err.message.includes('\n'));
    return true;
  });
  const junk = tempDir('junk');
  writeFileSync(path.join(junk, 'readme.txt'), 'not a profile');
  writeFileSync(path.join(junk, 'data.csv'), 'a,b\n1,2\n');
  writeFileSync(path.join(junk, 'fake.db'), 'not sqlite at all');
  writeFileSync(path.join(junk, 'other.json'), '{"hello": 1}');
  await assert.rejects(summarizePath(junk), (err: unknown) => {
    assert.ok(err instanceof TraceInputError);
    assert.match(
      err.message,
      /no rocprof output found \(looked for .*\*_results\.db.*results\.json.*\); skipped 4 file\(s\): data\.csv \(CSV with unrecognised columns \(a, b\)\)/,
    );
    assert.ok(!err.message.includes('\n'));
    return true;
  });
  await assert.rejects(summarizePath(tempDir('empty')), TraceInputError);
  const notZip = path.join(tempDir('notzip'), 'profile.zip');
  writeFileSync(notZip, 'this is not a zip');
  await assert.rejects(summarizePath(notZip), /profile\.zip: not a zip archive/);
  const junkZip = await zipOf([{ name: 'a.txt', data: 'x' }]);
  await assert.rejects(summarizePath(junkZip), /no rocprof output found/);
  // a CSV whose quote never closes is skipped with the reason, not a crash
  const bad = path.join(tempDir('badcsv'), 'z_kernel_trace.csv');
  writeFileSync(bad, '"Kernel_Name","Start_Timestamp","End_Timestamp"\n"never closed,1,2\n');
  await assert.rejects(
    summarizePath(bad),
    /z_kernel_trace\.csv \(malformed CSV: unterminated quoted field \(line 2\)\)/,
  );
});

test('a CSV that breaks half-way keeps the rows before the break, with a warning', async () => {
  const file = path.join(tempDir('half'), 'h_kernel_trace.csv');
  writeFileSync(file, '"Kernel_Name","Start_Timestamp","End_Timestamp"\n"a",10,20\n"a",30,45\n"b"x,1,2\n"a",50,60\n');
  const s = await summarizePath(file);
  assert.deepEqual(
    s.kernels.map((k) => [k.name, k.calls, k.totalNs]),
    [['a', 2, 25]],
  );
  assert.deepEqual(
    s.sources.map((x) => [x.path, x.rows]),
    [['h_kernel_trace.csv', 2]],
  );
  assert.match(
    s.warnings.join('\n'),
    /h_kernel_trace\.csv: malformed CSV: unexpected character after a closing quote \(line 4\); the 2 row\(s\) before it were read/,
  );
});
