// A multi-process profile in rocprofv3's default per-process layout (`<hostname>/<pid>_<kind>.csv`, ROCm 7.0
// headers), as a reference-kernels `amd_distributed` job writes it: a launcher process without GPU work and four
// rank processes, each on its own GPU, with compute kernels, RCCL and own all-to-all kernels, host and peer copies,
// and two benchmark cases as rocTX ranges (launches correlated through the HIP API trace). Rank pids are not in
// device order, so ranks come from the devices.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import type { TraceSummary } from '../../../src/core/protocol/traceSummary';

export const HOST = 'mi300x8-node';
export const LAUNCHER_PID = 3000;
export const GEMM = 'void gemm_kernel<float, 128>(float const*, float const*, float*, int)';
export const RCCL = 'ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)';
export const A2A = 'void all2all_dispatch_kernel<__hip_bfloat16>(__hip_bfloat16 const*, int)';
export const CASES = ['benchmark 0: m: 1024', 'benchmark 1: m: 4096'];

export interface RankSpec {
  pid: number;
  /** Agent number (`Agent <n>`, the GPU's node id; GPUs are nodes 1..4). */
  agent: number;
  /** Compute ns of each gemm dispatch, per case. */
  gemmNs: [number, number];
}

/** Ranks by device: device 0 (Agent 1) is pid 3012, ... rank 2 (Agent 3, pid 3011) computes longest in case 1. */
export const RANKS: RankSpec[] = [
  { pid: 3011, agent: 3, gemmNs: [1000, 3000] },
  { pid: 3012, agent: 1, gemmNs: [1000, 2000] },
  { pid: 3013, agent: 4, gemmNs: [1200, 2000] },
  { pid: 3014, agent: 2, gemmNs: [1000, 2100] },
];

const KERNEL_HEADER =
  '"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"';
const API_HEADER = '"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"';
const COPY_HEADER =
  '"Kind","Direction","Stream_Id","Source_Agent_Id","Destination_Agent_Id","Correlation_Id","Start_Timestamp","End_Timestamp"';
const AGENT_HEADER =
  '"Node_Id","Logical_Node_Id","Agent_Type","Cpu_Cores_Count","Simd_Count","Cu_Count","Wave_Front_Size","Name","Vendor_Name","Product_Name","Model_Name"';

const PC_HEADER = '"Sample_Timestamp","Exec_Mask","Dispatch_Id","Instruction","Instruction_Comment","Correlation_Id"';

/** The counters a profile with `--pmc` collects (rocprofv3's counter_collection.csv, rocpd's pmc_events). */
export const COUNTERS = ['TCP_TOTAL_CACHE_ACCESSES_sum', 'SQ_WAVES'] as const;
/** A counter of a rank's dispatch `dispatch` (1..18): L1 accesses 100 * agent + dispatch (each rank's, each case's own). */
export const counterValue = (r: RankSpec, dispatch: number, counter: (typeof COUNTERS)[number]): number =>
  counter === 'SQ_WAVES' ? 16 : 100 * r.agent + dispatch;

const COUNTER_HEADER =
  'Correlation_Id,Dispatch_Id,Agent_Id,Queue_Id,Process_Id,Thread_Id,Grid_Size,Kernel_Id,Kernel_Name,Workgroup_Size,LDS_Block_Size,Scratch_Size,VGPR_Count,Accum_VGPR_Count,SGPR_Count,Counter_Name,Counter_Value,Start_Timestamp,End_Timestamp';

/** The GPU agent a rank's device-to-device copy goes to: the next one, round. */
export const peerOf = (agent: number): number => (agent % 4) + 1;

/**
 * A second run's copies for compare tests (`peerCopies` of writeMultiRankRun): against the default one of 200 ns to
 * peerOf, GPU 1's copy to GPU 2 4.5x slower, GPU 2's to GPU 3 4x faster and a new one to GPU 0, GPU 3 copies nothing.
 */
export const CHANGED_PEER_COPIES: Readonly<Record<number, Array<[number, number]>>> = {
  1: [[2, 200]],
  2: [[3, 900]],
  3: [
    [4, 50],
    [1, 300],
  ],
  4: [],
};

const q = (s: string): string => `"${s.replace(/"/g, '""')}"`;
const T0 = 1_000_000_000;

function agentInfo(): string {
  const rows = [`0,0,"CPU",96,0,0,0,"AMD EPYC 9654","CPU","AMD EPYC 9654",""`];
  for (let n = 1; n <= 4; n++)
    rows.push(`${n},${n},"GPU",0,1216,304,64,"gfx942","AMD","AMD Instinct MI300X","ip discovery"`);
  return [AGENT_HEADER, ...rows].join('\n') + '\n';
}

/**
 * Writes the profile under `dir`; returns each rank's files (relative to `dir`), launcher's included. `pcSamples`:
 * each rank also writes host-trap PC samples of its dispatches (a gemm's count from its duration, so ranks differ);
 * `counters`: a counter collection of every dispatch (COUNTERS, counterValue).
 */
export function writeMultiRankRun(
  dir: string,
  opts: {
    manifest?: boolean;
    pcSamples?: boolean;
    counters?: boolean;
    /** Each rank's device-to-device copies as [destination agent, ns]; default one of 200 ns to peerOf(agent). */
    peerCopies?: (agent: number) => Array<[number, number]>;
  } = {},
): Map<number, string[]> {
  const hostDir = path.join(dir, HOST);
  mkdirSync(hostDir, { recursive: true });
  const files = new Map<number, string[]>();
  const write = (pid: number, kind: string, text: string): void => {
    const name = `${pid}_${kind}.csv`;
    writeFileSync(path.join(hostDir, name), text);
    files.set(pid, [...(files.get(pid) ?? []), `${HOST}/${name}`]);
  };
  write(LAUNCHER_PID, 'agent_info', agentInfo());
  for (const r of RANKS) {
    const agent = `Agent ${r.agent}`;
    const kernels: string[] = [];
    const samples: string[] = [];
    const counted: string[] = [];
    const api: string[] = [];
    const markers: string[] = [];
    let corr = 1;
    let gpu = T0 + 10_000;
    CASES.forEach((name, c) => {
      const caseStart = T0 + 1000 + c * 100_000;
      markers.push(`"MARKER_CORE_API",${q(name)},${r.pid},1,${900 + c},${caseStart},${caseStart + 90_000}`);
      // three iterations: gemm, then the all-to-all, then an RCCL all-reduce; all launched inside the range
      for (let i = 0; i < 3; i++) {
        for (const [kernel, ns] of [
          [GEMM, r.gemmNs[c]],
          [A2A, 400 + r.agent * 10],
          [RCCL, 600 + (4 - r.agent) * 50],
        ] as Array<[string, number]>) {
          const launchAt = caseStart + 100 + corr * 50;
          api.push(`"HIP_RUNTIME_API_EXT","hipLaunchKernel",${r.pid},1,${corr},${launchAt},${launchAt + 20}`);
          gpu = Math.max(gpu, launchAt + 30);
          kernels.push(
            `"KERNEL_DISPATCH",${q(agent)},1,1,1,${corr},${corr + 5},${q(kernel)},${corr},${gpu},${gpu + ns},0,0,32,0,16,256,1,1,65536,1,1`,
          );
          for (const counter of COUNTERS)
            counted.push(
              `${corr},${corr},${q(agent)},1,${r.pid},1,65536,${corr + 5},${q(kernel)},256,0,0,32,0,16,${counter},${counterValue(r, corr, counter)},${gpu},${gpu + ns}`,
            );
          for (let n = 0; n < Math.round(ns / 100); n++)
            samples.push(
              `${gpu + n * 100},"0xffffffffffffffff",${corr},"s_nop 0","k.hip:${10 + ((n + r.agent) % 4)}",${corr}`,
            );
          gpu += ns + 100;
          corr++;
        }
      }
    });
    if (opts.pcSamples) write(r.pid, 'pc_sampling_host_trap', [PC_HEADER, ...samples].join('\n') + '\n');
    write(r.pid, 'agent_info', agentInfo());
    write(r.pid, 'kernel_trace', [KERNEL_HEADER, ...kernels].join('\n') + '\n');
    if (opts.counters) write(r.pid, 'counter_collection', [COUNTER_HEADER, ...counted].join('\n') + '\n');
    write(r.pid, 'hip_api_trace', [API_HEADER, ...api].join('\n') + '\n');
    write(r.pid, 'marker_api_trace', [API_HEADER, ...markers].join('\n') + '\n');
    const peers = opts.peerCopies?.(r.agent) ?? [[peerOf(r.agent), 200]];
    const copies = [
      `"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",0,"Agent 0",${q(agent)},${corr + 1},${T0 + 500},${T0 + 900 + r.agent}`,
      ...peers.map(([to, ns], i) => {
        const at = gpu + 10 + i * 1000;
        return `"MEMORY_COPY","MEMORY_COPY_DEVICE_TO_DEVICE",0,${q(agent)},${q(`Agent ${to}`)},${i === 0 ? corr + 2 : corr + 10 + i},${at},${at + ns}`;
      }),
      `"MEMORY_COPY","MEMORY_COPY_DEVICE_TO_HOST",0,${q(agent)},"Agent 0",${corr + 3},${gpu + 300},${gpu + 700}`,
    ];
    write(r.pid, 'memory_copy_trace', [COPY_HEADER, ...copies].join('\n') + '\n');
  }
  if (opts.manifest) {
    // ranks as the runner knows them (here: pid order, not device order), and the launcher as their parent
    const processes = [
      { pid: LAUNCHER_PID, ppid: 1, rank: null, devices: [], outputs: files.get(LAUNCHER_PID) },
      ...RANKS.map((r, i) => ({
        pid: r.pid,
        ppid: LAUNCHER_PID,
        rank: i,
        devices: [r.agent - 1],
        outputs: files.get(r.pid),
      })),
    ];
    writeFileSync(path.join(dir, 'kernel-runner-processes.json'), JSON.stringify({ version: 1, processes }));
  }
  return files;
}

type Rank = NonNullable<TraceSummary['ranks']>['processes'][number];

/**
 * A rank's totals, busy time, top kernels, copies and GPU-to-GPU pairs against a one-process read of its own files
 * (`one`).
 */
export function assertRankTotalsAlone(rank: Rank, one: TraceSummary, agent: number): void {
  assert.equal(rank.kernelNs, one.kernelTotals.totalNs);
  assert.equal(rank.kernelCalls, one.kernelTotals.calls);
  assert.equal(rank.busyNs, one.agents.find((a) => a.id === `Agent ${agent}`)?.busyNs, `pid ${rank.pid} busy`);
  assert.deepEqual(
    rank.topKernels.map((k) => [k.name, k.calls, k.totalNs, k.percent]),
    one.kernels.map((k) => [k.name, k.calls, k.totalNs, k.percent]),
  );
  assert.deepEqual(
    rank.copies,
    one.memoryCopies.map((c) => ({ direction: c.direction, calls: c.calls, totalNs: c.totalNs, bytes: c.bytes })),
  );
  // each rank sends to the next GPU (peerOf): one pair, from its own GPU
  assert.deepEqual(
    rank.peerCopies?.map((p) => [p.srcAgentId, p.dstAgentId]),
    [[`Agent ${agent}`, `Agent ${peerOf(agent)}`]],
  );
  assert.deepEqual(rank.peerCopies, one.peerCopies, `pid ${rank.pid} GPU-to-GPU pairs`);
}
