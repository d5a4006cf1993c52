// Bidirectional controls in names are written out, not obeyed (the CLI and both webviews show names through it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { showBidiControls } from '../../../src/core/format/index';

test('each bidirectional control is written as its escape; other text is left as it is', () => {
  const controls = [0x61c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069];
  for (const code of controls) {
    const c = String.fromCharCode(code);
    const shown = showBidiControls(`a${c}b${c}`);
    const escape = `\\u${code.toString(16).padStart(4, '0')}`;
    assert.equal(shown, `a${escape}b${escape}`);
    assert.equal(JSON.parse(`"${shown}"`), `a${c}b${c}`, 'the escape is what JSON reads back');
  }
  for (const text of [
    'gemm_kernel<float>(float*, int)',
    'ядро_ünïcödé ✓',
    'مرحبا',
    'a\u200db',
    'a\u2010b',
    'a\u202fb',
    '',
  ])
    assert.equal(showBidiControls(text), text);
  assert.equal(showBidiControls('gemm_kernel\u202egnp.exe'), 'gemm_kernel\\u202egnp.exe');
});
