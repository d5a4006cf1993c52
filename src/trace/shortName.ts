// A readable short name for a kernel: the full name can be 3,000 characters of templates
// (`void ck_tile::kentry<1, ck_tile::BatchedGemmKernel<...>>(ck_tile::BatchedGemmKernelArgs)`).
// Result: the qualified base name (at most its last two scopes), with the last scope's template arguments
// kept only at the top level and nested ones collapsed to `<…>`, capped at `max` characters:
// `ck_tile::kentry<1, BatchedGemmKernel<…>>`.

/** +1 for an opening bracket (`<`, `(`, `[`, `{`), -1 for a closing one, else 0 (by char code: names are long). */
function bracket(c: number): number {
  if (c === 0x3c || c === 0x28 || c === 0x5b || c === 0x7b) return 1;
  if (c === 0x3e || c === 0x29 || c === 0x5d || c === 0x7d) return -1;
  return 0;
}

export function shortKernelName(full: string, max = 80): string {
  let name = full
    .trim()
    .replace(/\s*\[clone [^\]]*\]$/, '')
    .replace(/\.kd$/, '');
  if (name.startsWith('_Z')) return cap(demangleBase(name) ?? name, max);
  if (!/[<([{]/.test(name)) {
    // no brackets: everything is at the top level (most names; the scans below run once per kernel, cold)
    const scopes = name.slice(name.lastIndexOf(' ') + 1).split('::');
    const qualified = scopes
      .slice(-2)
      .filter((x) => x.length > 0)
      .join('::');
    return cap(qualified || full, max);
  }
  name = stripArguments(name);
  name = stripReturnType(name);
  const scopes = splitTopLevel(name, '::');
  const last = scopes.pop() ?? name;
  const ownerScopes = scopes.map((s) => s.replace(/<.*$/s, '')).slice(-1);
  const lt = topLevelIndex(last, '<');
  let result: string;
  if (lt < 0) {
    result = last;
  } else {
    const base = last.slice(0, lt);
    const inner = last.slice(lt + 1, last.lastIndexOf('>') > lt ? last.lastIndexOf('>') : last.length);
    const args = splitTopLevel(inner, ',').map((a) => summarizeArg(a.trim()));
    result = `${base}<${args.join(', ')}>`;
  }
  const qualified = [...ownerScopes, result].filter((s) => s.length > 0).join('::');
  return cap(qualified || full, max);
}

function cap(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/** `void f<int>(float*, int) const` → `void f<int>`: drops the final balanced `(...)` and what follows it. */
function stripArguments(name: string): string {
  let s = name.replace(/\s+(const|volatile|&|&&)$/, '');
  if (!s.endsWith(')')) return s;
  let depth = 0;
  for (let i = s.length - 1; i >= 0; i--) {
    const c = s[i];
    if (c === ')') depth++;
    else if (c === '(') {
      depth--;
      if (depth === 0) {
        s = s.slice(0, i);
        break;
      }
    }
  }
  return s.trim();
}

/** Drops a leading return type: the name is the last top-level, space-separated token. */
function stripReturnType(name: string): string {
  let depth = 0;
  let cut = -1;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const b = bracket(c);
    if (b > 0) depth++;
    else if (b < 0) depth = Math.max(0, depth - 1);
    else if (c === 0x20 && depth === 0) cut = i;
  }
  return cut >= 0 ? name.slice(cut + 1) : name;
}

function topLevelIndex(s: string, ch: string): number {
  const want = ch.charCodeAt(0);
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === want && depth === 0) return i;
    const b = bracket(c);
    if (b > 0) depth++;
    else if (b < 0) depth = Math.max(0, depth - 1);
  }
  return -1;
}

function splitTopLevel(s: string, sep: string): string[] {
  const out: string[] = [];
  const first = sep.charCodeAt(0);
  let depth = 0;
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const b = bracket(c);
    if (b > 0) depth++;
    else if (b < 0) depth = Math.max(0, depth - 1);
    else if (depth === 0 && c === first && s.startsWith(sep, i)) {
      out.push(s.slice(from, i));
      from = i + sep.length;
      i += sep.length - 1;
    }
  }
  out.push(s.slice(from));
  return out;
}

/** `ck_tile::BatchedGemmKernel<ck_tile::X<...>, 2>` → `BatchedGemmKernel<…>`; `A<…>::Args` → `Args`; `(E)3` → `3`. */
function summarizeArg(arg: string): string {
  const a = arg.replace(/^\((?:[\w:]+)\)/, '');
  const scopes = splitTopLevel(a, '::');
  const last = (scopes[scopes.length - 1] ?? a).trim();
  const lt = topLevelIndex(last, '<');
  return lt >= 0 ? `${last.slice(0, lt)}<…>` : last;
}

/** Minimal Itanium demangling of the base name only: `_Z10vector_addPfS_S_i` → `vector_add`. */
function demangleBase(mangled: string): string | null {
  let i = 2;
  const parts: string[] = [];
  const readId = (): boolean => {
    const m = /^\d+/.exec(mangled.slice(i));
    if (!m) return false;
    const n = Number(m[0]);
    i += m[0].length;
    parts.push(mangled.slice(i, i + n));
    i += n;
    return true;
  };
  if (mangled[i] === 'N') {
    i++;
    while (mangled[i] === 'K' || mangled[i] === 'V' || mangled[i] === 'r') i++;
    if (mangled.startsWith('St', i)) {
      parts.push('std');
      i += 2;
    }
    while (i < mangled.length && mangled[i] !== 'E' && mangled[i] !== 'I') {
      if (!readId()) break;
    }
  } else if (!readId()) {
    return null;
  }
  return parts.length ? parts.slice(-2).join('::') : null;
}
