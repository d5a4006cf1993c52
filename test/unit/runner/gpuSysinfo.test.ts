// sysinfo.csv from rocminfo / amd-smi outputs: our samples (test/fixtures/gpu-info, layouts from real outputs), the
// real rocminfo dump of an MI300A in the shared fixtures, and rocprof-compute's own sysinfo.csv for the same GPUs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildSysinfo,
  parseAmdSmiStatic,
  parseRocminfoGpus,
  sysinfoCsv,
  SYSINFO_COLUMNS,
  type GpuSysinfo,
} from '../../../src/runner/gpuSysinfo';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const sample = (name: string) => readFileSync(path.join(root, 'test/fixtures/gpu-info', name), 'utf8');
const shared = (rel: string) => readFileSync(path.join(root, '../shared/fixtures', rel), 'utf8');

/** rocprof-compute's sysinfo.csv as a column -> value map. */
function rocprofComputeSysinfo(rel: string): Record<string, string> {
  const [header, row] = shared(rel).trim().split('\n') as [string, string];
  // their rows quote one field with commas (sbios); none of the columns compared here is after a quoted one that matters
  const cells = row.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, '').replace(/^"|"$/g, ''));
  return Object.fromEntries(header.split(',').map((h, i) => [h, cells[i] ?? '']));
}

const read = (text: string) => ({ text, status: 'read' });
const missing = { text: null, status: 'not found' };

test('rocminfo: the GPU agents and their fields (ISA section names and CPU agents left out)', () => {
  const gpus = parseRocminfoGpus(sample('rocminfo-mi300x.txt'));
  assert.equal(gpus.length, 2);
  assert.deepEqual(gpus[0], {
    name: 'gfx942',
    marketingName: 'AMD Instinct MI300X',
    chipId: '29857',
    l1Kb: '32',
    l2Kb: '4096',
    maxClockMhz: '2100',
    computeUnits: '304',
    simdsPerCu: '4',
    shaderEngines: '32',
    wavefrontSize: '64',
    workgroupMaxSize: '1024',
    maxWavesPerCu: '32',
  });
});

test('amd-smi static --json: highest clock levels and partitions, in both shapes (gpu_data from amd-smi 26, a list before)', () => {
  assert.deepEqual(parseAmdSmiStatic(sample('amd-smi-static-mi300x.json')), [
    { maxMclk: '1300', maxSclk: '2100', computePartition: 'SPX', memoryPartition: 'NPS1' },
    { maxMclk: '1300', maxSclk: '2100', computePartition: 'SPX', memoryPartition: 'NPS1' },
  ]);
  assert.deepEqual(parseAmdSmiStatic(sample('amd-smi-static-mi250-list.json')), [
    { maxMclk: '1600', maxSclk: '1700', computePartition: null, memoryPartition: null },
  ]);
  assert.deepEqual(parseAmdSmiStatic('amd-smi: command not found'), []);
});

test("MI300X: every spec input equals rocprof-compute's own sysinfo.csv of an MI300X", () => {
  const info = buildSysinfo(read(sample('rocminfo-mi300x.txt')), read(sample('amd-smi-static-mi300x.json')), 1);
  const theirs = rocprofComputeSysinfo('rocprof-compute/dispatch_0/MI300X_A1/sysinfo.csv');
  for (const c of [
    'gpu_model',
    'gpu_arch',
    'gpu_l1',
    'gpu_l2',
    'cu_per_gpu',
    'simd_per_cu',
    'se_per_gpu',
    'wave_size',
    'workgroup_max_size',
    'max_waves_per_cu',
    'max_sclk',
    'max_mclk',
    'cur_sclk',
    'cur_mclk',
    'compute_partition',
    'memory_partition',
    'num_xcd',
    'total_l2_chan',
    'lds_banks_per_cu',
    'num_hbm_channels',
  ] as const) {
    assert.equal(info[c], theirs[c], c);
  }
  assert.equal(info.sources, 'rocminfo: read; amd-smi: read');
});

test("MI250 (gfx90a): one XCD, 32 L2 channels, HBM channels = L2 channels without an NPS partition, as rocprof-compute's MI200 sysinfo.csv", () => {
  const info = buildSysinfo(read(sample('rocminfo-mi250.txt')), read(sample('amd-smi-static-mi250-list.json')));
  const theirs = rocprofComputeSysinfo('rocprof-compute/dispatch_0/MI200/sysinfo.csv');
  for (const c of [
    'gpu_arch',
    'gpu_l1',
    'gpu_l2',
    'cu_per_gpu',
    'se_per_gpu',
    'max_sclk',
    'max_mclk',
    'num_xcd',
    'total_l2_chan',
    'num_hbm_channels',
  ] as const) {
    assert.equal(info[c], theirs[c], c);
  }
  assert.equal(info.gpu_model, 'MI250');
});

test('the real rocminfo dump of an MI300A, without amd-smi: arch, CUs and clock known, the memory clock not', () => {
  const info = buildSysinfo(read(shared('rocprof/HIP_Programming__results.sysinfo.txt')), missing);
  const theirs = rocprofComputeSysinfo('rocprof-compute/dispatch_0/MI300A_A1/sysinfo.csv');
  for (const c of [
    'gpu_model',
    'gpu_arch',
    'cu_per_gpu',
    'se_per_gpu',
    'max_sclk',
    'num_xcd',
    'total_l2_chan',
  ] as const) {
    assert.equal(info[c], theirs[c], c);
  }
  assert.equal(info.gpu_l2, '4096', 'rocminfo says 4096 KB (that older sysinfo.csv wrote 24576)');
  assert.equal(info.max_mclk, null);
  assert.equal(info.memory_partition, null);
  assert.equal(info.sources, 'rocminfo: read; amd-smi: not found');
});

test('no tools: every value unknown (empty cells) and the file says so; never a failure', () => {
  const info = buildSysinfo(missing, { text: null, status: 'failed (exit 2)' });
  const known = SYSINFO_COLUMNS.filter((c) => c !== 'sources' && info[c] !== null);
  assert.deepEqual(known, []);
  assert.equal(info.sources, 'unknown: rocminfo: not found; amd-smi: failed (exit 2)');
  const [header, row] = sysinfoCsv(info).split('\n');
  assert.equal(header, SYSINFO_COLUMNS.join(','));
  assert.equal(row, `${','.repeat(SYSINFO_COLUMNS.length - 1)}unknown: rocminfo: not found; amd-smi: failed (exit 2)`);
});

test('sysinfo.csv quotes a cell with a comma', () => {
  const info = { ...buildSysinfo(missing, missing), gpu_model: 'A, B' } as GpuSysinfo;
  assert.match(sysinfoCsv(info), /^gpu_model,[^\n]*\n"A, B",/);
});
