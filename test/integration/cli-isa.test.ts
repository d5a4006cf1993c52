// Runs the BUILT CLI (dist/cli.cjs) `isa` on real code objects that clang-19 builds (test/support/codeObjects.ts):
// JSON and text, a kernelbot-like profile zip, --disasm with the real llvm-objdump-19 and without any objdump,
// and the exit-2 errors.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ZipArchive } from 'archiver';
import { builtCodeObjects, compilerFigures, skipCodeObjects } from '../support/codeObjects';
import { tempDirsRemovedAfter } from '../support/tempDirs';
import { ensureBuilt } from './submit/helpers';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(repoRoot, 'dist/cli.cjs');
const skip = skipCodeObjects();
const built = () => builtCodeObjects();
const tempDir = tempDirsRemovedAfter('kr-cli-isa-');

before(() => {
  ensureBuilt();
});

function isa(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [cli, 'isa', ...args], {
    cwd: tmpdir(),
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** No llvm-objdump anywhere: PATH is an empty folder (node runs by its full path), and no LLVM folders either. */
const NO_OBJDUMP = { PATH: tempDir('path'), KERNEL_RUNNER_LLVM_DIRS: '' };

async function profileZip(): Promise<string> {
  const zip = path.join(tempDir('zip'), 'profile.zip');
  const archive = new ZipArchive({ zlib: { level: 1 } });
  const out = createWriteStream(zip);
  archive.pipe(out);
  archive.append(Buffer.from('"Kind","Kernel_Name"\n'), { name: 'prof_kernel_trace.csv' });
  archive.append(readFileSync(built().opencl.gfx942.object), { name: '_code_object0.o' });
  archive.append(readFileSync(built().hipObject), { name: '_code_object1.o' });
  await archive.finalize();
  if (!out.writableFinished) await once(out, 'finish');
  return zip;
}

test(
  "--json on a profile zip: {codeObjects: [{file, target, kernels}]} with the compiler's counts and occupancy",
  { skip },
  async () => {
    const r = isa([await profileZip(), '--json']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
    const out = JSON.parse(r.stdout) as {
      codeObjects: Array<{
        file: string;
        target: string;
        processor: string;
        kernels: Array<
          Record<string, unknown> & { name: string; occupancy: { wavesPerSimd: number; limitedBy: string[] } }
        >;
      }>;
      skipped: unknown[];
    };
    assert.deepEqual(
      out.codeObjects.map((c) => [c.file, c.target, c.kernels.length]),
      [
        ['_code_object0.o', 'amdgcn-amd-amdhsa--gfx942', 6],
        ['_code_object1.o', 'amdgcn-amd-amdhsa--gfx942', 2],
      ],
    );
    assert.deepEqual(out.skipped, []);
    const figures = compilerFigures(built().opencl.gfx942.asm);
    for (const k of out.codeObjects[0]!.kernels) {
      const f = figures.get(k.name)!;
      assert.deepEqual(
        [k.vgprCount, k.agprCount, k.sgprCount, k.ldsBytes, k.scratchBytes, k.wavefrontSize, k.occupancy.wavesPerSimd],
        [f.totalVgprs, f.agprs, f.sgprs, f.lds, f.scratch, 64, f.occupancy],
        k.name,
      );
    }
    const tile = out.codeObjects[0]!.kernels.find((k) => k.name === 'lds_tile')!;
    assert.deepEqual([tile.ldsBytes, tile.occupancy.limitedBy, tile.reqdWorkgroupSize], [16384, ['lds'], [256, 1, 1]]);
  },
);

test('text: one table per code object, waves a SIMD and what limits them, the limits used', { skip }, () => {
  const r = isa([built().opencl.gfx942.object]);
  assert.equal(r.status, 0, r.stderr);
  const out = r.stdout;
  assert.match(out, /^.*gfx942\.o: amdgcn-amd-amdhsa--gfx942, 6 kernels \(code object v5, metadata v1\.2\)\n/);
  assert.match(out, /\n {2}Kernel +VGPRs +AGPRs +SGPRs +LDS +Scratch +Spills V\/S +Waves\/SIMD +Limited by\n/);
  assert.match(out, /\n {2}lds_tile +94 +0 +11 +16\.0 KiB +0 B +0\/0 +4\/8 +LDS \(workgroup 256\)\n/);
  assert.match(out, /\n {2}many_vgprs +144 +0 +14 +0 B +0 B +0\/0 +3\/8 +VGPRs\n/);
  assert.match(out, /\n {2}vadd +5 +0 +16 +0 B +0 B +0\/0 +8\/8 +-\n/);
  assert.match(
    out,
    /\nOccupancy on gfx942: at most 8 waves a SIMD, 4 SIMDs a CU; 512 VGPRs a SIMD lane \(ArchVGPRs and AGPRs share them\), allocated in 8s; 800 SGPRs a SIMD; 64\.0 KiB LDS a CU\.\n/,
  );
  const wide = isa([built().opencl.gfx942.object, '--workgroup-size', '1024']);
  assert.match(wide.stdout, /\n {2}lds_tile +94 .* 5\/8 +VGPRs\n/);
});

test("--disasm with the real llvm-objdump-19: the kernel's summary line and its function only", { skip }, () => {
  const r = isa([built().opencl.gfx942.object, '--disasm', 'lds_tile']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(
    r.stdout,
    /^; lds_tile in .*gfx942\.o \(gfx942\): VGPRs 94, AGPRs 0, SGPRs 11, LDS 16\.0 KiB, scratch 0 B, waves\/SIMD 4\/8 \(LDS \(workgroup 256\)\)\n[0-9a-f]+ <lds_tile>:\n/,
  );
  assert.match(r.stdout, /\bds_write/);
  assert.match(r.stdout, /\ts_endpgm\b/);
  assert.ok(!/<vadd>|<many_vgprs>|file format/.test(r.stdout));
  // an explicit --objdump, a bundle with the kernel for two targets, and the demangled name rocprof prints
  const both = isa([
    built().hipBundle,
    '--disasm',
    'void reduce_shared<1024>(int const*, int*)',
    '--objdump',
    '/usr/lib/llvm-19/bin/llvm-objdump',
    '--json',
  ]);
  assert.equal(both.status, 0, both.stderr);
  const d = (JSON.parse(both.stdout) as { disassembly: Array<{ processor: string; kernel: string; text: string }> })
    .disassembly;
  assert.deepEqual(
    d.map((x) => [x.processor, x.kernel]),
    [
      ['gfx90a', '_Z13reduce_sharedILi1024EEvPKiPi'],
      ['gfx942', '_Z13reduce_sharedILi1024EEvPKiPi'],
    ],
  );
  assert.ok(d.every((x) => x.text.startsWith('0') && x.text.includes('<_Z13reduce_sharedILi1024EEvPKiPi>:')));
});

test(
  '--disasm without any llvm-objdump: the metadata still shows, and the message says how to get one',
  { skip },
  () => {
    const r = isa([built().opencl.gfx942.object, '--disasm', 'vadd'], NO_OBJDUMP);
    assert.equal(r.status, 1);
    assert.match(r.stdout, /\n {2}vadd +5 +0 +16 /);
    assert.ok(!r.stdout.includes('<vadd>:'));
    assert.equal(
      r.stderr,
      'kernel-runner: cannot disassemble vadd: no llvm-objdump with the AMDGPU target on PATH: install an llvm-objdump with the AMDGPU target (Debian/Ubuntu: `apt-get install llvm-19`, which knows gfx942; ROCm ships one in /opt/rocm/llvm/bin) or pass --objdump PATH\n',
    );
    const json = isa([built().opencl.gfx942.object, '--disasm', 'vadd', '--json'], NO_OBJDUMP);
    assert.equal(json.status, 1);
    const out = JSON.parse(json.stdout) as { codeObjects: unknown[]; disassembly: null; disassemblyError: string };
    assert.equal(out.codeObjects.length, 1);
    assert.equal(out.disassembly, null);
    assert.match(out.disassemblyError, /apt-get install llvm-19/);
  },
);

test(
  'errors: a missing path, a garbled file, a zip without code objects, an unknown kernel, a bad option: exit 2',
  { skip },
  async () => {
    const missing = isa(['/no/such/_code_object0.o']);
    assert.deepEqual([missing.status, missing.stdout], [2, '']);
    assert.match(missing.stderr, /^kernel-runner: \/no\/such\/_code_object0\.o: no such file or directory/);

    const dir = tempDir('bad');
    const garbled = Buffer.from(readFileSync(built().opencl.gfx942.object));
    garbled.writeBigUInt64LE(0xffffffffffffff00n, 40);
    writeFileSync(path.join(dir, 'k.o'), garbled);
    const bad = isa([path.join(dir, 'k.o')]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /^kernel-runner: .*k\.o: e_shoff \d+ is beyond any file\n$/);

    const none = isa([dir]);
    assert.equal(none.status, 2);
    assert.match(none.stderr, /no code objects \(k\.o: e_shoff \d+ is beyond any file\)/);

    const unknown = isa([built().opencl.gfx942.object, '--disasm', 'nosuch']);
    assert.equal(unknown.status, 2);
    assert.match(
      unknown.stderr,
      /no kernel nosuch \(kernels: vadd, lds_tile, many_vgprs, uses_agprs, uses_scratch, lds_single_wave\)/,
    );

    const wg = isa([built().opencl.gfx942.object, '--workgroup-size', '0']);
    assert.equal(wg.status, 2);
    assert.match(wg.stderr, /--workgroup-size takes a whole number from 1 to 1024, not "0"/);

    const notLlvm = isa([built().opencl.gfx942.object, '--disasm', 'vadd', '--objdump', process.execPath]);
    assert.equal(notLlvm.status, 2);
    assert.match(notLlvm.stderr, /not an llvm-objdump with the AMDGPU target/);
  },
);
