import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  directiveMarker,
  parseDirectivesClient,
  parseDirectivesServer,
  upsertDirectives,
} from '../../../src/core/directives';

const codes = (r: { errors: Array<{ code: string; line: number }> }) => r.errors.map((e) => [e.code, e.line]);

test('server rules: directives of the first comment block, gpu and gpus, keyword case-insensitive', () => {
  const src =
    '#!/usr/bin/env python3\n#!POPCORN Leaderboard amd-fp8-mm\n#!POPCORN GPUS MI300 MI250\n# notes\n\nimport torch\n';
  const r = parseDirectivesServer(src, 'submission.py');
  assert.equal(r.leaderboard, 'amd-fp8-mm');
  assert.deepEqual(r.gpus, ['MI300', 'MI250']);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.entries, [
    { line: 2, keyword: 'leaderboard', values: ['amd-fp8-mm'] },
    { line: 3, keyword: 'gpus', values: ['MI300', 'MI250'] },
  ]);
  const cpp = parseDirectivesServer(
    '//!POPCORN leaderboard conv2d\r\n//!POPCORN gpu H100\r\n#include <cuda.h>\r\n',
    'k.cu',
  );
  assert.deepEqual([cpp.leaderboard, cpp.gpus, cpp.errors], ['conv2d', ['H100'], []]);
});

test('server rules: a directive after the first comment block is not read', () => {
  for (const src of [
    'import torch\n#!POPCORN leaderboard x\n',
    '# header\n\n#!POPCORN leaderboard x\n',
    '  #!POPCORN leaderboard x\n',
    '\ufeff#!POPCORN leaderboard x\n', // a BOM makes the first line not start with "#" upstream too
  ]) {
    const r = parseDirectivesServer(src, 's.py');
    assert.equal(r.leaderboard, undefined, JSON.stringify(src));
    assert.deepEqual(r.errors, []);
  }
});

test('server rules: unknown, repeated and argument-less directives are errors with their line', () => {
  const src = [
    '#!POPCORN leaderboard a',
    '#!POPCORN gpu MI300',
    '#!POPCORN gpus MI250',
    '#!POPCORN leaderboard b',
    '#!POPCORN mode profile',
    '#!POPCORN gpu',
    '#!POPCORN',
    '#!popcorn leaderboard ignored (marker is case-sensitive)',
    'x = 1',
  ].join('\n');
  const r = parseDirectivesServer(src, 'sub.py');
  assert.deepEqual(codes(r), [
    ['repeated-directive', 3],
    ['repeated-directive', 4],
    ['unknown-directive', 5],
    ['missing-argument', 6],
    ['missing-argument', 7],
  ]);
  assert.equal(r.leaderboard, 'a');
  assert.deepEqual(r.gpus, ['MI300']);
  assert.equal(r.errors[2]?.reason, 'Invalid !POPCORN directive: mode');
  assert.equal(r.errors[2]?.message, 'sub.py:5: Invalid !POPCORN directive: mode');
  assert.match(r.errors[0]?.reason ?? '', /^Found multiple values for !POPCORN directive gpus/);
});

test('server rules: a leaderboard directive must match the URL leaderboard', () => {
  const src = '# x\n#!POPCORN leaderboard grayscale\n';
  assert.deepEqual(codes(parseDirectivesServer(src, 's.py', { expectedLeaderboard: 'vectoradd' })), [
    ['leaderboard-mismatch', 2],
  ]);
  assert.deepEqual(parseDirectivesServer(src, 's.py', { expectedLeaderboard: 'grayscale' }).errors, []);
  assert.deepEqual(parseDirectivesServer('print(1)\n', 's.py', { expectedLeaderboard: 'grayscale' }).errors, []);
});

test('client rules (popcorn-cli): every comment line, last one wins, several GPUs are an error', () => {
  const src = [
    'import torch',
    '#!POPCORN leaderboard first',
    'def f():',
    '    pass',
    '#!POPCORN LEADERBOARD second',
    '#!POPCORN leaderboard', // no name: ignored
    '//!POPCORN gpu A100 H100',
    '  #!POPCORN gpu indented-is-not-read',
  ].join('\n');
  const r = parseDirectivesClient(src);
  assert.equal(r.leaderboard, 'second');
  assert.deepEqual(r.gpus, ['A100', 'H100']);
  assert.deepEqual(codes(r), [['multiple-gpus', 7]]);
  const ok = parseDirectivesClient('x = 1\n#!POPCORN gpu MI300\n');
  assert.deepEqual([ok.leaderboard, ok.gpus, ok.errors], [undefined, ['MI300'], []]);
});

test('directiveMarker follows the file type', () => {
  assert.equal(directiveMarker('submission.py'), '#!POPCORN');
  for (const f of ['k.cu', 'k.cuh', 'k.cpp', 'k.hip', 'K.CPP']) assert.equal(directiveMarker(f), '//!POPCORN');
});

test('upsertDirectives inserts at the top, after a shebang and a coding line', () => {
  assert.equal(
    upsertDirectives('#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\nimport torch\n', 's.py', {
      leaderboard: 'amd-fp8-mm',
      gpu: 'MI300',
    }),
    '#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n#!POPCORN leaderboard amd-fp8-mm\n#!POPCORN gpu MI300\nimport torch\n',
  );
  assert.equal(
    upsertDirectives('#include <hip/hip_runtime.h>\r\n__global__ void k() {}\r\n', 'k.hip', { gpu: 'MI300' }),
    '//!POPCORN gpu MI300\r\n#include <hip/hip_runtime.h>\r\n__global__ void k() {}\r\n',
  );
  assert.equal(upsertDirectives('', 's.py', { leaderboard: 'x' }), '#!POPCORN leaderboard x\n');
  assert.equal(upsertDirectives('#!/bin/env python3', 's.py', { gpu: 'T4' }), '#!/bin/env python3\n#!POPCORN gpu T4\n');
});

test('upsertDirectives rewrites in place and removes repeats and stray directives', () => {
  const src = [
    '# My kernel',
    '#!POPCORN gpus A100 H100',
    '#!POPCORN leaderboard old',
    '#!POPCORN leaderboard old-again',
    '',
    'import torch',
    '#!POPCORN gpu L4',
    'x = 1',
  ].join('\n');
  const out = upsertDirectives(src, 'submission.py', { leaderboard: 'new', gpu: 'MI300' });
  assert.equal(
    out,
    ['# My kernel', '#!POPCORN gpu MI300', '#!POPCORN leaderboard new', '', 'import torch', 'x = 1'].join('\n'),
  );
  for (const r of [parseDirectivesServer(out, 'submission.py'), parseDirectivesClient(out)]) {
    assert.deepEqual([r.leaderboard, r.gpus, r.errors], ['new', ['MI300'], []]);
  }
  // Only the GPU given: the leaderboard stays; a missing one goes right after the existing directive.
  const gpuOnly = upsertDirectives('#!POPCORN leaderboard keep\n# more\nprint(1)\n', 's.py', { gpu: 'B200' });
  assert.equal(gpuOnly, '#!POPCORN leaderboard keep\n#!POPCORN gpu B200\n# more\nprint(1)\n');
  // A C++ file with a `#!POPCORN` line (which would not compile) gets the `//` form.
  assert.equal(
    upsertDirectives('#!POPCORN gpu X\nint main() {}\n', 'k.cpp', { gpu: 'MI300' }),
    '//!POPCORN gpu MI300\nint main() {}\n',
  );
  assert.equal(upsertDirectives('print(1)\n', 's.py', {}), 'print(1)\n');
  assert.throws(() => upsertDirectives('', 's.py', { leaderboard: 'two words' }), RangeError);
});
