// GPU detection runs rocminfo / rocm-smi / nvidia-smi only when they are on PATH: real executables in a temporary
// folder stand in for them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { detectGpus, deviceCount, isMultiDevice } from '../../../src/runner/gpus';

const ROCMINFO = `*******
Agent 1
*******
  Marketing Name:          AMD EPYC 9654 96-Core Processor
  Device Type:             CPU
*******
Agent 2
*******
  Marketing Name:          AMD Instinct MI300X
  Device Type:             GPU
`;

test('no GPU tool on PATH: a CPU inventory (the override names it)', async () => {
  const empty = mkdtempSync(path.join(tmpdir(), 'kr-gpus-'));
  try {
    assert.deepEqual(await detectGpus(undefined, empty), {
      runtime: 'CPU',
      slots: [{ gpu: 'CPU', devices: [], product: 'CPU' }],
      names: ['CPU'],
    });
    assert.deepEqual((await detectGpus('MI300', empty)).names, ['MI300']);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

test('rocminfo on PATH is asked, and its GPU agents become slots', { skip: process.platform === 'win32' }, async () => {
  const bin = mkdtempSync(path.join(tmpdir(), 'kr-gpus-'));
  try {
    const rocminfo = path.join(bin, 'rocminfo');
    writeFileSync(rocminfo, `#!/bin/sh\ncat <<'EOF'\n${ROCMINFO}EOF\n`);
    chmodSync(rocminfo, 0o755);
    const inventory = await detectGpus(undefined, bin);
    assert.equal(inventory.runtime, 'ROCm');
    assert.deepEqual(inventory.slots, [{ gpu: 'MI300', devices: [0], product: 'AMD Instinct MI300X' }]);
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
});

test(
  'several devices of one GPU: a slot each, and one slot holding them all, named as GPU MODE names it (MI300x8)',
  { skip: process.platform === 'win32' },
  async () => {
    const bin = mkdtempSync(path.join(tmpdir(), 'kr-gpus-'));
    try {
      const gpuAgent = (n: number) =>
        `*******\nAgent ${n}\n*******\n  Marketing Name:          AMD Instinct MI300X\n  Device Type:             GPU\n`;
      const text = ROCMINFO.split('Agent 2')[0]!.replace(/\*+\n$/, '') + [2, 3, 4].map(gpuAgent).join('');
      const rocminfo = path.join(bin, 'rocminfo');
      writeFileSync(rocminfo, `#!/bin/sh\ncat <<'EOF'\n${text}EOF\n`);
      chmodSync(rocminfo, 0o755);
      const inventory = await detectGpus(undefined, bin);
      assert.deepEqual(inventory.names, ['MI300', 'MI300x3']);
      assert.deepEqual(
        inventory.slots.map((s) => [s.gpu, s.devices]),
        [
          ['MI300', [0]],
          ['MI300', [1]],
          ['MI300', [2]],
          ['MI300x3', [0, 1, 2]],
        ],
      );
      assert.ok(isMultiDevice(inventory.slots[3]!) && !isMultiDevice(inventory.slots[0]!));
      // --gpu-name renames the devices; the slot of all of them follows
      assert.deepEqual((await detectGpus('MI355X', bin)).names, ['MI355X', 'MI355Xx3']);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  },
);

test("deviceCount: a slot's devices, else the count its name says (a Slurm slot), else one", () => {
  assert.equal(deviceCount({ gpu: 'MI300x8', devices: [0, 1, 2, 3, 4, 5, 6, 7], product: 'AMD Instinct MI300X' }), 8);
  assert.equal(deviceCount({ gpu: 'MI300', devices: [5], product: 'AMD Instinct MI300X' }), 1);
  assert.equal(deviceCount({ gpu: 'MI300x8', devices: [], product: 'Slurm partition mi300' }), 8);
  assert.equal(deviceCount({ gpu: 'L4x4', devices: [], product: 'Slurm partition l4' }), 4);
  assert.equal(deviceCount({ gpu: 'CPU', devices: [], product: 'CPU' }), 1);
  assert.equal(deviceCount({ gpu: 'MI300', devices: [], product: 'Slurm partition mi300' }), 1);
});
