// The code object reader on real code objects that clang-19 builds (test/support/codeObjects.ts): metadata
// against the compiler's own figures, the occupancy estimate against the compiler's `; Occupancy: N`, offload
// bundles, folders and zips, disassembly with the real llvm-objdump-19, and garbled or hostile files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { encode } from '@msgpack/msgpack';
import { ZipArchive } from 'archiver';
import {
  CodeObjectError,
  DisassemblyError,
  disassembleKernel,
  findObjdump,
  loadCodeObjectsPath,
  matchKernels,
  readCodeObjectBuffer,
  readCodeObjectsPath,
  type CodeObjectInfo,
} from '../../../src/trace/codeObjects/index';
import { parseElf } from '../../../src/trace/codeObjects/elf';
import { bundlesInFatbin, parseOffloadBundle } from '../../../src/trace/codeObjects/offloadBundle';
import { baseName } from '../../../src/trace/codeObjects/match';
import { metadataNote } from '../../../src/trace/codeObjects/metadata';
import { OPENCL_TARGETS, builtCodeObjects, compilerFigures, skipCodeObjects } from '../../support/codeObjects';
import { seededRandom } from './helpers';
import { tempDirsRemovedAfter } from '../../support/tempDirs';

const skip = skipCodeObjects();
const built = () => builtCodeObjects();
const tempDir = tempDirsRemovedAfter('kr-trace-');

async function one(file: string): Promise<CodeObjectInfo> {
  const r = await readCodeObjectsPath(file);
  assert.equal(r.codeObjects.length, 1);
  return r.codeObjects[0]!;
}

function kernel(info: CodeObjectInfo, name: string) {
  const k = info.kernels.find((x) => x.name === name);
  assert.ok(k, `no kernel ${name} in ${info.kernels.map((x) => x.name).join(', ')}`);
  return k;
}

test(
  "gfx942 metadata: target, kernels, and register/LDS/scratch counts equal to the compiler's",
  { skip },
  async () => {
    const co = await one(built().opencl.gfx942.object);
    assert.equal(co.target, 'amdgcn-amd-amdhsa--gfx942');
    assert.equal(co.processor, 'gfx942');
    assert.equal(co.bundleEntry, null);
    assert.deepEqual(
      co.kernels.map((k) => k.name),
      ['vadd', 'lds_tile', 'many_vgprs', 'uses_agprs', 'uses_scratch', 'lds_single_wave'],
    );
    const figures = compilerFigures(built().opencl.gfx942.asm);
    for (const k of co.kernels) {
      const f = figures.get(k.name);
      assert.ok(f, k.name);
      assert.equal(k.vgprCount, f.totalVgprs, `${k.name} vgprs`);
      assert.equal(k.agprCount, f.agprs, `${k.name} agprs`);
      assert.equal(k.sgprCount, f.sgprs, `${k.name} sgprs`);
      assert.equal(k.ldsBytes, f.lds, `${k.name} lds`);
      assert.equal(k.scratchBytes, f.scratch, `${k.name} scratch`);
      assert.equal(k.wavefrontSize, 64);
      assert.equal(k.symbol, `${k.name}.kd`);
    }
    // what the source sets: __local float tile[4096], buf[2048]; reqd_work_group_size; three 8-byte pointers
    assert.equal(kernel(co, 'lds_tile').ldsBytes, 4096 * 4);
    assert.equal(kernel(co, 'lds_single_wave').ldsBytes, 2048 * 4);
    assert.equal(kernel(co, 'vadd').ldsBytes, 0);
    assert.deepEqual(kernel(co, 'lds_tile').reqdWorkgroupSize, [256, 1, 1]);
    assert.equal(kernel(co, 'vadd').reqdWorkgroupSize, null);
    assert.equal(kernel(co, 'vadd').kernargBytes, 24);
    assert.equal(kernel(co, 'vadd').language, 'OpenCL C');
    // the counts differ where the kernels do
    assert.ok(kernel(co, 'many_vgprs').vgprCount! > 4 * kernel(co, 'vadd').vgprCount!);
    assert.equal(kernel(co, 'uses_agprs').agprCount, 32);
    assert.equal(kernel(co, 'vadd').agprCount, 0);
    assert.ok(kernel(co, 'uses_scratch').scratchBytes! >= 64 * 4);
    assert.equal(kernel(co, 'vadd').scratchBytes, 0);
  },
);

test(
  'on gfx90a/gfx942 .vgpr_count includes the AGPRs (unified file): ArchVGPRs rounded to 4, plus AccVGPRs',
  { skip },
  async () => {
    // uses_agprs clobbers v8 and a31: 9 ArchVGPRs -> 12, plus 32 AGPRs = 44; gfx908 keeps two files (max of the two)
    assert.equal(kernel(await one(built().opencl.gfx942.object), 'uses_agprs').vgprCount, 44);
    assert.equal(kernel(await one(built().opencl.gfx90a.object), 'uses_agprs').vgprCount, 44);
    assert.equal(kernel(await one(built().opencl.gfx908.object), 'uses_agprs').vgprCount, 32);
  },
);

test(
  'the occupancy estimate equals the compiler\'s own "; Occupancy:" for every kernel on gfx942, gfx90a and gfx908',
  { skip },
  async () => {
    for (const target of OPENCL_TARGETS) {
      const co = await one(built().opencl[target].object);
      assert.equal(co.processor, target);
      assert.equal(co.occupancyNote, null);
      const figures = compilerFigures(built().opencl[target].asm);
      assert.equal(figures.size, co.kernels.length);
      for (const k of co.kernels) {
        assert.equal(k.occupancy?.wavesPerSimd, figures.get(k.name)?.occupancy, `${target} ${k.name}`);
      }
    }
  },
);

test('occupancy says what limits each kernel on gfx942', { skip }, async () => {
  const co = await one(built().opencl.gfx942.object);
  const o = (name: string) => kernel(co, name).occupancy!;
  assert.deepEqual([o('vadd').wavesPerSimd, o('vadd').limitedBy], [8, ['waves']]);
  assert.equal(o('vadd').maxWavesPerSimd, 8);
  // 16 KiB of LDS a 256-wide workgroup: 4 workgroups of 4 waves on 4 SIMDs, although the VGPRs would allow 5
  assert.deepEqual([o('lds_tile').wavesPerSimd, o('lds_tile').limitedBy, o('lds_tile').byVgpr], [4, ['lds'], 5]);
  assert.deepEqual([o('lds_tile').workgroupSize, o('lds_tile').workgroupSizeFrom], [256, 'reqd_workgroup_size']);
  assert.deepEqual([o('many_vgprs').wavesPerSimd, o('many_vgprs').limitedBy], [3, ['vgpr']]);
  assert.deepEqual(
    [o('many_vgprs').workgroupSize, o('many_vgprs').workgroupSizeFrom],
    [256, 'max_flat_workgroup_size'],
  );
  assert.deepEqual([o('lds_single_wave').wavesPerSimd, o('lds_single_wave').limitedBy], [2, ['lds']]);
});

test('a given workgroup size replaces the assumed one in the LDS limit', { skip }, async () => {
  const r = await readCodeObjectsPath(built().opencl.gfx942.object, { workgroupSize: 1024 });
  const o = kernel(r.codeObjects[0]!, 'lds_tile').occupancy!;
  // 16 waves a workgroup: 32 wave slots a CU hold 2 workgroups -> 8 waves a SIMD by LDS; the VGPRs hold it at 5
  assert.deepEqual(
    [o.workgroupSize, o.workgroupSizeFrom, o.byLds, o.wavesPerSimd, o.limitedBy],
    [1024, 'given', 8, 5, ['vgpr']],
  );
});

test(
  'HIP code object (mangled names) and a gfx90a+gfx942 offload bundle, bare and inside a host .hip_fatbin, plain and compressed',
  { skip },
  async () => {
    const hip = await one(built().hipObject);
    assert.deepEqual(
      hip.kernels.map((k) => k.name),
      ['scale', '_Z13reduce_sharedILi1024EEvPKiPi'],
    );
    assert.equal(kernel(hip, '_Z13reduce_sharedILi1024EEvPKiPi').ldsBytes, 1024 * 4);
    for (const file of [
      built().hipBundle,
      built().hostFatbin,
      built().hipCompressedBundle,
      built().hostCompressedFatbin,
    ]) {
      const r = await readCodeObjectsPath(file);
      assert.deepEqual(
        r.codeObjects.map((c) => [c.bundleEntry, c.processor]),
        [
          ['hipv4-amdgcn-amd-amdhsa--gfx90a', 'gfx90a'],
          ['hipv4-amdgcn-amd-amdhsa--gfx942', 'gfx942'],
        ],
      );
      assert.deepEqual(r.codeObjects[1]!.kernels, hip.kernels, "the bundle's gfx942 entry is the same code object");
      assert.ok(r.codeObjects.every((c) => c.file === file));
    }
  },
);

/** A zip with the entries in this order (all appended as buffers: archiver's file() stats in parallel and can reorder). */
async function zipOf(entries: Array<{ name: string; file?: string; data?: Buffer }>): Promise<string> {
  const file = path.join(tempDir('isa-zip'), 'profile.zip');
  const archive = new ZipArchive({ zlib: { level: 6 } });
  const out = createWriteStream(file);
  archive.pipe(out);
  for (const e of entries)
    archive.append(e.file ? readFileSync(e.file) : (e.data ?? Buffer.alloc(0)), { name: e.name });
  await archive.finalize();
  if (!out.writableFinished) await once(out, 'finish');
  return file;
}

test(
  'a kernelbot-like profile zip: its _code_object<N>.o entries, the rest not looked at, a broken one skipped with why',
  { skip },
  async () => {
    const zip = await zipOf([
      { name: 'prof_kernel_trace.csv', data: Buffer.from('"Kind"\n') },
      { name: 'combined.pftrace', data: Buffer.from([0x0a, 0x00]) },
      { name: '_code_object0.o', file: built().opencl.gfx942.object },
      { name: '_code_object1.o', file: built().hipObject },
      { name: '_code_object2.o', data: Buffer.from('\x7fELF') },
    ]);
    const r = await readCodeObjectsPath(zip);
    assert.deepEqual(
      r.codeObjects.map((c) => [c.file, c.kernels.length]),
      [
        ['_code_object0.o', 6],
        ['_code_object1.o', 2],
      ],
    );
    assert.deepEqual(r.skipped, [{ file: '_code_object2.o', reason: 'truncated ELF header (4 bytes, 64 needed)' }]);
  },
);

test(
  'a folder: code objects by name, nested, sorted; a host object without .hip_fatbin is skipped, a text file ignored',
  { skip },
  async () => {
    const dir = tempDir('isa-folder');
    copyFileSync(built().opencl.gfx90a.object, path.join(dir, 'b.hsaco'));
    copyFileSync(built().opencl.gfx942.object, path.join(dir, 'a.co'));
    writeFileSync(path.join(dir, 'notes.txt'), 'not a code object');
    const hostOnly = readFileSync(built().hostFatbin);
    const plain = Buffer.from(hostOnly);
    plain.writeUInt16LE(0, 60); // e_shnum 0 and e_shoff 0: no sections, so no .hip_fatbin
    plain.writeBigUInt64LE(0n, 40);
    writeFileSync(path.join(dir, 'host.o'), plain);
    const r = await readCodeObjectsPath(dir);
    assert.deepEqual(
      r.codeObjects.map((c) => [c.file, c.processor]),
      [
        ['a.co', 'gfx942'],
        ['b.hsaco', 'gfx90a'],
      ],
    );
    assert.deepEqual(r.skipped, [
      { file: 'host.o', reason: 'an ELF for machine 62, not AMDGPU (224), with no .hip_fatbin section' },
    ]);
  },
);

test('a missing path and a single unreadable file are CodeObjectErrors naming the path', async () => {
  await assert.rejects(
    readCodeObjectsPath('/no/such/_code_object0.o'),
    (e: unknown) => e instanceof CodeObjectError && /^\/no\/such\/_code_object0\.o: no such file/.test(e.message),
  );
  const file = path.join(tempDir('isa-one'), 'k.o');
  writeFileSync(file, 'hello');
  await assert.rejects(
    readCodeObjectsPath(file),
    (e: unknown) =>
      e instanceof CodeObjectError && e.message === `${file}: neither an ELF code object nor a clang offload bundle`,
  );
});

test(
  'matching names: exact metadata names, descriptor symbols, and profiled (demangled) names by base name',
  { skip },
  async () => {
    const { objects } = await loadCodeObjectsPath(built().hipBundle);
    const names = (q: string) =>
      matchKernels(objects, q).map((m) => `${m.object.info.processor}:${m.object.info.kernels[m.kernelIndex]!.name}`);
    assert.deepEqual(names('scale'), ['gfx90a:scale', 'gfx942:scale']);
    assert.deepEqual(names('scale.kd'), ['gfx90a:scale', 'gfx942:scale']);
    assert.deepEqual(names('void reduce_shared<1024>(int const*, int*)'), [
      'gfx90a:_Z13reduce_sharedILi1024EEvPKiPi',
      'gfx942:_Z13reduce_sharedILi1024EEvPKiPi',
    ]);
    assert.deepEqual(names('nosuch'), []);
    assert.equal(baseName('_ZN5aiter13fwd_fp8_kloopE'), 'fwd_fp8_kloop');
    assert.equal(baseName('_Z12templ_kernelPi'), 'templ_kernel');
    assert.equal(
      baseName('void ns::gemm<float, 4>(float const*, float*) [clone .kd]'.replace(/ \[clone \.kd\]$/, '')),
      'gemm',
    );
    assert.equal(baseName('matmul_kernel'), 'matmul_kernel');
  },
);

test("disassembly with the real llvm-objdump-19: that kernel's function only", { skip }, async () => {
  const objdump = await findObjdump();
  assert.ok(objdump, 'llvm-objdump-19 is installed with clang-19');
  const { objects } = await loadCodeObjectsPath(built().opencl.gfx942.object);
  const text = await disassembleKernel({ objdump, bytes: objects[0]!.bytes, processor: 'gfx942', kernel: 'lds_tile' });
  assert.match(text, /^[0-9a-f]+ <lds_tile>:\n/);
  assert.match(text, /\bds_write/);
  assert.match(text, /\bs_barrier\b/);
  assert.match(text, /\bs_endpgm\b/);
  assert.ok(!/<vadd>|<many_vgprs>/.test(text), 'no other kernel');
  assert.ok(!text.includes('file format'), 'no objdump header');
  await assert.rejects(
    disassembleKernel({ objdump, bytes: objects[0]!.bytes, processor: 'gfx942', kernel: 'nosuch' }),
    DisassemblyError,
  );
});

test(
  'finding llvm-objdump: PATH, then the LLVM folders; none; an explicit path that is missing or not LLVM',
  { skip },
  async () => {
    assert.equal(await findObjdump({ path: '', dirs: [] }), undefined);
    assert.equal(await findObjdump({ path: '', dirs: ['/usr/lib/llvm-19/bin'] }), '/usr/lib/llvm-19/bin/llvm-objdump');
    assert.equal(await findObjdump({ path: '/usr/bin', dirs: [] }), '/usr/bin/llvm-objdump-19');
    await assert.rejects(
      findObjdump({ explicit: '/no/such/llvm-objdump' }),
      /--objdump \/no\/such\/llvm-objdump: no such executable/,
    );
    await assert.rejects(findObjdump({ explicit: process.execPath }), /not an llvm-objdump with the AMDGPU target/);
  },
);

// ---- garbled and hostile input: a CodeObjectError with a reason, never another exception, a hang or a huge allocation

function expectCodeObjectError(buf: Buffer, pattern?: RegExp): string {
  let caught: unknown;
  try {
    readCodeObjectBuffer(buf, 'bad.o');
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof CodeObjectError, `expected a CodeObjectError, got ${String(caught)}`);
  assert.match(caught.message, pattern ?? /./);
  return caught.message;
}

/** Where the metadata note's descriptor lies in the file; its descsz field is 16 bytes before it (namesz, descsz,
 * type, then the 7-byte owner "AMDGPU\0" padded to 8). */
function metadataDesc(buf: Buffer): { at: number; length: number; descszAt: number } {
  const desc = metadataNote(parseElf(buf).notes());
  assert.ok(desc);
  const at = desc.byteOffset - buf.byteOffset;
  return { at, length: desc.length, descszAt: at - 16 };
}

/** A copy of the code object with its metadata note's descriptor replaced (no longer than the original). */
function withMetadata(original: Buffer, desc: Buffer): Buffer {
  const buf = Buffer.from(original);
  const { at, length, descszAt } = metadataDesc(buf);
  assert.ok(desc.length <= length, `${desc.length} > ${length}`);
  assert.equal(buf.readUInt32LE(descszAt), length);
  buf.fill(0, at, at + length);
  desc.copy(buf, at);
  buf.writeUInt32LE(desc.length, descszAt);
  return buf;
}

test('every truncation of a real code object is a CodeObjectError or a complete read', { skip }, () => {
  const buf = readFileSync(built().opencl.gfx942.object);
  let read = 0;
  for (let n = 0; n < buf.length; n++) {
    try {
      const out = readCodeObjectBuffer(buf.subarray(0, n), 'cut.o');
      assert.equal(out[0]!.info.kernels.length, 6);
      read++;
    } catch (err) {
      assert.ok(err instanceof CodeObjectError, `length ${n}: ${String(err)}`);
    }
  }
  assert.ok(read < buf.length / 2, 'the section headers at the end are needed');
});

test('random byte damage (seeded) never escapes as another error', { skip }, () => {
  const original = readFileSync(built().opencl.gfx942.object);
  const random = seededRandom(1234);
  for (let i = 0; i < 3000; i++) {
    const buf = Buffer.from(original);
    const flips = 1 + Math.floor(random() * 8);
    for (let f = 0; f < flips; f++) buf[Math.floor(random() * buf.length)] = Math.floor(random() * 256);
    try {
      for (const o of readCodeObjectBuffer(buf, 'flip.o')) assert.ok(o.info.kernels.length <= 6 * 2);
    } catch (err) {
      assert.ok(err instanceof CodeObjectError, `case ${i}: ${String((err as Error).stack)}`);
    }
  }
});

test('hostile headers: offsets and counts past the file, 32-bit or big-endian ELFs, no notes', { skip }, () => {
  const original = readFileSync(built().opencl.gfx942.object);
  const patch = (f: (b: Buffer) => void) => {
    const b = Buffer.from(original);
    f(b);
    return b;
  };
  expectCodeObjectError(
    patch((b) => b.writeBigUInt64LE(0xffffffffffffff00n, 40)),
    /e_shoff \d+ is beyond any file/,
  );
  expectCodeObjectError(
    patch((b) => b.writeBigUInt64LE(BigInt(b.length - 10), 40)),
    /section headers at offset \d+ .* runs past the end of the file/,
  );
  expectCodeObjectError(
    patch((b) => b.writeUInt16LE(50, 58)),
    /section header size 50, expected 64/,
  );
  expectCodeObjectError(
    patch((b) => (b[4] = 1)),
    /not a 64-bit ELF/,
  );
  expectCodeObjectError(
    patch((b) => (b[5] = 2)),
    /not a little-endian ELF/,
  );
  // e_shnum 0: the count comes from section 0's sh_size, which claims a billion
  expectCodeObjectError(
    patch((b) => {
      const shoff = Number(b.readBigUInt64LE(40));
      b.writeUInt16LE(0, 60);
      b.writeBigUInt64LE(1_000_000_000n, shoff + 32);
    }),
    /1000000000 sections claimed/,
  );
  // no SHT_NOTE section: the notes come from the PT_NOTE segment; without that as well, there is no metadata
  const noNoteSections = patch((b) => {
    const shoff = Number(b.readBigUInt64LE(40));
    for (let i = 0; i < b.readUInt16LE(60); i++)
      if (b.readUInt32LE(shoff + i * 64 + 4) === 7) b.writeUInt32LE(1, shoff + i * 64 + 4);
  });
  assert.equal(readCodeObjectBuffer(noNoteSections, 'segments.o')[0]!.info.kernels.length, 6);
  expectCodeObjectError(
    patch((b) => {
      b.set(noNoteSections);
      const phoff = Number(b.readBigUInt64LE(32));
      for (let i = 0; i < b.readUInt16LE(56); i++)
        if (b.readUInt32LE(phoff + i * 56) === 4) b.writeUInt32LE(0, phoff + i * 56);
    }),
    /no AMDGPU metadata note/,
  );
  // a note whose descriptor size runs past its section
  const { descszAt } = metadataDesc(original);
  expectCodeObjectError(
    patch((b) => b.writeUInt32LE(0x7fffffff, descszAt)),
    /note at offset \d+ runs past its section/,
  );
});

test('hostile metadata: garbage msgpack, a 4-billion-element array header, wrong shapes, odd values', { skip }, () => {
  const original = readFileSync(built().opencl.gfx942.object);
  expectCodeObjectError(
    withMetadata(original, Buffer.from([0xc1, 0xc1, 0xc1])),
    /AMDGPU metadata note is not valid msgpack/,
  );
  expectCodeObjectError(withMetadata(original, Buffer.from([0xdd, 0xff, 0xff, 0xff, 0xff, 0x01])), /not valid msgpack/);
  expectCodeObjectError(withMetadata(original, Buffer.from(encode([1, 2, 3]))), /not a msgpack map/);
  expectCodeObjectError(
    withMetadata(original, Buffer.from(encode({ 'amdhsa.kernels': 'nope' }))),
    /no amdhsa\.kernels list/,
  );
  expectCodeObjectError(
    withMetadata(original, Buffer.from(encode({ 'amdhsa.kernels': [{ '.symbol': 'x.kd' }] }))),
    /amdhsa\.kernels\[0\] has no \.name/,
  );
  // a "__proto__" key (JSON.parse makes it an own key, which encode writes) is refused by the decoder
  const protoKernel = JSON.parse('{".name": "k", "__proto__": {".agpr_count": 5}}') as unknown;
  expectCodeObjectError(
    withMetadata(original, Buffer.from(encode({ 'amdhsa.kernels': [protoKernel] }))),
    /not valid msgpack \(The key __proto__ is not allowed\)/,
  );
  // counts that are not counts are left out, and so is the estimate that needs them
  const oddKernel = { '.name': 'k', '.vgpr_count': -3, '.sgpr_count': 'ten', '.group_segment_fixed_size': 2 ** 60 };
  const odd = withMetadata(
    original,
    Buffer.from(encode({ 'amdhsa.target': 'amdgcn-amd-amdhsa--gfx942', 'amdhsa.kernels': [oddKernel] })),
  );
  const [obj] = readCodeObjectBuffer(odd, 'odd.o');
  const k = obj!.info.kernels[0]!;
  assert.deepEqual(
    [k.name, k.vgprCount, k.sgprCount, k.ldsBytes, k.agprCount, k.occupancy],
    ['k', null, null, null, null, null],
  );
  // an unknown target: metadata, no estimate, and a note why
  const rdna = withMetadata(
    original,
    Buffer.from(
      encode({
        'amdhsa.target': 'amdgcn-amd-amdhsa--gfx1100',
        'amdhsa.kernels': [{ '.name': 'k', '.vgpr_count': 8, '.sgpr_count': 8 }],
      }),
    ),
  );
  const [r] = readCodeObjectBuffer(rdna, 'rdna.o');
  assert.equal(r!.info.kernels[0]!.occupancy, null);
  assert.match(r!.info.occupancyNote ?? '', /no occupancy limits recorded for gfx1100/);
});

test('hostile offload bundles: counts and entries past the file, compressed bundles', () => {
  const magic = Buffer.from('__CLANG_OFFLOAD_BUNDLE__', 'latin1');
  const u64 = (n: bigint) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(n);
    return b;
  };
  expectCodeObjectError(Buffer.concat([magic, u64(1n << 40n)]), /offload bundle claims \d+ entries/);
  expectCodeObjectError(Buffer.concat([magic, u64(1n)]), /offload bundle truncated at its entry 0 offset/);
  const id = Buffer.from('hipv4-amdgcn-amd-amdhsa--gfx942');
  expectCodeObjectError(
    Buffer.concat([magic, u64(1n), u64(100n), u64(1n << 30n), u64(BigInt(id.length)), id]),
    /entry hipv4-amdgcn-amd-amdhsa--gfx942: 1073741824 bytes at offset 100 run past the end/,
  );
  expectCodeObjectError(
    Buffer.concat([magic, u64(1n), u64(0n), u64(0n), u64(1n << 50n)]),
    /id of \d+ bytes runs past the end/,
  );
  const host = Buffer.from('host-x86_64-unknown-linux--');
  expectCodeObjectError(
    Buffer.concat([magic, u64(1n), u64(0n), u64(0n), u64(BigInt(host.length)), host]),
    /no AMDGPU code object in it/,
  );
  expectCodeObjectError(
    Buffer.from('CCOB\x02\x00\x01\x00'),
    /compressed offload bundle \(version 2\) truncated in its header/,
  );
});

/** A compressed bundle as clang's CompressedOffloadBundle lays it out, of `bundle`, with zlib (method 0). */
function ccob(
  bundle: Buffer,
  version: 1 | 2 | 3,
  opts: { method?: number; hash?: bigint; size?: number; data?: Buffer } = {},
): Buffer {
  const data = opts.data ?? deflateSync(bundle);
  const hash = opts.hash ?? createHash('md5').update(bundle).digest().readBigUInt64LE(0);
  const head = Buffer.alloc(version === 1 ? 20 : version === 2 ? 24 : 32);
  head.write('CCOB', 0, 'latin1');
  head.writeUInt16LE(version, 4);
  head.writeUInt16LE(opts.method ?? 0, 6);
  const size = opts.size ?? bundle.length;
  if (version === 1) {
    head.writeUInt32LE(size, 8);
    head.writeBigUInt64LE(hash, 12);
  } else if (version === 2) {
    head.writeUInt32LE(head.length + data.length, 8);
    head.writeUInt32LE(size, 12);
    head.writeBigUInt64LE(hash, 16);
  } else {
    head.writeBigUInt64LE(BigInt(head.length + data.length), 8);
    head.writeBigUInt64LE(BigInt(size), 16);
    head.writeBigUInt64LE(hash, 24);
  }
  return Buffer.concat([head, data]);
}

test(
  "compressed offload bundles: clang's own (version 2, zstd) and versions 1 to 3 with zlib read the same code objects",
  { skip },
  () => {
    const plain = readFileSync(built().hipBundle);
    const expected = readCodeObjectBuffer(plain, 'x').map((o) => o.info);
    const fromClang = readFileSync(built().hipCompressedBundle);
    assert.equal(fromClang.toString('latin1', 0, 4), 'CCOB');
    assert.equal(fromClang.readUInt16LE(6), 1, 'clang-19 compresses with zstd here');
    assert.ok(fromClang.length < plain.length / 2, `compressed: ${fromClang.length} of ${plain.length} bytes`);
    for (const [what, buf] of [
      ['clang', fromClang],
      ['v1', ccob(plain, 1)],
      ['v2', ccob(plain, 2)],
      ['v3', ccob(plain, 3)],
    ] as const) {
      assert.deepEqual(
        readCodeObjectBuffer(buf, 'x').map((o) => o.info),
        expected,
        what,
      );
    }
    // a .hip_fatbin of plain and compressed bundles one after another, aligned
    const align = (b: Buffer) => Buffer.concat([b, Buffer.alloc((4096 - (b.length % 4096)) % 4096)]);
    const ids = parseOffloadBundle(plain).entries.map((e) => e.id);
    const section = Buffer.concat([align(plain), align(fromClang), align(ccob(plain, 3)), plain]);
    assert.deepEqual(
      bundlesInFatbin(section, 1 << 30).map((e) => e.id),
      [...ids, ...ids, ...ids, ...ids],
    );
    assert.throws(
      () => bundlesInFatbin(section, plain.length + 10),
      /inflates to \d+ bytes, more than the \d+ read/,
      'the cap is for all of them together',
    );
  },
);

test(
  'hostile compressed bundles: damaged data, a wrong hash, a size past the limit, unknown versions and methods, truncation',
  { skip },
  () => {
    const plain = readFileSync(built().hipBundle);
    const fromClang = readFileSync(built().hipCompressedBundle);
    const flipped = Buffer.from(fromClang);
    flipped[flipped.length - 40] = (flipped[flipped.length - 40] as number) ^ 0xff;
    expectCodeObjectError(
      flipped,
      /compressed offload bundle (\(zstd\) does not inflate|does not match its hash|inflated to \d+ bytes)/,
    );
    expectCodeObjectError(ccob(plain, 2, { hash: 12345n }), /does not match its hash: the file is damaged/);
    expectCodeObjectError(ccob(plain, 3, { size: 2 ** 31 }), /inflates to 2147483648 bytes, more than the \d+ read/);
    expectCodeObjectError(
      ccob(plain, 2, { size: plain.length - 1 }),
      /compressed offload bundle \(zlib\) does not inflate/,
    );
    expectCodeObjectError(
      ccob(plain, 2, { size: plain.length + 1 }),
      /inflated to \d+ bytes, not the \d+ its header says/,
    );
    const v9 = ccob(plain, 2);
    v9.writeUInt16LE(9, 4);
    expectCodeObjectError(v9, /version 9: not one this reader knows/);
    expectCodeObjectError(ccob(plain, 2, { method: 7 }), /compression method 7 \(known: 0 zlib, 1 zstd\)/);
    expectCodeObjectError(fromClang.subarray(0, fromClang.length - 1), /says it is \d+ bytes; the file has \d+/);
    expectCodeObjectError(ccob(Buffer.from('not a bundle at all'), 1), /not a clang offload bundle/);
    // a zip bomb's shape: a tiny input that claims a size within the limit but inflates to more is cut at that size
    expectCodeObjectError(ccob(Buffer.alloc(64 * 1024 * 1024), 2, { size: 1024 }), /does not inflate/);
    // every truncation and seeded damage of clang's own: a CodeObjectError or a complete read
    const random = seededRandom(99);
    for (let n = 0; n < fromClang.length; n += 7) {
      try {
        readCodeObjectBuffer(fromClang.subarray(0, n), 'cut');
      } catch (err) {
        assert.ok(err instanceof CodeObjectError, `length ${n}: ${String(err)}`);
      }
    }
    for (let i = 0; i < 500; i++) {
      const buf = Buffer.from(fromClang);
      for (let f = 0; f < 1 + Math.floor(random() * 4); f++)
        buf[Math.floor(random() * buf.length)] = Math.floor(random() * 256);
      try {
        readCodeObjectBuffer(buf, 'flip');
      } catch (err) {
        assert.ok(err instanceof CodeObjectError, `case ${i}: ${String((err as Error).stack)}`);
      }
    }
  },
);
