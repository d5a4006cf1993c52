// Issue 29 ("Also"): a rocprof-compute workload folder as its profile mode writes it on MI300X with ROCm 6.4.1
// (pmc_perf.csv of ~590 columns beside five SQ_*.csv counter passes and timestamps.csv, one dispatch in each:
// test/fixtures/rocprof-compute-workload/, written by scripts/gen-workload-fixture.mjs). Its one dispatch is
// counted once (it was seven: every CSV read as a kernel trace), in the kernel table and per agent alike; its
// counters are listed per kernel; a wide pmc_perf.csv under another name, alone, is read (it was refused: "more
// than 256 fields in a row").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { summarizePath } from '../../../src/trace/index';
import { repoRoot } from './helpers';
import { tempDirsRemovedAfter } from '../../support/tempDirs';

const folder = path.join(repoRoot, 'test/fixtures/rocprof-compute-workload/mi300x-6.4.1');
const tempDir = tempDirsRemovedAfter('kr-workload-');
const PASSES = ['SQ_IFETCH_LEVEL', 'SQ_INST_LEVEL_LDS', 'SQ_INST_LEVEL_SMEM', 'SQ_INST_LEVEL_VMEM', 'SQ_LEVEL_WAVES'];

test('a workload folder: its one dispatch counted once, per agent too; every pass file read; its counters listed', async () => {
  const header = readFileSync(path.join(folder, 'pmc_perf.csv'), 'utf8').split('\n')[0] as string;
  const width = header.split(',').length;
  assert.ok(width > 580 && width < 600, `pmc_perf.csv has ${width} columns`);

  const s = await summarizePath(folder);
  assert.deepEqual(
    s.kernels.map((k) => [k.name, k.calls]),
    [['vecCopy(double*, double*, double*, int, int) (.kd)', 1]],
  );
  assert.deepEqual(
    s.agents.filter((a) => a.kernelCalls > 0).map((a) => a.kernelCalls),
    [1],
    'the per-agent section counts the same one dispatch',
  );
  assert.deepEqual(
    s.sources.map((x) => [x.path, x.kind]).sort(),
    [
      ['pmc_perf.csv', 'pmc_perf'],
      ...PASSES.map((p) => [`${p}.csv`, 'workload_pass']),
      ['sysinfo.csv', 'sysinfo'],
      ['timestamps.csv', 'kernel_trace'],
    ].sort(),
  );
  assert.deepEqual(s.skipped, []);

  const counters = s.counters ?? [];
  assert.equal(counters.length, 1);
  const k = counters[0] as (typeof counters)[number];
  assert.equal(k.dispatches, 1);
  const names = new Set(k.counters.map((c) => c.name));
  // pmc_perf.csv's counters (per channel too) and each pass's own, once each, not the dispatch's fields
  for (const name of ['SQ_WAVES', 'TCC_HIT_sum', 'TCC_HIT[3]', 'GRBM_GUI_ACTIVE', ...PASSES, 'SQ_ACCUM_PREV_HIRES'])
    assert.ok(names.has(name), name);
  for (const field of ['Dispatch_ID', 'GPU_ID', 'Grid_Size', 'Start_Timestamp', 'Correlation_ID'])
    assert.ok(!names.has(field), field);
  const pmcCounters = width - 17;
  assert.equal(
    k.counters.length,
    pmcCounters + 8,
    'the passes add SQ_ACCUM_PREV_HIRES, SQ_IFETCH, SQ_INSTS_VMEM and their level counters',
  );
  assert.ok(
    k.counters.every((c) => c.dispatches === 1),
    'one value per counter: the passes do not add a second',
  );
});

test('a wide pmc_perf.csv under another name, given alone, is read with its counters', async () => {
  const dir = tempDir('renamed');
  const file = path.join(dir, 'MI300X_A1_pmc_perf.csv');
  copyFileSync(path.join(folder, 'pmc_perf.csv'), file);
  const s = await summarizePath(file);
  assert.equal(s.kernels[0]?.calls, 1);
  assert.deepEqual(s.skipped, []);
  assert.ok((s.counters?.[0]?.counters.length ?? 0) > 500);
});
