import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findKernelEntryPoints } from '../../../src/core/kernelEntryPoints';
import { kernelIdentifier, matchKernelTimings, timingLensTitle, timingsByIdentifier } from '../../../src/core/kernelTimings';

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
  assert.equal(kernelIdentifier('void addition_kernel<float>(float*, float const*, float const*, int, int)'), 'addition_kernel');
  assert.equal(kernelIdentifier('divide_kernel(float*, float const*, float const*, int, int)'), 'divide_kernel');
  assert.equal(kernelIdentifier('vector_add(float*, float*, float*, int)'), 'vector_add');
  assert.equal(kernelIdentifier('_Z10vector_addPfS_S_i'), 'vector_add');
  assert.equal(kernelIdentifier('_ZN7ck_tile6kentryILi1ENS_17BatchedGemmKernelEEEvT0_'), 'kentry');
  assert.equal(kernelIdentifier('_Z10vector_addPfS_S_i.kd'), 'vector_add');
  assert.equal(kernelIdentifier('void ck_tile::kentry<1, ck_tile::BatchedGemmKernel<ck_tile::X<(E)3>, 2>>(ck_tile::BatchedGemmKernelArgs) [clone .kd]'), 'kentry');
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
    { name: 'void addition_kernel<float>(float*, float const*, float const*, int, int)', calls: 100, totalNs: 1_720_000 },
    { name: 'void addition_kernel<double>(double*, double const*, double const*, int, int)', calls: 50, totalNs: 860_000 },
    { name: '_Z15subtract_kernelPfPKfS1_ii', calls: 1, totalNs: 812 },
    { name: 'divide_kernel(float*, float const*, float const*, int, int)', calls: 2, totalNs: 10 },
  ];
  const timed = matchKernelTimings(entries, kernels);
  assert.deepEqual(timed.map((t) => [t.entry.line, t.entry.name, timingLensTitle(t.timing)]), [
    [3, 'addition_kernel', '⏱ 17.2 µs avg · 150 calls'],
    [4, 'subtract_kernel', '⏱ 812 ns avg · 1 call'],
    [6, 'subtract_kernel', '⏱ 812 ns avg · 1 call'],
  ]);
});

test('custom_kernel and kernels of a removed definition are not matched', () => {
  const py = 'def custom_kernel(data):\n    return data\n';
  assert.deepEqual(matchKernelTimings(findKernelEntryPoints(py, 'python'), [{ name: 'custom_kernel', calls: 3, totalNs: 9 }]), []);
  const kernels = [{ name: 'softmax_kernel', calls: 4, totalNs: 4000 }];
  const withKernel = 'import triton\n@triton.jit\ndef softmax_kernel(x):\n    pass\n';
  assert.equal(matchKernelTimings(findKernelEntryPoints(withKernel, 'python'), kernels).length, 1);
  const renamed = withKernel.replace('softmax_kernel', 'softmax_kernel_v2');
  assert.deepEqual(matchKernelTimings(findKernelEntryPoints(renamed, 'python'), kernels), []);
});

test('thousands of calls are grouped in the lens title', () => {
  assert.equal(timingLensTitle({ avgNs: 4_560_000, calls: 12345 }), '⏱ 4.56 ms avg · 12,345 calls');
});
