// Kernel names as a person reads them: Itanium-mangled names (`_Z10vector_addPfS_S_i`) through llvm-cxxfilt (or
// c++filt) when one is on PATH or in the usual LLVM folders, all names in one bounded call; without one, the base
// name that src/trace/shortName.ts reads out of the mangling (`vector_add`).
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { shortKernelName } from '../shortName';
import { LLVM_DIRS } from './disassemble';

const FILTERS = ['llvm-cxxfilt', ...[22, 21, 20, 19, 18, 17].map((v) => `llvm-cxxfilt-${v}`), 'c++filt'];
const TIMEOUT_MS = 10_000;

async function findFilter(dirs: readonly string[]): Promise<string | undefined> {
  for (const dir of dirs)
    for (const name of FILTERS) {
      const candidate = join(dir, name);
      try {
        await access(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  return undefined;
}

let filter: Promise<string | undefined> | undefined;

/** Each mangled name of `names` to its demangled form (names that are not mangled map to themselves). */
export async function demangleNames(names: readonly string[]): Promise<Map<string, string>> {
  const out = new Map(names.map((n) => [n, n]));
  const mangled = [...new Set(names.filter((n) => n.startsWith('_Z')))];
  if (mangled.length === 0) return out;
  filter ??= findFilter([...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...LLVM_DIRS]);
  const tool = await filter;
  let lines: string[] | undefined;
  if (tool) {
    const r = await execa(tool, [], {
      input: `${mangled.join('\n')}\n`,
      reject: false,
      timeout: TIMEOUT_MS,
      maxBuffer: 16 * 1024 * 1024,
      env: { LC_ALL: 'C' },
    });
    const got = String(r.stdout).split('\n');
    if (r.exitCode === 0 && got.length >= mangled.length) lines = got;
  }
  mangled.forEach((m, i) => out.set(m, lines?.[i]?.trim() || shortKernelName(m, 240)));
  return out;
}
