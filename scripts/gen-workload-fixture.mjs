// Writes test/fixtures/rocprof-compute-workload/mi300x-6.4.1/: a rocprof-compute workload folder in the layout its
// profile mode writes on MI300X with ROCm 6.4.1 (rocprofv3 backend): pmc_perf.csv (the counter passes joined, one
// row per dispatch, about 590 columns), one CSV per accumulate-counter pass (SQ_IFETCH_LEVEL.csv, SQ_INST_LEVEL_LDS.csv,
// SQ_INST_LEVEL_SMEM.csv, SQ_INST_LEVEL_VMEM.csv, SQ_LEVEL_WAVES.csv) and timestamps.csv (the kernel trace pass),
// each holding the same ONE dispatch (every pass runs the program again: its own timestamps), and sysinfo.csv.
// Column names as rocprof-compute writes them; values synthetic (seeded). Deterministic: run it again, same bytes.
//
//   node scripts/gen-workload-fixture.mjs
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'test/fixtures/rocprof-compute-workload/mi300x-6.4.1');
mkdirSync(out, { recursive: true });

let seed = 641;
const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const int = (n) => Math.floor(next() * n);

const KERNEL = '"vecCopy(double*, double*, double*, int, int) (.kd)"';
/**
 * The dispatch's fields as name: value, in rocprof-compute's column order, with pass `p`'s timing (each pass runs the
 * program again).
 */
const dispatch = (p) => {
  const start = 3_461_802_754_112_000 + p * 1_000_000_000 + int(1000);
  return {
    Dispatch_ID: 0,
    GPU_ID: 2,
    Queue_ID: 0,
    PID: 81234,
    TID: 81234,
    Grid_Size: 1048576,
    Workgroup_Size: 256,
    LDS_Per_Workgroup: 0,
    Scratch_Per_Workitem: 0,
    Arch_VGPR: 8,
    Accum_VGPR: 0,
    SGPR: 16,
    Wave_Size: 64,
    Kernel_Name: KERNEL,
    Start_Timestamp: start,
    End_Timestamp: start + 39_000 + int(2000),
    Correlation_ID: 1,
  };
};
/** A wide table: the one dispatch with pass `p`'s timing, then `counters`' values. */
const wide = (p, counters) => {
  const d = dispatch(p);
  return csv([...Object.keys(d), ...counters], [[...Object.values(d), ...counters.map(value)]]);
};

const PER_CHANNEL = [
  'TCC_HIT',
  'TCC_MISS',
  'TCC_REQ',
  'TCC_READ',
  'TCC_WRITE',
  'TCC_ATOMIC',
  'TCC_EA0_RDREQ',
  'TCC_EA0_WRREQ',
  'TCC_EA0_RDREQ_32B',
  'TCC_EA0_WRREQ_64B',
  'TCC_BUBBLE',
  'TCC_CYCLE',
  'TCC_BUSY',
  'TCC_PROBE',
  'TCC_STREAMING_REQ',
  'TCC_NC_REQ',
  'TCC_UC_REQ',
  'TCC_CC_REQ',
  'TCC_RW_REQ',
  'TCC_TAG_STALL',
  'TCC_EA0_RD_UNCACHED_32B',
  'TCC_EA0_ATOMIC',
  'TCC_EA0_RDREQ_DRAM',
  'TCC_EA0_WRREQ_DRAM',
  'TCC_EA0_RDREQ_LEVEL',
  'TCC_EA0_WRREQ_LEVEL',
  'TCC_EA0_WRREQ_STALL',
  'TCC_EA0_RDREQ_IO',
  'TCC_EA0_WRREQ_IO',
  'TCC_WRITEBACK',
  'TCC_NORMAL_WRITEBACK',
  'TCC_EVICT',
  'TCC_NORMAL_EVICT',
];
const SINGLE = [
  ...['F16', 'F32', 'F64'].flatMap((p) => ['ADD', 'MUL', 'FMA', 'TRANS'].map((o) => `SQ_INSTS_VALU_${o}_${p}`)),
  ...['F8', 'F16', 'BF16', 'F32', 'F64', 'I8'].map((t) => `SQ_INSTS_VALU_MFMA_MOPS_${t}`),
  'SQ_WAVES',
  'SQ_INSTS_VALU',
  'SQ_INSTS_SALU',
  'SQ_INSTS_SMEM',
  'SQ_INSTS_LDS',
  'SQ_INSTS_VMEM_RD',
  'SQ_INSTS_VMEM_WR',
  'SQ_INSTS_BRANCH',
  'SQ_INSTS_FLAT',
  'SQ_INSTS_GDS',
  'SQ_WAVE_CYCLES',
  'SQ_BUSY_CYCLES',
  'SQ_BUSY_CU_CYCLES',
  'SQ_WAIT_ANY',
  'SQ_WAIT_INST_ANY',
  'SQ_ACTIVE_INST_ANY',
  'SQ_ACTIVE_INST_VALU',
  'SQ_ACTIVE_INST_LDS',
  'SQ_LDS_IDX_ACTIVE',
  'SQ_LDS_BANK_CONFLICT',
  'SQ_INSTS_VALU_MFMA_F16',
  'SQ_VALU_MFMA_BUSY_CYCLES',
  'SQC_DCACHE_REQ',
  'SQC_DCACHE_HITS',
  'SQC_DCACHE_MISSES',
  'SQC_ICACHE_REQ',
  'SQC_ICACHE_HITS',
  'SQC_ICACHE_MISSES',
  'TCP_TOTAL_CACHE_ACCESSES_sum',
  'TCP_TCC_READ_REQ_sum',
  'TCP_TCC_WRITE_REQ_sum',
  'TCP_TCC_ATOMIC_WITH_RET_REQ_sum',
  'TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum',
  'TCP_TCR_TCP_STALL_CYCLES_sum',
  'TCP_PENDING_STALL_CYCLES_sum',
  'TA_BUSY_avr',
  'TA_BUSY_max',
  'TA_BUSY_min',
  'TA_TA_BUSY_sum',
  'TD_TD_BUSY_sum',
  'TD_SPI_STALL_sum',
  'SPI_CSN_BUSY',
  'SPI_CSN_WINDOW_VALID',
  'SPI_CSN_NUM_THREADGROUPS',
  'SPI_CSN_WAVE',
  'SPI_RA_REQ_NO_ALLOC',
  'CPC_CPC_STAT_BUSY',
  'CPC_CPC_STAT_IDLE',
  'CPF_CPF_STAT_BUSY',
  'CPF_CPF_STAT_IDLE',
  'GRBM_COUNT',
  'GRBM_GUI_ACTIVE',
  'GRBM_CP_BUSY',
  'GRBM_SPI_BUSY',
  'GRBM_TA_BUSY',
  'GRBM_TC_BUSY',
  'GRBM_CPC_BUSY',
  'GRBM_CPF_BUSY',
  'GRBM_UTCL2_BUSY',
  'GRBM_EA_BUSY',
  ...PER_CHANNEL.map((c) => `${c}_sum`),
];
// 16 channels per TCC counter (most of them), as rocprof-compute writes them beside their _sum
const COUNTERS = [
  ...SINGLE,
  ...PER_CHANNEL.slice(0, 29).flatMap((c) => Array.from({ length: 16 }, (_, i) => `${c}[${i}]`)),
];

function csv(columns, rows) {
  return `${[columns.join(','), ...rows.map((r) => r.join(','))].join('\n')}\n`;
}
const value = () => `${int(2_000_000)}.0`;

// the passes of accumulate counters: one file each, named after the pass
const LEVEL_PASSES = {
  SQ_IFETCH_LEVEL: ['SQ_IFETCH_LEVEL', 'SQ_ACCUM_PREV_HIRES', 'SQ_IFETCH', 'GRBM_GUI_ACTIVE'],
  SQ_INST_LEVEL_LDS: ['SQ_INST_LEVEL_LDS', 'SQ_ACCUM_PREV_HIRES', 'SQ_INSTS_LDS', 'GRBM_GUI_ACTIVE'],
  SQ_INST_LEVEL_SMEM: ['SQ_INST_LEVEL_SMEM', 'SQ_ACCUM_PREV_HIRES', 'SQ_INSTS_SMEM', 'GRBM_GUI_ACTIVE'],
  SQ_INST_LEVEL_VMEM: ['SQ_INST_LEVEL_VMEM', 'SQ_ACCUM_PREV_HIRES', 'SQ_INSTS_VMEM', 'GRBM_GUI_ACTIVE'],
  SQ_LEVEL_WAVES: ['SQ_LEVEL_WAVES', 'SQ_ACCUM_PREV_HIRES', 'SQ_WAVES', 'GRBM_GUI_ACTIVE'],
};

let pass = 0;
const pmcPerf = wide(pass++, COUNTERS);
writeFileSync(join(out, 'pmc_perf.csv'), pmcPerf);
for (const [name, counters] of Object.entries(LEVEL_PASSES))
  writeFileSync(join(out, `${name}.csv`), wide(pass++, counters));
writeFileSync(join(out, 'timestamps.csv'), wide(pass, []));
writeFileSync(
  join(out, 'sysinfo.csv'),
  csv(
    [
      'workload_name',
      'command',
      'ip_blocks',
      'version',
      'rocm_version',
      'gpu_model',
      'gpu_arch',
      'cu_per_gpu',
      'simd_per_cu',
      'se_per_gpu',
      'wave_size',
      'max_waves_per_cu',
      'max_sclk',
      'max_mclk',
      'total_l2_chan',
      'num_xcd',
      'num_hbm_channels',
    ],
    [
      [
        'synthetic',
        'synthetic',
        'SQ|SQC|TA|TD|TCP|TCC|SPI|CPC|CPF',
        '3',
        '6.4.1',
        'MI300X_A1',
        'gfx942',
        '304',
        '4',
        '32',
        '64',
        '32',
        '2100',
        '1300',
        '128',
        '8',
        '128',
      ],
    ],
  ),
);
console.log(`${out}: pmc_perf.csv has ${pmcPerf.split('\n', 1)[0].split(',').length} columns`);
