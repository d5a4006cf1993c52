// The wording of GPU-to-GPU copies, shared by the CLI and the results webview (src/core/format/peerCopies.ts).
import assert from 'node:assert/strict';
import test from 'node:test';
import { gpuMatrix, gpuPairLabel, peerCopyText, type GpuPair } from '../../../src/core/format/index';

const pair = (src: number | null, dst: number | null, extra: Partial<GpuPair> = {}): GpuPair => ({
  srcAgentId: `Agent ${src ?? 9}`,
  dstAgentId: `Agent ${dst ?? 9}`,
  srcGpu: src,
  dstGpu: dst,
  calls: 12,
  totalNs: 1_200_000,
  bytes: 48 * 1024 * 1024,
  ...extra,
});

test('a pair reads "GPU 0 → GPU 3: 12 copies, 48.0 MiB, 1.20 ms"; no bytes from CSV; an unknown end by its agent', () => {
  assert.equal(peerCopyText(pair(0, 3)), 'GPU 0 → GPU 3: 12 copies, 48.0 MiB, 1.20 ms');
  assert.equal(peerCopyText(pair(1, 2, { calls: 1, totalNs: 200, bytes: null })), 'GPU 1 → GPU 2: 1 copy, 200 ns');
  assert.equal(gpuPairLabel(pair(null, 2)), 'Agent 9 → GPU 2');
  assert.equal(peerCopyText(pair(0, 1, { calls: 1234 })), 'GPU 0 → GPU 1: 1,234 copies, 48.0 MiB, 1.20 ms');
});

test('the matrix: every GPU of either end in order, each pair at its cell; none when it would mislead', () => {
  const m = gpuMatrix([pair(3, 0), pair(0, 3), pair(1, 1)], 16);
  assert.ok(m);
  assert.deepEqual(m.gpus, [0, 1, 3]);
  assert.equal(m.at(3, 0)?.srcGpu, 3);
  assert.equal(m.at(0, 1), undefined);
  assert.equal(gpuMatrix([pair(0, 1), pair(null, 1)], 16), null, 'an end that is not a known GPU');
  // two hosts' GPU 0 → GPU 1 are two pairs at one cell
  assert.equal(gpuMatrix([pair(0, 1), pair(0, 1, { srcAgentId: 'b/Agent 2', dstAgentId: 'b/Agent 3' })], 16), null);
  const seventeen = Array.from({ length: 16 }, (_, i) => pair(0, i + 1));
  assert.equal(gpuMatrix(seventeen, 16), null, 'more GPUs than the widest matrix');
  assert.equal(gpuMatrix(seventeen.slice(1), 16)?.gpus.length, 16);
  assert.equal(gpuMatrix([], 16), null);
});
