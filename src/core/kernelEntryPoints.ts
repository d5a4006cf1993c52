// Finds the places in a source file where a GPU kernel starts, for the editor's "Run | Profile" CodeLens:
// `def custom_kernel(` (GPU MODE submissions), `@triton.jit` functions, and `__global__` functions in HIP/CUDA
// sources or inside the source strings a Python file hands to `load_inline`. Pure text scanning: comments and
// string literals are masked first so that a commented-out kernel or a docstring does not get a lens.

type KernelEntryKind = 'custom_kernel' | 'triton' | 'global';

export interface KernelEntryPoint {
  kind: KernelEntryKind;
  /** Function name (`custom_kernel`, the triton function, the `__global__` function). */
  name: string;
  /** 0-based line and column of the anchor (`def`, `@triton.jit`, `__global__`). */
  line: number;
  column: number;
  /** True when found inside a Python string literal (a `load_inline` source). */
  inPythonString: boolean;
}

export type SourceLanguage = 'python' | 'cpp';

const PYTHON_IDS = new Set(['python']);
const CPP_IDS = new Set(['hip', 'cuda-cpp', 'cuda', 'cpp', 'c']);
const CPP_EXTENSIONS = /\.(hip|cu|cuh|cpp|cc|cxx|hpp|h)$/i;

/** Maps a VS Code language id (or, failing that, a file name) to the scanner to use. */
export function sourceLanguageOf(languageId: string, fileName = ''): SourceLanguage | undefined {
  if (PYTHON_IDS.has(languageId) || /\.py$/i.test(fileName)) return 'python';
  if (CPP_IDS.has(languageId) || CPP_EXTENSIONS.test(fileName)) return 'cpp';
  return undefined;
}

export function findKernelEntryPoints(text: string, language: SourceLanguage): KernelEntryPoint[] {
  if (language === 'cpp') return findGlobalFunctions(text, maskCpp(text), 0, text, false);
  return findPythonEntryPoints(text);
}

// ---------------------------------------------------------------------------------------------------------------
// Python

interface PythonString {
  /** Offsets of the string's content (between the quotes). */
  start: number;
  end: number;
}

/** Replaces comments and string literals with spaces (newlines kept) and returns the string contents' spans. */
export function scanPython(text: string): { masked: string; strings: PythonString[] } {
  const out = text.split('');
  const strings: PythonString[] = [];
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n' && out[k] !== '\r') out[k] = ' ';
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '#') {
      const end = lineEnd(text, i);
      blank(i, end);
      i = end;
      continue;
    }
    if (c === '"' || c === "'") {
      // String prefixes (r, b, f, u, rb, br, fr, rf...) are letters just before the quote.
      const pre = /(?:^|\W)([rRbBfFuUtT]{1,2})$/.exec(text.slice(Math.max(0, i - 3), i));
      const p = i - (pre?.[1]?.length ?? 0);
      const triple = text.startsWith(c.repeat(3), i);
      const q = triple ? c.repeat(3) : c;
      const contentStart = i + q.length;
      let j = contentStart;
      let closed = false;
      while (j < text.length) {
        const d = text[j];
        if (d === '\\') {
          j += 2;
          continue;
        } // (raw strings too cannot end on an escaped quote)
        if (!triple && (d === '\n' || d === '\r')) break;
        if (text.startsWith(q, j)) {
          closed = true;
          break;
        }
        j++;
      }
      const contentEnd = Math.min(j, text.length);
      strings.push({ start: contentStart, end: contentEnd });
      const end = closed ? contentEnd + q.length : contentEnd;
      blank(p, end);
      i = end;
      continue;
    }
    i++;
  }
  return { masked: out.join(''), strings };
}

function findPythonEntryPoints(text: string): KernelEntryPoint[] {
  const { masked, strings } = scanPython(text);
  const found: KernelEntryPoint[] = [];
  const lines = masked.split('\n');
  let offset = 0;
  const lineStarts: number[] = [];
  for (const l of lines) {
    lineStarts.push(offset);
    offset += l.length + 1;
  }

  for (let n = 0; n < lines.length; n++) {
    const l = lines[n] ?? '';
    const def = /^(\s*)(?:async\s+)?def\s+custom_kernel\s*\(/.exec(l);
    if (def) {
      found.push({
        kind: 'custom_kernel',
        name: 'custom_kernel',
        line: n,
        column: def[1]?.length ?? 0,
        inPythonString: false,
      });
      continue;
    }
    const jit = /^(\s*)@\s*triton\s*\.\s*jit\b/.exec(l);
    if (jit) {
      const name = nextDefName(lines, n + 1);
      if (name) found.push({ kind: 'triton', name, line: n, column: jit[1]?.length ?? 0, inPythonString: false });
    }
  }

  if (/\bload_inline\b/.test(masked)) {
    for (const s of strings) {
      const body = text.slice(s.start, s.end);
      if (!body.includes('__global__')) continue;
      found.push(...findGlobalFunctions(body, maskCpp(body), s.start, text, true));
    }
  }
  return found.sort((a, b) => a.line - b.line || a.column - b.column);
}

/** The name of the `def` that a decorator line belongs to (skipping further decorators and their arguments). */
function nextDefName(lines: string[], from: number): string | undefined {
  for (let n = from; n < Math.min(lines.length, from + 40); n++) {
    const m = /^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)/.exec(lines[n] ?? '');
    if (m) return m[1];
    if (/^\s*(class|if|for|while|return)\b/.test(lines[n] ?? '')) return undefined;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// C++ / HIP / CUDA

/** Replaces comments, string and character literals and preprocessor lines with spaces (newlines kept). */
export function maskCpp(text: string): string {
  const out = text.split('');
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n' && out[k] !== '\r') out[k] = ' ';
  };
  let i = 0;
  let atLineStart = true;
  while (i < text.length) {
    const c = text[i];
    if (c === '\n') {
      atLineStart = true;
      i++;
      continue;
    }
    if (atLineStart && c === '#') {
      // A preprocessor line, continued by backslashes (macros can hold __global__ text we should not anchor on).
      let j = i;
      for (;;) {
        const e = lineEnd(text, j);
        if (e > 0 && text[e - 1] === '\\' && e < text.length) {
          j = e + 1;
          continue;
        }
        if (e > 1 && text[e - 1] === '\r' && text[e - 2] === '\\') {
          j = e + 1;
          continue;
        }
        blank(i, e);
        i = e;
        break;
      }
      continue;
    }
    if (c !== ' ' && c !== '\t' && c !== '\r') atLineStart = false;
    if (c === '/' && text[i + 1] === '/') {
      const e = lineEnd(text, i);
      blank(i, e);
      i = e;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      const e = close < 0 ? text.length : close + 2;
      blank(i, e);
      i = e;
      continue;
    }
    if (c === 'R' && text[i + 1] === '"') {
      const m = /^R"([^()\\\s]{0,16})\(/.exec(text.slice(i, i + 20));
      if (m) {
        const close = text.indexOf(`)${m[1]}"`, i);
        const e = close < 0 ? text.length : close + (m[1]?.length ?? 0) + 2;
        blank(i, e);
        i = e;
        continue;
      }
    }
    if (c === '"' || (c === "'" && !/[0-9a-fA-F]/.test(text[i - 1] ?? ''))) {
      // (a quote right after a hex digit is a C++14 digit separator: 1'000'000)
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      const e = Math.min(j + 1, text.length);
      blank(i, e);
      i = e;
      continue;
    }
    i++;
  }
  return out.join('');
}

const NOT_A_NAME = new Set([
  '__launch_bounds__',
  '__attribute__',
  'alignas',
  'decltype',
  '__declspec',
  'void',
  'static',
  'inline',
  'extern',
  '__forceinline__',
  '__noinline__',
  'template',
  'typename',
  'const',
  'auto',
  'operator',
]);

/**
 * Finds `__global__` function definitions in `masked` (C++ with comments/strings blanked). Offsets are relative to
 * `base` in `whole` (the full document), which is how positions inside Python strings map back to lines.
 */
function findGlobalFunctions(
  _source: string,
  masked: string,
  base: number,
  whole: string,
  inPythonString: boolean,
): KernelEntryPoint[] {
  const found: KernelEntryPoint[] = [];
  const re = /\b__global__\b/g;
  for (let m = re.exec(masked); m; m = re.exec(masked)) {
    let i = m.index + m[0].length;
    let name: string | undefined;
    // Walk identifiers and skip balanced (...) after attribute-like words until "identifier (" appears.
    while (i < masked.length) {
      const ws = /^\s*/.exec(masked.slice(i, i + 200));
      i += ws ? ws[0].length : 0;
      const idm = /^[A-Za-z_]\w*/.exec(masked.slice(i, i + 200));
      if (idm) {
        const id = idm[0];
        i += id.length;
        const after = /^\s*/.exec(masked.slice(i, i + 200));
        const j = i + (after ? after[0].length : 0);
        if (masked[j] === '(') {
          if (NOT_A_NAME.has(id)) {
            i = skipBalanced(masked, j, '(', ')');
            continue;
          }
          name = id;
          i = j;
          break;
        }
        if (masked[j] === '<') {
          i = skipBalanced(masked, j, '<', '>');
          continue;
        }
        continue;
      }
      const ch = masked[i];
      if (ch === '*' || ch === '&' || ch === ':') {
        i++;
        continue;
      }
      if (ch === '[' && masked[i + 1] === '[') {
        i = skipBalanced(masked, i, '[', ']');
        continue;
      }
      break; // anything else (`;`, `{`, `)`) means this is not a function declarator we understand
    }
    if (!name) continue;
    const close = skipBalanced(masked, i, '(', ')');
    const next = /^\s*(\S)/.exec(masked.slice(close, close + 400));
    if (next?.[1] === ';') continue; // a declaration, not a definition
    const pos = lineAndColumn(whole, base + m.index);
    found.push({ kind: 'global', name, line: pos.line, column: pos.column, inPythonString });
  }
  return found;
}

function skipBalanced(text: string, open: number, o: string, c: string): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === o) depth++;
    else if (text[i] === c) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return text.length;
}

function lineEnd(text: string, from: number): number {
  const e = text.indexOf('\n', from);
  return e < 0 ? text.length : e;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 0;
  let last = -1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    last = i;
  }
  return { line, column: offset - last - 1 };
}
