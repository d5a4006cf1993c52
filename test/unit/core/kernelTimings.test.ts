import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findKernelEntryPoints } from '../../../src/core/kernelEntryPoints';
import {
  counterTotals,
  kernelIdentifier,
  matchKernelTimings,
  roofTooltip,
  timingLensTitle,
  timingsByIdentifier,
} from '../../../src/core/kernelTimings';

const fixtures = join(import.meta.dirname, '../../../../shared/fixtures/rocprof');

/** Kernel rows of a real rocprofv3 kernel trace: name, calls, total ns. */
function kernelsOfTrace(file: string): { name: string; calls: number; totalNs: number }[] {
  const [header, ...rows] = readFileSync(join(fixtures, file), 'utf8').trim().split('\n');
  const cols = (header ?? '').split(',').map((c) => c.replace(/"/g, ''));
  const at = (c: string) => cols.indexOf(c);
  const byName = new Map<string, { name: string; calls: number; totalNs: number }>();
  for (const line of rows) {
    // quoted fields may hold commas: split on commas outside quotes
    const cells = line.match(/("([^"]|"")*"|[^,]*)(,|$)/g)?.map((c) => c.replace(/,$/, '').replace(/^"|"$/g, '')) ?? [];
    const name = cells[at('Kernel_Name')] ?? '';
    const ns = Number(cells[at('End_Timestamp')]) - Number(cells[at('Start_Timestamp')]);
    const k = byName.get(name) ?? { name, calls: 0, totalNs: 0 };
    k.calls++;
    k.totalNs += ns;
    byName.set(name, k);
  }
  return [...byName.values()];
}

test('kernel identifiers: demangled, templated, mangled, suffixed and Triton names', () => {
  assert.equal(
    kernelIdentifier('void addition_kernel<float>(float*, float const*, float const*, int, int)'),
    'addition_kernel',
  );
  assert.equal(kernelIdentifier('divide_kernel(float*, float const*, float const*, int, int)'), 'divide_kernel');
  assert.equal(kernelIdentifier('vector_add(float*, float*, float*, int)'), 'vector_add');
  assert.equal(kernelIdentifier('_Z10vector_addPfS_S_i'), 'vector_add');
  assert.equal(kernelIdentifier('_ZN7ck_tile6kentryILi1ENS_17BatchedGemmKernelEEEvT0_'), 'kentry');
  assert.equal(kernelIdentifier('_Z10vector_addPfS_S_i.kd'), 'vector_add');
  assert.equal(
    kernelIdentifier(
      'void ck_tile::kentry<1, ck_tile::BatchedGemmKernel<ck_tile::X<(E)3>, 2>>(ck_tile::BatchedGemmKernelArgs) [clone .kd]',
    ),
    'kentry',
  );
  assert.equal(kernelIdentifier('softmax_kernel'), 'softmax_kernel');
  assert.equal(kernelIdentifier('void ns::f<int>(int) const'), 'f');
  assert.equal(kernelIdentifier(''), undefined);
  assert.equal(kernelIdentifier('_Z999x'), undefined, 'a length past the end is not read');
  assert.equal(kernelIdentifier('(((('), undefined);
});

test('a real rocprofv3 trace: each instantiation counts towards its one definition', () => {
  const kernels = kernelsOfTrace('rocm-systems__sdkdocs__kernel_trace.csv');
  const byId = timingsByIdentifier(kernels);
  assert.deepEqual([...byId.keys()].sort(), ['addition_kernel', 'divide_kernel', 'multiply_kernel', 'subtract_kernel']);
  const add = byId.get('addition_kernel')!;
  assert.equal(add.calls, 3);
  assert.equal(add.avgNs, add.totalNs / 3);
  assert.deepEqual(add.profiledNames, ['void addition_kernel<float>(float*, float const*, float const*, int, int)']);
});

test('matching to a HIP source: template and plain definitions get their timings, others and comments none', () => {
  const source = [
    '#include <hip/hip_runtime.h>',
    '// __global__ void divide_kernel(float* x) {}',
    'template <typename T>',
    '__global__ void addition_kernel(T* out, const T* a, const T* b, int n, int m) { }',
    '__global__ void subtract_kernel(float* out, const float* a, const float* b, int n, int m) { }',
    '__global__ void never_profiled(float* out) { }',
    '__global__ void subtract_kernel(double* out, const double* a, const double* b, int n, int m) { }',
  ].join('\n');
  const entries = findKernelEntryPoints(source, 'cpp');
  const kernels = [
    {
      name: 'void addition_kernel<float>(float*, float const*, float const*, int, int)',
      calls: 100,
      totalNs: 1_720_000,
    },
    {
      name: 'void addition_kernel<double>(double*, double const*, double const*, int, int)',
      calls: 50,
      totalNs: 860_000,
    },
    { name: '_Z15subtract_kernelPfPKfS1_ii', calls: 1, totalNs: 812 },
    { name: 'divide_kernel(float*, float const*, float const*, int, int)', calls: 2, totalNs: 10 },
  ];
  const timed = matchKernelTimings(entries, kernels);
  assert.deepEqual(
    timed.map((t) => [t.entry.line, t.entry.name, timingLensTitle(t.timing)]),
    [
      [3, 'addition_kernel', '⏱ 17.2 µs avg · 150 calls'],
      [4, 'subtract_kernel', '⏱ 812 ns avg · 1 call'],
      [6, 'subtract_kernel', '⏱ 812 ns avg · 1 call'],
    ],
  );
});

test('custom_kernel and kernels of a removed definition are not matched', () => {
  const py = 'def custom_kernel(data):\n    return data\n';
  assert.deepEqual(
    matchKernelTimings(findKernelEntryPoints(py, 'python'), [{ name: 'custom_kernel', calls: 3, totalNs: 9 }]),
    [],
  );
  const kernels = [{ name: 'softmax_kernel', calls: 4, totalNs: 4000 }];
  const withKernel = 'import triton\n@triton.jit\ndef softmax_kernel(x):\n    pass\n';
  assert.equal(matchKernelTimings(findKernelEntryPoints(withKernel, 'python'), kernels).length, 1);
  const renamed = withKernel.replace('softmax_kernel', 'softmax_kernel_v2');
  assert.deepEqual(matchKernelTimings(findKernelEntryPoints(renamed, 'python'), kernels), []);
});

test('thousands of calls are grouped in the lens title', () => {
  assert.equal(timingLensTitle({ avgNs: 4_560_000, calls: 12345 }), '⏱ 4.56 ms avg · 12,345 calls');
});

test('with counters and peaks the lens adds the bound and the share of the roof, instantiations added up', () => {
  const peaks = { hbmGBps: 5000, valuFp32: 80000, mfmaFp32: 160000 };
  const source = [
    '__global__ void copy_kernel(float* out, const float* in, int n) { }',
    'template <typename T> __global__ void gemm(T* c, const T* a, const T* b) { }',
    '__global__ void no_counters(float* out) { }',
    '__global__ void memset_kernel(int* out) { }',
  ].join('\n');
  const entries = findKernelEntryPoints(source, 'cpp');
  const kernels = [
    // 150 dispatches of 11.3 µs; AI 0.02 FLOP/B under a 100 GFLOP/s HBM slope, doing 71 GFLOP/s
    {
      name: 'copy_kernel(float*, float const*, int)',
      calls: 150,
      totalNs: 1_695_000,
      counters: { dispatches: 150, ns: 1e6, flops: 71e6, hbmBytes: 3.55e9 },
    },
    // two instantiations: together 4e12 FLOPs over 1e10 bytes (AI 400) in 1e8 ns (40 TFLOP/s) under the 80 TFLOP/s peak
    {
      name: 'void gemm<float>(float*, float const*, float const*)',
      calls: 10,
      totalNs: 5e7,
      counters: { dispatches: 10, ns: 5e7, flops: 3e12, hbmBytes: 5e9 },
    },
    {
      name: 'void gemm<double>(double*, double const*, double const*)',
      calls: 10,
      totalNs: 5e7,
      counters: { dispatches: 10, ns: 5e7, flops: 1e12, hbmBytes: 5e9 },
    },
    { name: 'no_counters(float*)', calls: 3, totalNs: 3000 },
    {
      name: 'memset_kernel(int*)',
      calls: 2,
      totalNs: 2000,
      counters: { dispatches: 2, ns: 2000, flops: 0, hbmBytes: 1e6 },
    },
  ];
  const titles = matchKernelTimings(entries, kernels, peaks).map((t) => timingLensTitle(t.timing));
  assert.deepEqual(titles, [
    '⏱ 11.3 µs avg · 150 calls · memory-bound, 71% of HBM roof',
    '⏱ 5.00 ms avg · 20 calls · compute-bound, 50% of FP32 roof',
    '⏱ 1.00 µs avg · 3 calls',
    '⏱ 1.00 µs avg · 2 calls · memory-bound (no FLOPs counted)',
  ]);
  const gemm = matchKernelTimings(entries, kernels, peaks)[1]!.timing;
  assert.equal(
    roofTooltip(gemm),
    'HBM intensity 400 FLOP/B at 40.0 TFLOP/s under a roof of 80.0 TFLOP/s (20 dispatches with counters).',
  );
  // no peaks (an old stored run), or a peak unknown: the timing alone
  assert.equal(timingLensTitle(matchKernelTimings(entries, kernels)[0]!.timing), '⏱ 11.3 µs avg · 150 calls');
  assert.equal(
    timingLensTitle(matchKernelTimings(entries, kernels, { ...peaks, hbmGBps: null })[0]!.timing),
    '⏱ 11.3 µs avg · 150 calls',
  );
  // an instantiation without counters: no share of the roof for the whole definition
  const partly = [kernels[1]!, { ...kernels[2]!, counters: undefined }];
  assert.equal(timingLensTitle(matchKernelTimings(entries, partly, peaks)[0]!.timing), '⏱ 5.00 ms avg · 20 calls');
});

test('counter totals from a summary roofline kernel: means times dispatches, nothing when a quantity is unknown', () => {
  assert.deepEqual(counterTotals({ dispatches: 4, durationNs: 250, flops: 1e6, hbmBytes: 2e6 }), {
    dispatches: 4,
    ns: 1000,
    flops: 4e6,
    hbmBytes: 8e6,
  });
  assert.equal(counterTotals({ dispatches: 4, durationNs: 250, flops: null, hbmBytes: 2e6 }), undefined);
  assert.equal(counterTotals({ dispatches: 0, durationNs: 250, flops: 1, hbmBytes: 2 }), undefined);
});
