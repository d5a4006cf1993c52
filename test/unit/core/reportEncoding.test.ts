import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  decodePopcornBase64,
  decodePopcornBase64ToBytes,
  encodePopcornBase64,
  ReportEncodingError,
} from '../../../src/core/reportEncoding';

// A profile report as an evaluator writes it, and its encoding by Python's
// `base64.b64encode(report.encode("utf-8"), b"+*")` (computed with CPython 3, pasted here).
const REPORT = `------------------------  ------------  ------------  ------------
                    Name     Self CUDA   Self CUDA %    # of Calls
------------------------  ------------  ------------  ------------
fp8_mm_kernel<128, 128>      412.345us        87.21%             3
aten::copy_ (H->D)            45.123us         9.54%             6
hipMemcpyWithStream            8.002us         1.69%             6
------------------------  ------------  ------------  ------------
Self CUDA time total: 472.841us (≈0.47 ms) ✓
Did the kernel run? yes
`;
const PYTHON_ENCODED =
  'LS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tICAtLS0tLS0tLS0tLS0gIC0tLS0tLS0tLS0tLSAgLS0tLS0tLS0tLS0tCiAgICAgICAgICAgICAgICAgICAgTmFtZSAgICAgU2VsZiBDVURBICAgU2VsZiBDVURBICUgICAgIyBvZiBDYWxscwotLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0gIC0tLS0tLS0tLS0tLSAgLS0tLS0tLS0tLS0tICAtLS0tLS0tLS0tLS0KZnA4X21tX2tlcm5lbDwxMjgsIDEyOD4gICAgICA0MTIuMzQ1dXMgICAgICAgIDg3LjIxJSAgICAgICAgICAgICAzCmF0ZW46OmNvcHlfIChILT5EKSAgICAgICAgICAgIDQ1LjEyM3VzICAgICAgICAgOS41NCUgICAgICAgICAgICAgNgpoaXBNZW1jcHlXaXRoU3RyZWFtICAgICAgICAgICAgOC4wMDJ1cyAgICAgICAgIDEuNjklICAgICAgICAgICAgIDYKLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tICAtLS0tLS0tLS0tLS0gIC0tLS0tLS0tLS0tLSAgLS0tLS0tLS0tLS0tClNlbGYgQ1VEQSB0aW1lIHRvdGFsOiA0NzIuODQxdXMgKOKJiDAuNDcgbXMpIOKckwpEaWQgdGhlIGtlcm5lbCBydW4*IHllcwo=';

/** A longer torch-profiler-style table, encoded with standard base64 and then `/` swapped for `*`. */
function bigReport(): string {
  const rows = Array.from({ length: 40 }, (_, i) => {
    const name = `void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm<${i}, 256, 128, 64>>(ck::Argument)`;
    return `${name.padEnd(100)}  ${(Math.sin(i) * 500 + 510).toFixed(3).padStart(10)} µs  ${(i % 7) + 1}${i % 5 === 0 ? '  <- hot?' : ''}`;
  });
  return [
    'Name'.padEnd(100) + '   Self CUDA  # of Calls',
    '-'.repeat(124),
    ...rows,
    'Self CUDA time total: 20.4ms µ ✓ — ok?',
    '',
  ].join('\n');
}

test('decodes the +* alphabet as Python encodes it', () => {
  assert.ok(PYTHON_ENCODED.includes('*'));
  assert.equal(decodePopcornBase64(PYTHON_ENCODED), REPORT);
  assert.equal(encodePopcornBase64(REPORT), PYTHON_ENCODED);
});

test('a realistic multi-line report survives; a standard base64 decoder would corrupt or reject it', () => {
  const report = bigReport();
  const standard = Buffer.from(report, 'utf8').toString('base64');
  const popcorn = standard.replace(/\//g, '*');
  assert.ok((popcorn.match(/\*/g) ?? []).length > 3, 'the sample must exercise the * character');
  assert.equal(encodePopcornBase64(report), popcorn);
  assert.equal(decodePopcornBase64(popcorn), report);
  // What a naive client does: Node skips/stops at the unknown character, atob refuses it.
  assert.notEqual(Buffer.from(popcorn, 'base64').toString('utf8'), report);
  assert.throws(() => atob(popcorn));
});

test('missing padding, line wrapping and standard "/" are tolerated', () => {
  const report = bigReport();
  const popcorn = encodePopcornBase64(report);
  const unpadded = popcorn.replace(/=+$/, '');
  assert.equal(decodePopcornBase64(unpadded), report);
  assert.equal(decodePopcornBase64(unpadded.replace(/(.{76})/g, '$1\n')), report);
  assert.equal(decodePopcornBase64(Buffer.from(report).toString('base64')), report);
  for (const text of ['a', 'ab', 'abc', 'abcd', '']) {
    assert.equal(decodePopcornBase64(encodePopcornBase64(text).replace(/=+$/, '')), text);
  }
  const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
  assert.deepEqual(decodePopcornBase64ToBytes(encodePopcornBase64(bytes)), bytes);
});

test('garbage is a ReportEncodingError naming what is wrong', () => {
  for (const bad of ['abc$def', 'ab=cd', 'abcde']) {
    assert.throws(
      () => decodePopcornBase64(bad),
      (err: unknown) =>
        err instanceof ReportEncodingError &&
        err.type === 'report-encoding' &&
        /not a \+\* base64 report/.test(err.message),
      bad,
    );
  }
});
