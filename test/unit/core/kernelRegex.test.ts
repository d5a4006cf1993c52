// kernel_regex against rocprofv3's regex engine: what JavaScript accepts but rocprofv3 would reject or read as
// literal text is refused with the construct named (one decision for runner, CLI and editor); what both read alike
// passes unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unsupportedRegexConstruct } from '../../../src/core/kernelRegex';
import { checkProfileOptions } from '../../../src/core/profileOptions';

test('JavaScript-only syntax is named', () => {
  const cases: Array<[string, RegExp]> = [
    ['(?<=void )gemm', /^a lookbehind \(\?<=/],
    ['gemm(?<!_bf16)', /^a negative lookbehind/],
    ['(?<name>gemm)', /^a named group/],
    ['(?<name>gemm)\\k<name>', /^a named group/],
    ['gemm(?=_)', /^a lookahead/],
    ['gemm(?!_bf16)', /^a negative lookahead/],
    ['(?:gemm|conv)', /^a non-capturing group/],
    ['\\p{L}+', /^a Unicode property escape \\p/],
    ['\\P{Lu}', /^a Unicode property escape \\P/],
    ['\\bgemm\\b', /^a word boundary \\b/],
    ['gemm\\B', /^a word boundary \\B/],
    ['(gemm)\\1', /^a backreference \\1/],
    ['\\x41', /^a hex escape/],
    ['\\u0041', /^a Unicode escape/],
    ['\\cA', /^a control escape/],
    ['\\0', /^a NUL escape/],
    ['[\\b]', /^a backspace escape/],
    ['gemm\\e', /^the escape \\e/],
    ['gemm{', /^a \{ that is not a quantifier/],
    ['gemm{,3}', /^a \{ that is not a quantifier/],
    ['[]gemm', /^an empty class/],
    ['[^]', /^an empty class/],
    ['gémm', /^the non-ASCII character "é"/],
  ];
  for (const [pattern, named] of cases) {
    assert.doesNotThrow(() => new RegExp(pattern), `${pattern} is valid JavaScript`);
    assert.match(unsupportedRegexConstruct(pattern) ?? 'accepted', named, pattern);
    assert.throws(
      () => checkProfileOptions({ kernelRegex: pattern }),
      (err: Error) =>
        err.message.includes("rocprofv3's regex engine does not read") &&
        named.test(err.message.split(' uses ')[1] ?? ''),
      pattern,
    );
  }
});

test('what both engines read alike passes unchanged', () => {
  for (const pattern of [
    'gemm|conv',
    '^void addition',
    'gemm_kernel<.*>$',
    '[A-Za-z_][\\w]*_bf16',
    '[^0-9]+\\d{2,}',
    'a{3}b{1,}c{1,4}?',
    '(gemm|conv)+?',
    '\\.\\*\\(\\)\\[\\]\\{\\}\\|\\?\\+\\^\\$\\\\',
    '\\s\\S\\w\\W\\d\\D\\t',
    'void (anonymous namespace)::kernel',
    '[\\]a]',
  ]) {
    assert.equal(unsupportedRegexConstruct(pattern), null, pattern);
    assert.deepEqual(checkProfileOptions({ kernelRegex: pattern }), { kernelRegex: pattern });
  }
});
