// What rocprofv3's --kernel-include-regex can read. rocprofiler-sdk matched it with std::regex (ECMAScript grammar)
// and, in later releases, with its own engine (lib/common/regex), which reads literals, `.`, `^`, `$`, bracket
// classes, \d \D \w \W \s \S \n \t \r \f \v, escaped punctuation, * + ? {m} {m,} {m,n} (each also lazy), (groups)
// and |, matched byte by byte. There every `(` opens a capture group and an unknown escape is its letter, so
// `(?<=x)`, `(?:x)`, \b or \1 are taken as literal text: a filter that silently selects nothing, or the wrong
// kernels. JavaScript accepts all of them, so a pattern that passes `new RegExp` is checked here against the part
// both engines read alike, and what lies outside it is named.

/** Escapes both engines read as the same class or character. */
const SHARED_LETTER_ESCAPES = new Set(['d', 'D', 'w', 'W', 's', 'S', 'n', 't', 'r', 'f', 'v']);

function escapeConstruct(next: string, inClass: boolean): string | null {
  if (SHARED_LETTER_ESCAPES.has(next)) return null;
  if (next === 'b') return inClass ? 'a backspace escape \\b' : 'a word boundary \\b';
  if (next === 'B') return 'a word boundary \\B';
  if (next === 'p' || next === 'P') return `a Unicode property escape \\${next}{...}`;
  if (next === 'k') return 'a named backreference \\k<name>';
  if (next === '0') return 'a NUL escape \\0';
  if (/[1-9]/.test(next)) return `a backreference \\${next}`;
  if (next === 'x') return 'a hex escape \\x..';
  if (next === 'u') return 'a Unicode escape \\u....';
  if (next === 'c') return 'a control escape \\c.';
  if (/[A-Za-z]/.test(next)) return `the escape \\${next}`;
  return null; // escaped punctuation: the character itself in both
}

function groupConstruct(rest: string): string {
  if (rest.startsWith('?<=')) return 'a lookbehind (?<=...)';
  if (rest.startsWith('?<!')) return 'a negative lookbehind (?<!...)';
  if (rest.startsWith('?<')) return 'a named group (?<name>...)';
  if (rest.startsWith('?=')) return 'a lookahead (?=...)';
  if (rest.startsWith('?!')) return 'a negative lookahead (?!...)';
  if (rest.startsWith('?:')) return 'a non-capturing group (?:...): write (...)';
  return 'a group modifier (?...)';
}

/**
 * The first construct of `pattern` (a valid JavaScript regular expression) that rocprofv3's regex engine would
 * reject or read otherwise, named as a person would ("a lookbehind (?<=...)"), or null when it reads it alike.
 */
export function unsupportedRegexConstruct(pattern: string): string | null {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c.charCodeAt(0) > 0x7e) return `the non-ASCII character ${JSON.stringify(c)} (rocprofv3 matches bytes)`;
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      const construct = escapeConstruct(next, inClass);
      if (construct) return construct;
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      // `[]` and `[^]` mean nothing and anything in JavaScript; rocprofv3 reads the `]` as a member
      if (pattern[i + 1] === ']' || pattern.startsWith('^]', i + 1)) return 'an empty class [] or [^]';
      if (pattern[i + 1] === '^') i++;
    } else if (c === '(' && pattern[i + 1] === '?') return groupConstruct(pattern.slice(i + 1));
    else if (c === '{' && !/^\{\d+(,\d*)?\}/.test(pattern.slice(i))) return 'a { that is not a quantifier: write \\{';
  }
  return null;
}

/** What rocprofv3's kernel filter reads, for the message of a refused pattern. */
export const SHARED_REGEX_SYNTAX =
  'literals, . ^ $, [classes], \\d \\w \\s (and \\D \\W \\S), escaped punctuation, * + ? {m,n} (also lazy), (groups) and |';
