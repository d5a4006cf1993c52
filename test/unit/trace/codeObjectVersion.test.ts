// `isa`'s code object version against what llvm-readelf-19 reads from the ELF header, on gfx942 code objects that
// clang-19 builds as v4, v5 and v6: the version is EI_ABIVERSION + 2 (ELFOSABI_AMDGPU_HSA), while amdhsa.version
// (the metadata's own version, [1, 1] in v4 and [1, 2] from v5) is reported apart as metadataVersion.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readCodeObjectBuffer } from '../../../src/trace/codeObjects/index';
import { skipCodeObjects } from '../../support/codeObjects';

const skip = skipCodeObjects();

test(
  'code object versions 4, 5 and 6: from the ELF header, with the metadata version under its own name',
  { skip },
  () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kr-cov-'));
    const source = path.resolve('test/fixtures/code-objects/kernels.cl');
    for (const [version, metadata] of [
      [4, [1, 1]],
      [5, [1, 2]],
      [6, [1, 2]],
    ] as const) {
      const out = path.join(dir, `v${version}.o`);
      const built = spawnSync(
        'clang-19',
        [
          '-target',
          'amdgcn-amd-amdhsa',
          '-mcpu=gfx942',
          `-mcode-object-version=${version}`,
          '-O2',
          '-nogpulib',
          '-x',
          'cl',
          source,
          '-o',
          out,
        ],
        { encoding: 'utf8' },
      );
      assert.equal(built.status, 0, built.stderr);
      const header = spawnSync('llvm-readelf-19', ['-h', out], { encoding: 'utf8' }).stdout;
      const abi = Number(/ABI Version:\s+(\d+)/.exec(header)?.[1]);
      assert.equal(abi, version - 2, `llvm-readelf's ABI version of a v${version} object`);
      const [co] = readCodeObjectBuffer(readFileSync(out), out);
      assert.equal(co?.info.codeObjectVersion, version);
      assert.deepEqual(co?.info.metadataVersion, metadata);
    }
  },
);
