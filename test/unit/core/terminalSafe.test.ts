// What a program prints cannot drive the terminal the CLI writes to: escape sequences (7-bit and 8-bit), C0 and
// C1 controls are removed or written out, tab, newline and colours stay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stripAnsi, terminalSafe, utf8IsTerminalSafe } from '../../../src/core/noise/index';
import { showBidiControls } from '../../../src/core/format/index';

// eslint-disable-next-line no-control-regex
const DRIVES_TERMINAL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

test('terminalSafe: no control but tab and newline reaches the terminal; colours stay; C1 is written as \\u00XX', () => {
  const hostile = [
    '\x9b2J\x9b1;1Hspoofed', // 8-bit CSI: clear the screen, move home
    'fake\b\b\b\breal', // backspaces over the line
    'progress\roverwritten', // CR back to the line's start
    '\x1b]0;title\x07\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\', // OSC title and hyperlink
    '\x1b[2J\x1b[1A\x1b[Kcursor', // 7-bit CSI moves
    '\x1bPq#0;1;1\x1b\\sixel', // DCS
    '\x1b[6n\x1b[c\x05answer', // requests the terminal answers, ENQ
    'bell\x07nul\x00del\x7fsi\x0fso\x0e\x9d8;;x\x9c',
  ];
  for (const s of hostile) {
    const safe = terminalSafe(s);
    assert.doesNotMatch(safe, DRIVES_TERMINAL, JSON.stringify(safe));
    // the sequences' introducers are all gone or written out: nothing of them can start one
    assert.ok(!safe.includes('\x1b') && !safe.includes('\x9b'), JSON.stringify(safe));
  }
  assert.equal(terminalSafe('fake\b\b\b\breal'), 'fakereal');
  assert.equal(terminalSafe('progress\roverwritten'), 'progressoverwritten');
  assert.equal(terminalSafe('\x9b2Jspoof'), '\\u009b2Jspoof');
  assert.equal(
    terminalSafe('\x1b[31mred\x1b[0m and \x1b[1;32mgreen\x1b[m\tok\n'),
    '\x1b[31mred\x1b[0m and \x1b[1;32mgreen\x1b[m\tok\n',
  );
  assert.equal(terminalSafe('plain text, ünïcödé ✓'), 'plain text, ünïcödé ✓');
  // JSON: C0 is already escaped by JSON.stringify; C1 written as \u00XX keeps it exact
  const json = JSON.stringify({ out: '\x9b2J\b' });
  assert.deepEqual(JSON.parse(terminalSafe(json)), { out: '\x9b2J\b' });
});

test('stripAnsi also removes 8-bit CSI and OSC sequences', () => {
  assert.equal(stripAnsi('\x9b2J\x9b1;1Hspoofed'), 'spoofed');
  assert.equal(stripAnsi('\x9d0;title\x9cok'), 'ok');
  assert.equal(stripAnsi('\x1b[1mbold\x1b[0m'), 'bold');
});

// Random text over an alphabet of what escape sequences are made of (introducers, parameters, finals, terminators),
// controls and plain characters of 1, 2 and 3 UTF-8 bytes: a small generator with a fixed seed.
function randomTexts(count: number, maxLength: number): string[] {
  const alphabet = [
    '\x1b',
    '[',
    ']',
    '0',
    '1',
    ';',
    ':',
    'm',
    'H',
    '\\',
    '\x07',
    '\x9c',
    '\x9b',
    '\x9d',
    '\x7f',
    '\x80',
    '\x9f',
    '\xa0',
    '\r',
    '\b',
    '\t',
    '\n',
    'a',
    'ü',
    'µ',
    ' ',
    '/',
    '?',
    '@',
    '~',
    'P',
    '\x00',
    '\x1f',
    '_',
    'Z',
    '✓',
  ];
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const texts: string[] = [];
  for (let i = 0; i < count; i++) {
    let s = '';
    for (let j = next(maxLength); j > 0; j--) s += alphabet[next(alphabet.length)];
    texts.push(s);
  }
  return texts;
}

test('terminalSafe in one pass gives what its three steps gave: escapes but SGR removed, then C0, then C1 written out', () => {
  /* eslint-disable no-control-regex */
  const escapes = /\x1b\[[0-?]*[ -/]*(?:[@-~]|$)|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\|$)|\x1b[@-Z\\-_]|\x1b/g;
  const sgr = /^\x1b\[[0-9;:]*m$/;
  const reference = (s: string) =>
    s
      .replace(escapes, (seq) => (sgr.test(seq) ? seq : ''))
      .replace(/[\x00-\x08\x0b-\x1a\x1c-\x1f]/g, '')
      .replace(/[\x7f-\x9f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  /* eslint-enable no-control-regex */
  const texts = randomTexts(50_000, 24);
  const differing = texts.filter((s) => terminalSafe(s) !== reference(s));
  assert.deepEqual(
    differing.slice(0, 5).map((s) => JSON.stringify(s)),
    [],
  );
  // the alphabet does make sequences: most texts change
  assert.ok(texts.filter((s) => terminalSafe(s) !== s).length > texts.length / 2);
});

test('utf8IsTerminalSafe: true exactly when the CLI leaves the text as it is (terminalSafe, bidi controls written out), at any alignment', () => {
  const texts = randomTexts(20_000, 40);
  // long clean texts too, so that whole words are passed; and the same texts with one control put in
  const clean = (s: string) => terminalSafe(s).replace(/\\u00[0-9a-f]{2}/g, 'x');
  for (const s of texts.slice(0, 2000)) texts.push(clean(s).repeat(3), `${clean(s)}\x9b${clean(s)}`);
  // each control alone in plain ASCII, at every byte of a word
  for (let code = 0; code < 0xa0; code++) {
    if (code === 0x09 || code === 0x0a || (code >= 0x20 && code < 0x7f)) continue;
    for (let at = 0; at < 8; at++) texts.push(`${'a'.repeat(8 + at)}${String.fromCharCode(code)}${'b'.repeat(8)}`);
  }
  // each bidirectional control, and its UTF-8 neighbours that are not one (U+200D, U+2010, U+202F, U+2065, U+206A,
  // U+061B), likewise
  for (const code of [
    0x61c, 0x200e, 0x200f, 0x202a, 0x202e, 0x2066, 0x2069, 0x200d, 0x2010, 0x202f, 0x2065, 0x206a, 0x61b,
  ]) {
    for (let at = 0; at < 8; at++) texts.push(`${'a'.repeat(8 + at)}${String.fromCharCode(code)}${'b'.repeat(8)}`);
  }
  let safe = 0;
  for (const s of texts) {
    const bytes = Buffer.from(s, 'utf8');
    const expected = showBidiControls(terminalSafe(s)) === s;
    if (expected) safe += 1;
    for (let offset = 0; offset < 4; offset++) {
      const shifted = new Uint8Array(bytes.length + offset);
      shifted.set(bytes, offset);
      assert.equal(utf8IsTerminalSafe(shifted.subarray(offset)), expected, `${JSON.stringify(s)} at offset ${offset}`);
    }
  }
  assert.ok(safe > 2000 && safe < texts.length - 2000, `${safe} of ${texts.length} safe`);
  assert.equal(utf8IsTerminalSafe(Buffer.from('kernel\u202egnp.exe')), false, 'a bidi override is not passed raw');
  assert.equal(utf8IsTerminalSafe(Buffer.from('kernel\u200dname')), true, 'a zero-width joiner is');
});
