// Which code object kernels a name means: the name as the metadata has it (`_Z12templ_kernelPi`, `vadd`), its
// descriptor symbol (`vadd.kd`), or a profiled name as rocprof prints it (demangled, `void templ_kernel<4>(int*)`,
// legacy `... [clone .kd]`), compared by base name when no exact match exists.
import type { LoadedCodeObject } from './read';

export interface KernelMatch {
  object: LoadedCodeObject;
  kernelIndex: number;
}

export function matchKernels(objects: readonly LoadedCodeObject[], query: string): KernelMatch[] {
  const q = query.trim().replace(/ \[clone \.kd\]$/, '');
  const exact: KernelMatch[] = [];
  const byBase: KernelMatch[] = [];
  const qBase = baseName(q);
  for (const object of objects) {
    object.info.kernels.forEach((k, kernelIndex) => {
      if (k.name === q || k.symbol === q || k.symbol === `${q}.kd`) exact.push({ object, kernelIndex });
      else if (qBase !== '' && baseName(k.name) === qBase) byBase.push({ object, kernelIndex });
    });
  }
  return exact.length > 0 ? exact : byBase;
}

/** The function's own name: `templ_kernel` of `_Z12templ_kernelPi`, `ns::templ_kernel<4>(int*)` or `void templ_kernel(int*)`. */
export function baseName(name: string): string {
  const n = name.replace(/\.kd$/, '');
  if (n.startsWith('_Z')) return mangledBase(n) ?? n;
  const args = topLevelIndex(n, '(');
  let head = (args === -1 ? n : n.slice(0, args)).trim();
  // the return type ("void ") is the part before the last top-level space
  const space = lastTopLevelIndex(head, ' ');
  if (space !== -1) head = head.slice(space + 1);
  if (head.endsWith('>')) {
    const open = matchingOpen(head);
    if (open > 0) head = head.slice(0, open);
  }
  const colons = head.lastIndexOf('::');
  return colons === -1 ? head : head.slice(colons + 2);
}

/** The last <source-name> of an Itanium-mangled function name before its template arguments or parameters. */
function mangledBase(n: string): string | undefined {
  let at = 2;
  if (n[at] === 'N') {
    at++;
    while (n[at] === 'r' || n[at] === 'V' || n[at] === 'K') at++;
  }
  let last: string | undefined;
  while (at < n.length) {
    if (n[at] === 'L') at++;
    const digits = /^\d+/.exec(n.slice(at, at + 6));
    if (!digits) break;
    const len = Number(digits[0]);
    at += digits[0].length;
    if (len === 0 || at + len > n.length) return last;
    last = n.slice(at, at + len);
    at += len;
  }
  return last;
}

function topLevelIndex(s: string, ch: string): number {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '<') depth++;
    else if (c === '>') depth = Math.max(0, depth - 1);
    else if (c === ch && depth === 0) return i;
  }
  return -1;
}

function lastTopLevelIndex(s: string, ch: string): number {
  let depth = 0;
  for (let i = s.length - 1; i >= 0; i--) {
    const c = s[i];
    if (c === '>') depth++;
    else if (c === '<') depth = Math.max(0, depth - 1);
    else if (c === ch && depth === 0) return i;
  }
  return -1;
}

function matchingOpen(s: string): number {
  let depth = 0;
  for (let i = s.length - 1; i >= 0; i--) {
    if (s[i] === '>') depth++;
    else if (s[i] === '<' && --depth === 0) return i;
  }
  return -1;
}
