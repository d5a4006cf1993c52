// Builds real AMDGPU code objects for the tests with Debian's clang-19 (no ROCm needed): the OpenCL kernels of
// test/fixtures/code-objects/kernels.cl for gfx942, gfx90a and gfx908 (object and assembly, whose
// `; Occupancy: N` comments are the compiler's own occupancy figures), the HIP kernels of kernels.hip as a plain
// gfx942 code object and as a gfx90a+gfx942 offload bundle, plain and compressed (`--offload-compress`: zstd, as
// clang-19 writes it), kernels.hip with `-g` (DWARF lines), and host objects whose .hip_fatbin section holds either, the way hipcc embeds one. Built once into .test-output/code-objects/<hash of sources and compiler>/.
//
// Without clang-19 the tests that need these skip, loudly; in CI (CI=true) they fail: .ci/run installs it.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// KR_REPO_ROOT: the VS Code suites run this from a bundle under out/, where import.meta.url is not this file
const repoRoot = process.env.KR_REPO_ROOT ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Bump when build() below changes what it builds or how. */
const RECIPE = 3;
const sources = path.join(repoRoot, 'test/fixtures/code-objects');
export const OPENCL_TARGETS = ['gfx942', 'gfx90a', 'gfx908'] as const;
type OpenclTarget = (typeof OPENCL_TARGETS)[number];

export interface BuiltCodeObjects {
  dir: string;
  /** kernels.cl built per target: `<target>.o` and its assembly `<target>.s`. */
  opencl: Record<OpenclTarget, { object: string; asm: string }>;
  /** kernels.hip for gfx942 as one code object (`--no-gpu-bundle-output`). */
  hipObject: string;
  /** kernels.hip for gfx942 with DWARF line info (`-g`): objdump `-l` gives each instruction's source line. */
  hipDebugObject: string;
  /** kernels.hip for gfx90a and gfx942 as a clang offload bundle. */
  hipBundle: string;
  /** An x86-64 host object with the bundle in its .hip_fatbin section. */
  hostFatbin: string;
  /** The same bundle compressed by clang (`--offload-compress`, a `CCOB` file), and a host object holding it. */
  hipCompressedBundle: string;
  hostCompressedFatbin: string;
  clang: string;
  objdump: string;
}

const TOOLCHAIN = {
  clang: 'clang-19',
  objdump: 'llvm-objdump-19',
  objcopy: 'llvm-objcopy-19',
  bundler: 'clang-offload-bundler-19',
};

let cached: BuiltCodeObjects | string | undefined;

/** The built code objects, or why they cannot be built (non-CI only: in CI a missing toolchain throws). */
export function codeObjects(): BuiltCodeObjects | string {
  if (cached === undefined) cached = build();
  if (typeof cached === 'string' && process.env.CI === 'true') {
    throw new Error(
      `${cached} (CI installs clang-19, llvm-19 and clang-tools-19 in .ci/run: the code object tests cannot skip there)`,
    );
  }
  return cached;
}

/** For `test(name, { skip: skipCodeObjects() }, ...)`: false when built, else the loud reason. */
export function skipCodeObjects(): string | false {
  const built = codeObjects();
  if (typeof built !== 'string') return false;
  process.stderr.write(
    `\n*** SKIPPING code object tests: ${built}. Install: apt-get install clang-19 llvm-19 clang-tools-19 ***\n`,
  );
  return built;
}

export function builtCodeObjects(): BuiltCodeObjects {
  const built = codeObjects();
  if (typeof built === 'string') throw new Error(built);
  return built;
}

function build(): BuiltCodeObjects | string {
  for (const tool of Object.values(TOOLCHAIN)) {
    const r = spawnSync(tool, ['--version'], { encoding: 'utf8' });
    if (r.error || r.status !== 0) return `${tool} is not installed`;
  }
  const version = spawnSync(TOOLCHAIN.clang, ['--version'], { encoding: 'utf8' }).stdout;
  const hash = createHash('sha256');
  hash.update(version);
  for (const name of ['kernels.cl', 'kernels.hip']) hash.update(readFileSync(path.join(sources, name)));
  hash.update(`recipe ${RECIPE}`);
  const dir = path.join(repoRoot, '.test-output/code-objects', hash.digest('hex').slice(0, 16));
  const result = describe(dir);
  if (existsSync(path.join(dir, 'done'))) return result;

  mkdirSync(path.dirname(dir), { recursive: true });
  const work = mkdtempSync(`${dir}.building-`);
  try {
    const cl = path.join(sources, 'kernels.cl');
    const hip = path.join(sources, 'kernels.hip');
    for (const target of OPENCL_TARGETS) {
      const common = ['-target', 'amdgcn-amd-amdhsa', `-mcpu=${target}`, '-O2', '-nogpulib', '-x', 'cl', cl];
      run(TOOLCHAIN.clang, [...common, '-o', path.join(work, `${target}.o`)]);
      run(TOOLCHAIN.clang, [...common, '-S', '-o', path.join(work, `${target}.s`)]);
    }
    const hipCommon = ['-x', 'hip', '-nogpulib', '-nogpuinc', '--cuda-device-only', '-O2', '-c', hip];
    run(TOOLCHAIN.clang, [
      ...hipCommon,
      '--offload-arch=gfx942',
      '--no-gpu-bundle-output',
      '-o',
      path.join(work, 'hip-gfx942.co'),
    ]);
    run(TOOLCHAIN.clang, [
      ...hipCommon,
      '-g',
      '--offload-arch=gfx942',
      '--no-gpu-bundle-output',
      '-o',
      path.join(work, 'hip-gfx942-g.co'),
    ]);
    run(TOOLCHAIN.clang, [
      ...hipCommon,
      '--offload-arch=gfx90a',
      '--offload-arch=gfx942',
      '-o',
      path.join(work, 'hip.bundle'),
    ]);
    run(TOOLCHAIN.clang, [
      ...hipCommon,
      '--offload-arch=gfx90a',
      '--offload-arch=gfx942',
      '--offload-compress',
      '-o',
      path.join(work, 'hip-compressed.bundle'),
    ]);
    writeFileSync(path.join(work, 'host.c'), 'int main(void) { return 0; }\n');
    run(TOOLCHAIN.clang, ['-c', '-x', 'c', path.join(work, 'host.c'), '-o', path.join(work, 'host.o')]);
    run(TOOLCHAIN.objcopy, [
      '--add-section',
      `.hip_fatbin=${path.join(work, 'hip.bundle')}`,
      path.join(work, 'host.o'),
      path.join(work, 'host-fatbin.o'),
    ]);
    run(TOOLCHAIN.objcopy, [
      '--add-section',
      `.hip_fatbin=${path.join(work, 'hip-compressed.bundle')}`,
      path.join(work, 'host.o'),
      path.join(work, 'host-compressed-fatbin.o'),
    ]);
    writeFileSync(path.join(work, 'done'), version);
    try {
      renameSync(work, dir);
    } catch (err) {
      // another test process built it first
      if (!existsSync(path.join(dir, 'done'))) throw err;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return result;
}

function describe(dir: string): BuiltCodeObjects {
  const opencl = Object.fromEntries(
    OPENCL_TARGETS.map((t) => [t, { object: path.join(dir, `${t}.o`), asm: path.join(dir, `${t}.s`) }]),
  ) as BuiltCodeObjects['opencl'];
  return {
    dir,
    opencl,
    hipObject: path.join(dir, 'hip-gfx942.co'),
    hipDebugObject: path.join(dir, 'hip-gfx942-g.co'),
    hipBundle: path.join(dir, 'hip.bundle'),
    hostFatbin: path.join(dir, 'host-fatbin.o'),
    hipCompressedBundle: path.join(dir, 'hip-compressed.bundle'),
    hostCompressedFatbin: path.join(dir, 'host-compressed-fatbin.o'),
    clang: TOOLCHAIN.clang,
    objdump: TOOLCHAIN.objdump,
  };
}

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr}`);
}

/** The compiler's own figures from its assembly: per kernel, `; Occupancy: N` and friends. */
export function compilerFigures(
  asmPath: string,
): Map<string, { occupancy: number; totalVgprs: number; agprs: number; sgprs: number; lds: number; scratch: number }> {
  const out = new Map<
    string,
    { occupancy: number; totalVgprs: number; agprs: number; sgprs: number; lds: number; scratch: number }
  >();
  const text = readFileSync(asmPath, 'utf8');
  // a kernel's comment block sits between its `.globl` and the next kernel's
  for (const part of text.split(/^\s*\.globl\s+/m).slice(1)) {
    const name = part.slice(0, part.indexOf('\n')).trim();
    const num = (label: string): number => {
      const m = new RegExp(`; ${label}: (\\d+)`).exec(part);
      if (!m) throw new Error(`no "; ${label}:" for ${name} in ${asmPath}`);
      return Number(m[1]);
    };
    out.set(name, {
      occupancy: num('Occupancy'),
      totalVgprs: num('TotalNumVgprs'),
      agprs: num('NumAgprs'),
      sgprs: num('NumSgprs'),
      lds: num('LDSByteSize'),
      scratch: num('ScratchSize'),
    });
  }
  return out;
}
