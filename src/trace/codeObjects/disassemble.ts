// One kernel's disassembly through llvm-objdump (`-d -l --mcpu=<processor> --disassemble-symbols=<kernel>`: `-l` prints
// the DWARF source line above the instructions of code built with line info, read by listing.ts), which
// must be an LLVM build with the AMDGPU target: Debian's llvm-19 has it, and so does ROCm's /opt/rocm/llvm.
import { access, constants, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { KernelRunnerError } from '../../core/errors';

const NAMES = ['llvm-objdump', ...[22, 21, 20, 19, 18, 17].map((v) => `llvm-objdump-${v}`)];
/** The usual LLVM folders (ROCm's, Debian/Ubuntu's versioned ones, Homebrew's), after PATH. */
export const LLVM_DIRS = [
  '/opt/rocm/llvm/bin',
  ...[22, 21, 20, 19, 18, 17].map((v) => `/usr/lib/llvm-${v}/bin`),
  '/usr/local/opt/llvm/bin',
  '/opt/homebrew/opt/llvm/bin',
];

export const HOW_TO_GET_OBJDUMP =
  'install an llvm-objdump with the AMDGPU target (Debian/Ubuntu: `apt-get install llvm-19`, which knows gfx942; ' +
  'ROCm ships one in /opt/rocm/llvm/bin) or pass --objdump PATH';

export class DisassemblyError extends KernelRunnerError {
  override readonly name = 'DisassemblyError';
  readonly code = 'TRACE_DISASSEMBLY';
  readonly type = 'disassembly' as const;
}

export interface FindObjdumpOptions {
  /** A path given by the user: used as is (and an error when it is not there). */
  explicit?: string;
  /** PATH to search; default process.env.PATH. */
  path?: string;
  /** Folders searched after PATH; default LLVM_DIRS. */
  dirs?: readonly string[];
}

/**
 * The llvm-objdump to use: the explicit one; else the newest with the AMDGPU target on PATH; else the newest in the
 * usual LLVM folders. Newest, because an old one (Debian's default llvm-14) knows amdgcn but not gfx942 code
 * objects. Undefined when there is none.
 */
export async function findObjdump(options: FindObjdumpOptions = {}): Promise<string | undefined> {
  if (options.explicit) {
    if (!(await isExecutable(options.explicit)))
      throw new DisassemblyError(`--objdump ${options.explicit}: no such executable`);
    if ((await amdgpuObjdumpVersion(options.explicit)) === undefined) {
      throw new DisassemblyError(
        `--objdump ${options.explicit}: not an llvm-objdump with the AMDGPU target (its --version lists no amdgcn)`,
      );
    }
    return options.explicit;
  }
  const pathDirs = (options.path ?? process.env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const tier of [pathDirs, options.dirs ?? LLVM_DIRS]) {
    let best: { path: string; version: number } | undefined;
    for (const dir of tier) {
      for (const name of NAMES) {
        const candidate = join(dir, name);
        if (!(await isExecutable(candidate))) continue;
        const version = await amdgpuObjdumpVersion(candidate);
        if (version !== undefined && (!best || version > best.version)) best = { path: candidate, version };
      }
    }
    if (best) return best.path;
  }
  return undefined;
}

export interface DisassembleRequest {
  objdump: string;
  /** The code object's bytes (written to a temporary file for objdump, removed after). */
  bytes: Buffer;
  /** `gfx942`. */
  processor: string;
  /** The kernel's function symbol: its metadata `.name`. */
  kernel: string;
}

/** The kernel's function, from its `<addr> <name>:` line to the end of objdump's listing of it. */
export async function disassembleKernel(req: DisassembleRequest): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kr-isa-'));
  try {
    const file = join(dir, 'code_object.o');
    await writeFile(file, req.bytes);
    const r = await execa(
      req.objdump,
      ['-d', '--line-numbers', `--mcpu=${req.processor}`, `--disassemble-symbols=${req.kernel}`, file],
      {
        reject: false,
        timeout: 60_000,
        maxBuffer: 64 * 1024 * 1024,
        stdin: 'ignore',
        env: { LC_ALL: 'C' },
      },
    );
    if (r.exitCode !== 0)
      throw new DisassemblyError(
        `${req.objdump} failed (exit ${r.exitCode ?? r.signal}): ${String(r.stderr).trim().split('\n')[0] ?? ''}`,
      );
    const out = String(r.stdout);
    const lines = out.split('\n');
    const start = lines.findIndex((l) => /^[0-9a-f]+ <.*>:$/.test(l));
    if (start === -1) throw new DisassemblyError(`llvm-objdump found no function ${req.kernel} in the code object`);
    return `${dropPadding(lines.slice(start)).join('\n').trimEnd()}\n`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The s_nop 0 run after the last s_endpgm is the code's alignment padding: one line says how many were left out. */
function dropPadding(lines: string[]): string[] {
  let end = lines.length;
  // objdump ends a run of zero bytes after the code with a `...` line (seen after code built with -g)
  while (end > 0 && (lines[end - 1]!.trim() === '' || lines[end - 1]!.trim() === '...')) end--;
  let nops = end;
  while (nops > 0 && /^\s*s_nop 0\b/.test(lines[nops - 1]!)) nops--;
  if (nops === end || nops === 0 || !/^\s*s_endpgm\b/.test(lines[nops - 1]!)) return lines.slice(0, end);
  return [...lines.slice(0, nops), `\t// ${end - nops} × s_nop 0 of padding after s_endpgm left out`];
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const versions = new Map<string, Promise<number | undefined>>();

/** The LLVM major version of an llvm-objdump that lists amdgcn among its targets (0 when it says no version). */
function amdgpuObjdumpVersion(objdump: string): Promise<number | undefined> {
  let known = versions.get(objdump);
  if (!known) {
    known = execa(objdump, ['--version'], { reject: false, timeout: 10_000, stdin: 'ignore' }).then(
      (r) => {
        const out = String(r.stdout);
        if (r.exitCode !== 0 || !/\bamdgcn\b/.test(out)) return undefined;
        return Number(/LLVM version (\d+)/.exec(out)?.[1] ?? 0);
      },
      () => undefined,
    );
    versions.set(objdump, known);
  }
  return known;
}
