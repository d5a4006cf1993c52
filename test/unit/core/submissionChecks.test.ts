import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSubmission, SCRIPT_EXTRA_EXTENSIONS } from '../../../src/core/submissionChecks';
import { MAX_SUBMISSION_BYTES } from '../../../src/core/limits';

const utf8 = (s: string) => new TextEncoder().encode(s);
const summary = (ps: ReturnType<typeof checkSubmission>) => ps.map((p) => [p.code, p.status, p.line]);

test('a clean submission has no problems', () => {
  assert.deepEqual(
    checkSubmission('submission.py', utf8('import torch\ndef custom_kernel(data):\n    return data\n')),
    [],
  );
  assert.deepEqual(checkSubmission('k.cu', utf8('// ünïcode is fine\n__global__ void k() {}\n')), []);
});

test('empty file: 400, and nothing else', () => {
  assert.deepEqual(summary(checkSubmission('bad.txt', new Uint8Array())), [['empty', 400, undefined]]);
});

test("size limit is upstream's decimal 1 MB: 1,000,000 bytes pass, one more is 413", () => {
  const atLimit = new Uint8Array(MAX_SUBMISSION_BYTES).fill(0x20);
  assert.equal(MAX_SUBMISSION_BYTES, 1_000_000);
  assert.deepEqual(checkSubmission('s.py', atLimit), []);
  const over = new Uint8Array(MAX_SUBMISSION_BYTES + 1).fill(0x20);
  const problems = checkSubmission('s.py', over);
  assert.deepEqual(summary(problems), [['too-large', 413, undefined]]);
  assert.match(
    problems[0]?.message ?? '',
    /^Submission file is too large \(limit: 1MB\)\. This file has 1,000,001 bytes/,
  );
});

test('invalid UTF-8 is 400 with the place of the first bad byte', () => {
  const bytes = Uint8Array.from([...utf8('ok = 1\nbad = "caf'), 0xe9, ...utf8('"\n')]);
  assert.deepEqual(
    checkSubmission('s.py', bytes).map((p) => [p.code, p.status, p.line, p.column]),
    [['not-utf8', 400, 2, 11]],
  );
  // Surrogates and overlong forms are not UTF-8 either (Python's strict decoder agrees).
  for (const bad of [
    [0xed, 0xa0, 0x80],
    [0xc0, 0xaf],
    [0xf4, 0x90, 0x80, 0x80],
    [0xe2, 0x82],
  ]) {
    assert.deepEqual(
      summary(checkSubmission('s.py', Uint8Array.from([0x61, ...bad]))),
      [['not-utf8', 400, 1]],
      String(bad),
    );
  }
});

test("the stream rule is upstream's case-insensitive substring test, one problem per line", () => {
  const src = [
    'import torch',
    's = torch.cuda.Stream()  # side stream',
    'x = 1',
    '// cudaStream_t st;',
    '# upstream code',
    'STREAMING = True',
  ].join('\n');
  const problems = checkSubmission('submission.py', utf8(src));
  assert.deepEqual(
    problems.map((p) => [p.code, p.status, p.line, p.column]),
    [
      ['stream-keyword', 500, 2, 16],
      ['stream-keyword', 500, 4, 8],
      ['stream-keyword', 500, 5, 5],
      ['stream-keyword', 500, 6, 1],
    ],
  );
  assert.match(problems[0]?.message ?? '', /^Your code contains work on another stream\./);
  assert.deepEqual(checkSubmission('s.py', utf8('strea m = 1\nst_ream = 2\n')), []);
});

test("extensions: upstream's four, case-sensitive; .hip only where the option allows it", () => {
  for (const name of ['s.py', 'k.cu', 'k.cuh', 'k.cpp']) assert.deepEqual(checkSubmission(name, utf8('x')), [], name);
  for (const name of ['k.hip', 's.PY', 'notes.txt', 'py']) {
    const p = checkSubmission(name, utf8('x'));
    assert.deepEqual(summary(p), [['bad-extension', 400, undefined]], name);
    assert.equal(p[0]?.message, 'Please provide a Python (.py) or CUDA (.cu / .cuh / .cpp) file');
  }
  assert.deepEqual(checkSubmission('k.hip', utf8('x'), { extraExtensions: SCRIPT_EXTRA_EXTENSIONS }), []);
  assert.match(checkSubmission('k.txt', utf8('x'), { extraExtensions: ['.hip'] })[0]?.message ?? '', /\.hip/);
});

test("several problems come in upstream's order of checking", () => {
  const big = new Uint8Array(MAX_SUBMISSION_BYTES + 10).fill(0x61);
  big.set(utf8('stream'), 100);
  assert.deepEqual(summary(checkSubmission('a.txt', big)), [
    ['too-large', 413, undefined],
    ['stream-keyword', 500, 1],
    ['bad-extension', 400, undefined],
  ]);
});
