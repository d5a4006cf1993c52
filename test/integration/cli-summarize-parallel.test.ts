// The BUILT CLI reads a kernel trace with its bundled worker (dist/trace-worker.cjs, found beside the bundle):
// the summary equals the single-threaded one, and the worker really ran (KERNEL_RUNNER_TRACE_DEBUG says so); the
// launcher starts the workers of a large trace (a file or a folder holding one) before the bundle loads, and those
// of a counter collection scan their first parts before they are asked, unless a kernel trace is beside it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureKernelTrace } from '../../bench/kernelTraceData';
import { ensureBuiltWith } from './submit/helpers';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(repoRoot, 'dist/cli.cjs');
const dir = mkdtempSync(path.join(tmpdir(), 'kr-cli-parallel-'));

before(() => {
  ensureBuiltWith('dist/trace-worker.cjs');
});
after(() => rmSync(dir, { recursive: true, force: true }));

function summarize(file: string, env: Record<string, string>) {
  const r = spawnSync(process.execPath, [cli, 'summarize', file, '--json'], {
    cwd: tmpdir(),
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: { ...process.env, NO_COLOR: '1', KERNEL_RUNNER_TRACE_DEBUG: '1', ...env },
  });
  assert.equal(r.status, 0, r.stderr);
  return r;
}

test('summarize --json of a kernel trace: the bundled worker reads it, the summary equals the one-thread read', async () => {
  const file = await ensureKernelTrace(dir, { rows: 3000, kernels: 60, seed: 4 });
  const many = summarize(file, { KERNEL_RUNNER_TRACE_MIN_BYTES: '0', KERNEL_RUNNER_TRACE_THREADS: '2' });
  // the launcher started the workers, and they had scanned their first parts before being asked
  assert.match(
    many.stderr,
    /kernel_trace\.csv: \d+ part\(s\), [12] worker thread\(s\), 0 rescanned, 0 on the main thread.*, [12] started by the launcher \([12] part\(s\) scanned before they were asked for\)/,
  );
  const one = summarize(file, { KERNEL_RUNNER_TRACE_THREADS: '0' });
  assert.equal(one.stderr, '', 'no parallel read');
  assert.equal(many.stdout, one.stdout);
  assert.equal(JSON.parse(many.stdout).kernelTotals.calls, 3000);
});

test('the launcher starts the workers of a large kernel trace, in a folder too, and none below the size or with no threads', async () => {
  const file = await ensureKernelTrace(dir, { rows: 3000, kernels: 60, seed: 4 });
  const folder = summarize(path.dirname(file), {
    KERNEL_RUNNER_TRACE_MIN_BYTES: '0',
    KERNEL_RUNNER_TRACE_THREADS: '2',
  });
  // (a folder's files may change the columns or the clock: its workers start with nothing to guess)
  assert.match(
    folder.stderr,
    /kernel_trace\.csv: .*, [12] worker thread\(s\), .*, [12] started by the launcher \(0 part\(s\) scanned before they were asked for\)\n/,
  );
  // below the size: no parallel read (nothing to say) and so nothing started for it
  const small = summarize(file, { KERNEL_RUNNER_TRACE_MIN_BYTES: String(1 << 30), KERNEL_RUNNER_TRACE_THREADS: '2' });
  assert.equal(small.stderr, '');
  assert.equal(JSON.parse(folder.stdout).kernelTotals.calls, 3000);
});

/** A rocprofv3 ROCm 7 counter_collection.csv (timestamps past 2^53) with a sysinfo.csv, in a folder of its own. */
function counterFolder(name: string, dispatches: number): string {
  const folder = path.join(dir, name);
  mkdirSync(folder);
  const counters = [
    'SQ_INSTS_VALU_ADD_F32',
    'SQ_INSTS_VALU_FMA_F32',
    'TCC_EA0_RDREQ_sum',
    'SQ_WAVES',
    'GRBM_GUI_ACTIVE',
  ];
  const lines = [
    'Correlation_Id,Dispatch_Id,Agent_Id,Queue_Id,Process_Id,Thread_Id,Grid_Size,Kernel_Id,Kernel_Name,Workgroup_Size,LDS_Block_Size,Scratch_Size,VGPR_Count,Accum_VGPR_Count,SGPR_Count,Counter_Name,Counter_Value,Start_Timestamp,End_Timestamp',
  ];
  let t = 12_000_000_000_000_000n;
  for (let d = 1; d <= dispatches; d++) {
    const k = d % 7;
    const end = t + BigInt(1000 + ((d * 7919) % 50000));
    for (const [i, c] of counters.entries())
      lines.push(
        `${d},${d},2,1,4242,4242,1048576,${k},"gemm_${k}(float const*, float*, int)",256,0,0,16,4,32,${c},${(d * 31 + i * 17) % 100000},${t},${end}`,
      );
    t = end + 500n;
  }
  writeFileSync(path.join(folder, 'run_counter_collection.csv'), lines.join('\n') + '\n');
  writeFileSync(
    path.join(folder, 'sysinfo.csv'),
    'gpu_arch,cu_per_gpu,max_sclk,max_mclk,total_l2_chan,num_hbm_channels,num_xcd,max_waves_per_cu\ngfx942,304,2100,1300,128,128,8,32\n',
  );
  return folder;
}

test("the launcher's workers scan a large counter collection's first parts before they are asked; the summary is the one-thread one", () => {
  const folder = counterFolder('counters', 12000);
  const env = { KERNEL_RUNNER_TRACE_MIN_BYTES: '0', KERNEL_RUNNER_TRACE_THREADS: '2' };
  const many = summarize(folder, env);
  assert.match(
    many.stderr,
    /counter_collection\.csv: [3-9] part\(s\), 1 worker thread\(s\), 0 rescanned, [1-9] on the main thread.*, 1 started by the launcher \(2 part\(s\) scanned before they were asked for\)/,
  );
  const one = summarize(folder, { KERNEL_RUNNER_TRACE_THREADS: '0' });
  assert.equal(one.stderr, '', 'no parallel read');
  assert.equal(many.stdout, one.stdout);
  const summary = JSON.parse(many.stdout);
  assert.equal(summary.kernelTotals.calls, 12000);
  assert.ok(summary.roofline, 'the per-dispatch counters reached the roofline');

  // given as a file, the same
  const file = summarize(path.join(folder, 'run_counter_collection.csv'), env);
  assert.match(file.stderr, /\([12] part\(s\) scanned before they were asked for\)/);
});

test("beside a kernel trace, a counter collection's workers guess nothing (its dispatches are the trace's)", async () => {
  const folder = counterFolder('with-trace', 2000);
  const trace = await ensureKernelTrace(path.join(dir, 'trace-src'), { rows: 2000, kernels: 7, seed: 5 });
  copyFileSync(trace, path.join(folder, 'run_kernel_trace.csv'));
  const many = summarize(folder, { KERNEL_RUNNER_TRACE_MIN_BYTES: '0', KERNEL_RUNNER_TRACE_THREADS: '2' });
  assert.match(many.stderr, /counter_collection\.csv: .*\(0 part\(s\) scanned before they were asked for\)/);
  const one = summarize(folder, { KERNEL_RUNNER_TRACE_THREADS: '0' });
  assert.equal(many.stdout, one.stdout);
});
