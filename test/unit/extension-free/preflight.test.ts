import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { describeBlocking, hasDirectives, preflight } from '../../../src/core/gpumode/preflight';

const gpumode = { gpumode: true };

describe('preflight (what the editor marks and what stops a run)', () => {
  it('reads directives with the server rules: unknown and repeated directives in the first block are errors, with their lines', () => {
    const src = [
      '#!POPCORN leaderboard amd-fp8-mm',
      '#!POPCORN gpu MI300',
      '#!POPCORN leaderbaord x',
      '#!POPCORN gpus MI250',
      'import torch',
      '',
    ].join('\n');
    const problems = preflight('submission.py', src, gpumode);
    assert.deepEqual(
      problems.map((p) => [p.code, p.line, p.severity, p.blocking]),
      [
        ['directive/unknown-directive', 2, 'error', true],
        ['directive/repeated-directive', 3, 'error', true],
      ],
    );
    assert.match(
      problems[0]?.message ?? '',
      /^Invalid !POPCORN directive: leaderbaord \(the server reads directives from the file's first comment block/,
    );
  });

  it('a directive outside the first comment block is a warning (the server ignores it, popcorn-cli reads it)', () => {
    const src = ['#!POPCORN leaderboard amd-fp8-mm', 'import torch', '#!POPCORN gpu MI300', ''].join('\n');
    const problems = preflight('submission.py', src, gpumode);
    assert.deepEqual(
      problems.map((p) => [p.code, p.line, p.severity, p.blocking]),
      [['directive/outside-first-block', 2, 'warning', false]],
    );
  });

  it("a leaderboard directive that differs from the run's leaderboard is an error; several GPUs are one for popcorn-cli", () => {
    const src = '#!POPCORN leaderboard grayscale\n#!POPCORN gpu MI300 H100\nx = 1\n';
    const codes = preflight('submission.py', src, { gpumode: true, leaderboard: 'amd-fp8-mm' }).map((p) => [
      p.code,
      p.line,
    ]);
    assert.deepEqual(codes, [
      ['directive/leaderboard-mismatch', 0],
      ['directive/multiple-gpus', 1],
    ]);
  });

  it('marks every `stream` in the text with its exact columns, as upstream rejects (any case, comments included)', () => {
    const src = 'import torch\ns = torch.cuda.Stream()\n# upstream code\n';
    const problems = preflight('submission.py', src, gpumode);
    assert.deepEqual(
      problems.map((p) => [p.code, p.line, p.startColumn, p.endColumn]),
      [
        ['stream-keyword', 1, 15, 21],
        ['stream-keyword', 2, 4, 10],
      ],
    );
    assert.match(
      problems[0]?.message ?? '',
      /^GPU MODE rejects this file \(HTTP 500\): Your code contains work on another stream/,
    );
    assert.equal(describeBlocking(problems, 'k.py')[0]?.startsWith('k.py:2: GPU MODE rejects'), true);
  });

  it("our runner's `script` leaderboard accepts .hip files and the word stream; GPU MODE does not", () => {
    const hip = '#!POPCORN leaderboard script\nhipStream_t s;\n';
    assert.deepEqual(preflight('vector_add.hip', hip, { gpumode: false, leaderboard: 'script' }), []);
    const codes = preflight('vector_add.hip', hip, { gpumode: true, leaderboard: 'script' }).map((p) => p.code);
    assert.deepEqual(codes.sort(), ['bad-extension', 'stream-keyword']);
  });

  it('size, emptiness, and a file saved in another encoding (a warning: the editor sends UTF-8)', () => {
    assert.deepEqual(
      preflight('s.py', '', gpumode).map((p) => p.code),
      ['empty'],
    );
    const big = `#!POPCORN gpu MI300\n${'x'.repeat(1_000_001)}`;
    assert.deepEqual(
      preflight('s.py', big, gpumode).map((p) => [p.code, p.blocking]),
      [['too-large', true]],
    );
    const latin1 = Uint8Array.from([0x23, 0x20, 0x63, 0x61, 0x66, 0xe9, 0x0a]); // "# café" in Latin-1
    const problems = preflight('s.py', '# café\n', { gpumode: true, diskBytes: latin1 });
    assert.deepEqual(
      problems.map((p) => [p.code, p.severity, p.blocking, p.line, p.startColumn]),
      [['not-utf8', 'warning', false, 0, 5]],
    );
  });

  it('hasDirectives finds # and // markers at line starts only', () => {
    assert.equal(hasDirectives('x\n//!POPCORN gpu MI300\n'), true);
    assert.equal(hasDirectives('x = "#!POPCORN gpu MI300"\n'), false);
  });
});
