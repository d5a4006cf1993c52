import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findKernelEntryPoints, maskCpp, scanPython, sourceLanguageOf } from '../../../src/core/kernelEntryPoints';

const workspace = join(import.meta.dirname, '../../vscode/workspace');
const read = (name: string) => readFileSync(join(workspace, name), 'utf8');
const brief = (text: string, lang: 'python' | 'cpp') =>
  findKernelEntryPoints(text, lang).map(
    (e) => `${e.kind}:${e.name}@${e.line + 1}:${e.column}${e.inPythonString ? ':str' : ''}`,
  );

describe('kernel entry points', () => {
  it('finds __global__ definitions in a HIP file, not comments, macros or declarations', () => {
    assert.deepEqual(brief(read('vector_add.hip'), 'cpp'), ['global:vector_add@9:0', 'global:scale@15:0']);
  });

  it('finds custom_kernel and @triton.jit functions, not docstrings or comments', () => {
    assert.deepEqual(brief(read('triton_softmax.py'), 'python'), [
      'triton:softmax_kernel@9:0',
      'triton:add_kernel@19:0',
      'custom_kernel:custom_kernel@30:0',
    ]);
  });

  it('finds __global__ functions inside load_inline source strings with document positions', () => {
    const text = read('load_inline_submission.py');
    assert.deepEqual(brief(text, 'python'), [
      'global:add_kernel@13:0:str',
      'global:copy_kernel@19:0:str',
      'custom_kernel:custom_kernel@41:0',
    ]);
    const lines = text.split('\n');
    assert.match(lines[12] ?? '', /^__global__ void add_kernel/);
  });

  it('ignores __global__ text in Python strings when the file never calls load_inline', () => {
    assert.deepEqual(brief('SRC = """__global__ void k(int* x) { }"""\nprint(SRC)\n', 'python'), []);
  });

  it('handles attributes, pointers, extern "C", templates and CRLF line ends', () => {
    const src = [
      'extern "C" __global__ void __attribute__((amdgpu_flat_work_group_size(1, 256))) k1(int* p) {}',
      '__global__ void* bogus_but_named(int) {}',
      'template <typename T, int N = (4 > 2 ? 4 : 2)>',
      '__global__ void k2(T* __restrict__ p) {',
      '}',
      '__global__',
      'void',
      'k3',
      '(int n)',
      '{ }',
    ].join('\r\n');
    assert.deepEqual(brief(src, 'cpp'), [
      'global:k1@1:11',
      'global:bogus_but_named@2:0',
      'global:k2@4:0',
      'global:k3@6:0',
    ]);
  });

  it('finds async defs and indented decorators in classes', () => {
    const src =
      'class K:\n    @triton.jit\n    def inner(x):\n        pass\n\nasync def custom_kernel(data):\n    return data\n';
    assert.deepEqual(brief(src, 'python'), ['triton:inner@2:4', 'custom_kernel:custom_kernel@6:0']);
  });

  it('survives unterminated strings and comments without throwing', () => {
    assert.deepEqual(brief('x = """never closed\ndef custom_kernel(d):\n', 'python'), []);
    assert.deepEqual(brief('/* open comment\n__global__ void k() {}', 'cpp'), []);
    assert.deepEqual(brief('__global__ void k(', 'cpp'), ['global:k@1:0']);
  });

  it('masks keep offsets and newlines', () => {
    const src = "a = \"x#y\" # c\nb = '''\nq'''\n";
    const { masked, strings } = scanPython(src);
    assert.equal(masked.length, src.length);
    assert.equal(masked.split('\n').length, src.split('\n').length);
    assert.deepEqual(
      strings.map((s) => src.slice(s.start, s.end)),
      ['x#y', '\nq'],
    );
    const cpp = 'int a = 1\'000; // c\nchar q = \'"\'; /* x\ny */ R"raw(__global__)raw";\n#define X \\\n  __global__\n';
    const m = maskCpp(cpp);
    assert.equal(m.length, cpp.length);
    assert.doesNotMatch(m, /__global__|raw|"/);
    assert.match(m, /int a = 1'000;/);
  });

  it('maps language ids and file names to scanners', () => {
    assert.equal(sourceLanguageOf('python'), 'python');
    assert.equal(sourceLanguageOf('hip'), 'cpp');
    assert.equal(sourceLanguageOf('cuda-cpp'), 'cpp');
    assert.equal(sourceLanguageOf('plaintext', 'x.hip'), 'cpp');
    assert.equal(sourceLanguageOf('plaintext', 'x.txt'), undefined);
  });
});
