// A run written in rocprofv3's real CSV layout (ROCm 7.0 headers, `<pid>_` file prefixes) with rocTX ranges on
// two threads, nested ranges, and kernels that run on the GPU after their range closed: shared by the range and
// compare tests.
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const KERNEL_HEADER =
  '"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"';
const API_HEADER = '"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"';
export const PID = 4242;
export const A = 'void gemm<float, 2>(float const*, float*, int)';
export const B = 'worker_kernel(int*)';
export const C = 'inner_kernel(float*, float const*)';

export interface Launch {
  corr: number;
  tid: number;
  at: number;
  kernel: string;
  gpu: [number, number];
}

// Main thread 100: `benchmark 0` [1000, 2000], `benchmark 1` [3000, 4000] holding `inner` [3200, 3500], an
// instant mark at 2500. Thread 200: `worker` [1100, 1400]. Thread 300 has no range. Kernels mostly run on the
// GPU after every range has closed (from 5000 on), as asynchronous launches do.
export const RANGES: Array<[string, number, number, number]> = [
  ['benchmark 0: n: 1024; seed: 1', 100, 1000, 2000],
  ['worker', 200, 1100, 1400],
  ['checkpoint', 100, 2500, 2500],
  ['benchmark 1: n: 2048; seed: 2', 100, 3000, 4000],
  ['inner', 100, 3200, 3500],
];
export const LAUNCHES: Launch[] = [
  { corr: 10, tid: 100, at: 1100, kernel: A, gpu: [5000, 5100] }, // after its range closed
  { corr: 11, tid: 200, at: 1200, kernel: B, gpu: [5100, 5130] }, // second thread, same time: its own range
  { corr: 12, tid: 300, at: 1200, kernel: B, gpu: [5130, 5160] }, // a thread with no range: outside
  { corr: 16, tid: 100, at: 1300, kernel: A, gpu: [1400, 1600] }, // runs while its range is open
  { corr: 20, tid: 100, at: 3100, kernel: A, gpu: [5200, 5300] }, // outer range, before the nested one
  { corr: 21, tid: 100, at: 3300, kernel: C, gpu: [5300, 5340] }, // nested range
  { corr: 22, tid: 100, at: 3600, kernel: C, gpu: [5340, 5380] }, // outer again, after the nested one closed
  { corr: 30, tid: 100, at: 4500, kernel: A, gpu: [5400, 5500] }, // after every range
];

function q(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

export function writeRun(dir: string, opts: { hip?: boolean; launches?: Launch[]; ranges?: typeof RANGES } = {}): void {
  const launches = opts.launches ?? LAUNCHES;
  const kernels = launches.map(
    (l, i) =>
      `"KERNEL_DISPATCH","Agent 4",1,1,${l.tid},${i + 1},${7 + i},${q(l.kernel)},${l.corr},${l.gpu[0]},${l.gpu[1]},0,0,8,0,16,64,1,1,1024,1,1`,
  );
  writeFileSync(path.join(dir, `${PID}_kernel_trace.csv`), [KERNEL_HEADER, ...kernels].join('\n') + '\n');
  const markers = (opts.ranges ?? RANGES).map(
    ([name, tid, s, e], i) => `"MARKER_CORE_API",${q(name)},${PID},${tid},${100 + i},${s},${e}`,
  );
  writeFileSync(path.join(dir, `${PID}_marker_api_trace.csv`), [API_HEADER, ...markers].join('\n') + '\n');
  if (opts.hip !== false) {
    const calls = [
      `"HIP_COMPILER_API_EXT","__hipRegisterFatBinary",${PID},100,1,900,950`,
      ...launches.map((l) => `"HIP_RUNTIME_API_EXT","hipLaunchKernel",${PID},${l.tid},${l.corr},${l.at},${l.at + 40}`),
      `"HIP_RUNTIME_API_EXT","hipDeviceSynchronize",${PID},100,40,4600,5600`,
    ];
    writeFileSync(path.join(dir, `${PID}_hip_api_trace.csv`), [API_HEADER, ...calls].join('\n') + '\n');
  }
}
