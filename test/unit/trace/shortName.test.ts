import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shortKernelName } from '../../../src/trace/shortName';

test('short names drop return types, arguments, clone suffixes and nested templates', () => {
  const cases: Array<[string, string]> = [
    ['void addition_kernel<float>(float*, float const*, float const*, int, int)', 'addition_kernel<float>'],
    ['subtract_kernel(float*, float const*, float const*, int, int)', 'subtract_kernel'],
    ['vector_add(float*, float*, float*, int) [clone .kd]', 'vector_add'],
    ['__amd_rocclr_fillBufferAligned', '__amd_rocclr_fillBufferAligned'],
    ['divide_kernel.kd', 'divide_kernel'],
    ['_Z10vector_addPfS_S_i', 'vector_add'],
    ['_ZN7ck_tile6kentryILi1ENS_17BatchedGemmKernelEEEvv', 'ck_tile::kentry'],
    [
      'void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)',
      'native::vectorized_elementwise_kernel<4, FillFunctor<…>, Array<…>>',
    ],
    [
      'void ck_tile::kentry<1, ck_tile::BatchedGemmKernel<ck_tile::X<1, 2>, void>, ck_tile::BatchedGemmKernel<ck_tile::X<1, 2>, void>::BatchedGemmKernelArgs>(ck_tile::Args)',
      'ck_tile::kentry<1, BatchedGemmKernel<…>, BatchedGemmKernelArgs>',
    ],
    ['void foo<(ck::Mode)1, 8>(int)', 'foo<1, 8>'],
    ['void (anonymous namespace)::scan<int>(int*)', '(anonymous namespace)::scan<int>'],
    ['unsigned int ns::inner::plain_kernel', 'inner::plain_kernel'],
    ['ns::inner::plain_kernel<int>', 'inner::plain_kernel<int>'],
    ['::leading', 'leading'],
  ];
  for (const [full, short] of cases) assert.equal(shortKernelName(full), short, full);
});

test('short names are capped with an ellipsis', () => {
  const name = `void k<${Array.from({ length: 40 }, (_, i) => `T${i}`).join(', ')}>(int)`;
  const s = shortKernelName(name, 40);
  assert.equal(s.length, 40);
  assert.ok(s.endsWith('…'));
  assert.ok(s.startsWith('k<T0, T1'));
});
