// Profiled kernels matched to the kernel definitions in a source file (the editor's "⏱ 17.2 µs avg · 150 calls"
// CodeLens). A profiler names a kernel as the compiler emitted it: Itanium-mangled (`_Z10vector_addPfS_S_i`),
// demangled with its template arguments and parameters (`void addition_kernel<float>(float*, int)`), with
// `.kd` or ` [clone .kd]` suffixes, or, for Triton, the plain function name. A source file defines it by its
// bare identifier. The match is on that identifier; every instantiation of a template (or overload) counts
// towards its one definition. Pure: no vscode, no Node.
import { formatNs } from './format/durations';
import type { KernelEntryPoint } from './kernelEntryPoints';

/** What the timing lens needs of a profiled kernel (a subset of the trace summary's kernel row). */
export interface ProfiledKernel {
  name: string;
  calls: number;
  totalNs: number;
}

export interface KernelTiming {
  /** The definition's identifier. */
  name: string;
  calls: number;
  totalNs: number;
  avgNs: number;
  /** Profiled names that counted towards it (template instantiations, overloads). */
  profiledNames: string[];
}

export interface TimedEntryPoint {
  entry: KernelEntryPoint;
  timing: KernelTiming;
}

/**
 * The bare identifier a profiled kernel name defines: `_Z10vector_addPfS_S_i` → `vector_add`,
 * `void ns::addition_kernel<float>(float*, int) [clone .kd]` → `addition_kernel`, `softmax_kernel` → itself.
 * Undefined when nothing identifier-like is left (an empty or unreadable name).
 */
export function kernelIdentifier(profiledName: string): string | undefined {
  let s = profiledName.trim().replace(/\s*\[clone [^\]]*\]$/, '').replace(/\.kd$/, '');
  if (s.startsWith('_Z')) return demangledIdentifier(s);
  s = stripTrailingGroup(s.replace(/\s+(const|volatile|&&?)$/, ''), '(', ')');
  // The last scope's name, without its template arguments.
  s = stripTrailingGroup(s, '<', '>');
  const m = /([A-Za-z_$][\w$]*)\s*$/.exec(s);
  return m?.[1];
}

/** The innermost name of an Itanium-mangled symbol (`_ZN2ns6kernelIfEEvPT_` → `kernel`). */
function demangledIdentifier(mangled: string): string | undefined {
  let i = 2;
  let last: string | undefined;
  const readId = (): boolean => {
    const m = /^\d+/.exec(mangled.slice(i));
    if (!m) return false;
    const n = Number(m[0]);
    i += m[0].length;
    if (n <= 0 || i + n > mangled.length) return false;
    last = mangled.slice(i, i + n);
    i += n;
    return true;
  };
  if (mangled[i] === 'N') {
    i++;
    while (mangled[i] === 'K' || mangled[i] === 'V' || mangled[i] === 'r') i++;
    if (mangled.startsWith('St', i)) i += 2;
    while (i < mangled.length && mangled[i] !== 'E' && mangled[i] !== 'I') if (!readId()) break;
  } else {
    readId();
  }
  return last && /^[A-Za-z_$][\w$]*$/.test(last) ? last : undefined;
}

/** Drops a trailing balanced `open…close` group (and what follows it at depth 0 must be nothing). */
function stripTrailingGroup(s: string, open: string, close: string): string {
  const t = s.trimEnd();
  if (!t.endsWith(close)) return t;
  let depth = 0;
  for (let i = t.length - 1; i >= 0; i--) {
    if (t[i] === close) depth++;
    else if (t[i] === open && --depth === 0) return t.slice(0, i).trimEnd();
  }
  return t;
}

/** The profiled kernels grouped by the identifier they define. */
export function timingsByIdentifier(kernels: readonly ProfiledKernel[]): Map<string, KernelTiming> {
  const out = new Map<string, KernelTiming>();
  for (const k of kernels) {
    const id = kernelIdentifier(k.name);
    if (!id || k.calls <= 0) continue;
    const t = out.get(id) ?? { name: id, calls: 0, totalNs: 0, avgNs: 0, profiledNames: [] };
    t.calls += k.calls;
    t.totalNs += k.totalNs;
    t.avgNs = t.totalNs / t.calls;
    if (!t.profiledNames.includes(k.name)) t.profiledNames.push(k.name);
    out.set(id, t);
  }
  return out;
}

/**
 * The definitions in a file that the profile timed. `custom_kernel` (a GPU MODE entry point that launches kernels
 * under other names) is never matched. A name defined twice in the file (two `__global__` overloads) gets the
 * timing on each definition.
 */
export function matchKernelTimings(entries: readonly KernelEntryPoint[], kernels: readonly ProfiledKernel[]): TimedEntryPoint[] {
  const byId = timingsByIdentifier(kernels);
  const out: TimedEntryPoint[] = [];
  for (const entry of entries) {
    if (entry.kind === 'custom_kernel') continue;
    const timing = byId.get(entry.name);
    if (timing) out.push({ entry, timing });
  }
  return out;
}

/** "⏱ 17.2 µs avg · 150 calls". */
export function timingLensTitle(t: Pick<KernelTiming, 'avgNs' | 'calls'>): string {
  return `⏱ ${formatNs(t.avgNs)} avg · ${t.calls.toLocaleString('en-US')} call${t.calls === 1 ? '' : 's'}`;
}
