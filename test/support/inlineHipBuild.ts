// A real inline-HIP build for the tests: test/fixtures/inline-hip/submission.py is run with python3 against the
// stand-in torch (test/fixtures/fake-torch: load_inline writes cuda.cu and the hipified hip.hip into its build
// folder as torch does on ROCm), then clang-19 compiles hip.hip for gfx942 with DWARF line tables, as
// HIPCC_COMPILE_FLAGS_APPEND=-gline-tables-only makes hipcc do in a PC-sampling run, and llvm-objdump-19 lists each
// instruction with the `hip.hip:line` a PC sample of it would carry. Stub headers stand in for torch's and HIP's
// (no ROCm on the test machines). Returns why not when python3 or the toolchain is missing.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseListing, type ListedInstruction } from '../../src/trace/codeObjects/listing';

const repoRoot = process.env.KR_REPO_ROOT ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface InlineHipBuild {
  dir: string;
  /** The submission (a copy in `dir`) and its text. */
  py: string;
  pyText: string;
  /** The hipified source torch's load_inline wrote, and its lines. */
  hip: string;
  hipLines: string[];
  object: string;
  /** The kernel's instructions with their DWARF `file:line` (file: the absolute hip.hip path). */
  instructions: ListedInstruction[];
}

const HIP_RUNTIME_STUB = `#pragma once
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
`;

function run(cmd: string, args: string[], env?: NodeJS.ProcessEnv): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: env ? { ...process.env, ...env } : process.env });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
  return r.stdout;
}

export function buildInlineHip(): InlineHipBuild | string {
  const dir = mkdtempSync(path.join(tmpdir(), 'kr-inline-hip-'));
  const py = path.join(dir, 'submission.py');
  copyFileSync(path.join(repoRoot, 'test/fixtures/inline-hip/submission.py'), py);
  try {
    run('python3', [py], {
      PYTHONPATH: path.join(repoRoot, 'test/fixtures/fake-torch'),
      PYTHONDONTWRITEBYTECODE: '1', // no __pycache__ in the repo's fixtures
      TORCH_EXTENSIONS_DIR: path.join(dir, 'torch_extensions'),
    });
  } catch (err) {
    return `python3 could not run the submission against the stand-in torch (${(err as Error).message})`;
  }
  const version = readdirSync(path.join(dir, 'torch_extensions'))[0]!;
  const hip = path.join(dir, 'torch_extensions', version, 'scale_ext', 'hip.hip');
  if (!existsSync(hip)) throw new Error(`the stand-in load_inline wrote no ${hip}`);
  const include = path.join(dir, 'include');
  mkdirSync(path.join(include, 'torch'), { recursive: true });
  mkdirSync(path.join(include, 'hip'), { recursive: true });
  writeFileSync(path.join(include, 'torch/types.h'), '#pragma once\nnamespace torch { struct Tensor {}; }\n');
  writeFileSync(path.join(include, 'hip/hip_runtime.h'), HIP_RUNTIME_STUB);
  const object = path.join(dir, 'scale_ext-gfx942.co');
  try {
    run('clang-19', [
      ...['-x', 'hip', '-nogpulib', '-nogpuinc', '--cuda-device-only', '-O2', '-gline-tables-only'],
      ...['-I', include, '--offload-arch=gfx942', '--no-gpu-bundle-output', '-c', hip, '-o', object],
    ]);
  } catch (err) {
    return `clang-19 could not build the inline HIP (${(err as Error).message})`;
  }
  const listing = run('llvm-objdump-19', ['-d', '-l', '--mcpu=gfx942', object]);
  return {
    dir,
    py,
    pyText: readFileSync(py, 'utf8'),
    hip,
    hipLines: readFileSync(hip, 'utf8').split('\n'),
    object,
    instructions: parseListing(listing).filter((i) => i.file !== null && i.line !== null),
  };
}
